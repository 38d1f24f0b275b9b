// SPDX-License-Identifier: Apache-2.0
#pragma once

// What restcache answers, independent of Beast: the one mapping of rc_error to
// HTTP statuses, RFC 9457 problem+json bodies, the fixed bodies and header
// values, and If-None-Match evaluation. The Beast session only copies these
// into messages.

#include <string>
#include <string_view>

#include "messages/errors.hpp"

namespace restcache::http {

// ---- fixed header values and bodies -----------------------------------------
inline constexpr std::string_view server_name = "restcache";
inline constexpr std::string_view content_type_json = "application/json";
inline constexpr std::string_view content_type_problem = "application/problem+json";
inline constexpr std::string_view content_type_metrics = "text/plain; version=0.0.4";
inline constexpr std::string_view cache_control_documents = "no-cache";
/// Retry-After value (seconds) sent with every 503 and 429.
inline constexpr std::string_view retry_after_seconds = "1";
inline constexpr std::string_view health_body = R"({"status":"ok"})";

// ---- rc_error -> HTTP (the only place this mapping exists) --------------------
/// none 200, not_found 404, bad_request 400, db_unavailable 503,
/// db_timeout 504, overloaded 503, conflict 409, precondition_failed 412,
/// unprocessable 422, too_large 413, internal (and anything unknown) 500.
unsigned http_status_of(rc_error e) noexcept;

/// A problem detail for an error when the caller has nothing more specific.
std::string_view default_detail(rc_error e) noexcept;

/// The standard reason phrase ("Not Found"); also the problem "title".
/// "Unknown" for statuses restcache never sends.
std::string_view status_title(unsigned status) noexcept;

/// True for the statuses that carry `Retry-After: 1` (503, 429).
bool carries_retry_after(unsigned status) noexcept;

// ---- problem+json (RFC 9457) ------------------------------------------------
/// Appends {"type":"about:blank","title":<reason>,"status":<status>,"detail":<detail>}.
void append_problem_json(std::string& out, unsigned status, std::string_view detail);
std::string problem_json(unsigned status, std::string_view detail);

/// An error answer ready to be put into any HTTP message type.
struct problem {
  unsigned status = 500;
  std::string body;         ///< problem+json
  bool retry_after = false; ///< add `Retry-After: retry_after_seconds`
};
problem make_problem(unsigned status, std::string_view detail);
/// Uses default_detail(e) when detail is empty.
problem make_problem(rc_error e, std::string_view detail = {});

// ---- conditional requests ----------------------------------------------------
/// Evaluates an If-None-Match field value against the current ETag with the
/// weak comparison (RFC 9110 13.1.2): true for "*", or when any listed
/// entity-tag has the same opaque-tag (W/ prefixes ignored). Malformed list
/// members are skipped.
bool if_none_match_matches(std::string_view field_value, std::string_view etag) noexcept;

/// True when a request's Cache-Control asks for a response not served from
/// storage: a no-cache or max-age=0 directive (RFC 9111 5.2.1), names in any
/// case; or, without Cache-Control, Pragma: no-cache (RFC 9111 5.4).
bool forbids_stored_answer(bool has_cache_control, std::string_view cache_control, bool has_pragma,
                           std::string_view pragma) noexcept;

} // namespace restcache::http
