// SPDX-License-Identifier: Apache-2.0
#pragma once

// What a shard's memory tier holds, for /metrics: written by the shard's
// tier only, read from any thread.

#include <atomic>
#include <cstdint>

namespace restcache {

struct memory_tier_gauges {
  std::atomic<int64_t> entries{0};
  std::atomic<int64_t> negative_entries{0}; ///< "does not exist" entries held
  std::atomic<int64_t> bytes{0};            ///< documents, gzip variants, missing keys
  std::atomic<uint64_t> evictions{0};
};

} // namespace restcache
