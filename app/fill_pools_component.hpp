// SPDX-License-Identifier: Apache-2.0
#pragma once

// The pools fills and populate pages read on: db.dsn's (db.driver's
// connections) and one per standby of db.replicas, with the monitor that
// says which standbys may be read. It writes every pool's families, the
// modules' pools included, and the "database" readiness check.

#include <memory>
#include <vector>

#include "actors/actors.hpp"
#include "actors/db_pool.hpp"
#include "component/component.hpp"
#include "db/db_metrics.hpp"
#include "db/replica_monitor.hpp"

namespace restcache {

class pg_async_driver;
struct pg_worker_config;

class fill_pools_component final : public component {
public:
  fill_pools_component();
  ~fill_pools_component() override;

  std::string_view name() const override { return "fill pools"; }
  void start(daemon_context& ctx) override;
  void stop(daemon_context& ctx) override;
  void release() override;

  const db_pool_actor& pool() const { return pool_; }
  /// The standbys' pools, in db.replicas order.
  const std::vector<db_pool_actor>& replica_pools() const { return replica_pools_; }
  /// Each standby's health, in the same order (none without db.replicas).
  std::vector<replica_health*> replica_states() const;

private:
  /// A connection factory of db.driver for `worker`, counting into `metrics`
  /// (an async driver is kept in `driver`).
  connection_factory make_factory(daemon_context& ctx, const pg_worker_config& worker, db_metrics& metrics,
                                  std::unique_ptr<pg_async_driver>& driver);
  void start_replicas(daemon_context& ctx, size_t fills_per_connection);

  db_metrics metrics_;
  std::unique_ptr<pg_async_driver> driver_; ///< db.driver=async
  db_pool_actor pool_;
  std::unique_ptr<replica_monitor> monitor_;
  std::vector<std::unique_ptr<db_metrics>> replica_metrics_;
  std::vector<std::unique_ptr<pg_async_driver>> replica_drivers_;
  std::vector<db_pool_actor> replica_pools_;
};

} // namespace restcache
