// SPDX-License-Identifier: Apache-2.0
#pragma once

// Watches the streaming standbys that fills may read from: one thread per
// standby, each with a connection of its own, asking every interval how far
// the standby has replayed and how far behind it is. What it finds is kept
// in plain atomics that the shards read when they choose where a fill goes
// (a standby down or past db.replica-max-lag gets none) and when they forget
// the WAL positions every standby has replayed. Not on the read path.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "messages/replica_health.hpp"

namespace restcache {

struct replica_monitor_config {
  std::vector<std::string> dsns;
  /// The primary (db.dsn), asked once for its system identifier: a standby
  /// must be a copy of it. Empty: not checked (a monitor alone, in tests).
  std::string primary_dsn;
  std::chrono::milliseconds interval{200};
  std::chrono::milliseconds max_lag{5'000}; ///< db.replica-max-lag-ms
  std::chrono::milliseconds max_backoff{2'000};
};

class replica_monitor {
public:
  /// Starts a thread per DSN; health() has one entry per DSN, in order.
  explicit replica_monitor(replica_monitor_config cfg);
  ~replica_monitor(); ///< stops and joins the threads
  replica_monitor(const replica_monitor&) = delete;
  replica_monitor& operator=(const replica_monitor&) = delete;

  const std::vector<std::unique_ptr<replica_health>>& health() const noexcept { return health_; }

private:
  void watch(size_t i);
  /// Sleeps up to `d`, or until stop; false when stopping.
  bool pause(std::chrono::milliseconds d);
  /// The primary's system identifier, read at the first call that reaches
  /// it and kept; 0 while it cannot be read.
  uint64_t primary_system_id();

  const replica_monitor_config cfg_;
  std::vector<std::unique_ptr<replica_health>> health_;
  std::atomic<uint64_t> primary_system_id_{0};
  std::mutex mtx_;
  std::condition_variable cv_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

} // namespace restcache
