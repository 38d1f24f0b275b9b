// SPDX-License-Identifier: Apache-2.0
#include "persistence/pg/statements.hpp"

#include <algorithm>
#include <string>

#include "messages/doc_catalogue.hpp"
#include "messages/text.hpp"
#include "messages/wal_lsn.hpp"

namespace restcache::pg {

namespace {

// -- statement names and texts ------------------------------------------------

constexpr const char* replay_lsn_stmt = "restcache_replay_lsn";
// NULL on a primary. Its own statement, before the document's: at READ
// COMMITTED the document's snapshot is taken after this position was
// replayed, so it sees every commit up to it.
constexpr const char* replay_lsn_sql = "SELECT pg_last_wal_replay_lsn()::text";

constexpr const char* insert_lsn_stmt = "restcache_insert_lsn";
// On the primary: every transaction whose commit was seen before this reads
// committed below the position it answers.
constexpr const char* insert_lsn_sql = "SELECT pg_current_wal_insert_lsn()::text";

constexpr const char* standby_state_stmt = "restcache_standby_state";
// How far a standby has replayed, and how far behind that is: the time since
// the last replayed commit while received WAL waits to be replayed (0 when
// it has replayed all it received, or is a primary).
// And whose copy it is: its system identifier (a standby has its primary's).
constexpr const char* standby_state_sql =
  "SELECT pg_is_in_recovery(), pg_last_wal_replay_lsn()::text,"
  "       CASE WHEN NOT pg_is_in_recovery()"
  "              OR pg_last_wal_receive_lsn() IS NOT DISTINCT FROM pg_last_wal_replay_lsn()"
  "              OR pg_last_xact_replay_timestamp() IS NULL THEN 0"
  "            ELSE GREATEST(0, (extract(epoch FROM clock_timestamp() - pg_last_xact_replay_timestamp())"
  "                              * 1000)::bigint) END,"
  "       (SELECT system_identifier FROM pg_control_system())::text";

} // namespace

// Every setting that changes the text of a value a document holds, pinned
// on each session documents are read through, whatever the database or the
// role sets (ALTER DATABASE / ALTER ROLE ... SET): one value has one
// spelling in every instance, connection and tier. ISO dates (also for any
// date or timestamp a caller selects as text), ISO 8601 intervals, UTF-8
// text, UTC timestamps, floats in their shortest exact form (PostgreSQL's
// default since 12; 0 would round, 3 print 17 digits), bytea in hex, money
// in the C locale's form and XML binaries in base64.
const char* const session_settings_sql = "SET DateStyle = ISO, YMD;"
                                         "SET IntervalStyle = iso_8601;"
                                         "SET client_encoding = 'UTF8';"
                                         "SET TimeZone = 'UTC';"
                                         "SET extra_float_digits = 1;"
                                         "SET bytea_output = hex;"
                                         "SET lc_monetary = 'C';"
                                         "SET xmlbinary = base64";

std::vector<std::pair<const char*, const char*>> statement_texts() {
  std::vector<std::pair<const char*, const char*>> texts;
  auto add = [&](const kind_statement& s) {
    auto named = [&](const auto& t) { return s.name == t.first; };
    if (!s.name.empty() && std::none_of(texts.begin(), texts.end(), named))
      texts.emplace_back(s.name.c_str(), s.sql.c_str());
  };
  for (const auto& kind : doc_catalogue()) {
    add(kind.statement);
    add(kind.populate.statement);
    add(kind.populate.count);
  }
  texts.insert(texts.end(), {
    {replay_lsn_stmt, replay_lsn_sql},
    {insert_lsn_stmt, insert_lsn_sql},
    {standby_state_stmt, standby_state_sql},
  });
  return texts;
}

void prepare_statements(connection& c) {
  c.exec(session_settings_sql);
  for (const auto& [name, sql] : statement_texts()) {
    try {
      c.prepare(name, sql);
    } catch (const error& e) {
      // A table or column it reads is missing: the kinds that read it fail
      // with that error at their first use (and work once it is back); the
      // others are served.
      if (!schema_changed(e.sqlstate()))
        throw;
    }
  }
}

void ensure_session(connection& c) {
  // replay_lsn reads no table: unprepared only on a fresh session.
  if (!c.is_prepared(replay_lsn_stmt))
    prepare_statements(c);
}

const char* const replay_lsn_statement = replay_lsn_stmt;
const char* const insert_lsn_statement = insert_lsn_stmt;


std::optional<uint64_t> decode_replay_lsn(const result& r) {
  if (r.rows() != 1 || r.is_null(0, 0))
    return std::nullopt;
  auto lsn = parse_wal_lsn(r.text(0, 0));
  if (!lsn)
    throw error("pg_last_wal_replay_lsn answered '" + std::string{r.text(0, 0)} + "'");
  return lsn;
}

std::optional<uint64_t> replay_lsn(connection& c) {
  ensure_prepared(c, replay_lsn_stmt);
  return decode_replay_lsn(c.exec_prepared(replay_lsn_stmt, {}));
}

uint64_t insert_lsn(connection& c) {
  ensure_prepared(c, insert_lsn_stmt);
  auto r = c.exec_prepared(insert_lsn_stmt, {});
  auto lsn = r.rows() == 1 ? parse_wal_lsn(r.text(0, 0)) : std::nullopt;
  if (!lsn)
    throw error("pg_current_wal_insert_lsn answered no position");
  return *lsn;
}

standby_state read_standby_state(connection& c) {
  ensure_prepared(c, standby_state_stmt);
  auto r = c.exec_prepared(standby_state_stmt, {});
  standby_state s;
  s.in_recovery = r.text(0, 0) == "t";
  if (!r.is_null(0, 1))
    s.replay_lsn = parse_wal_lsn(r.text(0, 1)).value_or(0);
  s.lag_ms = r.int64(0, 2);
  parse_whole(r.text(0, 3), s.system_id);
  return s;
}

void ensure_prepared(connection& c, const char* name) {
  if (c.is_prepared(name))
    return;
  ensure_session(c);
  if (c.is_prepared(name))
    return;
  for (const auto& [n, sql] : statement_texts())
    if (std::string_view{n} == name)
      return c.prepare(n, sql); // throws the schema's error while it lasts
}

void ensure_prepared(connection& c, const char* name, const char* sql) {
  if (c.is_prepared(name))
    return;
  ensure_session(c);
  if (!c.is_prepared(name))
    c.prepare(name, sql);
}


} // namespace restcache::pg
