// SPDX-License-Identifier: Apache-2.0
#pragma once

// What the replica monitor last saw of one streaming standby: written by its
// monitor thread, read by the shards when they choose where a fill reads and
// which WAL positions every standby has replayed.

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <vector>

namespace restcache {

struct replica_health {
  std::atomic<bool> up{false};          ///< the last probe answered
  std::atomic<bool> usable{false};      ///< up and no further behind than the limit
  std::atomic<bool> in_recovery{true};  ///< false: the address reaches a primary now
  std::atomic<int64_t> lag_ms{0};       ///< since the last replayed commit, while WAL waits to be replayed
  std::atomic<uint64_t> replay_lsn{0};  ///< pg_last_wal_replay_lsn as of the last probe
  std::atomic<uint64_t> probes_failed{0};
};

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
