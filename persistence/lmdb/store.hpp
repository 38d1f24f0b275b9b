// SPDX-License-Identifier: Apache-2.0
#pragma once

// The LMDB tier's operations, all synchronous. Writes come from one thread at a
// time (the batch writer); reads from any thread, each with its own read_txn.
// Plain C++ (no CAF, no Beast).

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "persistence/record_store.hpp" // plain C++: the batch writer's interface
#include "messages/cache_types.hpp"
#include "persistence/lmdb/env.hpp"
#include "persistence/lmdb/record_codec.hpp"
#include "persistence/lmdb/txn.hpp"

namespace restcache::lmdb {

/// One document to store: key, the shared immutable doc the shard built (no
/// copy until it is written; a null doc is skipped) and its change/fill seq.
using record = tier_record;

/// A document read back: bytes copied out of the map into a fresh cached_doc.
struct stored_record {
  doc_ptr doc;
  uint64_t seq = 0;
};

/// What a scan of the records found.
struct scan_totals {
  size_t whole = 0;    ///< key and value decoded: visited
  size_t garbled = 0;  ///< the value failed to decode (never visited)
  size_t bad_keys = 0; ///< not a known kind followed by a key of its type (never visited)
};

struct store_counters {
  uint64_t evicted = 0;          ///< records evicted to stay under the budget
  uint64_t eviction_passes = 0;  ///< transactions that had to evict
  uint64_t map_full_retries = 0; ///< MDB_MAP_FULL caught and recovered from
  uint64_t cleared = 0;          ///< times the records were dropped wholesale
  uint64_t dropped_puts = 0;     ///< puts skipped: a batch larger than the whole map
  uint64_t garbled = 0;          ///< values that failed to decode (answered as a miss)
  uint64_t disk_full = 0;        ///< commits refused for a full file system (ENOSPC, EDQUOT, EIO)
  uint64_t read_errors = 0;      ///< reads that failed (answered as a miss)
};

/// Implements the batch writer's record_store, so the writer can use it as is.
class store : public record_store {
public:
  /// Evict once pages in use pass this share of the budget.
  static constexpr double high_water = 0.9;

  explicit store(const env_options& opts);

  lmdb::env& environment() noexcept { return env_; }

  /// The kinds whose records were dropped at open because the catalogue's
  /// kind of their id is another, or reads or writes them otherwise (its
  /// fingerprint changed), comma-separated; empty when none were.
  const std::string& dropped_kinds() const noexcept { return dropped_kinds_; }

  /// A snapshot for get(); keep it, reset() it after use, renew() before the next.
  read_txn begin_read() const { return read_txn(env_); }

  /// nullopt when absent or garbled (a garbled value counts in counters().garbled
  /// and is never served). The txn must be active.
  std::optional<stored_record> get(read_txn& txn, doc_key key) const;

  /// Visits every record of the txn's snapshot in key order (kind, then key),
  /// for inspection (tests, tools): a garbled value or a malformed key is
  /// counted in the result, not visited, and not added to counters().garbled.
  /// The value_view's etag and body point into the map: valid only during the
  /// call, copy them out. The txn must be active; the visitor must not write.
  scan_totals for_each(read_txn& txn,
                       const std::function<void(doc_key, const value_view&)>& visit) const;

  /// Deletes first (with their write_order entries), then the records
  /// holding a changed row (found in the rows database), then puts (a replaced
  /// key loses its old write_order entry), then the watermark, then eviction
  /// of the oldest-written records until the pages in use are under the
  /// budget less the room a commit needs: the pages the last commit freed
  /// (LMDB reuses them only a commit later) and the pages this one copies,
  /// at most high_water of the budget. One transaction when the tier has
  /// room for the batch as it is; else parts expected to copy
  /// part_churn_pages() each (the deletes and the watermark with the first).
  /// Never fails for lack of space in the map: a part that meets
  /// MDB_MAP_FULL waits for a reader holding an old snapshot to move on, or
  /// keeps more room for a while and is written in halves; a
  /// single record evicts in a transaction of its own and retries, then
  /// clears the records and retries, and finally is skipped (never the
  /// deletes or the watermark). A file system that is full (ENOSPC, EDQUOT,
  /// or EIO for a short write with no room left) is met the same way, after
  /// the budget is lowered to the pages the file already holds (freed pages
  /// are reused in place, so the file need not grow); the lowered budget
  /// holds until the disk has room for the whole budget again and a tenth of
  /// it to spare (checked at each batch). Other LMDB errors throw
  /// lmdb::error, and so does running out of space if even the clear cannot
  /// commit (a read_txn held active for long pins freed pages; a disk that
  /// cannot take a single page).
  void put_batch(const std::vector<record>& records, const std::vector<doc_key>& deletes,
                 std::optional<replay_watermark> watermark = std::nullopt,
                 const std::vector<std::string>& changed_rows = {});

  /// record_store: put_batch.
  void write(const std::vector<tier_record>& puts, const std::vector<doc_key>& deletes,
             const std::vector<std::string>& changed_rows, std::optional<replay_watermark> watermark) override {
    put_batch(puts, deletes, watermark, changed_rows);
  }

  /// Deletes in a small transaction of its own.
  void erase(const std::vector<doc_key>& keys);

  /// Drops every record (e.g. when the change log no longer reaches back to the
  /// watermark); sets the watermark and the history identity when given.
  void clear(std::optional<replay_watermark> watermark = std::nullopt,
             const std::optional<history_identity>& history = std::nullopt) override;

  /// record_store: erase_kinds, in transactions of erase_kinds_batch records.
  void erase_kinds(uint64_t kinds) override;
  static constexpr size_t erase_kinds_batch = 10'000;

  /// The replay watermark of the last commit that carried one; 0 if none yet.
  uint64_t watermark() const;
  /// The position that watermark was taken at (messages/feed_position.hpp),
  /// or empty when it came without one.
  std::string watermark_position() const;
  /// The witness entry stored with it (messages/feed_position.hpp), or empty.
  std::string watermark_witness() const;
  /// The catalog fingerprint stored with it, or empty.
  std::string watermark_catalog() const;
  /// The history the records belong to, as the last clear that named one
  /// stored it; nullopt for a new file (or one written before it was kept).
  std::optional<history_identity> history() const;
  /// This file's instance id ([a-z0-9], 16 characters), made and stored at
  /// the first call.
  std::string instance_id();
  size_t count() const;
  /// Pages in use by all databases times the page size.
  uint64_t bytes() const;
  /// The byte budget in force: lmdb.max-bytes, or less after the file
  /// system ran full.
  uint64_t budget_bytes() const noexcept;
  /// record_store: says when the budget was lowered for a full disk.
  std::string take_notice() override { return std::exchange(notice_, std::string{}); }

  /// Counts a read that failed (a store_reader answers it as a miss).
  void count_read_error() const noexcept { read_errors_.fetch_add(1, std::memory_order_relaxed); }
  store_counters counters() const;

private:
  void apply(MDB_txn* txn, const std::vector<record>& records, const std::vector<doc_key>& deletes,
             const std::vector<std::string>& changed_rows, std::optional<replay_watermark> watermark);
  /// Drops the rows entries of a record's rows (as a value_view holds them).
  void remove_rows(MDB_txn* txn, std::string_view rows, std::string_view records_key);
  /// Removes every record holding one of the rows (and its rows entries).
  void remove_holders(MDB_txn* txn, const std::vector<std::string>& rows);
  void remove_key(MDB_txn* txn, const key_bytes& k);
  uint64_t used_pages(MDB_txn* txn) const;
  /// used_pages() as the last commit left them.
  uint64_t pages_in_use() const;
  /// Pages in use to evict down to: the budget less the room the commit in
  /// flight needs (commit_room_ and reserve_pages_), at most high_water of it.
  uint64_t target_pages() const;
  /// LMDB's free list as the last commit left it: its own pages, the pages
  /// it lists, and its last entry (the pages the newest commit freed).
  struct free_list_state {
    uint64_t pages = 0;      ///< the free list's own pages
    uint64_t freed = 0;      ///< free pages it lists, all entries
    size_t last_txn = 0;     ///< the newest entry's commit
    uint64_t last_freed = 0; ///< the pages that commit freed
  };
  free_list_state free_list() const;
  /// Pages a commit of `records` puts and deletes adding `pages` new pages is
  /// expected to copy (and so to need anew), at churn_per_record_.
  uint64_t expected_churn(uint64_t pages, uint64_t records) const;
  /// The churn a part of a batch is sized to: a tenth of the budget (a
  /// commit keeps room for two: its own and what the last one freed).
  uint64_t part_churn_pages() const;
  void evict_to(MDB_txn* txn, uint64_t target);
  void evict_in_own_txn();
  void tick();
  /// New pages records will dirty, added up one record at a time.
  struct page_estimate {
    uint64_t pages = 0, small_bytes = 0, records = 0, order_bytes = 0;
    void add(const record& r, uint64_t psize);
    uint64_t total(uint64_t psize) const;
  };
  uint64_t estimate_pages(const std::vector<record>& records) const;
  /// One transaction of put_batch (a batch too large for one is split).
  void put_part(const std::vector<record>& records, const std::vector<doc_key>& deletes,
                const std::vector<std::string>& changed_rows, std::optional<replay_watermark> watermark,
                const free_list_state& fl);
  /// free_list(), and churn_per_record_ updated from what the last part freed.
  free_list_state measure_last_commit();
  /// The commit failed for want of space: in the map, or on the disk (also
  /// when LMDB says EIO for a short write and the disk has no room left).
  bool out_of_space(const error& e) const;
  /// The file system is full: the budget becomes what the file holds.
  void lower_budget_to_file();
  /// The disk has room again: the budget goes back to lmdb.max-bytes.
  void restore_budget_if_disk_has_room();
  /// At open: drops the records of kind ids the file's registry says
  /// another kind wrote, and registers the catalogue's kinds.
  void reconcile_kinds();

  lmdb::env env_;
  /// Pages kept free for the commit in flight: what the last commit freed
  /// (not reusable yet) plus what this one is expected to copy.
  uint64_t commit_room_ = 0;
  /// More room, learned from each MDB_MAP_FULL (at most a quarter of the
  /// budget) and given back a little at each commit that finds room.
  uint64_t reserve_pages_ = 0;
  /// Pages a put or delete frees (the leaf it copies, the eviction it causes,
  /// a replaced value's overflow pages), as the last parts measured it.
  double churn_per_record_ = 3.0;
  size_t last_part_txn_ = 0;
  uint64_t last_part_records_ = 0;
  std::atomic<uint64_t> evicted_{0}, eviction_passes_{0}, map_full_retries_{0}, cleared_{0},
    dropped_puts_{0}, disk_full_{0};
  /// The map's pages, or fewer once the file system ran full.
  std::atomic<uint64_t> budget_pages_{0};
  mutable std::atomic<uint64_t> garbled_{0}, read_errors_{0};
  std::string notice_; ///< for take_notice (the writer's thread only)
  std::string dropped_kinds_;
};

} // namespace restcache::lmdb
