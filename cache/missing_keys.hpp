// SPDX-License-Identifier: Apache-2.0
#pragma once

// The "does not exist" answers one shard remembers, so that a storm of GETs
// for ids that do not exist reads PostgreSQL once per id and TTL. Plain C++
// (no actors), used by the shard under its own thread. Each costs
// missing_keys::charge_of(key) bytes, all of them at most a cap; every entry has
// the same TTL, so insertion order is also expiry order: the oldest go
// first, whether expired or over the cap.

#include <chrono>
#include <cstdint>
#include <deque>

#include <absl/container/flat_hash_map.h>

#include "cache/key_hash.hpp"
#include "messages/cache_types.hpp"

namespace restcache {

class missing_keys {
public:
  using time_point = std::chrono::steady_clock::time_point;

  /// Bytes one entry of an integer or short key costs: its table slot and
  /// queue slot with the allocator's share, 144 to 200 as the table's load
  /// swings between growths (a probe of 120,000 to 240,000 keys); the most
  /// is charged.
  static constexpr int64_t charge = 200;
  /// What remembering `key` costs: charge, and a long text key's bytes.
  static int64_t charge_of(const doc_key& key) noexcept { return charge + static_cast<int64_t>(key.heap_bytes()); }

  /// `max_bytes` below one charge, or a TTL of 0, keeps none.
  missing_keys(int64_t max_bytes, std::chrono::nanoseconds ttl) : max_bytes_(max_bytes), ttl_(ttl) {}
  missing_keys() = default; // keeps none

  bool keeps_any() const noexcept { return max_bytes_ >= charge && ttl_.count() > 0; }

  /// Remembers `key` as missing until now + TTL (replacing an older entry),
  /// then forgets the expired and the oldest past the cap. False when none
  /// are kept.
  bool remember(const doc_key& key, time_point now);
  /// True while `key` is remembered and not expired; an expired entry is
  /// forgotten.
  bool contains(const doc_key& key, time_point now);
  /// Forgets `key` (the INSERT that creates it, a document stored for it).
  void forget(const doc_key& key);
  /// Forgets the keys of the kinds (kind_bit).
  void forget_kinds(uint64_t kinds);
  void clear();

  size_t size() const noexcept { return entries_.size(); }
  bool empty() const noexcept { return entries_.empty(); }
  /// The sum of their charges: what they take of the shard's budget.
  int64_t bytes() const noexcept { return bytes_; }

private:
  struct entry {
    time_point expires;
    uint64_t generation = 0;
  };
  /// A queue slot; stale once its key was forgotten or remembered again
  /// (another generation), and skipped then.
  struct slot {
    doc_key key;
    uint64_t generation;
  };

  void trim(time_point now);

  int64_t max_bytes_ = 0;
  int64_t bytes_ = 0;
  std::chrono::nanoseconds ttl_{0};
  absl::flat_hash_map<doc_key, entry, doc_key_table_hash> entries_;
  std::deque<slot> order_; ///< oldest first
  uint64_t next_generation_ = 1;
};

} // namespace restcache
