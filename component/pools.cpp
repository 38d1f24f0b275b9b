// SPDX-License-Identifier: Apache-2.0
#include "component/pools.hpp"

#include <caf/all.hpp>

#include "component/component.hpp"
#include "db/db_metrics.hpp"

namespace restcache {

pg_worker_config worker_config_of(const daemon_options& o) {
  return pg_worker_config{o.db_dsn, std::chrono::milliseconds{o.db_query_timeout_ms}};
}

db_pool_config pool_config_of(const daemon_options& o, size_t size, size_t leases_per_connection) {
  db_pool_config c{size, static_cast<size_t>(o.db_queue_size), leases_per_connection};
  c.reconnect_grace = std::chrono::milliseconds{o.db_reconnect_grace_ms};
  return c;
}

connection_factory thread_connections(const pg_worker_config& worker, db_metrics& metrics) {
  return [worker, &metrics](uint64_t slot, std::function<void(uint64_t)> on_up,
                            std::function<void(uint64_t)> on_down) -> db_lease {
    return std::make_shared<pg_connection_worker>(slot, worker, metrics, std::move(on_up), std::move(on_down));
  };
}

db_pool_actor spawn_pool(daemon_context& ctx, const db_pool_config& config, connection_factory factory,
                         db_metrics& metrics, const std::string& label, std::string actor_name) {
  auto pool = ctx.system->spawn(db_pool, config, std::move(factory), &metrics);
  ctx.pools.emplace_back("{pool=\"" + label + "\"}", &metrics);
  ctx.long_lived.push_back(inspect_entry(std::move(actor_name), pool, &metrics.mailbox));
  return pool;
}

db_pool_actor spawn_thread_pool(daemon_context& ctx, int64_t size, db_metrics& metrics, const std::string& label,
                                std::string actor_name) {
  return spawn_pool(ctx, pool_config_of(ctx.options(), static_cast<size_t>(size), 1),
                    thread_connections(worker_config_of(ctx.options()), metrics), metrics, label,
                    std::move(actor_name));
}

} // namespace restcache
