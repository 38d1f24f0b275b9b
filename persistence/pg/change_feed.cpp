// SPDX-License-Identifier: Apache-2.0
#include "persistence/pg/change_feed.hpp"

#include <algorithm>
#include <charconv>
#include <string>

#include "messages/doc_catalogue.hpp"
#include "messages/key_comparison.hpp"
#include "messages/text.hpp"
#include "messages/wal_lsn.hpp"

namespace restcache::pg {

namespace {

/// A digest's keys are one text, separated by U+001F (schema.sql).
constexpr char digest_separator = '\x1f';

// restcache_replay_keys (schema.sql) reads the log directly, or through a
// digest another instance left when many entries are due. The horizon is read
// after it: a prune that deleted entries the replay did not see has raised it
// by then.
const char* const replay_sql =
  "SELECT key, seq, us, keys FROM restcache_replay_keys($1::text::xid8, $2::int8, $3::int4)";

// The entries of given transactions (those a position saw in progress),
// through the xid index.
const char* const in_progress_sql =
  "SELECT u.k, c.seq, (extract(epoch FROM c.changed_at) * 1000000)::bigint"
  " FROM change_log c, unnest(c.keys) AS u (k) WHERE c.xid = ANY ($1::xid8[]) LIMIT $2::int8";

const char* const horizon_sql = "SELECT pruned_below::text FROM change_log_horizon";

// The snapshot, and in the same statement (so the same snapshot) the newest
// entry visible in it, through the xid index read backwards.
const char* const position_sql =
  "SELECT pg_current_snapshot()::text, n.xid::text, n.seq, n.us FROM (SELECT 1) one"
  " LEFT JOIN LATERAL (SELECT c.xid, c.seq, (extract(epoch FROM c.changed_at) * 1000000)::bigint AS us"
  "   FROM change_log c ORDER BY c.xid DESC LIMIT 1) n ON true";

// A witness entry: is its transaction there as it was (every entry of a
// transaction has its start time, so the first one found answers: a check
// must not read all 100,000 entries of a storm), is another transaction's
// there under its xid, and has pruning passed it.
const char* const witness_sql =
  "SELECT EXISTS (SELECT 1 FROM change_log c WHERE c.xid = $1::text::xid8"
  "                 AND (extract(epoch FROM c.changed_at) * 1000000)::bigint = $2::int8),"
  "       EXISTS (SELECT 1 FROM change_log c WHERE c.xid = $1::text::xid8),"
  "       (SELECT h.pruned_below >= $1::text::xid8 FROM change_log_horizon h)";

// One statement, so one snapshot: the snapshot and the pruning horizon are
// on every row (and on the one row a poll that reads nothing returns), the
// keys are unnested here (no array literal to parse), and $3 bounds what
// comes back. Both conditions are scans of the xid index, ORed in a bitmap
// (seqscan is off in this session). A prune deletes entries and raises the
// horizon in one transaction, so the snapshot sees both or neither.
const char* const poll_sql =
  "SELECT s.snap, x.seq, x.k, x.xid::text, x.us, s.horizon, s.lsn FROM (SELECT pg_current_snapshot()::text AS snap,"
  "   (SELECT h.pruned_below::text FROM change_log_horizon h) AS horizon,"
  "   CASE WHEN pg_is_in_recovery() THEN NULL ELSE pg_current_wal_insert_lsn()::text END AS lsn) s"
  " LEFT JOIN LATERAL (SELECT c.seq, u.k, c.xid, (extract(epoch FROM c.changed_at) * 1000000)::bigint AS us"
  "   FROM change_log c, unnest(c.keys) AS u (k)"
  "   WHERE c.xid = ANY ($1::xid8[]) OR c.xid >= $2::xid8"
  "   LIMIT $3::int8) x ON true";

// When the server started, and where its last checkpoint is: after a crash
// the WAL past the last flush is gone, and the checkpoint ending the crash
// recovery (or the one before the crash) lies before what was lost.
const char* const server_start_sql =
  "SELECT pg_postmaster_start_time()::text, (pg_control_checkpoint()).checkpoint_lsn::text";

// The primary's current timeline is the first 8 hex digits of the name of
// the WAL file it writes; pg_control_checkpoint() would lag a promotion
// until the next checkpoint. A standby has no insert position: the last
// checkpoint's timeline is the best it knows.
const char* const history_sql =
  "SELECT s.system_identifier::text, d.oid::int8, d.datname,"
  "  CASE WHEN pg_is_in_recovery() THEN (pg_control_checkpoint()).timeline_id::text"
  "       ELSE substr(pg_walfile_name(pg_current_wal_lsn()), 1, 8) END,"
  "  pg_is_in_recovery(),"
  "  pg_snapshot_xmax(pg_current_snapshot())::text"
  " FROM pg_control_system() s, pg_database d WHERE d.datname = current_database()";

// The oldest $3 entries, read only when the oldest one has aged (entries age
// in transaction order, near enough): selecting every aged entry read the
// whole log whenever none had, at every prune of every instance. Then every
// aged entry up to the last of them, an index range (a transaction's entries
// go together).
const char* const prune_sql =
  "WITH oldest AS (SELECT c.changed_at, c.xid FROM change_log c"
  "    WHERE (SELECT o.changed_at < now() - make_interval(secs => $1::float8)"
  "           FROM change_log o ORDER BY o.xid LIMIT 1)"
  "    ORDER BY c.xid LIMIT $3),"
  " cut AS (SELECT max(xid) AS x FROM oldest"
  "    WHERE changed_at < now() - make_interval(secs => $1::float8) AND xid < $2::text::xid8),"
  " d AS (DELETE FROM change_log c USING cut"
  "    WHERE c.xid <= cut.x AND c.changed_at < now() - make_interval(secs => $1::float8)"
  "  RETURNING c.xid),"
  " m AS (SELECT max(xid) AS x, count(*) AS n FROM d),"
  " u AS (UPDATE change_log_horizon SET pruned_below = greatest(pruned_below, m.x)"
  "       FROM m WHERE m.x IS NOT NULL)"
  " SELECT n FROM m";

// The database's own bound, whatever any instance applied (schema.sql).
const char* const prune_aged_sql = "SELECT restcache_prune_change_log($1::int4)";

void prepare_once(connection& c, const char* name, const char* sql) {
  if (!c.is_prepared(name))
    c.prepare(name, sql);
}

/// Appends `ch` for `key` when the key names a document this build caches;
/// says what the key named (a truncate is the caller's to count).
log_key_kind add_key(std::string_view key, key_change ch, change_batch& into, uint64_t& key_spaces) {
  auto kind = parse_log_key(key, ch.key);
  if (kind == log_key_kind::document)
    into.push_back(ch);
  if (kind == log_key_kind::key_space) {
    key_spaces |= kind_bit(ch.key.kind());
    for_each_fanned_out(ch.key.kind(), [&](doc_kind k) { key_spaces |= kind_bit(k); });
  }
  return kind;
}

std::string xid_array(const std::vector<uint64_t>& xids) {
  std::string out = "{";
  for (auto x : xids) {
    if (out.size() > 1)
      out += ',';
    out += std::to_string(x);
  }
  out += '}';
  return out;
}

xid_snapshot snapshot_of(const result& r, int row) {
  auto snap = parse_snapshot(r.text(row, 0));
  if (!snap)
    throw error("change feed: malformed snapshot '" + std::string{r.text(row, 0)} + "'");
  return *snap;
}

} // namespace

log_key_kind parse_log_key(std::string_view key, doc_key& out) {
  auto at = key.find(':');
  if (at == std::string_view::npos)
    return log_key_kind::unknown;
  auto space = key.substr(0, at);
  if (space == "*")
    return log_key_kind::truncate;
  if (space == "!")
    return log_key_kind::catalog;
  auto kind = change_kind(space);
  // A key its kind could never be asked for (a text key past the bound) has
  // nothing cached to invalidate.
  if (!kind || parse_canonical_key(doc_kind_info(*kind).key, *kind, key.substr(at + 1), out) != key_error::none)
    return log_key_kind::unknown;
  if (!cacheable_key(out)) {
    out = doc_key{*kind, 0};
    return log_key_kind::key_space;
  }
  return log_key_kind::document;
}

xid_snapshot current_snapshot(connection& c) {
  prepare_once(c, "feed_snapshot", "SELECT pg_current_snapshot()::text");
  auto r = c.exec_prepared("feed_snapshot", {});
  auto snap = r.rows() == 1 ? parse_snapshot(r.text(0, 0)) : std::nullopt;
  if (!snap)
    throw error("feed_snapshot: unexpected result");
  return *snap;
}

void prepare_feed_session(connection& c) {
  c.exec("SET enable_seqscan = off; SET jit = off");
}

position_read read_position(connection& c, poll_position& pos) {
  prepare_once(c, "feed_position", position_sql);
  auto r = c.exec_prepared("feed_position", {});
  if (r.rows() != 1)
    throw error("feed_position: unexpected result");
  position_read out;
  out.snapshot = snapshot_of(r, 0);
  if (!r.is_null(0, 1)) {
    log_witness w;
    if (!parse_whole(r.text(0, 1), w.xid))
      throw error("feed_position: malformed xid");
    w.seq = static_cast<uint64_t>(r.int64(0, 2));
    w.us = r.int64(0, 3);
    out.newest = w;
  }
  pos.in_progress = out.snapshot.xip;
  pos.from_xid = out.snapshot.xmax;
  return out;
}

witness_state check_witness(connection& c, const log_witness& w) {
  prepare_once(c, "feed_witness", witness_sql);
  auto r = c.exec_prepared("feed_witness", {std::to_string(w.xid), std::to_string(w.us)});
  if (r.rows() != 1)
    throw error("feed_witness: unexpected result");
  if (r.text(0, 0) == "t")
    return witness_state::present;
  if (r.text(0, 1) == "t")
    return witness_state::went_back; // another transaction under its xid
  return r.text(0, 2) == "t" ? witness_state::pruned : witness_state::went_back;
}

poll_result poll_changes(connection& c, poll_position& pos, size_t limit, int64_t seen_after_us) {
  prepare_once(c, "feed_poll", poll_sql);
  auto r = c.exec_prepared("feed_poll", {xid_array(pos.in_progress), std::to_string(pos.from_xid),
                                         std::to_string(limit + 1)});
  if (r.rows() < 1)
    throw error("feed_poll: no snapshot row");
  poll_result out;
  out.snapshot = snapshot_of(r, 0);
  // Every entry not read yet has an xid in pos.in_progress or >= from_xid.
  // Pruning deletes whole committed transactions up to the horizon, chosen
  // by age, not by commit: a transaction older than the retention may have
  // committed after the last poll and gone already. Only the highest xid
  // pruned is known, so anything at or above the oldest unread one may have.
  uint64_t horizon = 0;
  if (r.is_null(0, 5) || !parse_whole(r.text(0, 5), horizon))
    throw error("feed_poll: change_log_horizon has no row");
  uint64_t oldest_unread = pos.from_xid;
  for (auto x : pos.in_progress)
    oldest_unread = std::min(oldest_unread, x);
  out.pruned_unread = horizon >= oldest_unread;
  out.horizon = horizon;
  out.oldest_unread = oldest_unread;
  if (!r.is_null(0, 6))
    out.insert_lsn = parse_wal_lsn(r.text(0, 6)).value_or(0);
  if (static_cast<size_t>(r.rows()) > limit) {
    out.overflow = true;
    auto fresh = read_position(c, pos);
    out.snapshot = fresh.snapshot;
    out.newest = fresh.newest;
    return out;
  }
  out.changes.reserve(static_cast<size_t>(r.rows()));
  for (int i = 0; i < r.rows(); ++i) {
    if (r.is_null(i, 1))
      continue; // the one row of a poll that read nothing
    key_change ch;
    ch.seq = static_cast<uint64_t>(r.int64(i, 1));
    log_witness w;
    if (!parse_whole(r.text(i, 3), w.xid))
      throw error("feed_poll: malformed xid");
    if (!out.newest || w.xid > out.newest->xid) {
      w.seq = ch.seq;
      w.us = r.int64(i, 4);
      out.newest = w;
    }
    ch.changed_us = seen_after_us;
    switch (add_key(r.text(i, 2), ch, out.changes, out.key_spaces)) {
      case log_key_kind::truncate: ++out.truncates; break;
      case log_key_kind::catalog: out.altered_tables.emplace_back(r.text(i, 2).substr(2)); break;
      default: break;
    }
  }
  pos.in_progress = out.snapshot.xip;
  pos.from_xid = out.snapshot.xmax;
  return out;
}

server_start read_server_start(connection& c) {
  prepare_once(c, "feed_server_start", server_start_sql);
  auto r = c.exec_prepared("feed_server_start", {});
  if (r.rows() != 1)
    throw error("feed_server_start: no row");
  server_start s;
  s.started = std::string{r.text(0, 0)};
  s.checkpoint_lsn = parse_wal_lsn(r.text(0, 1)).value_or(0);
  return s;
}

replay_result read_changes_since(connection& c, const feed_position& from, size_t limit, size_t digest_from) {
  prepare_once(c, "replay_changes", replay_sql);
  prepare_once(c, "replay_in_progress", in_progress_sql);
  prepare_once(c, "replay_horizon", horizon_sql);
  auto r = c.exec_prepared("replay_changes",
                           {std::to_string(from.xmax), std::to_string(limit + 1), std::to_string(digest_from)});
  // The transactions the position saw in progress (a prepared one, say):
  // their entries sit below xmax; usually there are none.
  result open;
  if (!from.xip.empty())
    open = c.exec_prepared("replay_in_progress", {xid_array(from.xip), std::to_string(limit + 1)});
  auto h = c.exec_prepared("replay_horizon", {});
  replay_result out;
  if (h.rows() < 1)
    throw error("replay_changes: change_log_horizon has no row");
  uint64_t horizon = 0;
  if (!parse_whole(h.text(0, 0), horizon))
    throw error("replay_changes: malformed horizon");
  out.horizon = horizon;
  out.complete = horizon < from.xmin;
  auto too_many = [&] {
    out.complete = false;
    out.changes.clear();
    return out;
  };
  if (static_cast<size_t>(r.rows()) + static_cast<size_t>(open.rows()) > limit)
    return too_many();
  out.changes.reserve(static_cast<size_t>(r.rows()) + static_cast<size_t>(open.rows()));
  auto add = [&](std::string_view key, const key_change& ch) {
    switch (add_key(key, ch, out.changes, out.key_spaces)) {
      case log_key_kind::truncate: out.truncated = true; break;
      case log_key_kind::catalog: out.altered_tables.emplace_back(key.substr(2)); break;
      default: break;
    }
  };
  for (int i = 0; i < r.rows(); ++i) {
    key_change ch;
    ch.seq = static_cast<uint64_t>(r.int64(i, 1));
    ch.changed_us = r.int64(i, 2);
    if (r.is_null(i, 3)) {
      add(r.text(i, 0), ch);
      continue;
    }
    // A digest's keys. They carry its highest sequence, so never take one
    // for the exact change a write applied itself.
    ch.coalesced = true;
    auto keys = r.text(i, 3);
    while (!keys.empty())
      add(next_part(keys, digest_separator), ch);
    if (out.changes.size() > limit)
      return too_many();
  }
  for (int i = 0; i < open.rows(); ++i) {
    key_change ch;
    ch.seq = static_cast<uint64_t>(open.int64(i, 1));
    ch.changed_us = open.int64(i, 2);
    add(open.text(i, 0), ch);
  }
  if (out.changes.size() > limit)
    return too_many();
  return out;
}

live_history read_history(connection& c) {
  prepare_once(c, "read_history", history_sql);
  auto r = c.exec_prepared("read_history", {});
  if (r.rows() != 1)
    throw error("read_history: the current database is not in pg_database");
  live_history h;
  auto timeline_text = r.text(0, 3);
  uint32_t timeline = 0;
  bool in_recovery = r.text(0, 4) == "t";
  auto [end, ec] = std::from_chars(timeline_text.data(), timeline_text.data() + timeline_text.size(), timeline,
                                   in_recovery ? 10 : 16);
  if (!parse_whole(r.text(0, 0), h.identity.system_id) || ec != std::errc{}
      || end != timeline_text.data() + timeline_text.size() || !parse_whole(r.text(0, 5), h.next_xid))
    throw error("read_history: unexpected result");
  h.identity.database_oid = static_cast<uint32_t>(r.int64(0, 1));
  h.identity.database_name = std::string{r.text(0, 2)};
  h.identity.timeline = timeline;
  return h;
}

int64_t prune_changes(connection& c, std::chrono::seconds retention, uint64_t below, int64_t limit) {
  prepare_once(c, "prune_changes", prune_sql);
  prepare_once(c, "prune_aged_changes", prune_aged_sql);
  auto r = c.exec_prepared("prune_changes", {std::to_string(retention.count()), std::to_string(below),
                                             std::to_string(limit)});
  auto n = r.rows() == 1 ? r.int64(0, 0) : 0;
  auto aged = c.exec_prepared("prune_aged_changes", {std::to_string(limit)});
  return n + (aged.rows() == 1 ? aged.int64(0, 0) : 0);
}

} // namespace restcache::pg
