// SPDX-License-Identifier: Apache-2.0
#pragma once

// Which history of which database a cache holds, and the one rule that says
// whether cached documents may still be trusted after a (re)connect. Plain
// data (no CAF, no libpq): the listener reads the live identity, the LMDB
// file stores the one its records came from.

#include <cstdint>
#include <optional>
#include <string>

namespace restcache {

/// What names one history of one database: a cluster (initdb makes a new
/// system identifier; a base backup or a standby keeps it), a database in it
/// (by OID and name: a dropped and recreated database has a new OID), and
/// the timeline (a promotion or a point-in-time recovery starts a new one).
struct history_identity {
  uint64_t system_id = 0;     ///< pg_control_system().system_identifier
  uint32_t database_oid = 0;
  std::string database_name;
  uint32_t timeline = 0;      ///< the primary's current WAL timeline
  friend bool operator==(const history_identity&, const history_identity&) = default;
};

/// The live side of the comparison, read in one statement on the listener's
/// connection after LISTEN.
struct live_history {
  history_identity identity;
  uint64_t next_xid = 0; ///< the xid the next transaction would get (xmax of a fresh snapshot)
};

/// Which rule decided. Every value but `same` drops both tiers and restarts
/// the watermark from the live database.
enum class history_rule : uint8_t {
  same,           ///< the history the tiers were filled from: replay as usual
  first_use,      ///< nothing known yet (a new LMDB file, a first start): nothing can be checked
  other_cluster,  ///< another system identifier: another cluster, a restore into a new one
  other_database, ///< another database OID or name in the cluster
  other_timeline, ///< a promotion or a point-in-time recovery
  went_backwards, ///< the live next xid is below the watermark: an older copy of the data
};
inline constexpr size_t history_rule_count = 6;

/// The rule, in this order: nothing known; cluster; database; timeline;
/// xids (a watermark of 0 has nothing to compare).
history_rule compare_history(const std::optional<history_identity>& known, uint64_t watermark,
                             const live_history& live) noexcept;

/// "same", "first_use", ... (the metric label).
const char* to_string(history_rule r) noexcept;

/// "system 7714..., database 16384 \"restcache\", timeline 1" for the log.
std::string describe(const history_identity& id);

} // namespace restcache
