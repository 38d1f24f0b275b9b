// SPDX-License-Identifier: Apache-2.0
#pragma once

// Counters the actors update and /metrics reads from any thread. Plain
// relaxed atomics: a scrape needs no message round trip into the actors.

#include <array>
#include <atomic>
#include <cstdint>

#include "cache/memory_tier_gauges.hpp"
#include "messages/cache_types.hpp"
#include "messages/history.hpp"
#include "messages/metric_types.hpp"
#include "db/db_metrics.hpp"

namespace restcache {

/// The memory tier's gauges (entries, negative_entries, bytes, evictions)
/// are its base: the shard's tier updates them itself.
struct cache_metrics : memory_tier_gauges {
  std::atomic<uint64_t> hits{0};
  std::atomic<uint64_t> tier_hits{0};    ///< misses answered from the LMDB tier
  std::atomic<uint64_t> misses{0};       ///< lookups not answered from memory
  std::atomic<uint64_t> coalesced{0};    ///< misses that joined a fill in flight
  std::atomic<uint64_t> fills{0};        ///< fills started
  std::atomic<uint64_t> fill_errors{0};
  std::atomic<uint64_t> fills_discarded{0}; ///< fills overtaken by an invalidation
  std::atomic<uint64_t> invalidations{0};
  /// Incremented by the shard before it applies each invalidation. A
  /// populate batch read after observing value N is stored only while the
  /// shard still is at N (nothing it read can have been invalidated since).
  std::atomic<uint64_t> invalidation_epoch{0};
  std::atomic<uint64_t> populated{0};    ///< entries stored by cache.populate
  std::atomic<uint64_t> expired{0};      ///< documents found past their kind's TTL, read again
  std::atomic<uint64_t> over_cap{0};     ///< documents above their kind's max_bytes: answered, not kept
  /// Answers by Cache-Status, except memory and LMDB hits (those are `hits`
  /// and `tier_hits`: no second counter for one event).
  std::array<std::atomic<uint64_t>, cache_status_count> answers{};
  std::atomic<uint64_t> replica_fills{0};      ///< document reads sent to a standby
  std::atomic<uint64_t> replica_behind{0};     ///< standby answers older than the key's last change: not used
  std::atomic<uint64_t> replica_to_primary{0}; ///< fills that gave up on the standbys and read the primary
  std::atomic<int64_t> key_lsns{0};            ///< keys whose last change a standby may not have replayed yet
  /// The shard's mailbox size as it last reported it (only the owning actor
  /// may read its mailbox size in CAF 0.17).
  std::atomic<int64_t> mailbox{0};
};

} // namespace restcache
