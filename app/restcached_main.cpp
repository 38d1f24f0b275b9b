// restcached: the daemon. Parses options, wires the actors to the HTTP
// server, and runs until SIGINT or SIGTERM.

#include <caf/all.hpp>
#include <caf/io/all.hpp>
#include <spdlog/async.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <signal.h>
#include <sys/resource.h>

#include <cstdio>
#include <memory>
#include <vector>

#include "actors/cache_front.hpp"
#include "actors/cache_populator.hpp"
#include "actors/cache_shard.hpp"
#include "actors/db_pool.hpp"
#include "actors/pg_async_pool.hpp"
#include "actors/pg_connection_worker.hpp"
#include "config/options.hpp"
#include "http/server.hpp"
#include "persistence/pg/schema.hpp"

using namespace restcache;

namespace {

void setup_logging(const std::string& level) {
  spdlog::init_thread_pool(8192, 1);
  auto logger = spdlog::create_async<spdlog::sinks::stderr_color_sink_mt>("restcached");
  spdlog::set_default_logger(logger);
  spdlog::set_level(spdlog::level::from_str(level));
  spdlog::set_pattern("%Y-%m-%dT%H:%M:%S.%e %^%l%$ %v");
}

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

// CAF reports a bad value as parser_error(...) without saying which option
// was meant in words: find the first argument that fails on its own.
std::string describe_parse_error(int argc, char** argv, const caf::error& err) {
  for (int i = 1; i < argc; ++i) {
    restcache_config probe;
    if (probe.parse(caf::actor_system_config::string_list{argv[i]}))
      return std::string{"invalid option or value '"} + argv[i] + "'";
  }
  return caf::to_string(err);
}

} // namespace

int main(int argc, char** argv) {
  // CAF's --help lists only its global options; the long help lists ours.
  std::vector<char*> args{argv, argv + argc};
  static char long_help[] = "--long-help";
  for (auto& a : args)
    if (std::string_view{a} == "--help" || std::string_view{a} == "-h" || std::string_view{a} == "-?")
      a = long_help;
  argc = static_cast<int>(args.size());
  argv = args.data();
  restcache_config cfg;
  if (auto err = cfg.parse(argc, argv)) {
    std::fprintf(stderr, "restcached: %s (see restcached --help)\n",
                 describe_parse_error(argc, argv, err).c_str());
    return 2;
  }
  if (cfg.cli_helptext_printed)
    return 0;
  if (!cfg.remainder.empty()) {
    std::fprintf(stderr, "restcached: unexpected argument '%s' (options look like --http.port=8080; see --help)\n",
                 cfg.remainder.front().c_str());
    return 2;
  }
  if (auto problem = cfg.validate_and_resolve()) {
    std::fprintf(stderr, "restcached: %s\n", problem->c_str());
    return 2;
  }
  auto& o = cfg.opts;
  setup_logging(o.log_level);
  raise_open_file_limit();

  // Signals are taken synchronously by the main thread (sigwait below); every
  // thread started from here on inherits the blocked mask.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  signal(SIGPIPE, SIG_IGN);

  check_schema(o.db_dsn);

  // Declared before the actor system so they outlive it: mailboxes may still
  // hold callbacks that own HTTP sessions until the system is gone.
  std::vector<cache_metrics> shard_metrics(static_cast<size_t>(o.cache_shards));
  db_metrics pool_metrics;
  std::unique_ptr<pg_async_driver> async_driver; // db.driver=async
  std::unique_ptr<cache_front> front;
  std::unique_ptr<http::server> server;
  int exit_code = 0;
  {
    caf::actor_system system{cfg};

    pg_worker_config worker_cfg{o.db_dsn, std::chrono::milliseconds{o.db_query_timeout_ms}};
    connection_factory factory;
    if (o.db_driver == "async") {
      async_driver = std::make_unique<pg_async_driver>(worker_cfg, pool_metrics);
      factory = async_driver->factory();
    } else {
      factory = [&](uint64_t slot, std::function<void(uint64_t)> on_up,
                    std::function<void(uint64_t)> on_down) -> db_lease {
        return std::make_shared<pg_connection_worker>(slot, worker_cfg, pool_metrics,
                                                      std::move(on_up), std::move(on_down));
      };
    }
    auto pool = system.spawn(db_pool,
                             db_pool_config{static_cast<size_t>(o.db_pool_size),
                                            static_cast<size_t>(o.db_queue_size)},
                             factory, &pool_metrics);

    cache_shard_config shard_cfg{cfg.resolved_cache_mode(), o.cache_memory_bytes / o.cache_shards,
                                 std::chrono::milliseconds{o.cache_fill_timeout_ms}};
    std::vector<cache_shard_actor> shards;
    for (auto& m : shard_metrics)
      shards.push_back(system.spawn(cache_shard, shard_cfg, pool, &m));
    front = std::make_unique<cache_front>(shards, shard_metrics, pool_metrics);
    auto id_loader = spawn_dept_id_loader(system, pool, *front);
    caf::actor populator;
    if (o.cache_populate && cfg.resolved_cache_mode() == cache_mode::memory)
      populator = caf::actor_cast<caf::actor>(system.spawn(
        cache_populator,
        cache_populator_config{static_cast<int32_t>(o.cache_populate_page), o.cache_memory_bytes},
        pool, shards, &shard_metrics));

    http::server_options http_opts;
    http_opts.address = o.http_address;
    http_opts.port = static_cast<uint16_t>(o.http_port);
    http_opts.threads = static_cast<int>(o.http_threads);
    http_opts.body_limit = static_cast<size_t>(o.http_body_limit);
    http_opts.max_connections = static_cast<size_t>(o.http_max_connections);
    http_opts.read_timeout = std::chrono::milliseconds{o.http_read_timeout_ms};
    http_opts.lookup_timeout = std::chrono::milliseconds{o.cache_fill_timeout_ms + 1000};
    server = std::make_unique<http::server>(http_opts, *front);
    front->add_metrics_source([&server] {
      std::string text;
      server->metrics().append_prometheus(text);
      return text;
    });
    try {
      server->start();
      server->run_threads();
      spdlog::info("restcached listening on http://{}:{}/ ({} http threads, {} shards, cache.mode={}, "
                   "memory budget {} MiB, db pool {} ({}))",
                   o.http_address, server->bound_port(), o.http_threads, o.cache_shards,
                   o.cache_mode, o.cache_memory_bytes >> 20, o.db_pool_size, o.db_driver);
      // A line scripts and tests can wait for.
      std::printf("restcached: listening on %s:%u\n", o.http_address.c_str(), server->bound_port());
      std::fflush(stdout);
      int sig = 0;
      sigwait(&stop_signals, &sig);
      spdlog::info("signal {} received: shutting down", sig);
    } catch (const std::exception& e) {
      spdlog::critical("cannot start: {}", e.what());
      exit_code = 1;
    }
    server->stop();
    for (auto& s : shards)
      caf::anon_send_exit(s, caf::exit_reason::user_shutdown);
    caf::anon_send_exit(id_loader, caf::exit_reason::user_shutdown);
    if (populator)
      caf::anon_send_exit(populator, caf::exit_reason::user_shutdown);
    caf::anon_send_exit(pool, caf::exit_reason::user_shutdown);
    shards.clear();
    system.await_all_actors_done();
  }
  spdlog::info("restcached stopped");
  spdlog::shutdown();
  return exit_code;
}
