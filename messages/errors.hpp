#pragma once

#include <cstdint>
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
};

/// A short, stable, human-readable name ("not_found", ...), used in logs.
std::string_view to_string(rc_error e) noexcept;

} // namespace restcache
