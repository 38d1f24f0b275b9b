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

// The documents' statements are the catalogue's; the demo's typed reads
// (writes, tests) run the department's and the employee's by name, prepared
// with the demo's catalogue.
constexpr const char* fetch_deptemps_stmt = "restcache_fetch_deptemps";
constexpr const char* fetch_emp_stmt = "restcache_fetch_emp";

constexpr const char* dept_ids_page_stmt = "restcache_dept_ids_page";
constexpr const char* dept_ids_page_sql =
  // Keyset pagination over the primary key (an index-only scan): the ids of
  // 10M departments come in pages, so neither libpq nor the server holds them
  // all in one result.
  "SELECT deptno FROM dept WHERE deptno > $1::bigint ORDER BY deptno LIMIT $2::int";

constexpr const char* dept_page_stmt = "restcache_dept_page";
constexpr const char* dept_page_sql =
  "SELECT deptno, dname, loc FROM dept WHERE deptno > $1::int ORDER BY deptno LIMIT $2::int";

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

// Column positions of the department statement.
enum col : int {
  c_deptno, c_dname, c_loc,
  c_empno, c_ename, c_job, c_mgr, c_hiredate, c_sal, c_comm, c_emp_deptno,
};

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

namespace {

// The demo's own reads (its id set, GET /depts), prepared at their first
// use: a session of a daemon that serves other kinds never prepares them,
// so their tables need not exist.
constexpr std::pair<const char*, const char*> on_demand_texts[] = {
  {dept_ids_page_stmt, dept_ids_page_sql},
  {dept_page_stmt, dept_page_sql},
};

} // namespace

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

const char* const fetch_deptemps_statement = fetch_deptemps_stmt;
const char* const fetch_emp_statement = fetch_emp_stmt;
const char* const dept_ids_page_statement = dept_ids_page_stmt;
const char* const replay_lsn_statement = replay_lsn_stmt;
const char* const insert_lsn_statement = insert_lsn_stmt;

namespace {

emp_row decode_emp_row(const result& r, int i) {
  emp_row e;
  e.empno = *r.opt_int32(i, c_empno);
  e.ename = r.opt_text(i, c_ename);
  e.job = r.opt_text(i, c_job);
  e.mgr = r.opt_int32(i, c_mgr);
  e.hiredate = r.opt_text(i, c_hiredate);
  e.sal = r.opt_int32(i, c_sal);
  e.comm = r.opt_int32(i, c_comm);
  e.deptno = r.opt_int32(i, c_emp_deptno);
  return e;
}

void check_columns(const result& r, const char* stmt) {
  if (r.columns() != c_emp_deptno + 1)
    throw error(std::string{stmt} + ": unexpected column count " + std::to_string(r.columns()));
}

} // namespace

std::optional<dept_with_emps> decode_deptemps(const result& r) {
  auto n = r.rows();
  if (n == 0)
    return std::nullopt;
  check_columns(r, fetch_deptemps_stmt);
  dept_with_emps out;
  out.dept.deptno = static_cast<int32_t>(r.int64(0, c_deptno));
  out.dept.dname = r.opt_text(0, c_dname);
  out.dept.loc = r.opt_text(0, c_loc);
  out.emps.reserve(static_cast<size_t>(n));
  // A department without employees answers one row with NULL emp columns;
  // empno is the primary key, so only that row has a NULL one.
  for (int i = 0; i < n; ++i)
    if (!r.is_null(i, c_empno))
      out.emps.push_back(decode_emp_row(r, i));
  return out;
}

std::optional<emp_row> fetch_emp(connection& c, int32_t empno) {
  ensure_prepared(c, fetch_emp_stmt);
  return decode_emp(c.exec_prepared(fetch_emp_stmt, {std::to_string(empno)}));
}

std::optional<emp_row> decode_emp(const result& r) {
  if (r.rows() == 0)
    return std::nullopt;
  if (r.columns() != 8)
    throw error(std::string{fetch_emp_stmt} + ": unexpected column count "
                + std::to_string(r.columns()));
  emp_row e;
  e.empno = *r.opt_int32(0, 0);
  e.ename = r.opt_text(0, 1);
  e.job = r.opt_text(0, 2);
  e.mgr = r.opt_int32(0, 3);
  e.hiredate = r.opt_text(0, 4);
  e.sal = r.opt_int32(0, 5);
  e.comm = r.opt_int32(0, 6);
  e.deptno = r.opt_int32(0, 7);
  return e;
}


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

std::optional<dept_with_emps> fetch_deptemps(connection& c, int32_t deptno) {
  ensure_prepared(c, fetch_deptemps_stmt);
  return decode_deptemps(c.exec_prepared(fetch_deptemps_stmt, {std::to_string(deptno)}));
}

std::vector<int32_t> fetch_dept_ids(connection& c) {
  ensure_prepared(c, dept_ids_page_stmt);
  std::vector<int32_t> ids;
  // Pages are separate statements: without an enclosing transaction a
  // department committed meanwhile may or may not be listed, which is as
  // fresh as any list can be (later changes arrive as notifications).
  int64_t after = int64_t{INT32_MIN} - 1;
  const std::string limit = std::to_string(dept_ids_page_size);
  for (;;) {
    auto r = c.exec_prepared(dept_ids_page_stmt, {std::to_string(after), limit});
    auto n = r.rows();
    for (int i = 0; i < n; ++i)
      ids.push_back(*r.opt_int32(i, 0));
    if (n < dept_ids_page_size)
      break;
    after = ids.back();
  }
  return ids;
}

std::vector<dept_row> fetch_dept_page(connection& c, int32_t after, int32_t limit) {
  ensure_prepared(c, dept_page_stmt);
  auto r = c.exec_prepared(dept_page_stmt, {std::to_string(after), std::to_string(limit)});
  std::vector<dept_row> out;
  out.reserve(static_cast<size_t>(r.rows()));
  for (int i = 0; i < r.rows(); ++i)
    out.push_back(dept_row{*r.opt_int32(i, 0), r.opt_text(i, 1), r.opt_text(i, 2)});
  return out;
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
  for (const auto& [n, sql] : on_demand_texts)
    if (std::string_view{n} == name)
      return c.prepare(n, sql);
}


} // namespace restcache::pg
