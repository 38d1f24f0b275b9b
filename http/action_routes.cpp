// SPDX-License-Identifier: Apache-2.0
#include "http/action_routes.hpp"

#include <memory>
#include <mutex>
#include <stdexcept>

#include "messages/doc_catalogue.hpp"

namespace restcache::http {

namespace detail {
std::atomic<const action_table*> installed_actions{nullptr};
}

namespace {

std::mutex installing;

std::vector<std::unique_ptr<const action_table>>& kept() {
  static std::vector<std::unique_ptr<const action_table>> tables;
  return tables;
}

constexpr std::string_view method_names[action_method_count] = {"GET", "POST", "PUT", "DELETE"};

/// The Allow value of a path: its methods in one fixed order, GET with HEAD.
std::string allow_of(const action_path& p, bool with_get) {
  std::string allow;
  auto add = [&](std::string_view m) {
    if (!allow.empty())
      allow += ", ";
    allow += m;
  };
  if (with_get || p.route_of[size_t(action_method::get)] >= 0) {
    add("GET");
    add("HEAD");
  }
  for (auto m : {action_method::post, action_method::put, action_method::del})
    if (p.route_of[size_t(m)] >= 0)
      add(method_names[size_t(m)]);
  return allow;
}

} // namespace

void install_action_routes(std::vector<action_route> routes) {
  auto table = std::make_unique<action_table>();
  if (routes.size() > 127)
    throw std::invalid_argument("at most 127 action routes");
  for (size_t i = 0; i < routes.size(); ++i) {
    auto& r = routes[i];
    // The router compares paths as sent: none may need escaping. An exact
    // path is a route without its closing '/'.
    if (!is_plain_route(r.keyed ? r.path : r.path + '/'))
      throw std::invalid_argument("action route '" + r.path
                                  + "': a path is '/'-led, of unescaped path characters, and a keyed one ends in '/'");
    r.id = static_cast<uint8_t>(i);
    const std::string_view method = method_names[size_t(r.method)];
    size_t metric = 0;
    while (metric < table->metric_labels.size()
           && !(table->metric_labels[metric].first == method && table->metric_labels[metric].second == r.label))
      ++metric;
    if (metric == table->metric_labels.size()) {
      if (metric == max_action_metrics)
        throw std::invalid_argument("more than 16 action routes by method and label");
      table->metric_labels.emplace_back(std::string{method}, r.label);
    }
    r.metric = static_cast<uint8_t>(metric);
    action_path* at = nullptr;
    for (auto& p : table->paths)
      if (p.path == r.path && p.keyed == r.keyed)
        at = &p;
    if (at == nullptr) {
      table->paths.push_back(action_path{r.path, r.keyed, {-1, -1, -1, -1}, {}, {}});
      at = &table->paths.back();
    }
    auto& slot = at->route_of[size_t(r.method)];
    if (slot >= 0)
      throw std::invalid_argument("action route '" + r.path + "': " + std::string{method} + " declared twice");
    slot = static_cast<int8_t>(i);
  }
  for (size_t i = 0; i < table->paths.size(); ++i) {
    auto& p = table->paths[i];
    p.allow = allow_of(p, false);
    p.allow_with_get = allow_of(p, true);
    // Views into the table's own strings: it is not changed after this.
    (p.keyed ? table->keyed_paths : table->exact_paths).push_back({p.path, static_cast<uint8_t>(i)});
  }
  table->routes = std::move(routes);
  std::lock_guard lock{installing};
  kept().push_back(std::move(table));
  detail::installed_actions.store(kept().back().get(), std::memory_order_release);
}

} // namespace restcache::http
