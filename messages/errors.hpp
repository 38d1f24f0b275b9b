// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace restcache {

/// The one error enum of restcache. Actors and persistence speak in these
/// codes; only http/ maps them to statuses (http/responses.cpp).
enum class rc_error : uint8_t {
  none = 0,        ///< success
  not_found,       ///< the entity does not exist in PostgreSQL
  bad_request,     ///< malformed input (path, query, body)
  db_unavailable,  ///< no database connection could serve the request
  db_timeout,      ///< the query did not finish within db.query-timeout
  overloaded,      ///< a bounded queue is full; the client should retry later
  internal,        ///< a bug or an unexpected database answer; details go to the log
  conflict,        ///< a write would create what exists already
  precondition_failed, ///< If-Match named another version of the document
  unprocessable,   ///< well-formed input that breaks a rule (range, relation, reference)
  too_large,       ///< input over a size limit (a request body)
  /// The database no longer has what a statement reads (a table or column
  /// dropped or altered, a privilege revoked): an administrator's change.
  db_schema,
};

/// A short, stable, human-readable name ("not_found", ...), used in logs.
std::string_view to_string(rc_error e) noexcept;

/// A value, or the error that kept it from being made with a detail for the
/// client (what was wrong, never SQL text or internals).
template <class T>
struct outcome {
  std::optional<T> value; ///< set exactly when ok()
  rc_error error = rc_error::none;
  std::string detail;

  bool ok() const noexcept { return value.has_value(); }
  explicit operator bool() const noexcept { return ok(); }
};

} // namespace restcache
