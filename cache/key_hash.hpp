// SPDX-License-Identifier: Apache-2.0
#pragma once

// The hash the shard's tables use for a document key.

#include <cstddef>
#include <cstdint>

#include <absl/hash/hash.h>

#include "messages/cache_types.hpp"

namespace restcache {

/// Not the key's own hash as it is: the keys of one shard share it modulo
/// the shard count, which would cost the table's low bits; mixed again.
struct doc_key_table_hash {
  size_t operator()(const doc_key& k) const noexcept { return absl::Hash<uint64_t>{}(k.hash()); }
};

} // namespace restcache
