#include "http/http_metrics.hpp"

#include "http/prometheus.hpp"

namespace restcache::http {

void http_metrics::append_prometheus(std::string& out) const {
  auto rd = [](const auto& counter) { return static_cast<int64_t>(counter.load(std::memory_order_relaxed)); };
  append_metric_header(out, "restcache_http_responses_total", "HTTP responses sent, by status class.",
                       "counter");
  static const char* const classes[6] = {"", "{class=\"1xx\"}", "{class=\"2xx\"}",
                                         "{class=\"3xx\"}", "{class=\"4xx\"}", "{class=\"5xx\"}"};
  for (unsigned c = 1; c <= 5; ++c)
    append_sample(out, "restcache_http_responses_total", classes[c], static_cast<int64_t>(responses(c)));
  append_metric(out, "restcache_http_requests_total", "HTTP requests parsed and routed.", "counter",
                rd(requests));
  append_metric(out, "restcache_http_bad_requests_total",
                "Requests rejected by the parser (400, 413, 431).", "counter", rd(bad_requests));
  append_metric(out, "restcache_http_lookup_timeouts_total",
                "Lookups answered 504 after lookup_timeout.", "counter", rd(lookup_timeouts));
  append_metric(out, "restcache_http_not_modified_total", "304 answers to If-None-Match.", "counter",
                rd(not_modified));
  append_metric(out, "restcache_http_connections_accepted_total", "Connections accepted.", "counter",
                rd(connections_accepted));
  append_metric(out, "restcache_http_connections_rejected_total",
                "Connections over max_connections, answered 503.", "counter",
                rd(connections_rejected));
  auto open = rd(connections_open);
  append_metric(out, "restcache_http_connections_open", "Connections currently open.", "gauge",
                open < 0 ? 0 : open);
}

} // namespace restcache::http
