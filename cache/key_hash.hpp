#pragma once

// The hash the shard's tables use for a document key.

#include <cstddef>
#include <cstdint>
#include <utility>

#include <absl/hash/hash.h>

#include "messages/cache_types.hpp"

namespace restcache {

/// Not doc_key_hash: the keys of one shard share that hash modulo the shard
/// count, which would cost the table's low bits.
struct doc_key_table_hash {
  size_t operator()(const doc_key& k) const noexcept {
    return absl::Hash<std::pair<int, int32_t>>{}({static_cast<int>(k.kind), k.id});
  }
};

} // namespace restcache
