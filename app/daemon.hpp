// SPDX-License-Identifier: Apache-2.0
#pragma once

// The daemon as a value: start() opens the tiers, spawns every actor and
// serves HTTP; stop() takes it all down in order. main only reads options,
// handles signals and calls these.

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include <caf/actor.hpp>
#include <caf/actor_system.hpp>

#include "actors/actors.hpp"
#include "actors/batch_writer.hpp"
#include "actors/db_pool.hpp"
#include "actors/inspector.hpp"
#include "actors/listener_status.hpp"
#include "actors/metrics.hpp"
#include "config/options.hpp"
#include "demo/demo_actions.hpp"
#include "demo/dept_id_loader.hpp"
#include "db/db_metrics.hpp"
#include "db/pg_connection_worker.hpp"
#include "db/replica_monitor.hpp"

namespace restcache {

namespace http {
class server;
} // namespace http
namespace lmdb {
class store;
} // namespace lmdb
namespace logging {
class log_setup;
} // namespace logging

class cache_front;
class inspect_socket;
class pg_async_driver;

class daemon {
public:
  /// Both must outlive the daemon.
  daemon(restcache_config& cfg, logging::log_setup& logs);
  ~daemon(); ///< stop()s
  daemon(const daemon&) = delete;
  daemon& operator=(const daemon&) = delete;

  /// Checks the schema, opens the LMDB tier, spawns the actors, serves the
  /// inspector on its Unix socket (inspect.socket) and serves HTTP. Throws
  /// std::runtime_error saying what could not be had; stop() then takes down
  /// what was started.
  void start();
  /// The HTTP port bound (with http.port=0, the one picked).
  uint16_t http_port() const;
  /// Stops serving (requests in flight get http.shutdown-timeout-ms), then
  /// the actors: the batch writer last, after it wrote what the shards sent
  /// it. Safe to call twice.
  void stop();

private:
  void spawn_pools();
  /// A connection factory of the configured driver for `worker`, counting
  /// into `metrics` (an async driver is kept in `driver`).
  connection_factory make_factory(const pg_worker_config& worker, db_metrics& metrics,
                                  std::unique_ptr<pg_async_driver>& driver);
  void spawn_replica_pools();
  /// A pool of `size` connections with the configured queue and reconnect grace.
  db_pool_config pool_config(size_t size, size_t leases_per_connection) const;
  void spawn_writer();
  void spawn_shards();
  void spawn_listener();
  /// The demo's actions and id loader (only when serving the demo).
  void spawn_demo();
  void spawn_helpers();
  void spawn_inspector();
  void make_server();
  void add_metrics_sources();
  void serve();
  /// The listener and the shards, then the writer once it has drained.
  void stop_cache();

  restcache_config& cfg_;
  const daemon_options& o_;
  logging::log_setup& logs_;

  // Everything up to system_ outlives the actor system: mailboxes may still
  // hold callbacks that own HTTP sessions until the system is gone.
  std::vector<cache_metrics> shard_metrics_;
  db_metrics pool_metrics_;
  db_metrics write_metrics_; ///< the pool of writes
  db_metrics list_metrics_;  ///< the pool of GET /depts pages
  batch_metrics writer_metrics_;
  listener_metrics change_metrics_;
  std::shared_ptr<lmdb::store> tier_store_; ///< tiered and lmdb modes
  /// Until the listener has caught up, GETs go to PostgreSQL: the tiers may
  /// hold documents changed while we were away, or of another database
  /// altogether (the listener checks which history the LMDB file holds
  /// before anything in it is served).
  listener_status listener_status_;
  pg_worker_config worker_cfg_;
  std::unique_ptr<pg_async_driver> async_driver_; ///< db.driver=async
  /// db.replicas: the standbys fills read from, a pool each (same order as
  /// the monitor's health entries).
  std::unique_ptr<replica_monitor> replica_monitor_;
  std::vector<std::unique_ptr<db_metrics>> replica_metrics_;
  std::vector<std::unique_ptr<pg_async_driver>> replica_drivers_;
  /// The demo's actions: the front's handlers refer to them, so they go after it.
  std::unique_ptr<demo::demo_actions> demo_;
  std::unique_ptr<cache_front> front_;
  std::unique_ptr<http::server> server_;
  std::unique_ptr<caf::actor_system> system_;
  std::unique_ptr<inspect_socket> inspect_socket_; ///< inspect.socket; asks the actors of system_

  db_pool_actor pool_;
  db_pool_actor write_pool_;
  db_pool_actor list_pool_; ///< GET /depts: unauthenticated reads never wait for the write pool
  std::vector<db_pool_actor> replica_pools_;
  batch_writer_actor writer_;
  std::vector<cache_shard_actor> shards_;
  notify_listener_actor listener_;
  demo::dept_id_loader_actor id_loader_;
  caf::actor populator_;
  inspector_actor inspector_;
  /// Every long-lived actor by the name restcache-inspect and /metrics give
  /// it, with the gauge it stores its mailbox size in.
  std::vector<inspected_actor> long_lived_;
  bool stopped_ = false;
};

} // namespace restcache
