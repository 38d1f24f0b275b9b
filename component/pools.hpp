// SPDX-License-Identifier: Apache-2.0
#pragma once

// Connection pools as the options configure them, for the engine's fill
// pools and for a module's own.

#include <cstddef>
#include <cstdint>
#include <string>

#include "actors/actors.hpp"
#include "actors/db_pool.hpp"
#include "db/pg_connection_worker.hpp"

namespace restcache {

struct daemon_context;
struct daemon_options;

/// A session on db.dsn with the configured query timeout.
pg_worker_config worker_config_of(const daemon_options& o);
/// A pool of `size` connections with the configured queue and reconnect grace.
db_pool_config pool_config_of(const daemon_options& o, size_t size, size_t leases_per_connection);
/// Connections that each run on a thread of their own (pg_connection_worker),
/// counting into `metrics`.
connection_factory thread_connections(const pg_worker_config& worker, db_metrics& metrics);
/// A pool of `factory`'s connections, its counters in `metrics`: listed in
/// /metrics as {pool="LABEL"} and in the inspector as `actor_name`.
db_pool_actor spawn_pool(daemon_context& ctx, const db_pool_config& config, connection_factory factory,
                         db_metrics& metrics, const std::string& label, std::string actor_name);
/// A pool on db.dsn of thread_connections: jobs of any kind, whatever
/// db.driver is.
db_pool_actor spawn_thread_pool(daemon_context& ctx, int64_t size, db_metrics& metrics, const std::string& label,
                                std::string actor_name);

} // namespace restcache
