// SPDX-License-Identifier: Apache-2.0
#pragma once

// What one shard knows of its streaming standbys (db.replicas): which
// standby a fill reads next, the WAL position each changed key's fill must
// see there, and whether a standby's answer may be used, retried a moment
// later, or replaced by a read of the primary. Plain C++ used under the
// shard's thread; the standbys' health is what the replica monitor last saw.

#include <array>
#include <chrono>
#include <cstdint>
#include <deque>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include <absl/container/flat_hash_map.h>

#include "cache/key_hash.hpp"
#include "config/defaults.hpp"
#include "messages/cache_types.hpp"
#include "messages/replica_health.hpp"

namespace restcache {

class replica_tracker {
public:
  using time_point = std::chrono::steady_clock::time_point;

  struct config {
    /// One per standby, in the order of the shard's standby pools. Empty:
    /// every fill reads the primary.
    std::vector<replica_health*> standbys;
    /// A standby's document is used only if the standby had replayed the
    /// WAL position of the key's last change (db.replica-lsn-check; off only
    /// to show what a naive standby read serves).
    bool lsn_check = true;
    /// How long a fill waits for a standby to replay a key's change before
    /// it reads the primary instead (db.replica-wait-ms).
    std::chrono::nanoseconds wait{std::chrono::milliseconds{defaults::db_replica_wait_ms}};
    /// Keys remembered with a WAL position to wait for, at most; past it the
    /// highest position becomes every key's (one wait for all, never a
    /// stale read).
    size_t max_key_lsns = 100'000;
  };

  /// What a fill read on a standby brought.
  struct answer {
    bool on_standby = false;  ///< the server that answered was in recovery
    uint64_t replay_lsn = 0;  ///< how far it had replayed when it read
    bool unreachable = false; ///< no document and no "does not exist"
  };
  enum class next_step {
    use,           ///< the answer stands (or the fill never read a standby)
    retry_standby, ///< read a standby again after `retry_in`
    read_primary,  ///< give up on the standbys
  };
  struct judgement {
    next_step step = next_step::use;
    bool behind = false; ///< the standby had not replayed the key's change
    std::chrono::nanoseconds retry_in{0};
  };

  explicit replica_tracker(config cfg) : cfg_(std::move(cfg)) {}
  replica_tracker() = default; ///< no standbys

  bool any() const noexcept { return !cfg_.standbys.empty(); }

  /// A change to `key` at WAL position `lsn` (0: none known): a standby
  /// fill of the key must see it.
  void note_change(const doc_key& key, uint64_t lsn);
  /// A change at `lsn` to a row whose old key is not known, held by
  /// documents of the kinds (kind_bit): a standby fill of any key of
  /// theirs must see it.
  void note_kinds(uint64_t kinds, uint64_t lsn);
  /// The WAL position a standby must have replayed for a fill of `key`;
  /// `listener_floor` is the position every key needs (the listener's).
  uint64_t needed_lsn(const doc_key& key, uint64_t listener_floor) const;
  /// Forgets the positions every standby has replayed; past max_key_lsns,
  /// all of them (the floor rises to the highest).
  void forget_replayed();
  /// Keys whose last change a standby may not have replayed yet.
  size_t waiting_keys() const noexcept { return key_lsns_.size(); }

  /// The standby fill `id` of `key` reads next: the next usable one, round
  /// robin, remembered with the position it must see and when the fill
  /// first went to a standby (both kept across retries). nullopt when none
  /// is usable.
  std::optional<size_t> route(const doc_key& key, uint64_t id, uint64_t listener_floor,
                              time_point now);
  /// The fill reads the primary after all (or ended): forgets it. True
  /// when it had gone to a standby.
  bool forget_fill(uint64_t id) { return fills_.erase(id) > 0; }
  bool on_standby(uint64_t id) const { return fills_.count(id) > 0; }
  /// What to do with the answer of fill `id`, which has not ended: a
  /// standby behind the key's change is read again every 10 ms within the
  /// wait, then the primary is; an unreachable standby sends the fill to
  /// the primary at once. A used answer forgets the fill.
  judgement judge(uint64_t id, const answer& a, time_point now);
  /// Fills reading a standby now.
  size_t standby_fills() const noexcept { return fills_.size(); }

private:
  struct standby_fill {
    uint64_t need_lsn = 0;
    size_t standby = 0;
    time_point began;
  };

  config cfg_;
  absl::flat_hash_map<doc_key, uint64_t, doc_key_table_hash> key_lsns_;
  /// Oldest first: forgotten once every standby has replayed them.
  std::deque<std::pair<uint64_t, doc_key>> lsn_order_;
  /// The highest position forgotten: every key needs it.
  uint64_t lsn_floor_ = 0;
  /// Per kind: the position every key of the kind needs (note_kinds).
  std::array<uint64_t, 64> kind_lsns_{};
  std::unordered_map<uint64_t, standby_fill> fills_;
  size_t next_standby_ = 0;
};

} // namespace restcache
