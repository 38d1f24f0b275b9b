#pragma once

// Content-Encoding: gzip for clients that ask (Accept-Encoding). zlib; no
// Beast here.

#include <string>
#include <string_view>

namespace restcache::http {

/// Bodies smaller than this go out as they are: the gzip header and the
/// deflate overhead would eat the gain.
inline constexpr size_t gzip_min_bytes = 256;

/// True when an Accept-Encoding value accepts gzip (or *) with a q above 0.
bool accepts_gzip(std::string_view accept_encoding) noexcept;

/// The gzip member of `body` (level 1: the fastest; JSON still shrinks ~5x).
std::string gzip_compress(std::string_view body);

/// The strong ETag of the gzip representation of a document whose identity
/// ETag is `etag`: "<hash>-gz". Strong ETags must differ per encoding.
std::string gzip_etag(std::string_view etag);

/// If-Match given for the gzip representation names the same document:
/// strips the "-gz" of every tag so it compares with the identity ETag.
std::string identity_etags(std::string_view if_match);

} // namespace restcache::http
