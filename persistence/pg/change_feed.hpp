// SPDX-License-Identifier: Apache-2.0
#pragma once

// Reading the change log the triggers write (schema.sql): polling it by
// snapshot, replaying it from a watermark, pruning it. Blocking libpq calls;
// the listener runs them on its own connection thread. Plain C++ (no CAF, no
// Beast).
//
// Why polling finds every committed entry, and each once: a committed
// transaction is invisible to a snapshot exactly when the snapshot saw it in
// progress (its xip list) or its xid is at or past the snapshot's xmax
// (PostgreSQL lists in xip only the running xids below xmax). So a poll
// reads the entries of the transactions the previous poll's snapshot could
// not see,
//   xid in that xip, or xid >= that xmax,
// which are the ones that became visible since; what was visible then was
// read then (or, for the first poll of a session, replayed). No order among
// entries is assumed: commits land in any order.

#include <chrono>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "messages/cache_types.hpp"
#include "messages/feed_position.hpp"
#include "messages/history.hpp"
#include "persistence/pg/connection.hpp"

namespace restcache::pg {

/// A pg_snapshot as PostgreSQL prints it: "xmin:xmax:xip,xip,...".
using xid_snapshot = feed_position;
inline std::optional<xid_snapshot> parse_snapshot(std::string_view text) {
  return parse_feed_position(text);
}

/// What one key of a log entry ("<space>:<key>") names.
enum class log_key_kind : uint8_t {
  document, ///< a key of a kind this build caches (out holds it)
  truncate, ///< "*:<table>": every document may have changed
  catalog,  ///< "!:<table>": DDL on a watched table (the event trigger): check for drift, drop both tiers
  /// A key of a kind whose spelling cannot be vouched for as its row's one
  /// (key_comparison.hpp: a citext key with a letter past ASCII): every
  /// document of its key space may have changed (out holds its kind).
  key_space,
  unknown,  ///< another key space (watched for something else), or malformed
};
log_key_kind parse_log_key(std::string_view key, doc_key& out);

/// Where the next poll starts: every entry not read yet has an xid in
/// `in_progress` or >= `from_xid` (the previous snapshot's xip and xmax).
struct poll_position {
  std::vector<uint64_t> in_progress;
  uint64_t from_xid = 0;
};

/// A fresh snapshot, and the newest entry visible in it (by xid; nullopt
/// when the log is empty): a witness once everything the snapshot sees is
/// applied.
struct position_read {
  xid_snapshot snapshot;
  std::optional<log_witness> newest;
};

/// The position of a fresh snapshot (its xip and xmax), with the snapshot
/// (its xmin is a watermark once everything visible to it is applied).
position_read read_position(connection& c, poll_position& pos);

struct poll_result {
  change_batch changes;     ///< every key of every entry the poll read
  size_t truncates = 0;     ///< TRUNCATEs among them: both tiers must be dropped
  uint64_t key_spaces = 0;  ///< the kinds of the key spaces of key_space keys among them: to drop
  /// DDL on watched tables among them ("<schema>.<table>", as logged): a
  /// drift check now, and their kinds dropped.
  std::vector<std::string> altered_tables;
  bool overflow = false;    ///< more than `limit` keys: not read; drop both tiers
  /// The horizon reached an entry this poll should have read: a prune may
  /// have deleted a transaction that committed since the last poll (one older
  /// than the retention); drop both tiers.
  bool pruned_unread = false;
  uint64_t horizon = 0;       ///< change_log_horizon.pruned_below, in the poll's snapshot
  uint64_t oldest_unread = 0; ///< the lowest xid the poll looked for
  uint64_t insert_lsn = 0;    ///< the server's WAL insert position in the poll (0 on a standby)
  xid_snapshot snapshot;    ///< the poll's; its xmin is the round's mark
  std::optional<log_witness> newest; ///< the read entry of the highest xid (after an overflow: the log's)
};

/// Reads the entries not read yet, in one statement (one snapshot), and
/// moves `pos` past them. Each change is stamped `seen_after_us` (the time
/// the previous poll was sent: every entry read here committed after it, so
/// now minus it bounds the commit-to-drop latency from above). Past `limit`
/// keys nothing is returned, overflow is set, and `pos` restarts from a fresh
/// snapshot (read_position).
poll_result poll_changes(connection& c, poll_position& pos, size_t limit, int64_t seen_after_us);

/// When the server was started, and its last checkpoint's position.
struct server_start {
  std::string started; ///< pg_postmaster_start_time()
  uint64_t checkpoint_lsn = 0;
};
server_start read_server_start(connection& c);

struct replay_result {
  change_batch changes;   ///< every entry of a transaction not known complete at the watermark
  bool truncated = false; ///< among them a TRUNCATE: both tiers must be dropped
  uint64_t key_spaces = 0; ///< as poll_result's
  std::vector<std::string> altered_tables; ///< DDL on watched tables among them, as poll_result's
  bool complete = true;   ///< false: the log was pruned past the watermark (or too many entries)
  uint64_t horizon = 0;   ///< change_log_horizon.pruned_below
};

/// The change-log keys of the transactions `from` could not see: xid >=
/// from.xmax (or, when at least `digest_from` entries are due, the keys of a
/// digest that covers them: restcache_replay_keys in schema.sql) and xid in
/// from.xip; then the pruning horizon. Incomplete when the horizon is not
/// below from.xmin (entries the reader needs may be gone), or when more than
/// `limit` keys would come back (the caller drops its tiers instead).
replay_result read_changes_since(connection& c, const feed_position& from, size_t limit, size_t digest_from);
/// The same from a bare watermark: every transaction at or above it.
inline replay_result read_changes_since(connection& c, uint64_t watermark, size_t limit, size_t digest_from) {
  return read_changes_since(c, feed_position{watermark, watermark, {}}, limit, digest_from);
}

/// The identity of the history the connection reaches (cluster, database,
/// timeline) and its next transaction id, in one statement that assigns no
/// xid. On a standby the timeline is the last checkpoint's.
live_history read_history(connection& c);

/// What the log says of a witness entry (messages/feed_position.hpp): its
/// transaction is matched by xid and start time (its seq is for the log).
enum class witness_state : uint8_t {
  present,    ///< the same entry: the same history
  pruned,     ///< gone, and the horizon has passed its xid: the same history, pruned
  went_back,  ///< gone below the horizon, or another transaction under its xid: an older copy
};
witness_state check_witness(connection& c, const log_witness& w);

/// Deletes change-log entries older than `retention` whose transaction is
/// below `below` (never one the caller has not applied), at most `limit`,
/// then those older than the database's own bound (change_log_horizon.max_age,
/// whatever any instance applied), and raises the horizon over them. Returns
/// the entries deleted.
int64_t prune_changes(connection& c, std::chrono::seconds retention, uint64_t below, int64_t limit);

/// A fresh snapshot (pg_current_snapshot), through a prepared statement.
xid_snapshot current_snapshot(connection& c);

/// Settings of the listener's session: the planner has no statistics for
/// ranges of xid8 and would read the whole log for "xid >= x".
void prepare_feed_session(connection& c);

} // namespace restcache::pg
