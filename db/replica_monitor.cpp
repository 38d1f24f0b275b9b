// SPDX-License-Identifier: Apache-2.0
#include "db/replica_monitor.hpp"

#include <spdlog/spdlog.h>

#include "persistence/pg/connection.hpp"
#include "persistence/pg/statements.hpp"

namespace restcache {

replica_monitor::replica_monitor(replica_monitor_config cfg) : cfg_(std::move(cfg)) {
  for (size_t i = 0; i < cfg_.dsns.size(); ++i)
    health_.push_back(std::make_unique<replica_health>());
  for (size_t i = 0; i < cfg_.dsns.size(); ++i)
    threads_.emplace_back([this, i] { watch(i); });
}

replica_monitor::~replica_monitor() {
  {
    std::lock_guard<std::mutex> lock{mtx_};
    stopping_ = true;
  }
  cv_.notify_all();
  for (auto& t : threads_)
    t.join();
}

bool replica_monitor::pause(std::chrono::milliseconds d) {
  std::unique_lock<std::mutex> lock{mtx_};
  cv_.wait_for(lock, d, [this] { return stopping_; });
  return !stopping_;
}

void replica_monitor::watch(size_t i) {
  auto& h = *health_[i];
  auto backoff = std::chrono::milliseconds{50};
  bool was_up = false;
  auto mark_down = [&](const std::string& why) {
    h.up.store(false, std::memory_order_release);
    h.usable.store(false, std::memory_order_release);
    h.probes_failed.fetch_add(1, std::memory_order_relaxed);
    if (was_up)
      spdlog::warn("replica {}: lost ({}); fills go elsewhere until it is back", i, why);
    was_up = false;
  };
  while (pause(std::chrono::milliseconds{0})) {
    try {
      pg::connection c{cfg_.dsns[i], "restcache-replica-monitor"};
      backoff = std::chrono::milliseconds{50};
      do {
        auto s = pg::read_standby_state(c);
        h.in_recovery.store(s.in_recovery, std::memory_order_release);
        h.lag_ms.store(s.lag_ms, std::memory_order_release);
        if (s.replay_lsn > 0)
          h.replay_lsn.store(s.replay_lsn, std::memory_order_release);
        bool usable = s.lag_ms <= cfg_.max_lag.count();
        if (usable != h.usable.load(std::memory_order_relaxed) || !was_up)
          spdlog::info("replica {}: {} ({}, {} ms behind, replayed to {})", i,
                       usable ? "fills read from it" : "too far behind: fills go elsewhere",
                       s.in_recovery ? "standby" : "a primary", s.lag_ms, s.replay_lsn);
        h.up.store(true, std::memory_order_release);
        h.usable.store(usable, std::memory_order_release);
        was_up = true;
      } while (pause(cfg_.interval));
      return;
    } catch (const std::exception& e) {
      mark_down(e.what());
    }
    if (!pause(backoff))
      return;
    backoff = std::min(backoff * 2, cfg_.max_backoff);
  }
}

} // namespace restcache
