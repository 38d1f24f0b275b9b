// SPDX-License-Identifier: Apache-2.0
#pragma once

// The fills one shard has in flight: a key's readers wait for one database
// read (later misses join it), a change to the key while it runs means its
// answer is given but not kept, and every fill has a deadline so a stuck
// query cannot hang readers. Plain C++ used under the shard's thread; the
// shard sends the reads, keeps the answers and arms one timer for
// next_deadline().

#include <chrono>
#include <cstdint>
#include <deque>
#include <optional>
#include <unordered_map>
#include <vector>

#include "messages/cache_types.hpp"

namespace restcache {

class fill_table {
public:
  using time_point = std::chrono::steady_clock::time_point;

  /// A reader waiting for a fill, and how its answer is marked if the fill
  /// brings one (stored, collapsed, refresh, bypass).
  struct waiter {
    reply_callback cb;
    cache_status how = cache_status::stored;
  };
  using waiter_list = std::vector<waiter>;

  /// A fill that ended (answered or past its deadline).
  struct ended {
    doc_key key;
    uint64_t id = 0;
    waiter_list waiters;
    /// Still the key's current fill: its answer may be kept. False when a
    /// change overtook it or it was started uncached.
    bool current = false;
    /// The change sequence when it started: its document is at least that new.
    uint64_t seq = 0;
  };

  /// Every fill ends by its answer or `timeout` after it started.
  explicit fill_table(std::chrono::nanoseconds timeout) : timeout_(timeout) {}
  fill_table() = default;

  /// Starts the key's current fill (none may be in flight), at change
  /// sequence `seq`, with `first` waiting; returns its id.
  uint64_t start(const doc_key& key, uint64_t seq, waiter first, time_point now);
  /// Starts a fill whose answer is not kept (the cache bypassed); returns its id.
  uint64_t start_uncached(const doc_key& key, waiter first, time_point now);
  /// Adds `cb` to the key's current fill, its answer marked `how`; false
  /// (and `cb` untouched) when none is in flight.
  bool join(const doc_key& key, reply_callback& cb, cache_status how);
  /// True while the key has a current fill.
  bool in_flight(const doc_key& key) const { return current_.count(key) > 0; }
  /// The change sequence the key's current fill started at, if one runs.
  std::optional<uint64_t> current_seq(const doc_key& key) const;

  /// A change to `key`: its current fill may have read the row before the
  /// change committed, so its answer will not be kept (its readers, who
  /// asked before, still get it). True when there was one.
  bool overtake(const doc_key& key);
  /// Overtakes the current fills of the kinds (kind_bit), or of every kind;
  /// returns how many.
  size_t overtake_kinds(std::optional<uint64_t> kinds);

  /// Fill `id` of `key` answered: it ends. nullopt when it ended already
  /// (past its deadline).
  std::optional<ended> finish(const doc_key& key, uint64_t id);
  /// True while fill `id` of `key` has not ended.
  bool pending(const doc_key& key, uint64_t id) const;
  /// Ends the fills whose deadline is `now` or earlier, in start order.
  std::vector<ended> expire(time_point now);
  /// The earliest deadline of a fill that has not ended; nullopt when none.
  std::optional<time_point> next_deadline();

  /// Current fills in flight, uncached or overtaken ones, readers waiting.
  size_t current_count() const noexcept { return current_.size(); }
  size_t uncached_count() const noexcept { return uncached_.size(); }
  size_t waiting_readers() const noexcept;

private:
  struct fill {
    uint64_t id = 0;
    uint64_t seq = 0;
    waiter_list waiters;
  };
  /// Every fill has the same timeout, so start order is deadline order and
  /// the front is always the next to expire.
  struct deadline {
    time_point at;
    doc_key key;
    uint64_t id;
  };

  uint64_t next_id(const doc_key& key, time_point now);
  void drop_ended_deadlines();

  std::chrono::nanoseconds timeout_{0};
  std::unordered_map<doc_key, fill, doc_key_hash> current_;
  /// Overtaken by a change, or started uncached, by id.
  std::unordered_map<uint64_t, waiter_list> uncached_;
  std::deque<deadline> deadlines_;
  uint64_t next_id_ = 1;
};

} // namespace restcache
