// SPDX-License-Identifier: Apache-2.0
#pragma once

// Counters of the HTTP edge. Owned by http::server (server::metrics()).
// Requests are counted per asio thread (each thread writes only its own
// slot, no locked instruction per request) and summed on scrape; the rarer
// connection events use shared relaxed atomics. No Beast here.

#include <atomic>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>

#include "messages/metric_types.hpp"
#include "http/action_routes.hpp"
#include "http/router.hpp"
#include "messages/doc_catalogue.hpp"

namespace restcache::http {

/// The routes as /metrics labels them: every route_kind but document and
/// action (their places unused), then each action metric route
/// (action_route::metric), then each kind's document route by kind id,
/// then the requests refused before routing (malformed, too large, too
/// many connections). Bounded by the bounds on actions and kinds.
inline constexpr size_t fixed_metric_routes = static_cast<size_t>(route_kind::not_found) + 1;
inline constexpr size_t first_kind_metric_route = fixed_metric_routes + max_action_metrics;
inline constexpr size_t metric_route_count = first_kind_metric_route + max_kinds + 1;
inline constexpr size_t unrouted_metric_route = metric_route_count - 1;

/// The metric route of a routed request.
constexpr size_t metric_route_of(const route& r) noexcept {
  return r.kind == route_kind::document ? first_kind_metric_route + static_cast<size_t>(r.doc) - 1
         : r.kind == route_kind::action ? fixed_metric_routes + r.action_metric
                                        : static_cast<size_t>(r.kind);
}

/// The statuses restcache answers, each its own label value; anything else is "other".
inline constexpr unsigned metric_statuses[] = {200, 201, 204, 304, 400, 401, 403, 404, 405, 409, 411,
                                               412, 413, 415, 417, 422, 431, 500, 501, 502, 503, 504};
inline constexpr size_t metric_status_count = std::size(metric_statuses) + 1;

/// Request durations: finer than the database histograms, as a memory hit
/// takes well under a millisecond. Bounds in microseconds.
inline constexpr int64_t request_duration_bounds_us[] = {50,     100,    250,     500,    1'000,
                                                         2'500,  5'000,  10'000,  25'000, 50'000,
                                                         100'000, 250'000, 500'000, 1'000'000, 2'500'000,
                                                         10'000'000};
inline constexpr size_t request_duration_buckets = std::size(request_duration_bounds_us) + 1;

/// What one thread counted. Written by that thread only (relaxed load +
/// store, no lock prefix); read by the scrape.
struct alignas(64) request_counters {
  single_writer_counter by_status[metric_route_count][metric_status_count] = {};
  single_writer_counter duration_buckets[metric_route_count][request_duration_buckets] = {};
  single_writer_counter duration_sum_us[metric_route_count] = {};
};

struct http_metrics {
  http_metrics();

  /// Counts one answered request: route (metric_route_count index), status
  /// and duration. Uses the calling thread's slot once it has registered
  /// (register_this_thread), else a shared slot with atomic adds.
  void record(size_t route, unsigned status, int64_t duration_us) noexcept;
  /// Gives the calling thread a slot of its own for record(); asio threads
  /// call it once when they start.
  void register_this_thread();

  /// Requests rejected before routing (malformed 400, 413, 431).
  std::atomic<uint64_t> bad_requests{0};
  /// Lookups answered 504 because the cache did not reply within lookup_timeout.
  std::atomic<uint64_t> lookup_timeouts{0};
  /// 304 Not Modified answers.
  std::atomic<uint64_t> not_modified{0};
  /// Responses to pipelined requests held back to leave in one write with
  /// the responses after them.
  std::atomic<uint64_t> responses_coalesced{0};
  std::atomic<uint64_t> connections_accepted{0};
  /// Connections over max_connections, answered 503 and closed.
  std::atomic<uint64_t> connections_rejected{0};
  /// Currently open (accepted, not rejected) connections.
  std::atomic<int64_t> connections_open{0};
  /// Request body bytes held by all connections (the body budget's use).
  std::atomic<int64_t> body_bytes_held{0};
  /// Writes refused with 503 because the body budget was taken.
  std::atomic<uint64_t> body_budget_refusals{0};
  /// Connections closed at the request deadline (a request arriving too slowly).
  std::atomic<uint64_t> request_timeouts{0};
  /// Connections told to go to make room for a newer one of the same client
  /// address (http.max-connections-per-address).
  std::atomic<uint64_t> connections_shed{0};
  /// Connections answered 429: their address at its cap with none to shed.
  std::atomic<uint64_t> connections_refused_per_address{0};
  /// Connections whose client a trusted balancer named (PROXY protocol v2).
  std::atomic<uint64_t> connections_proxied{0};
  /// Credentials answered 429 unchecked: their address failed too often.
  std::atomic<uint64_t> credentials_throttled{0};

  /// Answered requests with a status in the class (1 = 1xx ... 5 = 5xx), summed over threads.
  uint64_t responses(unsigned status_class) const;
  /// Answered requests in all, summed over threads.
  uint64_t requests() const;

  /// Appends the counters in Prometheus text format (version 0.0.4), metric
  /// names prefixed with restcache_http_.
  void append_prometheus(std::string& out) const;

private:
  template <class F>
  void for_each_slot(F&& f) const;

  mutable std::mutex slots_mtx_;
  std::deque<request_counters> slots_; ///< elements stay in place as slots are added
  /// slots_[0], for threads without a slot of their own (atomic adds).
  request_counters* shared_slot_;
};

} // namespace restcache::http
