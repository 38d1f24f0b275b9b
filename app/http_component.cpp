// SPDX-License-Identifier: Apache-2.0
#include "app/http_component.hpp"

#include <caf/actor_system.hpp>
#include <spdlog/spdlog.h>

#include <stdexcept>

#include "app/cache_front.hpp"
#include "app/shards_component.hpp"
#include "http/openapi_document.hpp"
#include "http/server.hpp"
#include "logging/log_setup.hpp"
#include "messages/prometheus.hpp"
#include "runtime/io_scheduler.hpp"

namespace restcache {

http_component::http_component() = default;
http_component::~http_component() = default;

namespace {

http::server_options server_options_of(daemon_context& ctx) {
  const auto& o = ctx.options();
  http::server_options s;
  s.address = o.http_address;
  s.port = static_cast<uint16_t>(o.http_port);
  s.threads = static_cast<int>(o.http_threads);
  s.body_limit = static_cast<size_t>(o.http_body_limit);
  s.write_token = o.http_write_token;
  s.writes_closed = o.writes == write_access::closed;
  s.allowed_hosts = ctx.cfg.allowed_hosts();
  s.metrics_need_token = o.http_metrics == "token";
  s.openapi = http::openapi_document(ctx.openapi_part);
  s.honour_no_cache = o.cache_no_cache == "honour";
  s.request_timeout = std::chrono::milliseconds{o.http_request_timeout_ms};
  s.body_idle_timeout = std::chrono::milliseconds{o.http_body_idle_timeout_ms};
  s.body_budget = static_cast<size_t>(o.http_body_budget_bytes);
  s.max_connections = static_cast<size_t>(o.http_max_connections);
  s.max_connections_per_address = static_cast<size_t>(o.http_max_connections_per_address);
  s.trusted_proxies = ctx.cfg.trusted_proxies();
  s.exempt_addresses = ctx.cfg.exempt_addresses();
  s.read_timeout = std::chrono::milliseconds{o.http_read_timeout_ms};
  s.lookup_timeout = std::chrono::milliseconds{o.cache_fill_timeout_ms + 1000};
  s.drain_timeout = std::chrono::milliseconds{o.http_shutdown_timeout_ms};
  s.access_log = ctx.logs.access();
  if (auto* io = runtime::io_scheduler::of(*ctx.system))
    s.io_contexts = io->contexts();
  return s;
}

/// Who may write, said once at start: an operator reading the log knows what
/// the instance exposes.
void log_write_access(const daemon_options& o) {
  if (o.writes == write_access::closed)
    spdlog::info("writes are closed (http.writes=closed): every write answers 403");
  else if (o.writes == write_access::token)
    spdlog::info("writes need the write token");
  else if (is_loopback_address(o.http_address))
    spdlog::info("writes need no token: open to requests whose Host is one of {} (http.allowed-hosts)",
                 o.http_allowed_hosts);
  else
    spdlog::warn("writes need no token and http.address {} is not loopback (http.allow-open-writes-on-network): "
                 "anyone who reaches it with a Host of {} can change the database",
                 o.http_address, o.http_allowed_hosts);
}

} // namespace

void http_component::start(daemon_context& ctx) {
  const auto& o = ctx.options();
  auto& front = ctx.find<shards_component>().front();
  front.set_actions(ctx.actions);
  log_write_access(o);
  server_ = std::make_unique<http::server>(server_options_of(ctx), front);
  ctx.board.add_metrics_writer([this] {
    std::string text;
    server_->metrics().append_prometheus(text);
    return text;
  });
  if (auto* access = ctx.logs.access())
    ctx.board.add_metrics_writer([access] {
      std::string text;
      append_metric(text, "restcache_access_log_lines_total", "Access log lines written.", "counter",
                    static_cast<int64_t>(access->written()));
      append_metric(text, "restcache_access_log_dropped_total",
                    "Access log lines dropped because the writer was behind.", "counter",
                    static_cast<int64_t>(access->dropped()));
      return text;
    });
  try {
    server_->start();
  } catch (const std::exception& e) {
    throw std::runtime_error(std::string{"cannot start: "} + e.what());
  }
  server_->run_threads();
  spdlog::info("restcached listening on http://{}:{}/ ({} http threads{}, {} shards, cache.mode={}, "
               "memory budget {} MiB, db pool {} ({}))",
               o.http_address, server_->bound_port(), o.http_threads,
               ctx.cfg.uses_io_scheduler() ? " running the actors" : "", o.cache_shards, o.cache_mode,
               o.cache_memory_bytes >> 20, o.db_pool_size, o.db_driver);
}

void http_component::stop(daemon_context&) {
  if (server_)
    server_->stop();
}

uint16_t http_component::port() const {
  return server_ ? server_->bound_port() : 0;
}

} // namespace restcache
