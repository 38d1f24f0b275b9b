// SPDX-License-Identifier: Apache-2.0
#include "cache/fill_keeping.hpp"

namespace restcache {

fill_keeping keeping_of(const fill_read& read, const fill_kind_rules& kind) noexcept {
  if (read.stale_copy)
    return fill_keeping::stale_instead;
  if (read.current && read.has_doc)
    return kind.within_cap ? fill_keeping::store : fill_keeping::over_cap;
  if (read.current && read.not_found && kind.uses_memory && kind.remembers_missing)
    return fill_keeping::remember_missing;
  if (!read.current && kind.bypassed && (read.has_doc || read.not_found))
    return fill_keeping::drop_older_copies;
  return fill_keeping::nothing;
}

const char* to_string(fill_keeping k) noexcept {
  switch (k) {
    case fill_keeping::nothing: return "nothing";
    case fill_keeping::stale_instead: return "stale_instead";
    case fill_keeping::over_cap: return "over_cap";
    case fill_keeping::store: return "store";
    case fill_keeping::remember_missing: return "remember_missing";
    case fill_keeping::drop_older_copies: return "drop_older_copies";
  }
  return "unknown";
}

bool reads_again(rc_error error, int tries) noexcept {
  return error == rc_error::db_unavailable && tries < max_read_tries;
}

} // namespace restcache
