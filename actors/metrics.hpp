#pragma once

// Counters the actors update and /metrics reads from any thread. Plain
// relaxed atomics: a scrape needs no message round trip into the actors.

#include <array>
#include <atomic>
#include <cstdint>

#include "messages/history.hpp"
#include "messages/metric_types.hpp"

namespace restcache {

struct cache_metrics {
  std::atomic<uint64_t> hits{0};
  std::atomic<uint64_t> tier_hits{0};    ///< misses answered from the LMDB tier
  std::atomic<uint64_t> misses{0};       ///< lookups not answered from memory
  std::atomic<uint64_t> coalesced{0};    ///< misses that joined a fill in flight
  std::atomic<uint64_t> fills{0};        ///< fills started
  std::atomic<uint64_t> fill_errors{0};
  std::atomic<uint64_t> fills_discarded{0}; ///< fills overtaken by an invalidation
  std::atomic<uint64_t> evictions{0};
  std::atomic<uint64_t> invalidations{0};
  /// Incremented by the shard before it applies each invalidation. A
  /// populate batch read after observing value N is stored only while the
  /// shard still is at N (nothing it read can have been invalidated since).
  std::atomic<uint64_t> invalidation_epoch{0};
  std::atomic<uint64_t> populated{0};    ///< entries stored by cache.populate
  std::atomic<int64_t> entries{0};
  std::atomic<int64_t> bytes{0};
  /// The shard's mailbox size as it last reported it (only the owning actor
  /// may read its mailbox size in CAF 0.17).
  std::atomic<int64_t> mailbox{0};
};

struct db_metrics {
  std::atomic<uint64_t> queries{0};          ///< statements run for requests
  std::atomic<uint64_t> query_errors{0};
  std::atomic<uint64_t> query_timeouts{0};
  std::atomic<uint64_t> reconnects{0};       ///< successful (re)connections
  std::atomic<int64_t> connections_up{0};
  std::atomic<int64_t> borrow_waiting{0};
  std::atomic<uint64_t> borrow_rejected{0};  ///< wait queue full: answered overloaded
  std::atomic<int64_t> in_use{0};            ///< connections lent out now
  std::atomic<int64_t> mailbox{0};           ///< the pool actor's mailbox, as it last reported it
  latency_histogram query_duration;          ///< a statement sent to its result decoded
};

/// The notify listener: its connection thread and its actor write these.
struct listener_metrics {
  std::atomic<uint64_t> notifications{0};  ///< change notifications received
  std::atomic<uint64_t> connects{0};       ///< LISTEN sessions established
  std::atomic<int64_t> connected{0};
  std::atomic<int64_t> caught_up{0};       ///< connected and a mark applied since
  std::atomic<uint64_t> replayed{0};       ///< change-log entries re-applied after a (re)connect
  std::atomic<uint64_t> tier_drops{0};     ///< both tiers dropped: log pruned, or storm overflow
  std::atomic<uint64_t> truncates{0};      ///< TRUNCATEs of dept or emp seen (live or replayed): both tiers dropped
  /// (Re)connects that found another history than the tiers held, by the
  /// rule that fired (history_rule; `same` is never counted).
  std::array<std::atomic<uint64_t>, history_rule_count> history_resets{};
  std::atomic<uint64_t> invalidations{0};  ///< keys sent to shards (after coalescing)
  std::atomic<uint64_t> pruned{0};         ///< change-log entries deleted by retention
  /// Notifications of changes this instance's writes had applied already.
  std::atomic<uint64_t> already_applied{0};
  /// The replay watermark: every change of a transaction below this xid is applied.
  std::atomic<uint64_t> watermark{0};
  std::atomic<uint64_t> applied_seq{0};    ///< highest change sequence applied
  std::atomic<int64_t> mailbox{0};         ///< the listener actor's mailbox, as it last reported it
  latency_histogram invalidation_latency;  ///< change made to dropped from both tiers
};

} // namespace restcache
