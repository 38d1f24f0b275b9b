// SPDX-License-Identifier: Apache-2.0
#pragma once

// The default of every option restcache reads, written once: config/options.cpp
// registers them with CAF's actor_system_config, and the components' own
// config structs take theirs from here (this header is constants only, so
// every layer may include it). docs/configuration.md lists them, printed from
// the option table (restcached --options-page).

#include <cstdint>

namespace restcache::defaults {

// http.*
inline constexpr const char* http_address = "127.0.0.1";
inline constexpr int64_t http_port = 8080;
/// 0: one per core with runtime.scheduler=io, half the cores (at least 1) with caf.
inline constexpr int64_t http_threads = 0;
/// A department of 10,000 employees (the body parser's limit) is ~1.5 MB.
inline constexpr int64_t http_body_limit = 2 * 1024 * 1024;
/// When not empty, writes need "Authorization: Bearer <token>".
inline constexpr const char* http_write_token = "";
inline constexpr int64_t http_max_connections = 10'000;
/// One client address's share of http_max_connections: a client reconnecting
/// in a loop holds this many, not all of them.
inline constexpr int64_t http_max_connections_per_address = 64;
/// Peers not limited per address: this host (its own reverse proxy, which
/// may carry many clients without naming them, its tools, load generators).
inline constexpr const char* http_exempt_addresses = "127.0.0.0/8, ::1";
/// Balancers whose PROXY protocol v2 header names the client: none.
inline constexpr const char* http_trusted_proxies = "";
/// How long a connection may sit idle between requests, and how long a
/// client may take to read an answer.
inline constexpr int64_t http_read_timeout_ms = 30'000;
/// A request (header and body) must arrive whole within this long of its
/// first byte: a client trickling bytes cannot extend it.
inline constexpr int64_t http_request_timeout_ms = 30'000;
/// A request body that sends nothing for this long loses its connection
/// (and its share of the body budget).
inline constexpr int64_t http_body_idle_timeout_ms = 5'000;
/// A file holding the write token (a systemd credential, say); empty: none.
inline constexpr const char* http_write_token_file = "";
/// The environment variable a write token may come from instead.
inline constexpr const char* write_token_env = "RESTCACHE_WRITE_TOKEN";
/// auto: writes need the token when one is given, else are open | open | closed.
inline constexpr const char* http_writes = "auto";
/// With writes open, the Host values a write may carry: loopback names, so a
/// web page in a browser on the same machine cannot write through DNS rebinding.
inline constexpr const char* http_allowed_hosts = "localhost,127.0.0.1,[::1]";
/// Open writes on an address other than loopback refuse to start unless set.
inline constexpr bool http_allow_open_writes_on_network = false;
/// open | token: /metrics needs the write token.
inline constexpr const char* http_metrics = "open";
/// Bytes of request bodies all connections together may hold at once (read,
/// then parsed until the write is answered); beyond it a write gets 503.
inline constexpr int64_t http_body_budget_bytes = 64 * 1024 * 1024;
/// SIGTERM/SIGINT: how long requests in flight may take to finish.
inline constexpr int64_t http_shutdown_timeout_ms = 5'000;

// db.*
inline constexpr const char* db_dsn = "";           ///< empty: libpq defaults and PG* variables
/// Fill connections. With cache.mode=none, 8 async connections gave the most
/// req/s here (wrk -c64: 4 threads 7.2k, 8 threads 7.6k, 8 async 8.5k,
/// 16 async 8.7k; pgbench -c64 on the same query 10.4-11.4k).
inline constexpr int64_t db_pool_size = 8;
inline constexpr int64_t db_queue_size = 10'000;    ///< borrowers waiting for a connection
inline constexpr int64_t db_reconnect_grace_ms = 2'000; ///< borrowers wait out a pool's blip this long
inline constexpr int64_t db_query_timeout_ms = 5'000;
/// Connections (each on its own thread) for writes and GET /depts, apart
/// from the pool that fills the caches, so a burst of writes never starves
/// the fills.
inline constexpr int64_t db_write_pool_size = 2;
/// Connections (each on its own thread) for GET /depts, apart from the write
/// pool: an unauthenticated flood of pages then never delays a write.
inline constexpr int64_t db_list_pool_size = 1;
/// Streaming standbys that fills read from, libpq connection strings
/// separated by ';'. Empty: fills read the primary (db.dsn).
inline constexpr const char* db_replicas = "";
/// Fill connections per standby; 0: db.pool-size.
inline constexpr int64_t db_replica_pool_size = 0;
/// A standby further behind than this (the time since its last replayed
/// commit while WAL waits) gets no fills. Above a few seconds of ordinary
/// apply lag; a standby this far behind would mostly fail the WAL check.
inline constexpr int64_t db_replica_max_lag_ms = 5'000;
/// How long a fill waits for a standby to replay the key's last change
/// before reading the primary: a replay lag of milliseconds costs the
/// primary nothing, a long one costs one wait per changed key.
inline constexpr int64_t db_replica_wait_ms = 100;
/// A standby's document counts only if it had replayed the key's last
/// change; false only in tests and benches, to show what that prevents.
inline constexpr bool db_replica_lsn_check = true;
/// threads: one libpq connection per dedicated thread (pg_connection_worker);
/// async: one thread drives every connection's socket (pg_async_pool).
/// bench/db_hop_bench.cpp compares them in isolation; through the whole
/// daemon (cache.mode=none, wrk -c64, the database on the same 2 cores)
/// async served 10-20% more and costs ~25% less CPU per query.
inline constexpr const char* db_driver = "async";
/// db.driver=async: statements one fill connection has unanswered at once
/// (libpq pipeline mode), and so the fills that share it. cache.mode=none,
/// wrk -c8 / -c64 on this machine: depth 1 14-15k / 17k req/s, 4 15.7k /
/// 23k, 8 20-23k / 26k, 16 and 32 no better than 8.
inline constexpr int64_t db_pipeline_depth = 8;

// documents.*
/// The declaration file of the kinds served; "" serves the demo's
/// (demo/demo.toml, compiled in) with its writes and lists.
inline constexpr const char* documents_file = "";

// cache.*
inline constexpr int64_t cache_shards = 0;          ///< 0: one per core
/// tiered: memory, then LMDB, then PostgreSQL | memory | lmdb | none
inline constexpr const char* cache_mode = "tiered";
inline constexpr int64_t cache_memory_bytes = 0;    ///< 0: a quarter of physical RAM
inline constexpr int64_t cache_fill_timeout_ms = 10'000;
inline constexpr bool cache_populate = false;       ///< load departments at start-up
inline constexpr int64_t cache_populate_page = 2'000; ///< departments per populate query

/// Seconds a document cached before the notify listener lost PostgreSQL
/// may still be answered, marked stale-if-error, when a fill cannot reach
/// the database or times out (0: never; misses answer 503 either way).
/// Five minutes cover a PostgreSQL restart, a crash recovery of a modest
/// database and a managed failover (Patroni's defaults take 30-40 s); an
/// instance cut off longer stops answering from what it can no longer check.
inline constexpr int64_t cache_stale_if_error = 300;
/// Seconds a "does not exist" stays in memory (0: not remembered). The
/// INSERT that creates the id drops it sooner; the TTL is a second bound.
inline constexpr int64_t cache_negative_ttl = 60;
/// Percent of the memory budget "does not exist" entries may take at most,
/// so a scan of absent ids cannot evict real documents.
inline constexpr int64_t cache_negative_share = 5;
/// A client's Cache-Control: no-cache (or Pragma: no-cache): ignore, as
/// nginx's proxy cache and Varnish do (every cached document is already
/// fresh: the change feed drops it on commit), or honour.
inline constexpr const char* cache_no_cache = "ignore";
/// With cache.no-cache=honour: at most one refresh per key per this many ms
/// reaches PostgreSQL; the others in the interval are answered from the tiers.
inline constexpr int64_t cache_refresh_interval_ms = 1'000;

// changelog.*
/// Seconds change-log entries are kept; older ones this instance has applied
/// are pruned. 0: never prune.
inline constexpr int64_t changelog_retention = 86'400;
/// Changed keys coalesced while the shards catch up; beyond this both tiers
/// are dropped instead (a storm is absorbed in bounded memory).
inline constexpr int64_t changelog_max_pending = 1'000'000;
/// Replays of at least this many change-log entries go through a digest the
/// instances share (restcache_replay in schema.sql): one such replay at a
/// time, and only the first reads the log.
inline constexpr int64_t changelog_replay_digest_from = 10'000;
/// Bytes of the change log (table and indexes) beyond which the listener
/// warns each minute: a log that size means instances stopped pruning it.
inline constexpr const char* changelog_feed = "auto";
inline constexpr bool changelog_wal_relay = false;
inline constexpr int64_t changelog_slot_create_wait_ms = 10'000;
inline constexpr int64_t changelog_warn_bytes = int64_t{1} << 30;
/// How often the listener reads the change log (ms): each read is a
/// watermark mark, and bounds how long a committed change waits.
inline constexpr int64_t changelog_poll_interval_ms = 25;
/// How often the listener checks the watched tables' catalog for drift (ms):
/// restcache's triggers disabled or missing, a column the documents read
/// altered or dropped (persistence/pg/catalog_drift.hpp).
inline constexpr int64_t changelog_drift_interval_ms = 2'000;

// lmdb.*
/// The directory of the LMDB tier (created if missing). Relative paths are
/// relative to the working directory; scripts/run passes var/lmdb.
inline constexpr const char* lmdb_path = "var/lmdb";
/// Budget of the file; LMDB keeps at most two 1.5 KB documents per 4 KB page,
/// so this holds about 250,000 department documents.
inline constexpr int64_t lmdb_max_bytes = int64_t{1} << 30;
inline constexpr int64_t lmdb_batch_size = 10'000;      ///< records per write transaction
inline constexpr int64_t lmdb_flush_interval_ms = 1'000; ///< a smaller batch waits at most this
inline constexpr int64_t lmdb_max_queue = 100'000;      ///< queued records beyond which fills are not written
/// durable (fsync every commit) | no-meta-sync | no-sync; see persistence/lmdb/env.hpp.
inline constexpr const char* lmdb_sync = "durable";

// runtime.*
/// io: CAF's actors run on the HTTP io threads (runtime/io_scheduler.hpp);
/// caf: CAF's own scheduler on threads of its own next to the HTTP threads.
inline constexpr const char* runtime_scheduler = "io";

// With runtime.scheduler=caf, CAF's own scheduler.max-threads defaults to
// half the cores (at least 1) and scheduler.policy to sharing; both can be
// overridden as usual. With io, scheduler.max-threads is http.threads.

// log.*
inline constexpr const char* log_level = "info";
inline constexpr const char* log_format = "text"; ///< text | json (one object per line)
/// Empty: stderr. A file is reopened on SIGHUP (logrotate's postrotate).
inline constexpr const char* log_file = "";
/// One line per request, off by default.
inline constexpr bool log_access = false;
/// Empty: the access log goes where the log goes (log.file or stderr).
inline constexpr const char* log_access_file = "";

// daemon
/// Where the daemon reads its configuration when --config-file is not given
/// (a missing file there is not an error; a missing --config-file is).
inline constexpr const char* config_file = "/etc/restcache/restcached.conf";

// inspect.*
/// Unix socket (mode 0600) restcache-inspect reaches the inspector on; empty: off.
inline constexpr const char* inspect_socket = "";

} // namespace restcache::defaults
