// SPDX-License-Identifier: Apache-2.0
#include "http/http_metrics.hpp"

#include "messages/prometheus.hpp"

namespace restcache::http {

namespace {

/// The calling thread's own slot and the metrics it belongs to (a thread
/// serves one server).
thread_local request_counters* own_slot = nullptr;
thread_local const http_metrics* own_slot_owner = nullptr;

struct route_label {
  const char* method;
  const char* route;
};

/// Indexed like route_kind (the places of document and action unused: each
/// kind and each action has its own).
constexpr route_label route_labels[] = {
  {"GET", "document"},
  {"", "action"},
  {"GET", "/health"},
  {"GET", "/ready"},
  {"GET", "/metrics"},
  {"GET", "/openapi.json"},
  {"", "bad_parameter"},
  {"", "method_not_allowed"},
  {"", "not_found"},
};

size_t status_index(unsigned status) noexcept {
  for (size_t i = 0; i < std::size(metric_statuses); ++i)
    if (metric_statuses[i] == status)
      return i;
  return metric_status_count - 1;
}

size_t duration_bucket(int64_t us) noexcept {
  size_t i = 0;
  while (i < std::size(request_duration_bounds_us) && us > request_duration_bounds_us[i])
    ++i;
  return i;
}

} // namespace

static_assert(std::size(route_labels) == fixed_metric_routes);

namespace {

/// The method and route labels of a metric route.
std::pair<std::string_view, std::string> labels_of(size_t r) {
  if (r < fixed_metric_routes)
    return {route_labels[r].method, route_labels[r].route};
  if (r == unrouted_metric_route)
    return {"", "unrouted"};
  if (r < first_kind_metric_route) {
    const auto& labels = action_routes().metric_labels;
    auto i = r - fixed_metric_routes;
    return i < labels.size() ? std::pair<std::string_view, std::string>{labels[i].first, labels[i].second}
                             : std::pair<std::string_view, std::string>{"", "action"};
  }
  const auto& kind = doc_kind_info(static_cast<doc_kind>(r - first_kind_metric_route + 1));
  return {"GET", kind.route + (is_integer(kind.key) ? "{id}" : "{key}")};
}

} // namespace

http_metrics::http_metrics() : shared_slot_(&slots_.emplace_back()) {
}

void http_metrics::register_this_thread() {
  std::lock_guard lk{slots_mtx_};
  own_slot = &slots_.emplace_back();
  own_slot_owner = this;
}

void http_metrics::record(size_t route, unsigned status, int64_t duration_us) noexcept {
  if constexpr (!RESTCACHE_METRICS_ENABLED)
    return;
  if (route >= metric_route_count)
    route = unrouted_metric_route;
  if (duration_us < 0)
    duration_us = 0;
  auto s = status_index(status);
  auto b = duration_bucket(duration_us);
  if (own_slot_owner == this) {
    own_slot->by_status[route][s].add();
    own_slot->duration_buckets[route][b].add();
    own_slot->duration_sum_us[route].add(static_cast<uint64_t>(duration_us));
    return;
  }
  auto& shared = *shared_slot_;
  shared.by_status[route][s].add_shared();
  shared.duration_buckets[route][b].add_shared();
  shared.duration_sum_us[route].add_shared(static_cast<uint64_t>(duration_us));
}

template <class F>
void http_metrics::for_each_slot(F&& f) const {
  std::lock_guard lk{slots_mtx_};
  for (auto& slot : slots_)
    f(slot);
}

uint64_t http_metrics::responses(unsigned status_class) const {
  uint64_t n = 0;
  for_each_slot([&](const request_counters& slot) {
    for (auto& row : slot.by_status)
      for (size_t s = 0; s + 1 < metric_status_count; ++s)
        if (metric_statuses[s] / 100 == status_class)
          n += row[s].get();
  });
  return n;
}

uint64_t http_metrics::requests() const {
  uint64_t n = 0;
  for_each_slot([&](const request_counters& slot) {
    for (auto& row : slot.by_status)
      for (auto& c : row)
        n += c.get();
  });
  return n;
}

void http_metrics::append_prometheus(std::string& out) const {
  // Summed over the threads' slots first, then written.
  uint64_t by_status[metric_route_count][metric_status_count] = {};
  uint64_t buckets[metric_route_count][request_duration_buckets] = {};
  uint64_t sum_us[metric_route_count] = {};
  for_each_slot([&](const request_counters& slot) {
    for (size_t r = 0; r < metric_route_count; ++r) {
      for (size_t s = 0; s < metric_status_count; ++s)
        by_status[r][s] += slot.by_status[r][s].get();
      for (size_t b = 0; b < request_duration_buckets; ++b)
        buckets[r][b] += slot.duration_buckets[r][b].get();
      sum_us[r] += slot.duration_sum_us[r].get();
    }
  });
  auto labels = [](size_t r) {
    auto [method, route] = labels_of(r);
    return "{method=\"" + std::string{method} + "\",route=\"" + route + "\"";
  };
  append_metric_header(out, "restcache_http_requests_total",
                       "HTTP requests answered, by route and status (HEAD counts as GET).", "counter");
  for (size_t r = 0; r < metric_route_count; ++r)
    for (size_t s = 0; s < metric_status_count; ++s)
      if (by_status[r][s] > 0)
        append_sample(out, "restcache_http_requests_total",
                      labels(r) + ",status=\""
                        + (s + 1 < metric_status_count ? std::to_string(metric_statuses[s]) : std::string{"other"})
                        + "\"}",
                      static_cast<int64_t>(by_status[r][s]));
  double bounds[std::size(request_duration_bounds_us)];
  for (size_t i = 0; i < std::size(bounds); ++i)
    bounds[i] = double(request_duration_bounds_us[i]) / 1e6;
  append_metric_header(out, "restcache_http_request_duration_seconds",
                       "From a request read to its response handed to the socket, by route.", "histogram");
  for (size_t r = 0; r < metric_route_count; ++r) {
    uint64_t count = 0;
    for (auto c : buckets[r])
      count += c;
    if (count > 0)
      append_histogram_samples(out, "restcache_http_request_duration_seconds", labels(r) + "}", bounds,
                               buckets[r], std::size(bounds), double(sum_us[r]) / 1e6);
  }
  auto rd = [](const auto& counter) { return static_cast<int64_t>(counter.load(std::memory_order_relaxed)); };
  append_metric(out, "restcache_http_bad_requests_total",
                "Requests rejected by the parser (400, 413, 431).", "counter", rd(bad_requests));
  append_metric(out, "restcache_http_lookup_timeouts_total",
                "Lookups answered 504 after lookup_timeout.", "counter", rd(lookup_timeouts));
  append_metric(out, "restcache_http_not_modified_total", "304 answers to If-None-Match.", "counter",
                rd(not_modified));
  append_metric(out, "restcache_http_responses_coalesced_total",
                "Responses to pipelined requests sent in one write with the next ones.", "counter",
                rd(responses_coalesced));
  append_metric(out, "restcache_http_connections_accepted_total", "Connections accepted.", "counter",
                rd(connections_accepted));
  append_metric(out, "restcache_http_connections_rejected_total",
                "Connections over max_connections, answered 503.", "counter",
                rd(connections_rejected));
  auto open = rd(connections_open);
  append_metric(out, "restcache_http_connections_open", "Connections currently open.", "gauge",
                open < 0 ? 0 : open);
  auto held = rd(body_bytes_held);
  append_metric(out, "restcache_http_body_bytes_held",
                "Request body bytes the connections hold now (read, or parsed until the write is answered).",
                "gauge", held < 0 ? 0 : held);
  append_metric(out, "restcache_http_body_budget_refusals_total",
                "Writes answered 503 because http.body-budget-bytes was taken.", "counter",
                rd(body_budget_refusals));
  append_metric(out, "restcache_http_request_timeouts_total",
                "Connections closed because a request did not arrive whole within http.request-timeout-ms.",
                "counter", rd(request_timeouts));
  append_metric(out, "restcache_http_connections_shed_total",
                "Connections closed (idle or slowest first) to make room for a newer one of the same client "
                "address at http.max-connections-per-address.",
                "counter", rd(connections_shed));
  append_metric(out, "restcache_http_connections_refused_per_address_total",
                "Connections answered 429: their client address at http.max-connections-per-address with "
                "every connection busy.",
                "counter", rd(connections_refused_per_address));
  append_metric(out, "restcache_http_connections_proxied_total",
                "Connections whose client a balancer in http.trusted-proxies named (PROXY protocol v2).", "counter",
                rd(connections_proxied));
  append_metric(out, "restcache_http_credentials_throttled_total",
                "Requests answered 429 without their token compared: their client address sent too many wrong "
                "ones.",
                "counter", rd(credentials_throttled));
}

} // namespace restcache::http
