// SPDX-License-Identifier: Apache-2.0
#pragma once

// The keys of some kinds in a table keyed by doc_key: collected first, so
// that the caller may erase them from the table it walked.

#include <cstdint>
#include <vector>

#include "messages/cache_types.hpp"
#include "messages/doc_catalogue.hpp"

namespace restcache {

template <class Table>
std::vector<doc_key> keys_of_kinds(const Table& table, uint64_t kinds) {
  std::vector<doc_key> keys;
  for (const auto& [key, value] : table)
    if (of_kinds(key, kinds))
      keys.push_back(key);
  return keys;
}

} // namespace restcache
