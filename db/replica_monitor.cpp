// SPDX-License-Identifier: Apache-2.0
#include "db/replica_monitor.hpp"

#include <spdlog/spdlog.h>

#include "persistence/pg/change_feed.hpp"
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

uint64_t replica_monitor::primary_system_id() {
  if (auto id = primary_system_id_.load(std::memory_order_acquire); id != 0 || cfg_.primary_dsn.empty())
    return id;
  try {
    pg::connection c{cfg_.primary_dsn, "restcache-replica-monitor"};
    primary_system_id_.store(pg::read_history(c).identity.system_id, std::memory_order_release);
  } catch (const std::exception& e) {
    spdlog::debug("replica monitor: the primary's system identifier could not be read ({})", e.what());
  }
  return primary_system_id_.load(std::memory_order_acquire);
}

void replica_monitor::watch(size_t i) {
  auto& h = *health_[i];
  auto backoff = std::chrono::milliseconds{50};
  bool was_up = false;
  std::string last_refusal;
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
        // Checked at every probe: a standby promoted later is no standby
        // either, and fills go to the primary from then on.
        auto refusal = cfg_.primary_dsn.empty() && s.in_recovery
                         ? std::string{}
                         : standby_refusal(s.in_recovery, s.system_id, primary_system_id());
        const bool standby = refusal.empty();
        if (!standby && (refusal != last_refusal || !was_up))
          spdlog::error("replica {}: not used: {}; fills read from the primary instead", i, refusal);
        last_refusal = refusal;
        bool usable = standby && s.lag_ms <= cfg_.max_lag.count();
        if (standby && (usable != h.usable.load(std::memory_order_relaxed) || !was_up || !h.standby.load()))
          spdlog::info("replica {}: {} (a standby of the primary's system, {} ms behind, replayed to {})", i,
                       usable ? "fills read from it" : "too far behind: fills go elsewhere", s.lag_ms,
                       s.replay_lsn);
        h.standby.store(standby, std::memory_order_release);
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
