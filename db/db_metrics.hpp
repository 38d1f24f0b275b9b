// SPDX-License-Identifier: Apache-2.0
#pragma once

// What the database layer counts (the pooled connections, the LISTEN
// connection), read by /metrics from any thread; the actors that own them
// store their mailbox sizes here too.

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "db/feed_drift.hpp"
#include "messages/history.hpp"
#include "messages/metric_types.hpp"

namespace restcache {

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

/// Every restcache slot of the database as the listener last read them
/// (each drift check, under either feed: a slot left from the WAL feed
/// holds WAL under the triggers too), for /metrics: a slot whose instance
/// is gone shows through the living ones.
class slot_census {
public:
  struct slot {
    std::string name;
    bool active = false;
    std::string wal_status;
    int64_t retained_bytes = 0;
    int64_t unconfirmed_bytes = 0;
  };
  void set(std::vector<slot> slots) {
    std::lock_guard lock{mutex_};
    slots_ = std::move(slots);
  }
  std::vector<slot> get() const {
    std::lock_guard lock{mutex_};
    return slots_;
  }

private:
  mutable std::mutex mutex_;
  std::vector<slot> slots_;
};

/// The notify listener: its connection thread and its actor write these.
struct listener_metrics {
  std::atomic<uint64_t> changes_read{0};   ///< changed keys the polls read (not the replays)
  std::atomic<uint64_t> connects{0};       ///< sessions established with the change log
  std::atomic<int64_t> connected{0};
  std::atomic<int64_t> caught_up{0};       ///< connected and a mark applied since
  std::atomic<uint64_t> replayed{0};       ///< changes re-applied after a (re)connect: change-log entries, or what the slot streamed before catching up
  std::atomic<uint64_t> tier_drops{0};     ///< both tiers dropped: log pruned, or storm overflow
  std::atomic<uint64_t> tiers_carried{0};  ///< both tiers kept across a switch of feed
  std::atomic<uint64_t> truncates{0};      ///< TRUNCATEs of a watched table seen (live or replayed): both tiers dropped
  /// (Re)connects that found another history than the tiers held, by the
  /// rule that fired (history_rule; `same` is never counted).
  std::array<std::atomic<uint64_t>, history_rule_count> history_resets{};
  std::atomic<uint64_t> invalidations{0};  ///< keys sent to shards (after coalescing)
  std::atomic<uint64_t> pruned{0};         ///< change-log entries deleted by retention
  /// The change log's table and indexes in bytes, and the age of its oldest
  /// entry in seconds, as last measured (each prune interval); -1: not yet.
  std::atomic<int64_t> changelog_bytes{-1};
  std::atomic<int64_t> changelog_oldest_age_s{-1};
  /// Notifications of changes this instance's writes had applied already.
  std::atomic<uint64_t> already_applied{0};
  /// The replay watermark: every change of a transaction below this xid is applied.
  std::atomic<uint64_t> watermark{0};
  /// The WAL feed: slots found missing, invalidated or not matching the
  /// tiers (each dropped both tiers), and how far the slot is confirmed
  /// and the server's WAL had reached when it last said.
  std::atomic<uint64_t> slot_resets{0};
  std::atomic<uint64_t> slot_confirmed_lsn{0};
  std::atomic<uint64_t> slot_server_lsn{0};
  std::atomic<int64_t> feed_wal{0}; ///< 1 while the session follows the WAL feed
  /// The WAL relay (changelog.wal-relay): 1 while this instance leads it,
  /// 1 while the session reads it; windows of commits it wrote as leader,
  /// and restarts of the relay it made (a new slot: followers drop tiers).
  std::atomic<int64_t> relay_leading{0};
  std::atomic<int64_t> relay_following{0};
  std::atomic<uint64_t> relay_windows{0};
  std::atomic<uint64_t> relay_restarts{0};
  slot_census slots;                ///< the database's restcache slots, as last read
  std::atomic<uint64_t> applied_seq{0};    ///< highest change sequence applied
  std::atomic<int64_t> mailbox{0};         ///< the listener actor's mailbox, as it last reported it
  latency_histogram invalidation_latency;  ///< change made to dropped from both tiers
  latency_histogram poll_duration;         ///< a read of the change log sent to its rows decoded
  std::atomic<uint64_t> drift_checks{0};   ///< catalog checks of the watched tables (catalog_drift.hpp)
  /// Both tiers dropped because what the documents depend on changed in the
  /// catalog unseen (a trigger altered, a column's type, a table recreated).
  std::atomic<uint64_t> drift_drops{0};
  feed_drift drift;                        ///< the kinds bypassed for drift now, and why
  /// 1 while the declarations applied to the database are not those this
  /// instance serves (applied since it started): a restart serves them.
  std::atomic<int64_t> declarations_differ{0};
};

} // namespace restcache
