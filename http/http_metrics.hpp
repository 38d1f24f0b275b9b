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
  void append_prometheus(std::string& out) const {
    auto line = [&out](const char* name, const char* labels, uint64_t v) {
      out += name;
      out += labels;
      out += ' ';
      out += std::to_string(v);
      out += '\n';
    };
    out += "# HELP restcache_http_responses_total HTTP responses sent, by status class.\n"
           "# TYPE restcache_http_responses_total counter\n";
    static const char* const classes[6] = {"", "{class=\"1xx\"}", "{class=\"2xx\"}",
                                           "{class=\"3xx\"}", "{class=\"4xx\"}", "{class=\"5xx\"}"};
    for (unsigned c = 1; c <= 5; ++c)
      line("restcache_http_responses_total", classes[c], responses(c));
    auto counter = [&](const char* name, const char* help, uint64_t v) {
      out += "# HELP ";
      out += name;
      out += ' ';
      out += help;
      out += "\n# TYPE ";
      out += name;
      out += " counter\n";
      line(name, "", v);
    };
    counter("restcache_http_requests_total", "HTTP requests parsed and routed.",
            requests.load(std::memory_order_relaxed));
    counter("restcache_http_bad_requests_total", "Requests rejected by the parser (400, 413, 431).",
            bad_requests.load(std::memory_order_relaxed));
    counter("restcache_http_lookup_timeouts_total", "Lookups answered 504 after lookup_timeout.",
            lookup_timeouts.load(std::memory_order_relaxed));
    counter("restcache_http_not_modified_total", "304 answers to If-None-Match.",
            not_modified.load(std::memory_order_relaxed));
    counter("restcache_http_connections_accepted_total", "Connections accepted.",
            connections_accepted.load(std::memory_order_relaxed));
    counter("restcache_http_connections_rejected_total", "Connections over max_connections, answered 503.",
            connections_rejected.load(std::memory_order_relaxed));
    out += "# HELP restcache_http_connections_open Connections currently open.\n"
           "# TYPE restcache_http_connections_open gauge\n";
    auto open = connections_open.load(std::memory_order_relaxed);
    line("restcache_http_connections_open", "", open < 0 ? 0 : uint64_t(open));
  }
};

} // namespace restcache::http
