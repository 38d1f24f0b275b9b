#pragma once

// Counters of the HTTP edge. Owned by http::server (server::metrics()),
// written by the asio threads with relaxed atomics, readable from any thread.
// No Beast here.

#include <atomic>
#include <cstdint>
#include <string>

namespace restcache::http {

struct http_metrics {
  /// Responses sent, by status class: index 1 = 1xx ... 5 = 5xx (0 unused).
  std::atomic<uint64_t> responses_by_class[6] = {};
  /// Requests that were parsed and routed (each gets exactly one response).
  std::atomic<uint64_t> requests{0};
  /// Requests rejected before routing (malformed 400, 413, 431).
  std::atomic<uint64_t> bad_requests{0};
  /// Lookups answered 504 because the cache did not reply within lookup_timeout.
  std::atomic<uint64_t> lookup_timeouts{0};
  /// 304 Not Modified answers (also counted in 3xx).
  std::atomic<uint64_t> not_modified{0};
  std::atomic<uint64_t> connections_accepted{0};
  /// Connections over max_connections, answered 503 and closed.
  std::atomic<uint64_t> connections_rejected{0};
  /// Currently open (accepted, not rejected) connections.
  std::atomic<int64_t> connections_open{0};

  void count_response(unsigned status) noexcept {
    unsigned cls = status / 100;
    if (cls >= 1 && cls <= 5)
      responses_by_class[cls].fetch_add(1, std::memory_order_relaxed);
  }

  uint64_t responses(unsigned status_class) const noexcept {
    return status_class >= 1 && status_class <= 5
             ? responses_by_class[status_class].load(std::memory_order_relaxed)
             : 0;
  }

  /// Appends the counters in Prometheus text format (version 0.0.4), metric
  /// names prefixed with restcache_http_.
  void append_prometheus(std::string& out) const;
};

} // namespace restcache::http
