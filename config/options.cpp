#include "config/options.hpp"

#include <unistd.h>

#include <algorithm>
#include <thread>

#include "config/defaults.hpp"

namespace restcache {

namespace {

int64_t cores() {
  return std::max<int64_t>(1, std::thread::hardware_concurrency());
}

} // namespace

int64_t physical_memory_bytes() {
  auto pages = sysconf(_SC_PHYS_PAGES);
  auto page = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? int64_t(pages) * int64_t(page) : 0;
}

restcache_config::restcache_config() {
  opts = daemon_options{
    defaults::http_address,      defaults::http_port,           defaults::http_threads,
    defaults::http_body_limit,   defaults::http_max_connections, defaults::http_read_timeout_ms,
    defaults::http_write_token,
    defaults::db_dsn,            defaults::db_pool_size,        defaults::db_queue_size,
    defaults::db_query_timeout_ms, defaults::db_write_pool_size, defaults::db_driver, defaults::cache_shards,      defaults::cache_mode,
    defaults::cache_memory_bytes, defaults::cache_fill_timeout_ms, defaults::cache_populate,
    defaults::cache_populate_page, defaults::cache_on_listener_loss, defaults::changelog_retention,
    defaults::changelog_max_pending, defaults::changelog_mark_interval_ms, defaults::lmdb_path, defaults::lmdb_max_bytes,
    defaults::lmdb_batch_size, defaults::lmdb_flush_interval_ms, defaults::lmdb_max_queue,
    defaults::lmdb_sync, defaults::log_level,
  };
  opt_group{custom_options_, "http"}
    .add(opts.http_address, "address", "address to listen on (default 127.0.0.1)")
    .add(opts.http_port, "port", "TCP port to listen on, 0 picks a free one (default 8080)")
    .add(opts.http_threads, "threads", "asio threads serving HTTP, 0 = half the cores (default 0)")
    .add(opts.http_body_limit, "body-limit", "largest request body in bytes (default 2097152)")
    .add(opts.http_write_token, "write-token",
         "when set, writes need 'Authorization: Bearer <token>' (default empty: off)")
    .add(opts.http_max_connections, "max-connections",
         "open connections beyond which new ones get 503 (default 10000)")
    .add(opts.http_read_timeout_ms, "read-timeout-ms",
         "idle keep-alive and slow-request limit in ms (default 30000)");
  opt_group{custom_options_, "db"}
    .add(opts.db_dsn, "dsn", "libpq connection string; empty = PG* environment (default empty)")
    .add(opts.db_pool_size, "pool-size", "pooled PostgreSQL connections (default 4)")
    .add(opts.db_queue_size, "queue-size",
         "fills that may wait for a connection before 503 (default 10000)")
    .add(opts.db_query_timeout_ms, "query-timeout-ms", "statement timeout in ms (default 5000)")
    .add(opts.db_write_pool_size, "write-pool-size",
         "connections for writes and GET /depts, apart from the fill pool (default 2)")
    .add(opts.db_driver, "driver",
         "threads (a thread per connection) | async (one thread drives all) (default threads)");
  opt_group{custom_options_, "cache"}
    .add(opts.cache_shards, "shards", "cache shard actors, 0 = one per core (default 0)")
    .add(opts.cache_mode, "mode",
         "tiered (memory, LMDB, PostgreSQL) | memory | lmdb | none (default tiered)")
    .add(opts.cache_memory_bytes, "memory-bytes",
         "byte budget of the memory tier, 0 = a quarter of RAM (default 0)")
    .add(opts.cache_fill_timeout_ms, "fill-timeout-ms",
         "a fill not done by then answers 504 (default 10000)")
    .add(opts.cache_populate, "populate",
         "load departments into the tiers at start-up, up to the budget (flag)")
    .add(opts.cache_populate_page, "populate-page",
         "departments per populate query (default 2000)")
    .add(opts.cache_on_listener_loss, "on-listener-loss",
         "bypass (GETs go to PostgreSQL while the change listener is not caught up) | "
         "serve (possibly old documents; /ready says not ready) (default bypass)");
  opt_group{custom_options_, "changelog"}
    .add(opts.changelog_retention, "retention",
         "seconds change-log entries are kept once applied, 0 = never prune (default 86400)")
    .add(opts.changelog_max_pending, "max-pending",
         "changed keys coalesced while the shards catch up; beyond, both tiers are dropped "
         "(default 1000000)")
    .add(opts.changelog_mark_interval_ms, "mark-interval",
         "ms between replay watermark marks (default 200)");
  opt_group{custom_options_, "lmdb"}
    .add(opts.lmdb_path, "path", "directory of the LMDB tier, created if missing (default var/lmdb)")
    .add(opts.lmdb_max_bytes, "max-bytes",
         "byte budget of the LMDB file; about 4 KB per document (default 1 GiB)")
    .add(opts.lmdb_batch_size, "batch-size", "records per write transaction (default 10000)")
    .add(opts.lmdb_flush_interval_ms, "flush-interval",
         "ms a smaller batch waits before it is written (default 1000)")
    .add(opts.lmdb_max_queue, "max-queue",
         "records queued for writing beyond which new ones are dropped (default 100000)")
    .add(opts.lmdb_sync, "sync", "durable | no-meta-sync | no-sync (default durable)");
  opt_group{custom_options_, "log"}
    .add(opts.log_level, "level", "trace | debug | info | warn | error | off (default info)");
  // The work-sharing scheduler wakes workers promptly for request/response
  // hops; work stealing backs off with sleeps (toolchain notes).
  set("scheduler.policy", caf::atom("sharing"));
  // One CAF thread next to the asio threads measured best on 2 cores.
  set("scheduler.max-threads", static_cast<size_t>(std::max<int64_t>(1, cores() / 2)));
}

std::optional<std::string> restcache_config::validate_and_resolve() {
  auto& o = opts;
  auto positive = [](int64_t v) { return v > 0; };
  if (o.http_port < 0 || o.http_port > 65535)
    return "http.port must be 0..65535, got " + std::to_string(o.http_port);
  if (o.http_threads < 0 || o.http_threads > 256)
    return "http.threads must be 0..256, got " + std::to_string(o.http_threads);
  if (!positive(o.http_body_limit))
    return "http.body-limit must be positive";
  if (!positive(o.http_max_connections))
    return "http.max-connections must be positive";
  if (!positive(o.http_read_timeout_ms))
    return "http.read-timeout-ms must be positive";
  if (o.db_pool_size < 1 || o.db_pool_size > 1000)
    return "db.pool-size must be 1..1000, got " + std::to_string(o.db_pool_size);
  if (o.db_write_pool_size < 1 || o.db_write_pool_size > 1000)
    return "db.write-pool-size must be 1..1000, got " + std::to_string(o.db_write_pool_size);
  if (!positive(o.db_queue_size))
    return "db.queue-size must be positive";
  if (!positive(o.db_query_timeout_ms))
    return "db.query-timeout-ms must be positive";
  if (o.db_driver != "threads" && o.db_driver != "async")
    return "db.driver must be threads or async, got '" + o.db_driver + "'";
  if (o.cache_shards < 0 || o.cache_shards > 4096)
    return "cache.shards must be 0..4096, got " + std::to_string(o.cache_shards);
  if (o.cache_mode != "tiered" && o.cache_mode != "memory" && o.cache_mode != "lmdb"
      && o.cache_mode != "none")
    return "cache.mode must be tiered, memory, lmdb or none, got '" + o.cache_mode + "'";
  if (o.cache_memory_bytes < 0)
    return "cache.memory-bytes must not be negative";
  if (!positive(o.cache_fill_timeout_ms))
    return "cache.fill-timeout-ms must be positive";
  if (o.cache_populate_page < 1 || o.cache_populate_page > 100'000)
    return "cache.populate-page must be 1..100000, got " + std::to_string(o.cache_populate_page);
  if (o.cache_on_listener_loss != "bypass" && o.cache_on_listener_loss != "serve")
    return "cache.on-listener-loss must be bypass or serve, got '" + o.cache_on_listener_loss + "'";
  if (o.changelog_retention < 0)
    return "changelog.retention must be 0 (never prune) or a number of seconds";
  if (o.changelog_max_pending < 1)
    return "changelog.max-pending must be positive";
  if (o.changelog_mark_interval_ms < 10 || o.changelog_mark_interval_ms > 60'000)
    return "changelog.mark-interval must be 10..60000 ms, got " + std::to_string(o.changelog_mark_interval_ms);
  if (o.lmdb_path.empty() && uses_lmdb())
    return "lmdb.path must not be empty with cache.mode=" + o.cache_mode;
  if (o.lmdb_max_bytes < (int64_t{1} << 20))
    return "lmdb.max-bytes must be at least 1048576, got " + std::to_string(o.lmdb_max_bytes);
  if (o.lmdb_batch_size < 1 || o.lmdb_batch_size > 1'000'000)
    return "lmdb.batch-size must be 1..1000000, got " + std::to_string(o.lmdb_batch_size);
  if (!positive(o.lmdb_flush_interval_ms))
    return "lmdb.flush-interval must be a positive number of ms";
  if (o.lmdb_max_queue < o.lmdb_batch_size)
    return "lmdb.max-queue must be at least lmdb.batch-size, got " + std::to_string(o.lmdb_max_queue);
  if (o.lmdb_sync != "durable" && o.lmdb_sync != "no-meta-sync" && o.lmdb_sync != "no-sync")
    return "lmdb.sync must be durable, no-meta-sync or no-sync, got '" + o.lmdb_sync + "'";
  static const char* levels[] = {"trace", "debug", "info", "warn", "error", "critical", "off"};
  if (std::find(std::begin(levels), std::end(levels), o.log_level) == std::end(levels))
    return "log.level must be one of trace, debug, info, warn, error, critical, off";
  auto half = std::max<int64_t>(1, cores() / 2);
  if (o.http_threads == 0)
    o.http_threads = half;
  if (o.cache_shards == 0)
    o.cache_shards = cores();
  if (o.cache_memory_bytes == 0) {
    auto ram = physical_memory_bytes();
    o.cache_memory_bytes = ram > 0 ? ram / 4 : int64_t{1} << 30;
  }
  return std::nullopt;
}

cache_mode restcache_config::resolved_cache_mode() const {
  if (opts.cache_mode == "none")
    return cache_mode::none;
  if (opts.cache_mode == "memory")
    return cache_mode::memory;
  if (opts.cache_mode == "lmdb")
    return cache_mode::lmdb;
  return cache_mode::tiered;
}

bool restcache_config::uses_lmdb() const {
  auto mode = resolved_cache_mode();
  return mode == cache_mode::tiered || mode == cache_mode::lmdb;
}

} // namespace restcache
