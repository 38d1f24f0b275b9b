#include "http/router.hpp"

#include <limits>

namespace restcache::http {

namespace {

constexpr std::string_view deptemps_prefix = "/deptemps/";
constexpr std::string_view emp_prefix = "/depts/emps/";

bool iequals_prefix(std::string_view s, std::string_view prefix) noexcept {
  if (s.size() < prefix.size())
    return false;
  for (size_t i = 0; i < prefix.size(); ++i) {
    char c = s[i];
    if (c >= 'A' && c <= 'Z')
      c = char(c - 'A' + 'a');
    if (c != prefix[i])
      return false;
  }
  return true;
}

/// The path of an origin-form or absolute-form request-target, without query
/// or fragment.
std::string_view path_of(std::string_view target) noexcept {
  // absolute-form (RFC 9112 3.2.2): scheme "://" authority path-abempty
  for (std::string_view scheme : {std::string_view{"http://"}, std::string_view{"https://"}}) {
    if (iequals_prefix(target, scheme)) {
      target.remove_prefix(scheme.size());
      auto slash = target.find_first_of("/?#");
      if (slash == std::string_view::npos || target[slash] != '/')
        return "/";
      target.remove_prefix(slash);
      break;
    }
  }
  if (auto end = target.find_first_of("?#"); end != std::string_view::npos)
    target = target.substr(0, end);
  return target;
}

enum class path_kind : uint8_t { unknown, deptemps, random_dept, emp, health, ready, metrics };

} // namespace

id_parse_result parse_positive_id(std::string_view s) noexcept {
  if (s.empty())
    return {0, id_error::empty};
  if (s.front() == '-' || s.front() == '+')
    return {0, id_error::sign};
  for (char c : s)
    if (c == ' ' || c == '\t')
      return {0, id_error::space};
  for (char c : s)
    if (c < '0' || c > '9')
      return {0, id_error::non_digit};
  constexpr int64_t max = std::numeric_limits<int32_t>::max();
  int64_t v = 0;
  for (char c : s) {
    v = v * 10 + (c - '0');
    if (v > max) // checked every digit, so v never overflows int64
      return {0, id_error::overflow};
  }
  if (v == 0)
    return {0, id_error::zero};
  return {int32_t(v), id_error::none};
}

std::string_view to_detail(id_error e) noexcept {
  switch (e) {
    case id_error::none: return "";
    case id_error::empty: return "id is empty: expected a positive integer in decimal digits";
    case id_error::sign: return "id must not carry a sign: expected a positive integer in decimal digits";
    case id_error::space: return "id must not contain spaces";
    case id_error::non_digit: return "id must contain only the decimal digits 0-9";
    case id_error::overflow: return "id is out of range: the largest id is 2147483647";
    case id_error::zero: return "id must be positive";
  }
  return "id is invalid";
}

route parse_route(std::string_view method, std::string_view target) noexcept {
  const std::string_view path = path_of(target);
  path_kind kind = path_kind::unknown;
  std::string_view id_text;
  if (path.starts_with(deptemps_prefix)) {
    id_text = path.substr(deptemps_prefix.size());
    if (id_text.find('/') == std::string_view::npos)
      kind = path_kind::deptemps;
  } else if (path.starts_with(emp_prefix)) {
    id_text = path.substr(emp_prefix.size());
    if (id_text.find('/') == std::string_view::npos)
      kind = path_kind::emp;
  } else if (path == "/depts/random") {
    kind = path_kind::random_dept;
  } else if (path == "/health") {
    kind = path_kind::health;
  } else if (path == "/ready") {
    kind = path_kind::ready;
  } else if (path == "/metrics") {
    kind = path_kind::metrics;
  }

  route r;
  r.head = method == "HEAD"; // also for error answers: HEAD never gets a body
  if (kind == path_kind::unknown) {
    r.kind = route_kind::not_found;
    r.detail = "no resource at this path";
    return r;
  }
  if (!r.head && method != "GET") {
    r.kind = route_kind::method_not_allowed;
    r.detail = "this resource supports only GET and HEAD";
    r.allow = allowed_methods;
    return r;
  }
  switch (kind) {
    case path_kind::deptemps:
    case path_kind::emp: {
      auto [value, err] = parse_positive_id(id_text);
      if (err != id_error::none) {
        r.kind = route_kind::bad_request;
        r.detail = to_detail(err);
      } else {
        r.kind = kind == path_kind::emp ? route_kind::emp : route_kind::deptemps;
        r.id = value;
      }
      return r;
    }
    case path_kind::random_dept: r.kind = route_kind::random_dept; return r;
    case path_kind::health: r.kind = route_kind::health; return r;
    case path_kind::ready: r.kind = route_kind::ready; return r;
    case path_kind::metrics: r.kind = route_kind::metrics; return r;
    case path_kind::unknown: break;
  }
  r.kind = route_kind::not_found;
  return r;
}

} // namespace restcache::http
