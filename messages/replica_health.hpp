// SPDX-License-Identifier: Apache-2.0
#pragma once

// What the replica monitor last saw of one streaming standby: written by its
// monitor thread, read by the shards when they choose where a fill reads and
// which WAL positions every standby has replayed.

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

namespace restcache {

struct replica_health {
  std::atomic<bool> up{false};          ///< the last probe answered
  std::atomic<bool> usable{false};      ///< up, a standby of the primary, no further behind than the limit
  std::atomic<bool> standby{false};     ///< in recovery, of the primary's system (standby_refusal)
  std::atomic<bool> in_recovery{true};  ///< false: the address reaches a primary now
  std::atomic<int64_t> lag_ms{0};       ///< since the last replayed commit, while WAL waits to be replayed
  std::atomic<uint64_t> replay_lsn{0};  ///< pg_last_wal_replay_lsn as of the last probe
  std::atomic<uint64_t> probes_failed{0};
};

/// Why a server named as a standby is not one fills may read from, or ""
/// when it is: it must be in recovery (a logical copy, or a server never or
/// no longer a standby, answers rows no WAL position vouches for) and a copy
/// of the primary's system (the same system identifier). `primary_id` 0: the
/// primary's is not known yet (it could not be asked).
inline std::string standby_refusal(bool in_recovery, uint64_t system_id, uint64_t primary_id) {
  if (!in_recovery)
    return "not a standby (not in recovery: a primary, a promoted standby or a logical copy)";
  if (primary_id == 0)
    return "not checked yet: the primary's system identifier could not be read";
  if (system_id != primary_id)
    return "not a standby of the primary (system identifier " + std::to_string(system_id) + ", the primary's "
           + std::to_string(primary_id) + ")";
  return {};
}

/// The least replay position over every standby (0 while one has not
/// answered yet, or when there are none): every WAL position at or below it
/// is replayed everywhere.
inline uint64_t replayed_everywhere(const std::vector<replica_health*>& replicas) noexcept {
  uint64_t least = UINT64_MAX;
  for (auto* r : replicas)
    least = std::min(least, r->replay_lsn.load(std::memory_order_acquire));
  return replicas.empty() ? 0 : least;
}

} // namespace restcache
