#pragma once

// Maps (method, request-target) to a route. No Beast, no allocation: every
// string_view in a route points into static storage (never into the
// target); a document's key is copied into the route, unescaped. The GET
// routes of documents are the catalogue's (each kind's route followed by
// its key).

#include <array>
#include <cstdint>
#include <string_view>

#include "messages/doc_key.hpp"

namespace restcache::http {

enum class route_kind : uint8_t {
  document,           ///< GET|HEAD a kind's route followed by its key: that document
  list_depts,         ///< GET|HEAD /depts?after={id}&limit={n}: a page of departments
  random_dept,        ///< GET|HEAD /depts/random: a random department's document with its employees
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
  /// document: the key's kind; its key is `id` for an integer kind, else
  /// key_text().
  doc_kind doc{};
  bool integer_key = false; ///< document: its kind is keyed by an integer (`id`)
  /// The document's integer key, or the department or employee number of a
  /// write (> 0); 0 otherwise.
  int64_t id = 0;
  int32_t after = 0;       ///< list_depts: departments with a greater number
  int32_t limit = default_page_limit; ///< list_depts: at most this many (capped)
  std::string_view detail; ///< problem detail for the error kinds (static text)
  std::string_view allow;  ///< method_not_allowed: the Allow header value

  /// document of a text or uuid kind: the key's bytes (percent-decoded; a
  /// uuid's 16).
  std::string_view key_text() const noexcept { return {key_bytes.data(), key_size}; }
  std::array<char, max_text_key_bytes> key_bytes;
  uint16_t key_size = 0;
};

/// The document key a document route names.
doc_key key_of(const route& r);

/// Why a path parameter is not a positive int32 in plain decimal digits:
/// the reasons of an int4 key.
using id_error = key_error;

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
inline std::string_view to_detail(id_error e) noexcept {
  return to_detail(e, key_type::int4);
}

/// Percent-decodes a path segment into `out`: the decoded size; -1 for a
/// '%' not followed by two hex digits, -2 for a result longer than
/// `capacity` (a malformed escape after that point is not looked for).
int percent_decode(std::string_view segment, char* out, size_t capacity) noexcept;

/// Routes one request. `method` is the request method as sent (case-sensitive,
/// as RFC 9110 says), `target` the request-target in origin form
/// ("/depts/7?x=1") or absolute form ("http://host/depts/7"). The query
/// string is read for GET /depts (after, limit) and ignored elsewhere. Unknown
/// paths are not_found whatever the method.
route parse_route(std::string_view method, std::string_view target) noexcept;

} // namespace restcache::http
