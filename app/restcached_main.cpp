// restcached: the daemon. Reads its options, wires the actors to the HTTP
// server, and runs until SIGINT or SIGTERM (SIGHUP reopens the log files).

#include <caf/all.hpp>
#include <caf/io/all.hpp>
#include <spdlog/spdlog.h>

#include <signal.h>
#include <sys/resource.h>

#include <cstdio>
#include <limits>
#include <memory>
#include <vector>

#include "app/cache_front.hpp"
#include "actors/cache_populator.hpp"
#include "actors/batch_writer.hpp"
#include "actors/cache_shard.hpp"
#include "actors/db_pool.hpp"
#include "actors/inspector.hpp"
#include "db/pg_async_pool.hpp"
#include "db/pg_connection_worker.hpp"
#include "config/options.hpp"
#include "actors/metrics_text.hpp"
#include "actors/notify_listener.hpp"
#include "messages/prometheus.hpp"
#include "http/server.hpp"
#include "logging/log_setup.hpp"
#include "persistence/lmdb/store.hpp"
#include "persistence/lmdb/store_reader.hpp"
#include "persistence/pg/schema.hpp"
#include "runtime/io_scheduler.hpp"

using namespace restcache;

namespace {

// 4096 concurrent clients need more descriptors than the usual soft limit.
void raise_open_file_limit() {
  rlimit lim{};
  if (getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur < lim.rlim_max) {
    lim.rlim_cur = lim.rlim_max;
    setrlimit(RLIMIT_NOFILE, &lim);
  }
}

// Applies schema.sql when the database has no or an older schema. A database
// that is down at start-up is not fatal: the pool keeps reconnecting and
// /ready says not ready meanwhile.
void check_schema(const std::string& dsn) {
  try {
    pg::connection c{dsn};
    auto version = pg::installed_schema_version(c);
    if (version < pg::schema_version) {
      spdlog::info("database schema version {} < {}: applying schema.sql", version,
                   pg::schema_version);
      pg::ensure_schema(c);
    } else if (version > pg::schema_version) {
      spdlog::warn("database schema version {} is newer than this build's {}", version,
                   pg::schema_version);
    }
  } catch (const std::exception& e) {
    spdlog::warn("database not reachable at start-up ({}); will keep retrying", e.what());
  }
}

lmdb::sync_mode parse_sync_mode(const std::string& s) {
  if (s == "no-sync")
    return lmdb::sync_mode::no_sync;
  if (s == "no-meta-sync")
    return lmdb::sync_mode::no_meta_sync;
  return lmdb::sync_mode::durable;
}

/// Stops the listener and the shards, waits until they are gone, then lets
/// the batch writer write what they sent it before it exits.
void stop_cache(caf::actor_system& system, notify_listener_actor& listener,
                std::vector<cache_shard_actor>& shards, const batch_writer_actor& writer) {
  caf::scoped_actor self{system};
  if (listener) {
    self->monitor(listener);
    self->send_exit(listener, caf::exit_reason::user_shutdown);
    self->receive([](caf::down_msg&) {});
    listener = nullptr;
  }
  for (auto& s : shards) {
    self->monitor(s);
    self->send_exit(s, caf::exit_reason::user_shutdown);
  }
  size_t down = 0;
  self->receive_for(down, shards.size())([](caf::down_msg&) {});
  if (!writer)
    return;
  self->request(writer, std::chrono::seconds{60}, drain_atom::value)
    .receive([](uint64_t written) { spdlog::info("batch writer drained: {} records written in all", written); },
             [](caf::error& err) {
               spdlog::error("batch writer did not drain: {}", caf::to_string(err));
             });
  self->send_exit(writer, caf::exit_reason::user_shutdown);
}

} // namespace

int main(int argc, char** argv) {
  // Signals are taken synchronously by the main thread (sigwait below); every
  // thread started from here on (the loggers' too) inherits the blocked
  // mask, so no other thread takes them with the default action (exit). A
  // second SIGTERM while stopping stays pending: SIGKILL forces.
  sigset_t handled_signals;
  sigemptyset(&handled_signals);
  sigaddset(&handled_signals, SIGINT);
  sigaddset(&handled_signals, SIGTERM);
  sigaddset(&handled_signals, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &handled_signals, nullptr);
  // sigwait never sees a signal whose disposition is "ignore" (nohup, some
  // supervisors and test runners pass SIGHUP ignored): take them back.
  for (int sig : {SIGINT, SIGTERM, SIGHUP})
    signal(sig, SIG_DFL);
  restcache_config cfg;
  if (auto exit_code = cfg.read_options(argc, argv)) // --help, --version, --dump-config, bad input
    return *exit_code;
  auto& o = cfg.opts;
  std::unique_ptr<logging::log_setup> logs;
  try {
    logs = std::make_unique<logging::log_setup>(
      logging::log_options{o.log_level, o.log_format, o.log_file, o.log_access, o.log_access_file});
  } catch (const std::exception& e) {
    std::fprintf(stderr, "restcached: %s\n", e.what());
    return 1;
  }
  spdlog::info("{} starting (config file {}{})", restcache_version_text(), cfg.config_file_used,
               cfg.config_file_found ? "" : ", not found: defaults and command line only");
  raise_open_file_limit();

  signal(SIGPIPE, SIG_IGN);

  check_schema(o.db_dsn);

  // Declared before the actor system so they outlive it: mailboxes may still
  // hold callbacks that own HTTP sessions until the system is gone.
  std::vector<cache_metrics> shard_metrics(static_cast<size_t>(o.cache_shards));
  db_metrics pool_metrics;
  db_metrics direct_metrics; // the pool of writes and GET /depts
  batch_metrics writer_metrics;
  std::shared_ptr<lmdb::store> tier_store; // tiered and lmdb modes
  if (cfg.uses_lmdb()) {
    try {
      lmdb::env_options lmdb_opts;
      lmdb_opts.path = o.lmdb_path;
      lmdb_opts.max_bytes = static_cast<uint64_t>(o.lmdb_max_bytes);
      lmdb_opts.sync = parse_sync_mode(o.lmdb_sync);
      // Every shard and the writer hold a reader slot; leave room.
      lmdb_opts.max_readers = static_cast<unsigned>(o.cache_shards) + 126;
      tier_store = std::make_shared<lmdb::store>(lmdb_opts);
    } catch (const std::exception& e) {
      spdlog::critical("cannot open the LMDB tier at '{}' (lmdb.path): {}", o.lmdb_path, e.what());
      spdlog::shutdown();
      return 1;
    }
    auto history = tier_store->history();
    spdlog::info("LMDB tier at {}: {} records, {} MiB in use of {} MiB (lmdb.sync={}), watermark {}, {}",
                 o.lmdb_path, tier_store->count(), tier_store->bytes() >> 20, o.lmdb_max_bytes >> 20,
                 o.lmdb_sync, tier_store->watermark(),
                 history ? "history of " + describe(*history) : std::string{"no recorded history"});
    // Records without a watermark cannot be checked against the change log.
    if (tier_store->watermark() == 0 && tier_store->count() > 0) {
      spdlog::warn("LMDB tier has records but no replay watermark: dropping them");
      tier_store->clear();
    }
  }
  listener_metrics change_metrics;
  change_metrics.watermark.store(tier_store ? tier_store->watermark() : 0);
  // Until the listener has caught up, GETs go to PostgreSQL under either
  // policy: the tiers may hold documents changed while we were away, or of
  // another database altogether (the listener checks which history the
  // LMDB file holds before anything in it is served).
  const bool bypass_on_loss = o.cache_on_listener_loss == "bypass";
  std::atomic<bool> bypass{true};
  std::unique_ptr<pg_async_driver> async_driver; // db.driver=async
  std::unique_ptr<cache_front> front;
  std::unique_ptr<http::server> server;
  int exit_code = 0;
  // The io threads are CAF's workers: CAF builds no scheduler of its own
  // when a scheduler module is loaded.
  if (cfg.uses_io_scheduler())
    cfg.module_factories.push_back(&runtime::io_scheduler::make);
  if (o.inspect_port > 0) { // restcache-inspect: before the actor system exists
    cfg.load<caf::io::middleman>();
    add_inspect_message_types(cfg);
  }
  {
    caf::actor_system system{cfg};

    pg_worker_config worker_cfg{o.db_dsn, std::chrono::milliseconds{o.db_query_timeout_ms}};
    connection_factory factory;
    // A pipelining connection serves as many fills at once as it pipelines.
    size_t fills_per_connection = 1;
    if (o.db_driver == "async") {
      auto async_cfg = worker_cfg;
      async_cfg.pipeline_depth = static_cast<size_t>(o.db_pipeline_depth);
      fills_per_connection = async_cfg.pipeline_depth;
      // Under the io scheduler an io thread drives the connections: a fill's
      // query and its answer cross no thread of their own.
      boost::asio::io_context* home = nullptr;
      if (auto* io = runtime::io_scheduler::of(system))
        home = io->contexts().front();
      async_driver = std::make_unique<pg_async_driver>(async_cfg, pool_metrics, home);
      factory = async_driver->factory();
    } else {
      factory = [&](uint64_t slot, std::function<void(uint64_t)> on_up,
                    std::function<void(uint64_t)> on_down) -> db_lease {
        return std::make_shared<pg_connection_worker>(slot, worker_cfg, pool_metrics,
                                                      std::move(on_up), std::move(on_down));
      };
    }
    // Writes and GET /depts: connection threads of their own, whatever the driver.
    connection_factory direct_factory = [&](uint64_t slot, std::function<void(uint64_t)> on_up,
                                            std::function<void(uint64_t)> on_down) -> db_lease {
      return std::make_shared<pg_connection_worker>(slot, worker_cfg, direct_metrics, std::move(on_up),
                                                    std::move(on_down));
    };
    auto direct_pool = system.spawn(db_pool,
                                    db_pool_config{static_cast<size_t>(o.db_write_pool_size),
                                                   static_cast<size_t>(o.db_queue_size)},
                                    direct_factory, &direct_metrics);
    auto pool = system.spawn(db_pool,
                             db_pool_config{static_cast<size_t>(o.db_pool_size),
                                            static_cast<size_t>(o.db_queue_size),
                                            fills_per_connection},
                             factory, &pool_metrics);

    batch_writer_actor writer;
    if (tier_store) {
      batch_writer_config writer_cfg;
      writer_cfg.batch_size = static_cast<size_t>(o.lmdb_batch_size);
      writer_cfg.flush_interval = std::chrono::milliseconds{o.lmdb_flush_interval_ms};
      writer_cfg.max_queue = static_cast<size_t>(o.lmdb_max_queue);
      writer = spawn_batch_writer(system, writer_cfg, tier_store, &writer_metrics);
    }
    cache_shard_config shard_cfg{cfg.resolved_cache_mode(), o.cache_memory_bytes / o.cache_shards,
                                 std::chrono::milliseconds{o.cache_fill_timeout_ms}};
    shard_cfg.writer = writer;
    if (writer) {
      shard_cfg.writer_metrics = &writer_metrics;
      shard_cfg.writer_max_pending = o.lmdb_max_queue;
    }
    shard_cfg.bypass = &bypass;
    std::vector<cache_shard_actor> shards;
    for (auto& m : shard_metrics) {
      if (tier_store)
        shard_cfg.tier = std::make_shared<lmdb::store_reader>(*tier_store);
      shards.push_back(system.spawn(cache_shard, shard_cfg, pool, &m));
    }
    front = std::make_unique<cache_front>(shards, shard_metrics, pool_metrics);
    notify_listener_actor listener;
    if (cfg.resolved_cache_mode() != cache_mode::none) {
      notify_listener_config listener_cfg;
      listener_cfg.connection.dsn = o.db_dsn;
      listener_cfg.connection.retention = std::chrono::seconds{o.changelog_retention};
      listener_cfg.connection.mark_interval = std::chrono::milliseconds{o.changelog_mark_interval_ms};
      listener_cfg.connection.replay_limit = static_cast<size_t>(o.changelog_max_pending);
      if (tier_store)
        listener_cfg.connection.history = tier_store->history();
      listener_cfg.max_pending_keys = static_cast<size_t>(o.changelog_max_pending);
      listener_cfg.bypass_on_loss = bypass_on_loss;
      listener = system.spawn(notify_listener, listener_cfg, shards, writer,
                              std::make_shared<change_inbox>(listener_cfg.max_pending_keys),
                              &change_metrics, &bypass);
      front->add_metrics_source([&change_metrics] { return listener_metrics_text(change_metrics); });
      // Not ready until the listener has caught up, under either policy:
      // bypass serves from PostgreSQL meanwhile (slow), serve possibly old
      // documents; a load balancer should prefer an instance that is caught up.
      front->add_readiness_check([&change_metrics] {
        if (change_metrics.caught_up.load() == 1)
          return http::readiness_check{"listener", true, "caught up"};
        return http::readiness_check{"listener", false,
                                     change_metrics.connected.load() == 1 ? "catching up" : "down"};
      });
    }
    auto id_loader = spawn_dept_id_loader(system, pool, *front);
    front->set_direct_path(system, direct_pool, listener,
                           std::chrono::milliseconds{o.cache_fill_timeout_ms});
    caf::actor populator;
    if (o.cache_populate && cfg.resolved_cache_mode() != cache_mode::none) {
      // In lmdb mode nothing is kept in memory: populate the whole table and
      // let the tier's own budget evict (oldest written first).
      auto budget = cfg.resolved_cache_mode() == cache_mode::lmdb
                      ? std::numeric_limits<int64_t>::max()
                      : o.cache_memory_bytes;
      cache_populator_config populate_cfg{static_cast<int32_t>(o.cache_populate_page), budget};
      populate_cfg.caught_up = &change_metrics.caught_up;
      if (writer) {
        populate_cfg.writer = &writer_metrics;
        populate_cfg.writer_high_water = std::max<int64_t>(o.lmdb_batch_size * 2, o.lmdb_max_queue / 2);
      }
      populator = caf::actor_cast<caf::actor>(
        system.spawn(cache_populator, populate_cfg, pool, shards, &shard_metrics));
    }
    // Every long-lived actor by the name restcache-inspect and /metrics give
    // it, with the gauge it stores its mailbox size in (a null handle: not
    // started in this cache mode).
    std::vector<inspected_actor> long_lived;
    for (size_t i = 0; i < shards.size(); ++i)
      long_lived.push_back(inspect_entry("shard-" + std::to_string(i), shards[i], &shard_metrics[i].mailbox));
    long_lived.push_back(inspect_entry("db-pool", pool, &pool_metrics.mailbox));
    long_lived.push_back(inspect_entry("db-write-pool", direct_pool, &direct_metrics.mailbox));
    long_lived.push_back(inspect_entry("batch-writer", writer, &writer_metrics.mailbox));
    long_lived.push_back(inspect_entry("notify-listener", listener, &change_metrics.mailbox));
    long_lived.push_back(inspect_entry("dept-id-loader", id_loader));
    // restcache-inspect: published below (inspect.port), stopped with the others.
    inspector_actor inspector;
    if (o.inspect_port > 0) {
      inspector_config icfg;
      icfg.actors = long_lived;
      icfg.shards = shards;
      inspector = spawn_inspector(system, std::move(icfg));
    }

    http::server_options http_opts;
    http_opts.address = o.http_address;
    http_opts.port = static_cast<uint16_t>(o.http_port);
    http_opts.threads = static_cast<int>(o.http_threads);
    http_opts.body_limit = static_cast<size_t>(o.http_body_limit);
    http_opts.write_token = o.http_write_token;
    http_opts.max_connections = static_cast<size_t>(o.http_max_connections);
    http_opts.read_timeout = std::chrono::milliseconds{o.http_read_timeout_ms};
    http_opts.lookup_timeout = std::chrono::milliseconds{o.cache_fill_timeout_ms + 1000};
    http_opts.drain_timeout = std::chrono::milliseconds{o.http_shutdown_timeout_ms};
    http_opts.access_log = logs->access();
    if (auto* io = runtime::io_scheduler::of(system))
      http_opts.io_contexts = io->contexts();
    server = std::make_unique<http::server>(http_opts, *front);
    if (tier_store) // opened above or start-up failed; LMDB has no later "closed" state
      front->add_readiness_check([] { return http::readiness_check{"lmdb", true, "open"}; });
    if (tier_store)
      front->add_metrics_source(
        [&tier_store, &writer_metrics] { return lmdb_metrics_text(*tier_store, writer_metrics); });
    front->add_metrics_source([&server] {
      std::string text;
      server->metrics().append_prometheus(text);
      return text;
    });
    front->add_metrics_source([&pool_metrics, &direct_metrics] { return db_metrics_text(pool_metrics, direct_metrics); });
    {
      std::vector<mailbox_gauge> mailboxes;
      for (auto& a : long_lived)
        if (a.handle && a.mailbox)
          mailboxes.emplace_back(a.name, a.mailbox);
      front->add_metrics_source([mailboxes] { return mailbox_metrics_text(mailboxes); });
    }
    if (auto* access = logs->access())
      front->add_metrics_source([access] {
        std::string text;
        append_metric(text, "restcache_access_log_lines_total", "Access log lines written.", "counter",
                            static_cast<int64_t>(access->written()));
        append_metric(text, "restcache_access_log_dropped_total",
                            "Access log lines dropped because the writer was behind.", "counter",
                            static_cast<int64_t>(access->dropped()));
        return text;
      });
    front->add_metrics_source([] { return process_metrics_text(); });
    try {
      if (inspector) { // before serving: a port that cannot be had stops start-up
        auto bound = publish_inspector(system, inspector, static_cast<uint16_t>(o.inspect_port));
        if (!bound)
          throw std::runtime_error("cannot publish the inspector on 127.0.0.1:" + std::to_string(o.inspect_port)
                                   + " (inspect.port): " + system.render(bound.error()));
        spdlog::info("inspector published on 127.0.0.1:{} (restcache-inspect --port {})", *bound, *bound);
      }
      server->start();
      server->run_threads();
      spdlog::info("restcached listening on http://{}:{}/ ({} http threads{}, {} shards, cache.mode={}, "
                   "memory budget {} MiB, db pool {} ({}))",
                   o.http_address, server->bound_port(), o.http_threads,
                   cfg.uses_io_scheduler() ? " running the actors" : "", o.cache_shards,
                   o.cache_mode, o.cache_memory_bytes >> 20, o.db_pool_size, o.db_driver);
      // A line scripts and tests can wait for.
      std::printf("restcached: listening on %s:%u\n", o.http_address.c_str(), server->bound_port());
      std::fflush(stdout);
      for (;;) {
        int sig = 0;
        sigwait(&handled_signals, &sig);
        if (sig != SIGHUP) {
          spdlog::info("{} received: stopping (requests in flight get {} ms)", strsignal(sig),
                       o.http_shutdown_timeout_ms);
          break;
        }
        if (auto problems = logs->reopen(); problems.empty())
          spdlog::info("SIGHUP: log files reopened");
        else
          spdlog::error("SIGHUP: cannot reopen {}; still writing to the old file", problems);
      }
    } catch (const std::exception& e) {
      spdlog::critical("cannot start: {}", e.what());
      exit_code = 1;
    }
    server->stop();
    caf::anon_send_exit(id_loader, caf::exit_reason::user_shutdown);
    if (inspector)
      caf::anon_send_exit(inspector, caf::exit_reason::user_shutdown);
    if (populator)
      caf::anon_send_exit(populator, caf::exit_reason::user_shutdown);
    stop_cache(system, listener, shards, writer);
    caf::anon_send_exit(pool, caf::exit_reason::user_shutdown);
    caf::anon_send_exit(direct_pool, caf::exit_reason::user_shutdown);
    shards.clear();
    long_lived.clear();
    writer = nullptr;
    system.await_all_actors_done();
    async_driver.reset(); // while the io thread that may drive it still runs
  }
  spdlog::info("restcached stopped");
  return exit_code;
}
