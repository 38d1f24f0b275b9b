// SPDX-License-Identifier: Apache-2.0
#pragma once

// The gzip representation of a document: compressed once, by the shard that
// holds it, and kept with it (cached_doc::gzip). zlib; no Beast, no CAF.

#include <memory>
#include <string>
#include <string_view>

#include "messages/cache_types.hpp"

namespace restcache {

/// Bodies smaller than this go out as they are: the gzip header and the
/// deflate overhead would eat the gain.
inline constexpr size_t gzip_min_bytes = 256;

/// The gzip member of `body` (level 1: the fastest; JSON still shrinks ~5x).
std::string gzip_compress(std::string_view body);

/// The strong ETag of the gzip representation of a document whose identity
/// ETag is `etag`: "<hash>-gz". Strong ETags must differ per encoding.
std::string gzip_etag(std::string_view etag);

/// The gzip variant of `doc` (body compressed, ETag marked).
std::unique_ptr<const encoded_variant> make_gzip_variant(const cached_doc& doc);

} // namespace restcache
