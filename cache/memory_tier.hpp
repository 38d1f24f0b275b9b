// SPDX-License-Identifier: Apache-2.0
#pragma once

// The documents one shard keeps in memory: a flat table under a byte budget,
// evicted by CLOCK (second chance). The shard's "does not exist" answers
// (missing_keys) and each document's gzip variant, once a client asked for
// it, count in the same budget. Plain C++ used under the shard's thread; the
// gauges it keeps current are read by /metrics from other threads.

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include <absl/container/flat_hash_map.h>

#include "cache/key_hash.hpp"
#include "cache/memory_tier_gauges.hpp"
#include "cache/missing_keys.hpp"
#include "messages/cache_types.hpp"

namespace restcache {

class memory_tier {
public:
  using time_point = missing_keys::time_point;

  struct entry {
    doc_ptr doc;
    int64_t charge = 0;      ///< bytes counted against the budget
    uint64_t generation = 0; ///< matches the CLOCK slot that owns this entry
    bool referenced = false; ///< CLOCK bit: set on a hit, cleared by the hand
    /// The change sequence the document was read at (fill start, populate,
    /// LMDB read): it reflects every change up to it. Shown by inspection.
    uint64_t seq = 0;
    /// When it stops being answered (its kind's TTL after it was read);
    /// time_point::max() for a kind without one.
    time_point expires = time_point::max();

    /// Whether it may still be answered at `now` (the clock is read only
    /// for a kind with a TTL).
    template <class Now>
    bool live(Now&& now) const {
      return expires == time_point::max() || now() < expires;
    }
  };

  /// Bytes a cached document costs: its body and ETag plus a fixed overhead
  /// for the table slot, the shared control block and the CLOCK slot.
  static int64_t charge_of(const cached_doc& doc) noexcept;

  /// `budget` bytes for documents and missing keys together; `missing`
  /// says how many missing keys are kept and for how long.
  memory_tier(int64_t budget, missing_keys missing, memory_tier_gauges& gauges)
    : budget_(budget), missing_(std::move(missing)), gauges_(&gauges) {}
  /// Keeps nothing (a budget of 0) until one is assigned.
  memory_tier() = default;

  /// A hit: the key's entry, its CLOCK bit set; nullptr when not held.
  entry* hit(const doc_key& key) noexcept {
    auto i = entries_.find(key);
    if (i == entries_.end())
      return nullptr;
    i->second.referenced = true;
    return &i->second;
  }
  /// The key's entry, not marked as used (inspection, stale answers).
  const entry* peek(const doc_key& key) const noexcept {
    auto i = entries_.find(key);
    return i == entries_.end() ? nullptr : &i->second;
  }
  bool contains(const doc_key& key) const noexcept { return entries_.contains(key); }

  /// Keeps `doc`, read at change sequence `seq`, for `key` (in place of
  /// its document or missing mark) until `expires`, then evicts down to the
  /// budget. False when the document alone is larger than the budget: it is
  /// not kept.
  bool store(const doc_key& key, doc_ptr doc, uint64_t seq, time_point expires = time_point::max());
  /// A client asked for the entry's document gzip-encoded: compresses it
  /// once, keeps the variant with the document and charges it to the
  /// budget, which may evict this entry too: do not use `e` afterwards.
  void keep_gzip(entry& e);
  /// Drops the key's document, if held.
  void drop(const doc_key& key);
  /// A change to `key`: drops its document and its missing mark (the
  /// INSERT that creates it).
  void forget(const doc_key& key) {
    drop(key);
    forget_missing(key);
  }
  /// Drops the documents and missing marks of the kinds (kind_bit).
  void drop_kinds(uint64_t kinds);
  /// The keys whose documents hold the table row (cached_doc::rows), for a
  /// change that names the row and not its old key.
  std::vector<doc_key> holding(std::string_view row) const;
  /// Rows the documents held know of, each once.
  size_t rows_known() const noexcept { return holders_.size(); }
  /// Drops everything.
  void clear();

  /// Remembers that `key` does not exist (dropping its document), then
  /// evicts down to the budget; false when no missing keys are kept.
  bool remember_missing(const doc_key& key, time_point now);
  /// True while `key` is remembered as missing and not expired (an expired
  /// mark is forgotten). One test of a size when none are held.
  bool known_missing(const doc_key& key, time_point now) {
    return !missing_.empty() && known_missing_slow(key, now);
  }
  void forget_missing(const doc_key& key) {
    if (!missing_.empty())
      forget_missing_slow(key);
  }

  size_t size() const noexcept { return entries_.size(); }
  size_t missing_count() const noexcept { return missing_.size(); }
  /// Bytes held: documents, their gzip variants and missing keys.
  int64_t bytes() const noexcept { return bytes_; }
  int64_t budget() const noexcept { return budget_; }
  /// CLOCK slots, live and stale: at most twice the entries and a constant.
  size_t clock_slots() const noexcept { return clock_.size(); }

private:
  struct clock_slot {
    doc_key key;
    uint64_t generation;
  };
  /// Each row some held document knows, with the keys holding it (mostly
  /// one: the document of the row's key).
  absl::flat_hash_map<std::string, std::vector<doc_key>> holders_;

  /// Runs `change` on the missing keys and carries what it added or removed
  /// into the budget and the gauges.
  template <class Change>
  void change_missing(Change&& change);
  bool known_missing_slow(const doc_key& key, time_point now);
  void forget_missing_slow(const doc_key& key);
  using table = absl::flat_hash_map<doc_key, entry, doc_key_table_hash>;

  void add_bytes(int64_t n) noexcept;
  /// Removes an entry, taking its charge off the budget and the gauges.
  void erase(table::iterator i);
  void evict_until_within_budget();

  int64_t budget_ = 0;
  int64_t bytes_ = 0;
  /// Open addressing: a hit is one probe into a flat array rather than a
  /// walk to a separately allocated node.
  table entries_;
  /// The CLOCK ring as a queue: the hand pops the front; a referenced entry
  /// gets its bit cleared and goes to the back. Slots whose generation no
  /// longer matches (the entry was dropped or replaced) are skipped.
  std::deque<clock_slot> clock_;
  uint64_t next_generation_ = 1;
  /// Checked only on a miss, never on a hit.
  missing_keys missing_;
  memory_tier_gauges* gauges_ = nullptr;
};

} // namespace restcache
