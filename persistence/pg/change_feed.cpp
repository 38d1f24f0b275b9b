#include "persistence/pg/change_feed.hpp"

#include <charconv>
#include <string>

namespace restcache::pg {

namespace {

template <class Int>
bool parse_int(std::string_view s, Int& out) {
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc{} && end == s.data() + s.size();
}

/// Splits off the text up to the next ':' (or the rest).
std::string_view next_field(std::string_view& s) {
  auto at = s.find(':');
  auto field = s.substr(0, at);
  s = at == std::string_view::npos ? std::string_view{} : s.substr(at + 1);
  return field;
}

const char* const replay_sql =
  "SELECT h.pruned_below::text, c.entity, c.id, c.seq, c.us"
  " FROM change_log_horizon h LEFT JOIN LATERAL ("
  "   SELECT entity, id, seq, (extract(epoch FROM changed_at) * 1000000)::bigint AS us"
  "   FROM change_log WHERE xid >= $1::text::xid8 ORDER BY seq LIMIT $2) c ON true";

const char* const mark_sql =
  "SELECT pg_snapshot_xmin(pg_current_snapshot())::text,"
  " pg_notify('restcache_changes', 'mark:' || $1)";

const char* const prune_sql =
  "WITH d AS (DELETE FROM change_log WHERE seq IN ("
  "    SELECT seq FROM change_log"
  "    WHERE changed_at < now() - make_interval(secs => $1::float8) AND xid < $2::text::xid8"
  "    ORDER BY seq LIMIT $3)"
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
  key_change ch;
  if (entity == "dept")
    ch.key.kind = doc_kind::deptemps;
  else if (entity == "emp")
    ch.key.kind = doc_kind::emp;
  else
    return std::nullopt;
  if (!parse_int(id_text, ch.key.id) || !parse_int(seq_text, ch.seq))
    return std::nullopt;
  if (!us_text.empty() && !parse_int(us_text, ch.changed_us))
    return std::nullopt;
  return ch;
}

std::optional<uint64_t> parse_mark(std::string_view payload) {
  constexpr std::string_view prefix = "mark:";
  uint64_t token = 0;
  if (payload.substr(0, prefix.size()) != prefix || !parse_int(payload.substr(prefix.size()), token))
    return std::nullopt;
  return token;
}

replay_result read_changes_since(connection& c, uint64_t watermark, size_t limit) {
  prepare_once(c, "replay_changes", replay_sql);
  auto r = c.exec_prepared("replay_changes", {std::to_string(watermark), std::to_string(limit + 1)});
  replay_result out;
  if (r.rows() < 1)
    throw error("replay_changes: change_log_horizon has no row");
  uint64_t horizon = 0;
  if (!parse_int(r.text(0, 0), horizon))
    throw error("replay_changes: malformed horizon");
  out.horizon = horizon;
  out.complete = horizon < watermark;
  if (r.is_null(0, 1))
    return out; // no entries
  if (static_cast<size_t>(r.rows()) > limit) {
    out.complete = false;
    return out;
  }
  out.changes.reserve(static_cast<size_t>(r.rows()));
  for (int i = 0; i < r.rows(); ++i) {
    key_change ch;
    ch.key.kind = r.text(i, 1) == "emp" ? doc_kind::emp : doc_kind::deptemps;
    ch.key.id = static_cast<int32_t>(r.int64(i, 2));
    ch.seq = static_cast<uint64_t>(r.int64(i, 3));
    ch.changed_us = r.int64(i, 4);
    out.changes.push_back(ch);
  }
  return out;
}

uint64_t send_mark(connection& c, uint64_t token) {
  prepare_once(c, "send_mark", mark_sql);
  auto r = c.exec_prepared("send_mark", {std::to_string(token)});
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
