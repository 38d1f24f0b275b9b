#include "persistence/pg/change_feed.hpp"

#include <charconv>
#include <string>

#include "messages/doc_catalogue.hpp"

namespace restcache::pg {

namespace {

template <class Int>
bool parse_int(std::string_view s, Int& out) {
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc{} && end == s.data() + s.size();
}

/// Splits off the text up to the next `sep` (or the rest).
std::string_view next_part(std::string_view& s, char sep) {
  auto at = s.find(sep);
  auto field = s.substr(0, at);
  s = at == std::string_view::npos ? std::string_view{} : s.substr(at + 1);
  return field;
}

std::string_view next_field(std::string_view& s) {
  return next_part(s, ':');
}

std::string_view next_id(std::string_view& s) {
  return next_part(s, ',');
}

// restcache_replay (schema.sql) reads the log directly, or through a digest
// another instance left when many entries are due. The horizon is read after
// it: a prune that deleted entries the replay did not see has raised it by
// then.
const char* const replay_sql =
  "SELECT entity, id, seq, us, ids FROM restcache_replay($1::text::xid8, $2::int8, $3::int4)";

const char* const horizon_sql = "SELECT pruned_below::text FROM change_log_horizon";

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

const char* const mark_sql =
  "SELECT pg_snapshot_xmin(pg_current_snapshot())::text,"
  " pg_notify($2, 'mark:' || $1)";

// The oldest $3 entries, read only when the oldest one has aged (entries age
// in sequence order, near enough): selecting every aged entry read the whole
// log through the primary key whenever none had, at every prune of every
// instance.
const char* const prune_sql =
  "WITH oldest AS (SELECT c.seq, c.changed_at, c.xid FROM change_log c"
  "    WHERE (SELECT o.changed_at < now() - make_interval(secs => $1::float8)"
  "           FROM change_log o ORDER BY o.seq LIMIT 1)"
  "    ORDER BY c.seq LIMIT $3),"
  " d AS (DELETE FROM change_log WHERE seq IN ("
  "    SELECT seq FROM oldest"
  "    WHERE changed_at < now() - make_interval(secs => $1::float8) AND xid < $2::text::xid8)"
  "  RETURNING xid),"
  " m AS (SELECT max(xid) AS x, count(*) AS n FROM d),"
  " u AS (UPDATE change_log_horizon SET pruned_below = greatest(pruned_below, m.x)"
  "       FROM m WHERE m.x IS NOT NULL)"
  " SELECT n FROM m";

void prepare_once(connection& c, const char* name, const char* sql) {
  if (!c.is_prepared(name))
    c.prepare(name, sql);
}

} // namespace

std::optional<key_change> parse_change(std::string_view payload) {
  auto entity = next_field(payload);
  auto id_text = next_field(payload);
  auto seq_text = next_field(payload);
  auto us_text = next_field(payload);
  if (!payload.empty())
    return std::nullopt; // more fields than the triggers send
  auto kind = change_kind(entity);
  if (!kind)
    return std::nullopt;
  key_change ch;
  ch.key.kind = *kind;
  if (!parse_int(id_text, ch.key.id) || !parse_int(seq_text, ch.seq))
    return std::nullopt;
  if (!us_text.empty() && !parse_int(us_text, ch.changed_us))
    return std::nullopt;
  return ch;
}

std::optional<uint64_t> parse_truncate(std::string_view payload) {
  auto entity = next_field(payload);
  auto id_text = next_field(payload);
  auto seq_text = next_field(payload);
  auto us_text = next_field(payload);
  int64_t us = 0;
  uint64_t seq = 0;
  if (entity != "truncate" || id_text != "0" || !payload.empty() || !parse_int(seq_text, seq)
      || (!us_text.empty() && !parse_int(us_text, us)))
    return std::nullopt;
  return seq;
}

std::optional<uint64_t> parse_mark(std::string_view payload) {
  constexpr std::string_view prefix = "mark:";
  uint64_t token = 0;
  if (payload.substr(0, prefix.size()) != prefix || !parse_int(payload.substr(prefix.size()), token))
    return std::nullopt;
  return token;
}

replay_result read_changes_since(connection& c, uint64_t watermark, size_t limit, size_t digest_from) {
  prepare_once(c, "replay_changes", replay_sql);
  prepare_once(c, "replay_horizon", horizon_sql);
  auto r = c.exec_prepared("replay_changes",
                           {std::to_string(watermark), std::to_string(limit + 1), std::to_string(digest_from)});
  auto h = c.exec_prepared("replay_horizon", {});
  replay_result out;
  if (h.rows() < 1)
    throw error("replay_changes: change_log_horizon has no row");
  uint64_t horizon = 0;
  if (!parse_int(h.text(0, 0), horizon))
    throw error("replay_changes: malformed horizon");
  out.horizon = horizon;
  out.complete = horizon < watermark;
  auto too_many = [&] {
    out.complete = false;
    out.changes.clear();
    return out;
  };
  if (static_cast<size_t>(r.rows()) > limit)
    return too_many();
  out.changes.reserve(static_cast<size_t>(r.rows()));
  for (int i = 0; i < r.rows(); ++i) {
    auto entity = r.text(i, 0);
    if (entity == "truncate") {
      out.truncated = true;
      continue;
    }
    auto kind = change_kind(entity);
    if (!kind)
      throw error("replay_changes: unknown entity '" + std::string{entity} + "' in change_log");
    key_change ch;
    ch.key.kind = *kind;
    ch.seq = static_cast<uint64_t>(r.int64(i, 2));
    ch.changed_us = r.int64(i, 3);
    if (r.is_null(i, 4)) {
      ch.key.id = static_cast<int32_t>(r.int64(i, 1));
      out.changes.push_back(ch);
      continue;
    }
    // A digest's keys: "1,2,...". They carry its highest sequence, so never
    // take one for the exact change a write applied itself.
    ch.coalesced = true;
    auto ids = r.text(i, 4);
    while (!ids.empty()) {
      if (!parse_int(next_id(ids), ch.key.id))
        throw error("replay_changes: malformed digest ids");
      out.changes.push_back(ch);
    }
    if (out.changes.size() > limit)
      return too_many();
  }
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
  if (!parse_int(r.text(0, 0), h.identity.system_id) || ec != std::errc{}
      || end != timeline_text.data() + timeline_text.size() || !parse_int(r.text(0, 5), h.next_xid))
    throw error("read_history: unexpected result");
  h.identity.database_oid = static_cast<uint32_t>(r.int64(0, 1));
  h.identity.database_name = std::string{r.text(0, 2)};
  h.identity.timeline = timeline;
  return h;
}

std::string mark_channel(connection& c) {
  return "restcache_mark_" + std::to_string(PQbackendPID(c.get()));
}

uint64_t send_mark(connection& c, uint64_t token) {
  prepare_once(c, "send_mark", mark_sql);
  auto r = c.exec_prepared("send_mark", {std::to_string(token), mark_channel(c)});
  uint64_t xmin = 0;
  if (r.rows() != 1 || !parse_int(r.text(0, 0), xmin))
    throw error("send_mark: unexpected result");
  return xmin;
}

int64_t prune_changes(connection& c, std::chrono::seconds retention, uint64_t below, int64_t limit) {
  prepare_once(c, "prune_changes", prune_sql);
  auto r = c.exec_prepared("prune_changes", {std::to_string(retention.count()), std::to_string(below),
                                             std::to_string(limit)});
  return r.rows() == 1 ? r.int64(0, 0) : 0;
}

} // namespace restcache::pg
