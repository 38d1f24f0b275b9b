// SPDX-License-Identifier: Apache-2.0
#include "messages/errors.hpp"

namespace restcache {

std::string_view to_string(rc_error e) noexcept {
  switch (e) {
    case rc_error::none: return "none";
    case rc_error::not_found: return "not_found";
    case rc_error::bad_request: return "bad_request";
    case rc_error::db_unavailable: return "db_unavailable";
    case rc_error::db_timeout: return "db_timeout";
    case rc_error::overloaded: return "overloaded";
    case rc_error::internal: return "internal";
    case rc_error::conflict: return "conflict";
    case rc_error::precondition_failed: return "precondition_failed";
    case rc_error::unprocessable: return "unprocessable";
    case rc_error::too_large: return "too_large";
    case rc_error::db_schema: return "db_schema";
  }
  return "unknown";
}

} // namespace restcache
