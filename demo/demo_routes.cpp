// SPDX-License-Identifier: Apache-2.0
#include "demo/demo_routes.hpp"

#include <algorithm>

#include "demo/demo_catalogue.hpp"
#include "messages/doc_key.hpp"

namespace restcache::demo {

page_query parse_page_query(std::string_view query) noexcept {
  page_query q;
  while (!query.empty()) {
    auto amp = query.find('&');
    auto pair = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view{} : query.substr(amp + 1);
    if (pair.empty())
      continue;
    auto eq = pair.find('=');
    auto name = pair.substr(0, eq);
    auto value = eq == std::string_view::npos ? std::string_view{} : pair.substr(eq + 1);
    int64_t v = 0;
    if (name == "after") {
      if (value == "0") {
        q.after = 0;
        continue;
      }
      if (parse_integer_key(key_type::int4, value, v) != key_error::none) {
        q.error = "after must be a department number (0 or a positive integer in decimal digits)";
        return q;
      }
      q.after = static_cast<int32_t>(v);
    } else if (name == "limit") {
      auto err = parse_integer_key(key_type::int4, value, v);
      if (err != key_error::none && err != key_error::overflow) {
        q.error = "limit must be a positive integer in decimal digits";
        return q;
      }
      q.limit = err == key_error::overflow ? max_page_limit : std::min(static_cast<int32_t>(v), max_page_limit);
    } else {
      q.error = "unknown query parameter: GET /depts takes after and limit";
      return q;
    }
  }
  return q;
}

std::vector<http::action_route> demo_action_routes() {
  using http::action_method;
  auto route = [](action_method m, std::string path, bool keyed, bool writes, bool body, std::string label) {
    http::action_route r;
    r.method = m;
    r.path = std::move(path);
    r.keyed = keyed;
    r.writes = writes;
    r.takes_body = body;
    r.label = std::move(label);
    return r;
  };
  std::vector<http::action_route> routes(demo_route_count);
  auto at = [&](demo_route d) -> http::action_route& { return routes[static_cast<size_t>(d)]; };
  at(demo_route::list_depts) = route(action_method::get, "/depts", false, false, false, "/depts");
  at(demo_route::list_depts).check_query = [](std::string_view query) { return parse_page_query(query).error; };
  at(demo_route::random_dept) = route(action_method::get, "/depts/random", false, false, false, "/depts/random");
  at(demo_route::create_dept) = route(action_method::post, "/depts", false, true, true, "/depts");
  at(demo_route::replace_dept) = route(action_method::put, "/depts/", true, true, true, "/depts/{id}");
  at(demo_route::replace_dept_by_body) = route(action_method::put, "/depts", false, true, true, "/depts/{id}");
  at(demo_route::rewrite_random_dept) =
    route(action_method::put, "/depts/random", false, true, false, "/depts/random");
  at(demo_route::delete_dept) = route(action_method::del, "/depts/", true, true, false, "/depts/{id}");
  at(demo_route::create_emp) = route(action_method::post, "/depts/emps", false, true, true, "/depts/emps");
  at(demo_route::replace_emp) = route(action_method::put, "/depts/emps/", true, true, true, "/depts/emps/{id}");
  at(demo_route::delete_emp) = route(action_method::del, "/depts/emps/", true, true, false, "/depts/emps/{id}");
  return routes;
}

void install_demo() {
  install_demo_catalogue();
  http::install_action_routes(demo_action_routes());
}

} // namespace restcache::demo
