// SPDX-License-Identifier: Apache-2.0
#include "messages/history.hpp"

namespace restcache {

history_rule compare_history(const std::optional<history_identity>& known, uint64_t watermark,
                             const live_history& live) noexcept {
  if (!known)
    return history_rule::first_use;
  if (known->system_id != live.identity.system_id)
    return history_rule::other_cluster;
  if (known->database_oid != live.identity.database_oid
      || known->database_name != live.identity.database_name)
    return history_rule::other_database;
  if (known->timeline != live.identity.timeline)
    return history_rule::other_timeline;
  // The watermark is the xmin of a snapshot taken on this history, so a live
  // next xid below it means the data is older than what was cached.
  if (watermark > live.next_xid)
    return history_rule::went_backwards;
  return history_rule::same;
}

const char* to_string(history_rule r) noexcept {
  switch (r) {
    case history_rule::same: return "same";
    case history_rule::first_use: return "first_use";
    case history_rule::other_cluster: return "other_cluster";
    case history_rule::other_database: return "other_database";
    case history_rule::other_timeline: return "other_timeline";
    case history_rule::went_backwards: return "went_backwards";
  }
  return "unknown";
}

std::string describe(const history_identity& id) {
  return "system " + std::to_string(id.system_id) + ", database " + std::to_string(id.database_oid) + " \""
         + id.database_name + "\", timeline " + std::to_string(id.timeline);
}

} // namespace restcache
