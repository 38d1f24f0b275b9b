// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <array>
#include <caf/actor_clock.hpp>
#include <caf/fwd.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

#include <absl/container/flat_hash_map.h>
#include <absl/container/flat_hash_set.h>

#include "config/defaults.hpp"
#include "actors/actors.hpp"
#include "cache/key_hash.hpp"
#include "cache/fill_table.hpp"
#include "cache/kind_limits.hpp"
#include "cache/memory_tier.hpp"
#include "cache/replica_tracker.hpp"
#include "actors/batch_writer.hpp"
#include "actors/listener_status.hpp"
#include "db/feed_drift.hpp"
#include "actors/metrics.hpp"
#include "messages/replica_health.hpp"

namespace restcache {

struct cache_shard_config {
  cache_mode mode = cache_mode::memory;
  int64_t memory_bytes = 256 << 20;  ///< this shard's byte budget
  std::chrono::milliseconds fill_timeout{defaults::cache_fill_timeout_ms};
  /// tiered and lmdb modes: this shard's reader of the second tier, and the
  /// writer that fills it.
  std::shared_ptr<tier_reader> tier{};
  batch_writer_actor writer{};
  /// The writer's counters and bound: records beyond it are not sent (the
  /// writer's mailbox stays bounded while it commits). Null: no bound.
  batch_metrics* writer_metrics = nullptr;
  int64_t writer_max_pending = defaults::lmdb_max_queue;
  /// The notify listener's state. While it is not caught up every GET goes
  /// to PostgreSQL and nothing is kept, as in mode none; a fill that cannot
  /// reach the database then answers what was cached before (stale-if-error).
  /// Null: always caught up, never stale.
  listener_status* listener = nullptr;
  /// cache.stale-if-error: how long after the listener was last caught up a
  /// cached document may answer a fill that failed (0: never).
  std::chrono::seconds stale_if_error{defaults::cache_stale_if_error};
  /// cache.negative-ttl and the byte cap of "does not exist" entries.
  std::chrono::seconds negative_ttl{defaults::cache_negative_ttl};
  int64_t negative_bytes = 0; ///< 0: none kept
  /// A client's no-cache refresh of a key reaches PostgreSQL at most once per
  /// this interval; later ones in it are answered as lookups (0: no limit).
  std::chrono::milliseconds refresh_interval{defaults::cache_refresh_interval_ms};
  /// Keys remembered as refreshed in one interval, at most: past it no key
  /// is refreshed until the interval ends (the bound holds for a storm of
  /// random ids as for one hot key).
  size_t max_refreshed_keys = 100'000;
  /// Streaming standbys that fills read from (db.replicas): a pool each and
  /// its health as the replica monitor last saw it, in the same order.
  /// Empty: every fill reads the primary (`pool`). Bypassed fills always do.
  std::vector<db_pool_actor> replicas{};
  std::vector<replica_health*> replica_states{};
  /// A standby's document is used only if the standby had replayed the WAL
  /// position of the key's last change (db.replica-lsn-check; off only to
  /// show, in tests and benches, what a naive standby read serves).
  bool replica_lsn_check = true;
  /// How long a fill waits for a standby to replay a key's change before it
  /// reads the primary instead (db.replica-wait-ms).
  std::chrono::milliseconds replica_wait{defaults::db_replica_wait_ms};
  /// Keys remembered with a WAL position to wait for, at most; past it the
  /// highest position becomes every key's (one wait for all, never a stale read).
  size_t max_key_lsns = 100'000;

  /// The kinds the listener found drifted (db/feed_drift.hpp): bypassed
  /// as while it is not caught up. Null: none ever.
  const feed_drift* drift = nullptr;

  bool bypassed() const noexcept {
    return mode == cache_mode::none
           || (listener != nullptr && listener->bypass.load(std::memory_order_relaxed));
  }
  bool bypassed(doc_kind kind) const noexcept { return bypassed() || (drift != nullptr && drift->drifted(kind)); }
  bool uses_memory() const noexcept { return mode == cache_mode::memory || mode == cache_mode::tiered; }
  bool uses_tier() const noexcept {
    return tier != nullptr && (mode == cache_mode::tiered || mode == cache_mode::lmdb);
  }
};

/// A fill's read that holds a connection: borrowed from `pool`, given back
/// when the read's answer comes (filled).
struct held_read {
  db_pool_actor pool;
  db_lease lease;
  int tries = 1; ///< reads of the fill on this pool so far
};

struct cache_shard_state {
  static inline const char* name = "cache_shard";

  using waiter_list = fill_table::waiter_list;

  cache_shard_config cfg;
  db_pool_actor pool;
  cache_metrics* metrics = nullptr;

  /// The documents and "does not exist" answers kept, under the budget.
  memory_tier memory;
  /// Each kind's TTL and size cap (from the catalogue).
  kind_limits limits;
  /// Keys refreshed (no-cache) in the interval that ends at refresh_window_end.
  absl::flat_hash_set<doc_key, doc_key_table_hash> refreshed;
  caf::actor_clock::time_point refresh_window_end{};

  /// The fills in flight (one per key; later misses join it), those
  /// overtaken by a change, and their deadlines: one timer message for the
  /// earliest replaces a timer per fill (each of which woke the clock thread
  /// twice and the shard once).
  fill_table fills;
  bool fill_timer_armed = false;
  /// The connections the fills' reads hold, by fill id. The shard holds
  /// them itself (no actor per fill): a miss costs the borrow, its answer,
  /// the read's answer and the release.
  absl::flat_hash_map<uint64_t, held_read> reads;
  /// Invalidations applied so far (mirrored in metrics->invalidation_epoch).
  uint64_t epoch = 0;
  /// The highest change sequence of the invalidations applied so far. Records
  /// for the second tier carry it, so a restart can tell a record from
  /// before a change it has replayed (from the change log, after a restart) from one after.
  uint64_t applied_seq = 0;
  /// Keys invalidated whose delete the batch writer has not confirmed yet,
  /// with the number of such deletes in flight: a tier read must not bring
  /// them back.
  std::unordered_map<doc_key, uint32_t, doc_key_hash> shielded;
  /// Clears of the second tier in flight: no tier read at all meanwhile.
  uint32_t clears_in_flight = 0;
  /// Per kind: changed rows whose documents the batch writer has not yet
  /// dropped from the second tier (it alone knows which they are): no tier
  /// read of the kind meanwhile.
  std::array<uint32_t, 64> row_shields{};

  /// The standbys fills read from: the WAL position each changed key must
  /// see there, and the fills reading one now.
  replica_tracker replicas;

  /// Whether a no-cache refresh of `key` may reach PostgreSQL now: once per
  /// key per cfg.refresh_interval (remembered when it may).
  bool may_refresh(const doc_key& key, caf::actor_clock::time_point now);
  /// A fill of `key` failed with `error`: when PostgreSQL could not be
  /// reached or timed out and the key was cached before the listener lost
  /// the database within cfg.stale_if_error, that document marked
  /// stale-if-error; else nullopt.
  std::optional<lookup_result> stale_answer(const doc_key& key, rc_error error);
  /// Answers every waiter of a fill with `result`, each marked as it waited
  /// (unless the result carries a mark of its own); `kept` says whether the
  /// fill's answer was stored.
  void answer_fill(waiter_list& waiters, const lookup_result& result, bool kept);
  /// Counts one answer of `status` (memory hits are counted as hits).
  void count_answer(cache_status status) noexcept;
  /// The position every key's standby fill needs: the listener's floor.
  uint64_t listener_lsn_floor() const noexcept;
  /// A change to `key`: drop it, and a fill in flight for it keeps nothing.
  void apply_change(const key_change& change);
  bool tier_readable(const doc_key& key) const {
    return cfg.uses_tier() && clears_in_flight == 0 && shielded.count(key) == 0
           && row_shields[static_cast<size_t>(key.kind()) & 63] == 0 && limits.in_tier(key);
  }
  /// Changed rows: drops the documents memory holds them in, treats the
  /// fills in flight of their kinds as overtaken (each may have read a row
  /// before its change) and has the writer drop the second tier's.
  void apply_rows(cache_shard_actor::pointer self, const row_batch& rows);
  /// Counts a shield of the kinds from tier reads on, or one off.
  void shield_kinds(uint64_t kinds, bool on);
  /// Reads fill `id` of the key on `pool`: borrows a connection and runs the
  /// key's statement on it; the answer (or the borrow's failure) comes back
  /// as filled. No timeout on the borrow: the fill's deadline is the shard's
  /// fill timer, and the pool answers at once when it is full or down.
  void read_fill(cache_shard_actor::stateful_pointer<cache_shard_state> self, const db_pool_actor& from,
                 const doc_key& key, uint64_t id, int tries = 1);
  /// Gives back the connection fill `id` held, if any; whether the fill
  /// reads again (reads_again) on the same pool.
  bool read_done(cache_shard_actor::stateful_pointer<cache_shard_state> self, const doc_key& key, uint64_t id,
                 rc_error error);
  /// Arms the fill timer for the earliest deadline unless it is armed.
  void arm_fill_timer(cache_shard_actor::pointer self);
  /// The fill timer fired: answers every fill past its deadline with
  /// db_timeout and re-arms for the next one.
  void expire_fills(cache_shard_actor::pointer self);
  /// Hands a document that is current to the batch writer (tier modes; not
  /// for a kind with a TTL, kept in memory only).
  void write_through(cache_shard_actor::pointer self, const doc_key& key, const doc_ptr& doc,
                     uint64_t seq);
  /// Deletes `changes`' keys from LMDB through the batch writer, which so
  /// sees a key's records and deletes in the order this shard decides; the
  /// keys are not read from the tier until the delete commits (tier modes).
  void delete_from_tier(cache_shard_actor::pointer self, const change_batch& changes);
  /// What the shard holds (the inspect handler).
  actor_report report(cache_shard_actor::pointer self) const;
  /// What the shard holds for `key` (the memory copy, its LMDB record read
  /// with this shard's tier reader, fill, shield, sequences).
  key_report report_key(const doc_key& key) const;
};

cache_shard_actor::behavior_type
cache_shard(cache_shard_actor::stateful_pointer<cache_shard_state> self, cache_shard_config cfg,
            db_pool_actor pool, cache_metrics* metrics);

} // namespace restcache
