#pragma once

// Maps (method, request-target) to a route. No Beast, no allocation: every
// string_view in a route points into static storage (never into the target).

#include <cstdint>
#include <string_view>

namespace restcache::http {

enum class route_kind : uint8_t {
  deptemps,           ///< GET|HEAD /deptemps/{id}: the department-with-employees document
  dept,               ///< GET|HEAD /depts/{id}: the department alone
  list_depts,         ///< GET|HEAD /depts?after={id}&limit={n}: a page of departments
  random_dept,        ///< GET|HEAD /depts/random: a random department's deptemps document
  emp,                ///< GET|HEAD /depts/emps/{id}: the single-employee document
  create_dept,        ///< POST /depts: a department with its employees
  replace_dept,       ///< PUT /depts/{id}, or PUT /depts with the id in the body (id 0)
  rewrite_random_dept,///< PUT /depts/random: rewrite a random department with its own values
  delete_dept,        ///< DELETE /depts/{id}
  create_emp,         ///< POST /depts/emps
  replace_emp,        ///< PUT /depts/emps/{id}
  delete_emp,         ///< DELETE /depts/emps/{id}
  health,             ///< GET|HEAD /health: liveness
  ready,              ///< GET|HEAD /ready: readiness
  metrics,            ///< GET|HEAD /metrics: Prometheus text exposition
  bad_request,        ///< a known path with a malformed parameter (400); see detail
  method_not_allowed, ///< a known path with a method it does not support (405); see allow
  not_found,          ///< an unknown path (404)
};

/// True for the routes that write (they carry a body, except the deletes and
/// PUT /depts/random, and need the write token when one is set).
constexpr bool is_write(route_kind k) noexcept {
  return k == route_kind::create_dept || k == route_kind::replace_dept
         || k == route_kind::rewrite_random_dept || k == route_kind::delete_dept
         || k == route_kind::create_emp || k == route_kind::replace_emp
         || k == route_kind::delete_emp;
}

/// True for the writes whose request carries a JSON body.
constexpr bool has_body(route_kind k) noexcept {
  return k == route_kind::create_dept || k == route_kind::replace_dept
         || k == route_kind::create_emp || k == route_kind::replace_emp;
}

/// GET /depts: the page size when none is asked for, and the cap.
inline constexpr int32_t default_page_limit = 100;
inline constexpr int32_t max_page_limit = 1000;

struct route {
  route_kind kind = route_kind::not_found;
  bool head = false;       ///< the method was HEAD: answer headers only (any kind)
  int32_t id = 0;          ///< the department or employee number from the path (> 0), or 0
  int32_t after = 0;       ///< list_depts: departments with a greater number
  int32_t limit = default_page_limit; ///< list_depts: at most this many (capped)
  std::string_view detail; ///< problem detail for the error kinds (static text)
  std::string_view allow;  ///< method_not_allowed: the Allow header value
};

/// Why a path parameter is not a positive int32 in plain decimal digits.
enum class id_error : uint8_t {
  none = 0,
  empty,      ///< ""
  sign,       ///< leading '-' or '+'
  space,      ///< a space or tab anywhere
  non_digit,  ///< anything else that is not 0-9 (including percent-encodings)
  overflow,   ///< more than 2147483647
  zero,       ///< 0 (ids are positive)
  leading_zero, ///< "077": one id, one spelling, so every cache and balancer keys it alike
};

struct id_parse_result {
  int32_t value = 0;
  id_error error = id_error::none;
};

/// Parses a path segment as a positive int32 written in decimal digits only,
/// in its one canonical spelling: no leading zeros ("077" is refused, so a
/// balancer hashing the path and the daemon agree on what one document is),
/// no signs, no spaces.
id_parse_result parse_positive_id(std::string_view s) noexcept;

/// A problem detail naming what is wrong with an id (static text).
std::string_view to_detail(id_error e) noexcept;

/// Routes one request. `method` is the request method as sent (case-sensitive,
/// as RFC 9110 says), `target` the request-target in origin form
/// ("/deptemps/7?x=1") or absolute form ("http://host/deptemps/7"). The query
/// string is read for GET /depts (after, limit) and ignored elsewhere. Unknown
/// paths are not_found whatever the method.
route parse_route(std::string_view method, std::string_view target) noexcept;

} // namespace restcache::http
