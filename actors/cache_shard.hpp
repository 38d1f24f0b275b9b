#pragma once

#include <caf/actor_clock.hpp>
#include <caf/fwd.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <optional>
#include <unordered_map>
#include <vector>

#include <absl/container/flat_hash_map.h>
#include <absl/hash/hash.h>

#include "config/defaults.hpp"
#include "actors/actors.hpp"
#include "actors/batch_writer.hpp"
#include "actors/metrics.hpp"

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
  /// Set while the notify listener is not caught up and
  /// cache.on-listener-loss=bypass: every GET goes to PostgreSQL and nothing
  /// is kept, as in mode none. Null: never.
  const std::atomic<bool>* bypass = nullptr;

  bool bypassed() const noexcept {
    return mode == cache_mode::none || (bypass != nullptr && bypass->load(std::memory_order_relaxed));
  }
  bool uses_memory() const noexcept { return mode == cache_mode::memory || mode == cache_mode::tiered; }
  bool uses_tier() const noexcept {
    return tier != nullptr && (mode == cache_mode::tiered || mode == cache_mode::lmdb);
  }
};

/// The shard's own table hash. Not doc_key_hash: the keys of one shard share
/// that hash modulo the shard count, which would cost the table's low bits.
struct doc_key_table_hash {
  size_t operator()(const doc_key& k) const noexcept {
    return absl::Hash<std::pair<int, int32_t>>{}({static_cast<int>(k.kind), k.id});
  }
};

struct cache_shard_state {
  static inline const char* name = "cache_shard";

  struct entry {
    doc_ptr doc;
    int64_t charge = 0;      ///< bytes counted against the budget
    uint64_t generation = 0; ///< matches the clock slot that owns this entry
    bool referenced = false; ///< CLOCK bit: set on a hit, cleared by the hand
    /// applied_seq when the document was read (fill start, populate, LMDB
    /// read): it reflects every change up to it. Shown by inspection.
    uint64_t seq = 0;
  };
  struct clock_slot {
    doc_key key;
    uint64_t generation;
  };
  struct fill {
    uint64_t id = 0;
    /// applied_seq when the fill started: its document is at least that new.
    uint64_t seq = 0;
    std::vector<reply_callback> waiters;
  };

  cache_shard_config cfg;
  db_pool_actor pool;
  cache_metrics* metrics = nullptr;

  /// Open addressing: a hit is one probe into a flat array rather than a
  /// walk to a separately allocated node.
  absl::flat_hash_map<doc_key, entry, doc_key_table_hash> entries;
  /// CLOCK ring as a queue: the hand pops the front; a referenced entry gets
  /// its bit cleared and goes to the back. Slots whose generation no longer
  /// matches (the entry was dropped or replaced) are skipped.
  std::deque<clock_slot> clock;
  int64_t bytes = 0;
  uint64_t next_generation = 1;

  /// The fill in flight per key; later misses join it.
  std::unordered_map<doc_key, fill, doc_key_hash> fills;
  /// Fills whose result must not be cached: overtaken by an invalidation
  /// (their waiters asked before it, so they still get the answer), or run
  /// in cache mode none.
  std::unordered_map<uint64_t, std::vector<reply_callback>> uncached_fills;
  uint64_t next_fill_id = 1;
  /// When each fill in flight times out, in start order. Every fill has the
  /// same cache.fill-timeout, so the front is always the next to expire, and
  /// one timer message for the front replaces a timer per fill (each of
  /// which woke the clock thread twice and the shard once).
  struct fill_deadline {
    caf::actor_clock::time_point at;
    doc_key key;
    uint64_t id;
  };
  std::deque<fill_deadline> fill_deadlines;
  bool fill_timer_armed = false;
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

  /// Stores a document read at change sequence `seq`, evicting under the budget.
  void store(const doc_key& key, doc_ptr doc, uint64_t seq);
  /// A client asked for the entry's document gzip-encoded: compresses it
  /// once, keeps the variant with the document and charges it to the
  /// budget (which may evict, this entry too: do not use `e` afterwards).
  void keep_gzip(entry& e);
  /// Drops the key's entry if present.
  void drop(const doc_key& key);
  /// Drops every entry.
  void drop_all();
  /// A change to `key`: drop it, and a fill in flight for it keeps nothing.
  void apply_change(const key_change& change);
  bool tier_readable(const doc_key& key) const {
    return cfg.uses_tier() && clears_in_flight == 0 && shielded.count(key) == 0;
  }
  void evict_until_within_budget();
  /// Removes fill `fill_id` of `key` and returns its waiters; `current` says
  /// whether it was the key's current fill (only then may its result be
  /// kept). nullopt when it is gone already (answered by its timeout).
  std::optional<std::vector<reply_callback>> take_fill(const doc_key& key, uint64_t fill_id,
                                                       bool& current, uint64_t& seq);
  /// True while fill `fill_id` of `key` has not been answered.
  bool fill_pending(const doc_key& key, uint64_t fill_id) const;
  /// Forgets the deadlines of fills answered already, from the front.
  void drop_answered_deadlines();
  /// Arms the fill timer for the front deadline unless it is armed.
  void arm_fill_timer(cache_shard_actor::pointer self);
  /// The fill timer fired: answers every fill past its deadline with
  /// db_timeout and re-arms for the next one.
  void expire_fills(cache_shard_actor::pointer self);
  /// Hands a document that is current to the batch writer (tier modes).
  void write_through(cache_shard_actor::pointer self, const doc_key& key, const doc_ptr& doc,
                     uint64_t seq);
  /// What the shard holds (the inspect handler).
  actor_report report(cache_shard_actor::pointer self) const;
  /// What the shard holds for `key` (the memory copy, its LMDB record read
  /// with this shard's tier reader, fill, shield, sequences).
  key_report report_key(const doc_key& key) const;
};

/// Bytes a cached document costs: its body and ETag plus a fixed overhead
/// for the map node, the shared control block and the CLOCK slot.
int64_t entry_charge(const cached_doc& doc) noexcept;

cache_shard_actor::behavior_type
cache_shard(cache_shard_actor::stateful_pointer<cache_shard_state> self, cache_shard_config cfg,
            db_pool_actor pool, cache_metrics* metrics);

} // namespace restcache
