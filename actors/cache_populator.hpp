// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <vector>

#include "config/defaults.hpp"
#include "actors/actors.hpp"
#include "actors/batch_writer.hpp"
#include "actors/metrics.hpp"

namespace restcache {

struct cache_populator_config {
  int32_t page_size = defaults::cache_populate_page; ///< documents per query
  int64_t memory_bytes = 0;        ///< the memory tier's whole budget
  /// The kinds populated, one after the other (each has a populate plan).
  std::vector<doc_kind> kinds;
  double fill_ratio = 0.95;        ///< stop once this share of the budget is used
  std::chrono::seconds progress_interval{5};
  /// The notify listener's caught-up flag: pages read before it is set could
  /// miss a change, so populate starts once it is 1. Null: start at once.
  const std::atomic<int64_t>* caught_up = nullptr;
  /// The batch writer's counters: the next page waits while more than
  /// `writer_high_water` records are queued or in its mailbox (backpressure
  /// instead of drops). Null: no LMDB tier.
  const batch_metrics* writer = nullptr;
  int64_t writer_high_water = 20'000;
};

struct cache_populator_state {
  static inline const char* name = "cache_populator";
  cache_populator_config cfg;
  db_pool_actor pool;
  std::vector<cache_shard_actor> shards;
  std::vector<cache_metrics>* metrics = nullptr;
  db_lease lease;
  size_t kind_at = 0;              ///< the kind being read (cfg.kinds)
  std::string after;               ///< the last key of it read (its spelling)
  int64_t total = -1;              ///< the kind's documents, once counted
  int64_t sent = 0;
  std::vector<uint64_t> epochs;    ///< each shard's invalidation epoch when the page was asked for
  std::chrono::steady_clock::time_point started;
  std::chrono::steady_clock::time_point last_report;

  int64_t cached_bytes() const;
  doc_kind kind() const { return cfg.kinds[kind_at]; }
  /// From the first key of the kind at kind_at.
  void start_kind();
  void request_page(cache_populator_actor::stateful_pointer<cache_populator_state> self);
  void report(bool done);
};

/// Reads every document of each kind page by page (one query per page) and
/// hands them to their shards, logging progress, until the kinds are read
/// or the memory budget is nearly used; then quits.
cache_populator_actor::behavior_type
cache_populator(cache_populator_actor::stateful_pointer<cache_populator_state> self,
                cache_populator_config cfg, db_pool_actor pool,
                std::vector<cache_shard_actor> shards, std::vector<cache_metrics>* metrics);

} // namespace restcache
