// SPDX-License-Identifier: Apache-2.0
#include "app/fill_pools_component.hpp"

#include <caf/all.hpp>
#include <spdlog/spdlog.h>

#include "actors/db_pool.hpp"
#include "actors/metrics_text.hpp"
#include "component/pools.hpp"
#include "db/pg_async_pool.hpp"
#include "runtime/io_scheduler.hpp"

namespace restcache {

fill_pools_component::fill_pools_component() = default;
fill_pools_component::~fill_pools_component() = default;

connection_factory fill_pools_component::make_factory(daemon_context& ctx, const pg_worker_config& worker,
                                                      db_metrics& metrics, std::unique_ptr<pg_async_driver>& driver) {
  if (ctx.options().driver == db_driver_kind::async) {
    auto async_cfg = worker;
    async_cfg.pipeline_depth = static_cast<size_t>(ctx.options().db_pipeline_depth);
    // Under the io scheduler an io thread drives the connections: a fill's
    // query and its answer cross no thread of their own.
    boost::asio::io_context* home = nullptr;
    if (auto* io = runtime::io_scheduler::of(*ctx.system))
      home = io->contexts().front();
    driver = std::make_unique<pg_async_driver>(async_cfg, metrics, home);
    return driver->factory();
  }
  return thread_connections(worker, metrics);
}

void fill_pools_component::start(daemon_context& ctx) {
  const auto& o = ctx.options();
  // A pipelining connection serves as many fills at once as it pipelines.
  size_t fills_per_connection = o.driver == db_driver_kind::async ? static_cast<size_t>(o.db_pipeline_depth) : 1;
  // Fills and populate pages only read: their sessions refuse to write.
  auto worker = worker_config_of(o);
  worker.read_only = true;
  pool_ = spawn_pool(ctx, pool_config_of(o, static_cast<size_t>(o.db_pool_size), fills_per_connection),
                     make_factory(ctx, worker, metrics_, driver_), metrics_, "fill", "db-pool");
  start_replicas(ctx, fills_per_connection);
  ctx.board.add_readiness_check(readiness_place::database, [this] {
    bool up = metrics_.connections_up.load(std::memory_order_relaxed) > 0;
    return http::readiness_check{"database", up, up ? "up" : "down"};
  });
  // Every pool's, the modules' added later included: read when written.
  ctx.board.add_metrics_writer([&pools = ctx.pools] { return db_metrics_text(pools); });
  if (monitor_)
    ctx.board.add_metrics_writer([this] { return replica_metrics_text(replica_states()); });
}

void fill_pools_component::start_replicas(daemon_context& ctx, size_t fills_per_connection) {
  const auto& o = ctx.options();
  auto dsns = ctx.cfg.replica_dsns();
  if (dsns.empty())
    return;
  replica_monitor_config monitor_cfg;
  monitor_cfg.dsns = dsns;
  monitor_cfg.primary_dsn = o.db_dsn;
  monitor_cfg.max_lag = std::chrono::milliseconds{o.db_replica_max_lag_ms};
  monitor_ = std::make_unique<replica_monitor>(monitor_cfg);
  auto size = static_cast<size_t>(o.db_replica_pool_size > 0 ? o.db_replica_pool_size : o.db_pool_size);
  for (auto& dsn : dsns) {
    auto worker = worker_config_of(o);
    worker.dsn = dsn;
    worker.read_replay_lsn = true; // every document read first asks how far the standby has replayed
    worker.read_only = true;
    auto& metrics = *replica_metrics_.emplace_back(std::make_unique<db_metrics>());
    auto n = std::to_string(replica_pools_.size());
    replica_pools_.push_back(spawn_pool(ctx, pool_config_of(o, size, fills_per_connection),
                                        make_factory(ctx, worker, metrics, replica_drivers_.emplace_back()), metrics,
                                        "replica-" + n, "db-replica-" + n));
  }
  ctx.fills_read_standbys = true;
  spdlog::info("fills read from {} standby(s) (db.replicas), waiting up to {} ms for a key's change to be replayed{}",
               dsns.size(), o.db_replica_wait_ms,
               o.db_replica_lsn_check ? "" : "; db.replica-lsn-check is OFF: standbys may answer old documents");
}

std::vector<replica_health*> fill_pools_component::replica_states() const {
  std::vector<replica_health*> states;
  if (monitor_)
    for (auto& h : monitor_->health())
      states.push_back(h.get());
  return states;
}

void fill_pools_component::stop(daemon_context&) {
  if (pool_)
    caf::anon_send_exit(pool_, caf::exit_reason::user_shutdown);
  for (auto& p : replica_pools_)
    caf::anon_send_exit(p, caf::exit_reason::user_shutdown);
  pool_ = nullptr;
  replica_pools_.clear();
}

void fill_pools_component::release() {
  driver_.reset(); // while the io thread that may drive it still runs
  replica_drivers_.clear();
}

} // namespace restcache
