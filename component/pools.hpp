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
/// A pool on db.dsn whose connections each run on a thread of their own:
/// jobs of any kind, whatever db.driver is. Its counters go to `metrics`,
/// listed in /metrics as {pool="LABEL"} and in the inspector as `actor_name`.
db_pool_actor spawn_thread_pool(daemon_context& ctx, int64_t size, db_metrics& metrics, std::string label,
                                std::string actor_name);

} // namespace restcache
