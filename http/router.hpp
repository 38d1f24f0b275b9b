// SPDX-License-Identifier: Apache-2.0
#pragma once

// Maps (method, request-target) to a route. No Beast, no allocation: every
// string_view in a route points into static storage (never into the
// target); a document's key is copied into the route, unescaped. The GET
// routes of documents are the catalogue's (each kind's route followed by
// its key); the other paths beside the engine's own are the installed
// action routes'.

#include <array>
#include <cstdint>
#include <string_view>

#include "messages/doc_key.hpp"

namespace restcache::http {

enum class route_kind : uint8_t {
  document,           ///< GET|HEAD a kind's route followed by its key: that document
  action,             ///< a method at a path of an installed action route (action_routes.hpp)
  health,             ///< GET|HEAD /health: liveness
  ready,              ///< GET|HEAD /ready: readiness
  metrics,            ///< GET|HEAD /metrics: Prometheus text exposition
  openapi,            ///< GET|HEAD /openapi.json: the OpenAPI document of what is served
  bad_request,        ///< a known path with a malformed parameter (400); see detail
  method_not_allowed, ///< a known path with a method it does not support (405); see allow
  not_found,          ///< an unknown path (404)
};

struct route {
  route_kind kind = route_kind::not_found;
  bool head = false;       ///< the method was HEAD: answer headers only (any kind)
  /// document: the key's kind; its key is `id` for an integer kind, else
  /// key_text().
  doc_kind doc{};
  bool integer_key = false; ///< document: its kind is keyed by an integer (`id`)
  uint8_t action = 0;        ///< action: its route's id in the installed table
  uint8_t action_metric = 0; ///< action: its route's metric
  /// The document's integer key, or a keyed action's key (> 0); 0 otherwise.
  int64_t id = 0;
  std::string_view detail; ///< problem detail for the error kinds (static text)
  std::string_view allow;  ///< method_not_allowed: the Allow header value

  /// document of a text or uuid kind: the key's bytes (percent-decoded; a
  /// uuid's 16).
  std::string_view key_text() const noexcept { return {key_bytes.data(), key_size}; }
  std::array<char, max_text_key_bytes> key_bytes;
  uint16_t key_size = 0;
  /// document: the path spelled the key otherwise than its one canonical
  /// spelling (canonical_key_segment): answered 308 to that, never looked up.
  bool spelled_otherwise = false;
  std::string_view kind_route; ///< document: its kind's route ("/orders/"), the Location's start
  key_type kind_key = key_type::int4; ///< document: how its kind is keyed
};

/// The longest canonical spelling of a key: every byte escaped.
inline constexpr size_t max_key_segment_bytes = 3 * max_text_key_bytes;

/// Writes the one spelling of a document key (its bytes, as key_text()
/// holds them) as a path segment into `out` (max_key_segment_bytes), and
/// returns its length: a text key's unreserved characters (RFC 3986:
/// letters, digits, '-', '.', '_', '~') as they are and every other byte
/// as %XX in upper case; a uuid in lower case with its hyphens. A balancer
/// hashing the path sends one document to one instance only if every
/// client spells it one way.
size_t canonical_key_segment(key_type type, std::string_view key, char* out) noexcept;

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

/// The query string of a request-target (after '?', before '#'); empty
/// when none.
std::string_view query_of(std::string_view target) noexcept;

/// Routes one request. `method` is the request method as sent (case-sensitive,
/// as RFC 9110 says), `target` the request-target in origin form
/// ("/orders/7?x=1") or absolute form ("http://host/orders/7"). The query
/// string is read by an action route that checks it and ignored elsewhere.
/// Exact paths (the engine's, then the actions') win over prefixes; among
/// the catalogue's routes and the keyed actions' the longest prefix wins.
/// Unknown paths are not_found whatever the method.
route parse_route(std::string_view method, std::string_view target) noexcept;

} // namespace restcache::http
