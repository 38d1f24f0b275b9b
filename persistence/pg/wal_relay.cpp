// SPDX-License-Identifier: Apache-2.0
#include "persistence/pg/wal_relay.hpp"

#include <charconv>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "messages/wal_lsn.hpp"
#include "persistence/pg/change_feed.hpp"

namespace restcache::pg {

namespace {

/// Length-prefixed fields: "<decimal length>:<bytes>".
void put(std::string& out, std::string_view field) {
  out += std::to_string(field.size());
  out.push_back(':');
  out.append(field);
}
void put(std::string& out, uint64_t n) { put(out, std::to_string(n)); }
void put_signed(std::string& out, int64_t n) { put(out, std::to_string(n)); }

struct field_reader {
  std::string_view rest;

  bool done() const noexcept { return rest.empty(); }
  std::string_view field() {
    auto colon = rest.find(':');
    size_t n = 0;
    if (colon == std::string_view::npos || colon == 0
        || std::from_chars(rest.data(), rest.data() + colon, n).ptr != rest.data() + colon
        || n > rest.size() - colon - 1)
      throw std::runtime_error("wal_relay: a window's commits are not as the relay writes them");
    auto out = rest.substr(colon + 1, n);
    rest.remove_prefix(colon + 1 + n);
    return out;
  }
  template <class T>
  T number() {
    auto f = field();
    T n{};
    if (std::from_chars(f.data(), f.data() + f.size(), n).ptr != f.data() + f.size())
      throw std::runtime_error("wal_relay: a number of a window's commits is not one");
    return n;
  }
};

uint64_t lsn_of(const result& r, int row, int col) {
  return r.is_null(row, col) ? 0 : parse_wal_lsn(r.text(row, col)).value_or(0);
}

} // namespace

std::string relay_fingerprint(const std::vector<watched_table>& watched) {
  std::string text;
  for (const auto& k : doc_catalogue())
    put(text, kind_fingerprint(k));
  for (const auto& t : watched) {
    put(text, t.name);
    for (const auto& k : t.keys)
      put(text, k);
    put(text, t.kinds);
    put(text, t.row_kinds);
  }
  char hex[17];
  auto h = XXH3_64bits(text.data(), text.size());
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  return hex;
}

wal_commit coalesce_window(std::vector<wal_commit>& commits) {
  wal_commit out;
  if (commits.empty())
    return out;
  out.xid = commits.back().xid;
  out.end_lsn = commits.back().end_lsn;
  out.commit_us = commits.front().commit_us;
  std::unordered_set<std::string> keys;
  std::unordered_map<std::string, size_t> rows;
  for (auto& t : commits) {
    for (auto& k : t.log_keys)
      if (keys.insert(k).second)
        out.log_keys.push_back(std::move(k));
    for (auto& r : t.changed_rows) {
      if (auto [at, fresh] = rows.try_emplace(r.row, out.changed_rows.size()); fresh)
        out.changed_rows.push_back(row_change{std::move(r.row), r.kinds, out.end_lsn, out.commit_us, 0});
      else
        out.changed_rows[at->second].kinds |= r.kinds;
    }
    out.truncates += t.truncates;
    out.drop_kinds |= t.drop_kinds;
    out.rows += t.rows;
    for (auto& a : t.altered)
      out.altered.push_back(std::move(a));
  }
  // The changes as the keys give them, at the window's end.
  for (const auto& k : out.log_keys) {
    doc_key doc;
    if (parse_log_key(k, doc) == log_key_kind::document)
      out.changes.push_back({doc, out.end_lsn, out.commit_us});
  }
  return out;
}

std::string encode_relay_commits(const std::vector<wal_commit>& commits, const std::vector<uint64_t>& full_xids) {
  std::string out;
  put(out, commits.size()); // a window cut short is refused, not read as fewer commits
  for (size_t i = 0; i < commits.size(); ++i) {
    const auto& t = commits[i];
    put(out, t.end_lsn);
    put(out, i < full_xids.size() ? full_xids[i] : t.xid);
    put_signed(out, t.commit_us);
    put(out, t.truncates);
    put(out, t.drop_kinds);
    put(out, t.log_keys.size());
    for (const auto& k : t.log_keys)
      put(out, k);
    put(out, t.altered.size());
    for (const auto& a : t.altered)
      put(out, a);
    put(out, t.changed_rows.size());
    for (const auto& r : t.changed_rows) {
      put(out, r.kinds);
      put(out, r.row);
    }
  }
  return out;
}

relay_commits decode_relay_commits(std::string_view text) {
  relay_commits out;
  field_reader in{text};
  for (auto count = in.number<uint64_t>(); count > 0; --count) {
    wal_commit t;
    t.end_lsn = in.number<uint64_t>();
    auto xid = in.number<uint64_t>();
    t.xid = static_cast<uint32_t>(xid);
    t.commit_us = in.number<int64_t>();
    auto truncates = in.number<uint64_t>();
    auto drops = in.number<uint64_t>();
    for (auto n = in.number<uint64_t>(); n > 0; --n)
      add_log_key(std::string{in.field()}, t);
    // What the keys said, then what the leader knew besides.
    t.truncates = truncates;
    t.drop_kinds |= drops;
    t.altered.clear();
    for (auto n = in.number<uint64_t>(); n > 0; --n)
      t.altered.emplace_back(in.field());
    for (auto n = in.number<uint64_t>(); n > 0; --n) {
      auto kinds = in.number<uint64_t>();
      t.changed_rows.push_back(row_change{std::string{in.field()}, kinds, t.end_lsn, t.commit_us, 0});
    }
    out.commits.push_back(std::move(t));
    out.full_xids.push_back(xid);
  }
  if (!in.done())
    throw std::runtime_error("wal_relay: a window holds more than its commits");
  return out;
}

bool relay_installed(connection& c) {
  auto r = c.exec("SELECT to_regclass('wal_relay') IS NOT NULL AND to_regclass('wal_relay_head') IS NOT NULL");
  return r.text(0, 0) == "t";
}

namespace {

constexpr const char* relay_state_sql =
  "SELECT h.fingerprint, h.leader, h.pruned_below::text,"
  " greatest((SELECT max(w.end_lsn) FROM wal_relay w), h.pruned_below)::text,"
  " h.start_lsn::text, h.start_snapshot::text"
  " FROM (SELECT 1) one LEFT JOIN wal_relay_head h ON true";

relay_state state_of(const result& r, int row, int col) {
  relay_state s;
  s.led = !r.is_null(row, col);
  if (!s.led)
    return s;
  s.fingerprint = std::string{r.text(row, col)};
  s.leader = std::string{r.text(row, col + 1)};
  s.pruned_below = lsn_of(r, row, col + 2);
  s.relayed_to = lsn_of(r, row, col + 3);
  if (!r.is_null(row, col + 4))
    s.start_lsn = lsn_of(r, row, col + 4);
  if (!r.is_null(row, col + 5))
    s.start_snapshot = std::string{r.text(row, col + 5)};
  return s;
}

} // namespace

relay_state read_relay_state(connection& c) {
  return state_of(c.exec(relay_state_sql), 0, 0);
}

void claim_relay(connection& c, std::string_view fingerprint, std::string_view leader,
                 std::optional<uint64_t> restart_from, std::optional<std::string> start_snapshot) {
  // One statement: a follower never sees the new leader's head without
  // the horizon (and the start) that goes with it.
  c.exec_params("WITH d AS (DELETE FROM wal_relay WHERE $3::bool)"
                " INSERT INTO wal_relay_head (fingerprint, leader, pruned_below, start_lsn, start_snapshot)"
                " VALUES ($1, $2, coalesce($4::pg_lsn, '0/0'), $4::pg_lsn, $5::pg_snapshot)"
                " ON CONFLICT (one) DO UPDATE SET fingerprint = $1, leader = $2, led_since = now(),"
                "   pruned_below = CASE WHEN $3::bool THEN $4::pg_lsn ELSE wal_relay_head.pruned_below END,"
                "   start_lsn = CASE WHEN $3::bool THEN $4::pg_lsn ELSE wal_relay_head.start_lsn END,"
                "   start_snapshot = CASE WHEN $3::bool THEN $5::pg_snapshot ELSE wal_relay_head.start_snapshot END",
                {std::string{fingerprint}, std::string{leader}, restart_from ? "true" : "false",
                 restart_from ? std::optional<std::string>{format_wal_lsn(*restart_from)} : std::nullopt,
                 restart_from ? std::move(start_snapshot) : std::nullopt});
}

void write_relay(connection& c, uint64_t first_lsn, uint64_t end_lsn, const std::string& commits) {
  static const std::string sql = std::string{"INSERT INTO wal_relay (first_lsn, end_lsn, commits) SELECT $1, $2, $3"
                                             " FROM (SELECT pg_notify('"}
                                 + relay_channel + "', '')) n";
  c.prepare("restcache_relay_write", sql);
  c.exec_prepared("restcache_relay_write", {format_wal_lsn(first_lsn), format_wal_lsn(end_lsn), commits});
}

int64_t prune_relay(connection& c, std::chrono::seconds retention) {
  auto r = c.exec_params(
    "WITH d AS (DELETE FROM wal_relay WHERE relayed_at < now() - make_interval(secs => $1::int8)"
    "             AND end_lsn < (SELECT max(end_lsn) FROM wal_relay) RETURNING end_lsn),"
    " m AS (SELECT max(end_lsn) AS x, count(*) AS n FROM d),"
    " u AS (UPDATE wal_relay_head SET pruned_below = greatest(pruned_below, m.x) FROM m WHERE m.x IS NOT NULL)"
    " SELECT n FROM m",
    {std::to_string(retention.count())});
  return r.int64(0, 0);
}

relay_page read_relay(connection& c, const std::string& slot, uint64_t after, int max_windows) {
  relay_page page;
  // First the slot: the leader confirms a position once the windows below
  // it are committed, so the next statement's snapshot sees them all.
  // Named, parsed and planned once per session: a follower runs them at
  // every notification and every second.
  static const std::string slot_sql =
    "SELECT (SELECT confirmed_flush_lsn::text FROM pg_replication_slots WHERE slot_name = $1),"
    " pg_current_wal_insert_lsn()::text";
  static const std::string page_sql = std::string{"SELECT s.*, w.end_lsn::text, w.commits FROM ("} + relay_state_sql
                                      + ") s LEFT JOIN LATERAL (SELECT end_lsn, commits FROM wal_relay"
                                        " WHERE end_lsn > $1::pg_lsn ORDER BY end_lsn LIMIT $2::int) w ON true";
  if (!slot.empty()) {
    c.prepare("restcache_relay_slot", slot_sql);
    auto s = c.exec_prepared("restcache_relay_slot", {slot});
    page.confirmed = lsn_of(s, 0, 0);
    page.server_lsn = lsn_of(s, 0, 1);
  }
  c.prepare("restcache_relay_page", page_sql);
  auto r = c.exec_prepared("restcache_relay_page", {format_wal_lsn(after), std::to_string(max_windows)});
  page.state = state_of(r, 0, 0);
  for (int i = 0; i < r.rows(); ++i)
    if (!r.is_null(i, 6))
      page.windows.emplace_back(lsn_of(r, i, 6), std::string{r.text(i, 7)});
  page.full = static_cast<int>(page.windows.size()) >= max_windows;
  return page;
}

std::optional<uint64_t> relayed_xid_at(connection& c, uint64_t end_lsn) {
  auto r = c.exec_params("SELECT commits FROM wal_relay WHERE end_lsn >= $1::pg_lsn AND first_lsn <= $1::pg_lsn"
                         " ORDER BY end_lsn LIMIT 1",
                         {format_wal_lsn(end_lsn)});
  if (r.rows() == 0)
    return std::nullopt;
  auto window = decode_relay_commits(r.text(0, 0));
  for (size_t i = 0; i < window.commits.size(); ++i)
    if (window.commits[i].end_lsn == end_lsn)
      return window.full_xids[i];
  return std::nullopt; // inside a window made one commit: not known
}

} // namespace restcache::pg
