// SPDX-License-Identifier: Apache-2.0
#include "app/daemon.hpp"

#include <caf/all.hpp>
#include <spdlog/spdlog.h>

#include <limits>
#include <random>
#include <stdexcept>

#include "actors/cache_populator.hpp"
#include "actors/cache_shard.hpp"
#include "actors/db_pool.hpp"
#include "actors/metrics_text.hpp"
#include "actors/notify_listener.hpp"
#include "app/cache_front.hpp"
#include "app/inspect_socket.hpp"
#include "app/startup.hpp"
#include "db/change_inbox.hpp"
#include "db/pg_async_pool.hpp"
#include "demo/demo_routes.hpp"
#include "http/openapi_document.hpp"
#include "http/server.hpp"
#include "logging/log_setup.hpp"
#include "messages/doc_catalogue.hpp"
#include "messages/prometheus.hpp"
#include "persistence/lmdb/store.hpp"
#include "persistence/lmdb/store_reader.hpp"
#include "persistence/pg/catalog_drift.hpp"
#include "persistence/pg/schema.hpp"
#include "runtime/io_scheduler.hpp"

namespace restcache {

daemon::daemon(restcache_config& cfg, logging::log_setup& logs)
  : cfg_(cfg), o_(cfg.opts), logs_(logs), shard_metrics_(static_cast<size_t>(cfg.opts.cache_shards)),
    worker_cfg_{cfg.opts.db_dsn, std::chrono::milliseconds{cfg.opts.db_query_timeout_ms}} {
}

daemon::~daemon() {
  stop();
}

void daemon::start() {
  // A newer schema may log changes where this build does not read them:
  // serving from its tiers could be stale.
  auto schema = startup::check_schema(o_.db_dsn);
  // Without this build's schema nothing is cached, so nothing needs
  // vouching for; restcache-load checks the kinds before it installs it.
  if (schema == startup::schema_action::current) {
    startup::check_documents(o_);
    startup::check_feed(o_);
  }
  if (schema == startup::schema_action::newer)
    throw std::runtime_error("the database holds a restcache schema newer than this build's (version "
                             + std::to_string(pg::schema_version)
                             + "): upgrade restcached; this build cannot tell what changes it would miss");
  if (cfg_.uses_lmdb())
    tier_store_ = startup::open_lmdb_tier(o_, writer_metrics_.status);
  change_metrics_.watermark.store(tier_store_ ? tier_store_->watermark() : 0);
  // The io threads are CAF's workers: CAF builds no scheduler of its own
  // when a scheduler module is loaded.
  if (cfg_.uses_io_scheduler())
    cfg_.module_factories.push_back(&runtime::io_scheduler::make);
  system_ = std::make_unique<caf::actor_system>(cfg_);
  spawn_pools();
  spawn_writer();
  spawn_shards();
  front_ = std::make_unique<cache_front>(shards_, shard_metrics_, pool_metrics_);
  spawn_listener();
  spawn_helpers();
  spawn_inspector();
  make_server();
  add_metrics_sources();
  try {
    serve();
  } catch (const std::exception& e) {
    throw std::runtime_error(std::string{"cannot start: "} + e.what());
  }
}

connection_factory daemon::make_factory(const pg_worker_config& worker, db_metrics& metrics,
                                        std::unique_ptr<pg_async_driver>& driver) {
  if (o_.driver == db_driver_kind::async) {
    auto async_cfg = worker;
    async_cfg.pipeline_depth = static_cast<size_t>(o_.db_pipeline_depth);
    // Under the io scheduler an io thread drives the connections: a fill's
    // query and its answer cross no thread of their own.
    boost::asio::io_context* home = nullptr;
    if (auto* io = runtime::io_scheduler::of(*system_))
      home = io->contexts().front();
    driver = std::make_unique<pg_async_driver>(async_cfg, metrics, home);
    return driver->factory();
  }
  return [worker, &metrics](uint64_t slot, std::function<void(uint64_t)> on_up,
                            std::function<void(uint64_t)> on_down) -> db_lease {
    return std::make_shared<pg_connection_worker>(slot, worker, metrics, std::move(on_up), std::move(on_down));
  };
}

void daemon::spawn_pools() {
  // A pipelining connection serves as many fills at once as it pipelines.
  size_t fills_per_connection = o_.driver == db_driver_kind::async ? static_cast<size_t>(o_.db_pipeline_depth) : 1;
  // Fills and populate pages only read: their sessions refuse to write.
  auto fill_cfg = worker_cfg_;
  fill_cfg.read_only = true;
  auto factory = make_factory(fill_cfg, pool_metrics_, async_driver_);
  // Writes and GET /depts: connection threads of their own, whatever the
  // driver, and a pool each: GET /depts is open to anyone, so a flood of
  // pages waits for connections of its own, never for the write pool's.
  auto threads_pool = [this](int64_t size, db_metrics& metrics) {
    connection_factory factory = [this, &metrics](uint64_t slot, std::function<void(uint64_t)> on_up,
                                                  std::function<void(uint64_t)> on_down) -> db_lease {
      return std::make_shared<pg_connection_worker>(slot, worker_cfg_, metrics, std::move(on_up), std::move(on_down));
    };
    return system_->spawn(db_pool, pool_config(static_cast<size_t>(size), 1), factory, &metrics);
  };
  write_pool_ = threads_pool(o_.db_write_pool_size, write_metrics_);
  list_pool_ = threads_pool(o_.db_list_pool_size, list_metrics_);
  pool_ = system_->spawn(db_pool, pool_config(static_cast<size_t>(o_.db_pool_size), fills_per_connection), factory,
                         &pool_metrics_);
  spawn_replica_pools();
}

db_pool_config daemon::pool_config(size_t size, size_t leases_per_connection) const {
  db_pool_config c{size, static_cast<size_t>(o_.db_queue_size), leases_per_connection};
  c.reconnect_grace = std::chrono::milliseconds{o_.db_reconnect_grace_ms};
  return c;
}

void daemon::spawn_replica_pools() {
  auto dsns = cfg_.replica_dsns();
  if (dsns.empty())
    return;
  replica_monitor_config monitor_cfg;
  monitor_cfg.dsns = dsns;
  monitor_cfg.primary_dsn = o_.db_dsn;
  monitor_cfg.max_lag = std::chrono::milliseconds{o_.db_replica_max_lag_ms};
  replica_monitor_ = std::make_unique<replica_monitor>(monitor_cfg);
  size_t fills_per_connection = o_.driver == db_driver_kind::async ? static_cast<size_t>(o_.db_pipeline_depth) : 1;
  auto size = static_cast<size_t>(o_.db_replica_pool_size > 0 ? o_.db_replica_pool_size : o_.db_pool_size);
  for (auto& dsn : dsns) {
    auto worker = worker_cfg_;
    worker.dsn = dsn;
    worker.read_replay_lsn = true; // every document read first asks how far the standby has replayed
    worker.read_only = true;
    replica_metrics_.push_back(std::make_unique<db_metrics>());
    replica_drivers_.emplace_back();
    auto factory = make_factory(worker, *replica_metrics_.back(), replica_drivers_.back());
    replica_pools_.push_back(system_->spawn(
      db_pool, pool_config(size, fills_per_connection), factory, replica_metrics_.back().get()));
  }
  spdlog::info("fills read from {} standby(s) (db.replicas), waiting up to {} ms for a key's change to be replayed{}",
               dsns.size(), o_.db_replica_wait_ms,
               o_.db_replica_lsn_check ? "" : "; db.replica-lsn-check is OFF: standbys may answer old documents");
}

void daemon::spawn_writer() {
  if (!tier_store_)
    return;
  batch_writer_config writer_cfg;
  writer_cfg.batch_size = static_cast<size_t>(o_.lmdb_batch_size);
  writer_cfg.flush_interval = std::chrono::milliseconds{o_.lmdb_flush_interval_ms};
  writer_cfg.max_queue = static_cast<size_t>(o_.lmdb_max_queue);
  writer_ = spawn_batch_writer(*system_, writer_cfg, tier_store_, &writer_metrics_);
}

void daemon::spawn_shards() {
  cache_shard_config shard_cfg{cfg_.resolved_cache_mode(), o_.cache_memory_bytes / o_.cache_shards,
                               std::chrono::milliseconds{o_.cache_fill_timeout_ms}};
  shard_cfg.writer = writer_;
  if (writer_) {
    shard_cfg.writer_metrics = &writer_metrics_;
    shard_cfg.writer_max_pending = o_.lmdb_max_queue;
  }
  shard_cfg.listener = &listener_status_;
  shard_cfg.drift = &change_metrics_.drift;
  shard_cfg.stale_if_error = std::chrono::seconds{o_.cache_stale_if_error};
  shard_cfg.negative_ttl = std::chrono::seconds{o_.cache_negative_ttl};
  shard_cfg.negative_bytes = shard_cfg.memory_bytes * o_.cache_negative_share / 100;
  shard_cfg.refresh_interval = std::chrono::milliseconds{o_.cache_refresh_interval_ms};
  shard_cfg.replicas = replica_pools_;
  if (replica_monitor_)
    for (auto& h : replica_monitor_->health())
      shard_cfg.replica_states.push_back(h.get());
  shard_cfg.replica_lsn_check = o_.db_replica_lsn_check;
  shard_cfg.replica_wait = std::chrono::milliseconds{o_.db_replica_wait_ms};
  for (auto& m : shard_metrics_) {
    if (tier_store_)
      shard_cfg.tier = std::make_shared<lmdb::store_reader>(*tier_store_);
    shards_.push_back(system_->spawn(cache_shard, shard_cfg, pool_, &m));
  }
}

void daemon::spawn_listener() {
  if (cfg_.resolved_cache_mode() == cache_mode::none)
    return;
  notify_listener_config listener_cfg;
  listener_cfg.connection.dsn = o_.db_dsn;
  listener_cfg.connection.retention = std::chrono::seconds{o_.changelog_retention};
  listener_cfg.connection.poll_interval = std::chrono::milliseconds{o_.changelog_poll_interval_ms};
  listener_cfg.connection.drift_interval = std::chrono::milliseconds{o_.changelog_drift_interval_ms};
  listener_cfg.connection.warn_bytes = o_.changelog_warn_bytes;
  listener_cfg.connection.replay_limit = static_cast<size_t>(o_.changelog_max_pending);
  listener_cfg.connection.stamp_lsn = !replica_pools_.empty();
  listener_cfg.connection.check_declarations = true;
  listener_cfg.connection.declarations_digest = startup::documents_installed().digest;
  if (tier_store_)
    listener_cfg.connection.history = tier_store_->history();
  listener_cfg.connection.feed = parse_feed_choice(o_.changelog_feed).value_or(feed_choice::automatic);
  listener_cfg.connection.wal_relay = o_.changelog_wal_relay;
  listener_cfg.connection.slot_create_wait = std::chrono::milliseconds{o_.changelog_slot_create_wait_ms};
  if (tier_store_) {
    listener_cfg.connection.instance_id = tier_store_->instance_id();
    // What the file's records are vouched for by: the LMDB commit that
    // carried the watermark is on disk (lmdb/env.hpp: durable commits).
    listener_cfg.connection.durable_watermark = [store = tier_store_] { return store->watermark(); };
  } else {
    // Memory only: nothing outlives the process, so neither does its slot.
    std::random_device rd;
    for (int i = 0; i < 16; ++i)
      listener_cfg.connection.instance_id += "0123456789abcdefghijklmnopqrstuvwxyz"[rd() % 36];
    listener_cfg.connection.temporary_slot = true;
  }
  listener_cfg.max_pending_keys = static_cast<size_t>(o_.changelog_max_pending);
  auto inbox = std::make_shared<change_inbox>(listener_cfg.max_pending_keys);
  // Where the stored watermark was taken, so the first replay reads only what
  // that snapshot could not see (absent in a file of an older build).
  if (tier_store_ && tier_store_->watermark() > 0) {
    if (auto p = parse_feed_position(tier_store_->watermark_position()); p && p->xmin == tier_store_->watermark())
      inbox->set_applied(p);
    // The entry the log must still hold (or have pruned past) for the
    // file's documents to be of the database's history.
    inbox->set_applied_witness(parse_log_witness(tier_store_->watermark_witness()));
    // The catalog the records were filled under: a kind's tables changed
    // unseen while the daemon was down drop them at the first check.
    listener_cfg.connection.catalog = tier_store_->watermark_catalog();
    // The WAL feed's fingerprint has its publication part; a file kept by
    // the other feed holds a watermark that is no position in this one.
    listener_cfg.connection.tiers_feed = pg::fingerprint_of_wal_feed(listener_cfg.connection.catalog)
                                           ? feed_kind::wal
                                           : feed_kind::triggers;
  }
  front_->set_drift(&change_metrics_.drift);
  listener_ = system_->spawn(notify_listener, listener_cfg, shards_, writer_, inbox, &change_metrics_,
                             &listener_status_);
  front_->add_metrics_source([this] {
    auto out = listener_metrics_text(change_metrics_);
    append_metric(out, "restcache_serving_stale_since_seconds",
                  "Unix time of the first stale-if-error answer since the listener was last caught up; 0: none.",
                  "gauge", double(listener_status_.stale_since_us.load(std::memory_order_relaxed)) / 1e6);
    return out;
  });
  // Not ready until the listener has caught up: GETs go to PostgreSQL
  // meanwhile (slow), or are answered stale-if-error when it cannot be
  // reached; a load balancer should prefer an instance that is caught up.
  front_->add_readiness_check([this] {
    if (change_metrics_.caught_up.load() == 1)
      return http::readiness_check{"listener", true, "caught up"};
    if (listener_status_.stale_since_us.load(std::memory_order_relaxed) != 0)
      return http::readiness_check{"listener", false, "down, serving stale"};
    return http::readiness_check{"listener", false, change_metrics_.connected.load() == 1 ? "catching up" : "down"};
  });
  // Drift keeps the instance ready: every answer is still correct (from
  // PostgreSQL), and a balancer must not drop every instance of a database
  // an administrator altered. It says which kinds are not cached.
  front_->add_readiness_check([this] {
    auto kinds = change_metrics_.drift.kinds();
    std::string state = kinds == 0 ? std::string{"cached"} : "not cached (drift, see the log): " + kind_names(kinds);
    if (change_metrics_.declarations_differ.load(std::memory_order_relaxed) == 1)
      state += "; the declarations applied to the database changed: a restart serves them";
    return http::readiness_check{"documents", true, state};
  });
}

void daemon::spawn_demo() {
  demo::demo_wiring wiring;
  wiring.sys = system_.get();
  wiring.write_pool = write_pool_;
  wiring.list_pool = list_pool_;
  wiring.listener = listener_;
  wiring.apply_timeout = std::chrono::milliseconds{o_.cache_fill_timeout_ms};
  wiring.stamp_lsn = !replica_pools_.empty();
  demo_ = std::make_unique<demo::demo_actions>(std::move(wiring));
  front_->set_actions(demo_->handlers());
  front_->add_metrics_source([this] { return demo_->metrics_text(); });
  // The ids are read on the list pool: its connections run jobs whatever
  // db.driver is, and a read of them never waits for a write.
  id_loader_ = demo::spawn_dept_id_loader(*system_, list_pool_, *demo_);
}

void daemon::spawn_helpers() {
  if (startup::serves_demo())
    spawn_demo();
  if (!o_.cache_populate || cfg_.resolved_cache_mode() == cache_mode::none)
    return;
  // In lmdb mode nothing is kept in memory: populate the whole table and let
  // the tier's own budget evict (oldest written first).
  auto budget = cfg_.resolved_cache_mode() == cache_mode::lmdb ? std::numeric_limits<int64_t>::max()
                                                                : o_.cache_memory_bytes;
  cache_populator_config populate_cfg{static_cast<int32_t>(o_.cache_populate_page), budget, {}};
  for (const auto& kind : doc_catalogue())
    if (!kind.populate.statement.name.empty())
      populate_cfg.kinds.push_back(kind.kind);
  populate_cfg.caught_up = &change_metrics_.caught_up;
  if (writer_) {
    populate_cfg.writer = &writer_metrics_;
    populate_cfg.writer_high_water = std::max<int64_t>(o_.lmdb_batch_size * 2, o_.lmdb_max_queue / 2);
  }
  populator_ = caf::actor_cast<caf::actor>(
    system_->spawn(cache_populator, populate_cfg, pool_, shards_, &shard_metrics_));
}

void daemon::spawn_inspector() {
  // A null handle: not started in this cache mode.
  for (size_t i = 0; i < shards_.size(); ++i)
    long_lived_.push_back(inspect_entry("shard-" + std::to_string(i), shards_[i], &shard_metrics_[i].mailbox));
  long_lived_.push_back(inspect_entry("db-pool", pool_, &pool_metrics_.mailbox));
  long_lived_.push_back(inspect_entry("db-write-pool", write_pool_, &write_metrics_.mailbox));
  long_lived_.push_back(inspect_entry("db-list-pool", list_pool_, &list_metrics_.mailbox));
  for (size_t i = 0; i < replica_pools_.size(); ++i)
    long_lived_.push_back(inspect_entry("db-replica-" + std::to_string(i), replica_pools_[i],
                                        &replica_metrics_[i]->mailbox));
  long_lived_.push_back(inspect_entry("batch-writer", writer_, &writer_metrics_.mailbox));
  long_lived_.push_back(inspect_entry("notify-listener", listener_, &change_metrics_.mailbox));
  long_lived_.push_back(inspect_entry("dept-id-loader", id_loader_));
  if (o_.inspect_socket.empty())
    return;
  inspector_config icfg;
  icfg.actors = long_lived_;
  icfg.shards = shards_;
  inspector_ = restcache::spawn_inspector(*system_, std::move(icfg));
}

void daemon::make_server() {
  http::server_options http_opts;
  http_opts.address = o_.http_address;
  http_opts.port = static_cast<uint16_t>(o_.http_port);
  http_opts.threads = static_cast<int>(o_.http_threads);
  http_opts.body_limit = static_cast<size_t>(o_.http_body_limit);
  http_opts.write_token = o_.http_write_token;
  http_opts.writes_closed = o_.writes == write_access::closed;
  http_opts.allowed_hosts = cfg_.allowed_hosts();
  http_opts.metrics_need_token = o_.http_metrics == "token";
  http_opts.openapi = http::openapi_document(startup::serves_demo() ? demo::demo_openapi : "");
  http_opts.honour_no_cache = o_.cache_no_cache == "honour";
  http_opts.request_timeout = std::chrono::milliseconds{o_.http_request_timeout_ms};
  http_opts.body_idle_timeout = std::chrono::milliseconds{o_.http_body_idle_timeout_ms};
  http_opts.body_budget = static_cast<size_t>(o_.http_body_budget_bytes);
  // Who may write, said once at start: an operator reading the log knows
  // what the instance exposes.
  if (o_.writes == write_access::closed)
    spdlog::info("writes are closed (http.writes=closed): every write answers 403");
  else if (o_.writes == write_access::token)
    spdlog::info("writes need the write token");
  else if (is_loopback_address(o_.http_address))
    spdlog::info("writes need no token: open to requests whose Host is one of {} (http.allowed-hosts)",
                 o_.http_allowed_hosts);
  else
    spdlog::warn("writes need no token and http.address {} is not loopback (http.allow-open-writes-on-network): "
                 "anyone who reaches it with a Host of {} can change the database",
                 o_.http_address, o_.http_allowed_hosts);
  http_opts.max_connections = static_cast<size_t>(o_.http_max_connections);
  http_opts.max_connections_per_address = static_cast<size_t>(o_.http_max_connections_per_address);
  http_opts.trusted_proxies = cfg_.trusted_proxies();
  http_opts.exempt_addresses = cfg_.exempt_addresses();
  http_opts.read_timeout = std::chrono::milliseconds{o_.http_read_timeout_ms};
  http_opts.lookup_timeout = std::chrono::milliseconds{o_.cache_fill_timeout_ms + 1000};
  http_opts.drain_timeout = std::chrono::milliseconds{o_.http_shutdown_timeout_ms};
  http_opts.access_log = logs_.access();
  if (auto* io = runtime::io_scheduler::of(*system_))
    http_opts.io_contexts = io->contexts();
  server_ = std::make_unique<http::server>(http_opts, *front_);
}

void daemon::add_metrics_sources() {
  if (cfg_.uses_lmdb()) {
    // Ready whatever the tier's state: memory and PostgreSQL answer every
    // request correctly without it. /ready says what it is.
    front_->add_readiness_check([this] {
      auto [state, why] = writer_metrics_.status.get();
      if (state == tier_state::ok && tier_store_
          && tier_store_->budget_bytes() < tier_store_->environment().map_size())
        why += "; its disk ran full: budget lowered to " + std::to_string(tier_store_->budget_bytes() >> 10) + " KiB";
      return http::readiness_check{"lmdb", true, state == tier_state::ok ? why : std::string{to_string(state)} + ": " + why};
    });
    front_->add_metrics_source([this] { return lmdb_metrics_text(tier_store_.get(), writer_metrics_); });
  }
  front_->add_metrics_source([this] {
    std::string text;
    server_->metrics().append_prometheus(text);
    return text;
  });
  front_->add_metrics_source([this] {
    std::vector<const db_metrics*> replicas;
    for (auto& m : replica_metrics_)
      replicas.push_back(m.get());
    return db_metrics_text(pool_metrics_, write_metrics_, replicas, &list_metrics_);
  });
  if (replica_monitor_)
    front_->add_metrics_source([this] {
      std::vector<replica_health*> health;
      for (auto& h : replica_monitor_->health())
        health.push_back(h.get());
      auto out = replica_metrics_text(health);
      auto sum = [this](auto field) {
        int64_t n = 0;
        for (auto& m : shard_metrics_)
          n += static_cast<int64_t>((m.*field).load(std::memory_order_relaxed));
        return n;
      };
      append_metric(out, "restcache_replica_fills_total", "Document reads sent to a standby (retries included).",
                    "counter", sum(&cache_metrics::replica_fills));
      append_metric(out, "restcache_replica_fills_behind_total",
                    "Standby answers read before the standby had replayed the key's last change: not used.",
                    "counter", sum(&cache_metrics::replica_behind));
      append_metric(out, "restcache_replica_fills_to_primary_total",
                    "Fills that gave up on the standbys (behind past db.replica-wait-ms, or unreachable) and read db.dsn.",
                    "counter", sum(&cache_metrics::replica_to_primary));
      append_metric(out, "restcache_replica_keys_waiting",
                    "Keys whose last change some standby may not have replayed yet.", "gauge",
                    sum(&cache_metrics::key_lsns));
      return out;
    });
  std::vector<mailbox_gauge> mailboxes;
  for (auto& a : long_lived_)
    if (a.handle && a.mailbox)
      mailboxes.emplace_back(a.name, a.mailbox);
  front_->add_metrics_source([mailboxes] { return mailbox_metrics_text(mailboxes); });
  if (auto* access = logs_.access())
    front_->add_metrics_source([access] {
      std::string text;
      append_metric(text, "restcache_access_log_lines_total", "Access log lines written.", "counter",
                    static_cast<int64_t>(access->written()));
      append_metric(text, "restcache_access_log_dropped_total",
                    "Access log lines dropped because the writer was behind.", "counter",
                    static_cast<int64_t>(access->dropped()));
      return text;
    });
  front_->add_metrics_source([] { return process_metrics_text(); });
}

void daemon::serve() {
  if (inspector_) { // before serving: a socket path that cannot be had stops start-up
    inspect_socket_ = std::make_unique<inspect_socket>(*system_, inspector_, o_.inspect_socket);
    spdlog::info("inspector served on the Unix socket {}, mode 0600 (restcache-inspect --socket {})",
                 o_.inspect_socket, o_.inspect_socket);
  }
  server_->start();
  server_->run_threads();
  spdlog::info("restcached listening on http://{}:{}/ ({} http threads{}, {} shards, cache.mode={}, "
               "memory budget {} MiB, db pool {} ({}))",
               o_.http_address, server_->bound_port(), o_.http_threads,
               cfg_.uses_io_scheduler() ? " running the actors" : "", o_.cache_shards, o_.cache_mode,
               o_.cache_memory_bytes >> 20, o_.db_pool_size, o_.db_driver);
}

uint16_t daemon::http_port() const {
  return server_ ? server_->bound_port() : 0;
}

void daemon::stop() {
  if (stopped_ || !system_)
    return;
  stopped_ = true;
  inspect_socket_.reset(); // its thread may be asking the inspector: before the actors go
  if (server_)
    server_->stop();
  if (id_loader_)
    caf::anon_send_exit(id_loader_, caf::exit_reason::user_shutdown);
  if (inspector_)
    caf::anon_send_exit(inspector_, caf::exit_reason::user_shutdown);
  if (populator_)
    caf::anon_send_exit(populator_, caf::exit_reason::user_shutdown);
  stop_cache();
  if (pool_)
    caf::anon_send_exit(pool_, caf::exit_reason::user_shutdown);
  if (write_pool_)
    caf::anon_send_exit(write_pool_, caf::exit_reason::user_shutdown);
  if (list_pool_)
    caf::anon_send_exit(list_pool_, caf::exit_reason::user_shutdown);
  for (auto& p : replica_pools_)
    caf::anon_send_exit(p, caf::exit_reason::user_shutdown);
  replica_pools_.clear();
  shards_.clear();
  long_lived_.clear();
  writer_ = nullptr;
  id_loader_ = nullptr;
  inspector_ = nullptr;
  populator_ = nullptr;
  pool_ = nullptr;
  write_pool_ = nullptr;
  list_pool_ = nullptr;
  system_->await_all_actors_done();
  async_driver_.reset(); // while the io thread that may drive it still runs
  replica_drivers_.clear();
  system_.reset();
}

void daemon::stop_cache() {
  caf::scoped_actor self{*system_};
  if (listener_) {
    self->monitor(listener_);
    self->send_exit(listener_, caf::exit_reason::user_shutdown);
    self->receive([](caf::down_msg&) {});
    listener_ = nullptr;
  }
  for (auto& s : shards_) {
    self->monitor(s);
    self->send_exit(s, caf::exit_reason::user_shutdown);
  }
  size_t down = 0;
  self->receive_for(down, shards_.size())([](caf::down_msg&) {});
  if (!writer_)
    return;
  self->request(writer_, std::chrono::seconds{60}, drain_atom::value)
    .receive([](uint64_t written) { spdlog::info("batch writer drained: {} records written in all", written); },
             [](caf::error& err) { spdlog::error("batch writer did not drain: {}", caf::to_string(err)); });
  self->send_exit(writer_, caf::exit_reason::user_shutdown);
}

} // namespace restcache
