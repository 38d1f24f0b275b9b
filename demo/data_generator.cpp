// SPDX-License-Identifier: Apache-2.0
#include "demo/data_generator.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <limits>
#include <string>

#include "persistence/pg/schema.hpp"
#include "demo/demo_reads.hpp"

namespace restcache::demo {

using namespace pg;

// schema.sql's advisory lock: appliers at once queue up rather than collide
// on catalog rows.
const char* const demo_tables_sql = R"sql(
BEGIN;
SET LOCAL client_min_messages = warning; -- "already exists, skipping" on every run after the first
SELECT pg_advisory_xact_lock(7310593858020254568);
-- Master and detail, as in the classic SCOTT schema.
CREATE TABLE IF NOT EXISTS dept (
  deptno int PRIMARY KEY,
  dname  text,
  loc    text
);

CREATE TABLE IF NOT EXISTS emp (
  empno    int PRIMARY KEY,
  ename    text,
  job      text,
  mgr      int REFERENCES emp ON DELETE SET NULL,
  hiredate date,
  sal      int,
  comm     int,
  deptno   int REFERENCES dept ON DELETE CASCADE
);

-- The department document joins on deptno; ON DELETE CASCADE and a dept key
-- change look rows up by it too. Deleting an employee sets the mgr of its
-- reports to NULL (ON DELETE SET NULL): without an index on mgr every such
-- delete scans all of emp (~0.1-0.9 s per employee at 1M rows, measured by
-- bench/write_campaign.sh). Only for columns that exist: a repair must work
-- on a table whose column was renamed or dropped since.
DO $do$ BEGIN
  IF EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = 'emp'::regclass AND attname = 'deptno'
             AND NOT attisdropped) THEN
    CREATE INDEX IF NOT EXISTS emp_deptno_idx ON emp (deptno);
  END IF;
  IF EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = 'emp'::regclass AND attname = 'mgr'
             AND NOT attisdropped) THEN
    CREATE INDEX IF NOT EXISTS emp_mgr_idx ON emp (mgr);
  END IF;
END $do$;
COMMIT;
)sql";

int ensure_demo_schema(connection& c) {
  c.exec(demo_tables_sql);
  auto version = ensure_schema(c);
  // Watched whatever kinds are installed (the demo's catalogue watches the
  // same): the loader's bulk load and the demo's writes go through them.
  watch_keys(c, {{"dept", "dept", "deptno"}, {"emp", "emp", "empno"}, {"emp", "dept", "deptno"}});
  return version;
}

namespace {

// -- the generated values -----------------------------------------------------
//
// Every value is a pure function of the row's id: picks from fixed arrays by
// a hash of (id, field), so a load is reproducible, a resumed load produces
// exactly what an uninterrupted one would, and no value needs a client round
// trip. h(x, n) = hashint8extended(x, n), a 64-bit hash with an independent
// seed per field, made non-negative by masking the sign bit. It is
// PostgreSQL's own hash (unchanged since PostgreSQL 11), so every server of
// the same byte order generates the same data.
//
// Sizes: a department with 10 employees encodes to ~1.4-1.5 KB of JSON in the
// original field names (dname ~24 chars, loc ~8, ename ~19 "First Middle
// Last"); measured averages: 1.41 KB at 10,000 departments, 1.47 KB at 1M,
// 1.50 KB near 10M (the numbers get longer), each 1.34-1.56 KB.
//
// The counts after '%' are the lengths of the arrays next to them; the
// data_generator test checks that no pick comes out NULL (an index past the
// end of an array yields NULL).

constexpr const char* load_depts_stmt = "restcache_load_depts";
constexpr const char* load_depts_sql = R"sql(
INSERT INTO dept (deptno, dname, loc)
SELECT d,
       (ARRAY['Research & Development', 'Accounting', 'Sales', 'Operations',
              'Human Resources', 'Customer Support', 'Marketing', 'Logistics',
              'Procurement', 'Quality Assurance', 'Legal Affairs',
              'Information Technology', 'Facilities', 'Finance & Controlling',
              'Public Relations', 'Product Management', 'Business Development',
              'Internal Audit', 'Manufacturing', 'Training & Education',
              'Corporate Strategy', 'Treasury', 'Risk Management', 'Field Service'
       ])[1 + (hashint8extended(d, 1) & 9223372036854775807) % 24] || ' ' || d,
       (ARRAY['New York', 'Dallas', 'Chicago', 'Boston', 'San Francisco', 'Seattle',
              'Denver', 'Atlanta', 'Toronto', 'Montréal', 'Mexico City', 'São Paulo',
              'London', 'Dublin', 'Paris', 'Berlin', 'München', 'Zürich', 'Vienna',
              'Amsterdam', 'Brussels', 'Madrid', 'Lisbon', 'Rome', 'Milan',
              'Stockholm', 'Oslo', 'København', 'Kraków', 'Prague', 'Tokyo',
              'Singapore', 'Sydney', 'Melbourne', 'Cape Town', 'Bangalore'
       ])[1 + (hashint8extended(d, 2) & 9223372036854775807) % 36]
  FROM generate_series($1::bigint, $2::bigint) AS d
)sql";

// empno = (deptno - 1) * K + k, k = 1..K; k = 1 is the department's MANAGER
// (mgr NULL), everybody else reports to that manager. One series over the
// batch's empno range (no join, no sort): rows are inserted in empno order,
// so each department's employees sit together in the heap.
constexpr const char* load_emps_stmt = "restcache_load_emps";
constexpr const char* load_emps_sql = R"sql(
INSERT INTO emp (empno, ename, job, mgr, hiredate, sal, comm, deptno)
SELECT e.empno, e.ename, e.job, e.mgr, e.hiredate,
       CASE e.job
         WHEN 'MANAGER'    THEN 3000 + (e.hs % 1201) * 5
         WHEN 'ANALYST'    THEN 2000 + (e.hs % 1001) * 5
         WHEN 'ENGINEER'   THEN 2000 + (e.hs % 1001) * 5
         WHEN 'DEVELOPER'  THEN 2000 + (e.hs % 1001) * 5
         WHEN 'CONSULTANT' THEN 2000 + (e.hs % 1001) * 5
         WHEN 'ACCOUNTANT' THEN 1500 + (e.hs % 601) * 5
         WHEN 'SALESMAN'   THEN 1000 + (e.hs % 401) * 5
         ELSE                   800 + (e.hs % 341) * 5
       END::int,
       CASE WHEN e.job = 'SALESMAN' THEN ((e.hc % 29) * 50)::int END,
       e.deptno
  FROM (
    SELECT x.empno::int AS empno,
           -- Given names alternate male/female (odd/even positions), and so do
           -- the middle names; the middle name has the given name's parity.
           (ARRAY['James', 'Mary', 'Robert', 'Patricia', 'John', 'Jennifer', 'Michael',
                  'Linda', 'David', 'Elizabeth', 'William', 'Barbara', 'Richard', 'Susan',
                  'Joseph', 'Jessica', 'Thomas', 'Sarah', 'Charles', 'Karen',
                  'Christopher', 'Nancy', 'Daniel', 'Margaret', 'Matthew', 'Lisa',
                  'Anthony', 'Betty', 'Mark', 'Sandra', 'Andreas', 'Ingrid', 'Lars',
                  'Sofia', 'Mateo', 'Chiara', 'Hiroshi', 'Yuki', 'Pierre', 'Olga',
                  'José', 'Zoë', 'Søren', 'Amélie'
           ])[x.given]
           || ' ' ||
           (ARRAY['Robert', 'Ann', 'James', 'Marie', 'Joseph', 'Louise', 'Edward',
                  'Elizabeth', 'Alexander', 'Grace', 'Michael', 'Rose', 'Thomas', 'Jane',
                  'Henry', 'Catherine', 'Paul', 'Claire', 'Peter', 'Maria', 'Francis',
                  'Victoria', 'Nikolai', 'Johanna', 'Anton', 'Isabel', 'Lee', 'Helena'
           ])[1 + 2 * ((hashint8extended(x.empno, 2) & 9223372036854775807) % 14)
                + (x.given - 1) % 2]
           || ' ' ||
           (ARRAY['Smith', 'Allen', 'Ward', 'Jones', 'Martin', 'Blake', 'Clark', 'Scott',
                  'King', 'Turner', 'Adams', 'James', 'Ford', 'Miller', 'Johnson',
                  'Williams', 'Brown', 'Davis', 'Garcia', 'Rodriguez', 'Wilson',
                  'Anderson', 'Taylor', 'Thomas', 'Moore', 'Jackson', 'White', 'Harris',
                  'Thompson', 'Robinson', 'Lewis', 'Walker', 'Young', 'Hernandez',
                  'Wright', 'Lopez', 'Hill', 'Green', 'Baker', 'Nelson', 'Carter',
                  'Mitchell', 'Perez', 'Roberts', 'Müller', 'Schmidt', 'O''Brien',
                  'Kowalski', 'Nakamura', 'Rossi', 'Dubois', 'Andersson', 'Novák',
                  'Jensen', 'Fernández', 'Papadopoulos'
           ])[1 + (hashint8extended(x.empno, 3) & 9223372036854775807) % 56] AS ename,
           CASE WHEN x.k = 1 THEN 'MANAGER' ELSE
           (ARRAY['CLERK', 'SALESMAN', 'ANALYST', 'ENGINEER', 'SALESMAN', 'ACCOUNTANT',
                  'CONSULTANT', 'TECHNICIAN', 'DEVELOPER', 'ASSISTANT', 'CLERK',
                  'SALESMAN'
           ])[1 + (hashint8extended(x.empno, 4) & 9223372036854775807) % 12] END AS job,
           CASE WHEN x.k = 1 THEN NULL ELSE (x.empno - x.k + 1)::int END AS mgr,
           -- 1985-01-01 .. 2024-12-31 (14,610 days)
           date '1985-01-01' + ((hashint8extended(x.empno, 5) & 9223372036854775807) % 14610)::int
             AS hiredate,
           hashint8extended(x.empno, 6) & 9223372036854775807 AS hs,
           hashint8extended(x.empno, 7) & 9223372036854775807 AS hc,
           x.deptno::int AS deptno
      FROM generate_series(($1::bigint - 1) * $3::bigint + 1, $2::bigint * $3::bigint) AS n
     CROSS JOIN LATERAL (SELECT n AS empno,
                                (n - 1) / $3::bigint + 1 AS deptno,
                                (n - 1) % $3::bigint + 1 AS k,
                                1 + (hashint8extended(n, 1) & 9223372036854775807) % 44 AS given
                        ) AS x
  ) AS e
)sql";

constexpr const char* max_deptno_stmt = "restcache_load_max_deptno";
constexpr const char* max_deptno_sql = "SELECT coalesce(max(deptno), 0) FROM dept";

constexpr const char* max_empno_stmt = "restcache_load_max_empno";
constexpr const char* max_empno_sql = "SELECT coalesce(max(empno), 0) FROM emp";

constexpr const char* has_depts_stmt = "restcache_load_has_depts";
constexpr const char* has_depts_sql = "SELECT EXISTS (SELECT 1 FROM dept)";

using clock_type = std::chrono::steady_clock;

double seconds_since(clock_type::time_point start) {
  return std::chrono::duration<double>(clock_type::now() - start).count();
}

void validate(const load_options& opts) {
  constexpr int64_t int4_max = std::numeric_limits<int32_t>::max();
  if (opts.depts < 0 || opts.depts > int4_max)
    throw error("load: depts must be within 0.." + std::to_string(int4_max) + ", got "
                + std::to_string(opts.depts));
  if (opts.emps_per_dept < 0)
    throw error("load: emps_per_dept must not be negative, got "
                + std::to_string(opts.emps_per_dept));
  if (opts.batch_depts < 1)
    throw error("load: batch_depts must be at least 1, got " + std::to_string(opts.batch_depts));
  if (opts.depts * int64_t{opts.emps_per_dept} > int4_max)
    throw error("load: " + std::to_string(opts.depts) + " departments x "
                + std::to_string(opts.emps_per_dept)
                + " employees exceed the int4 range of empno (at most "
                + std::to_string(int4_max) + " employees)");
}

/// Runs a statement, ignoring failure; for cleanup on an error path.
void exec_quietly(connection& c, const char* sql) noexcept {
  if (!c.ok())
    return;
  try {
    c.exec(sql);
  } catch (...) {
    // The first error is the one the caller reports.
  }
}

// The change triggers fire ALWAYS (schema.sql), even with
// session_replication_role = replica, so the load disables them by name
// inside each batch transaction and enables them ALWAYS again before COMMIT
// (ENABLE TRIGGER USER would bring them back in origin mode only). The ALTER
// locks the table against concurrent writers until COMMIT, so no other
// session ever writes while the triggers are off (its changes would go
// unlogged). Needs table ownership.
const char* const disable_change_triggers =
  "ALTER TABLE dept DISABLE TRIGGER restcache_changed, DISABLE TRIGGER restcache_truncated;"
  "ALTER TABLE emp DISABLE TRIGGER restcache_changed, DISABLE TRIGGER restcache_truncated";
const char* const enable_change_triggers =
  "ALTER TABLE dept ENABLE ALWAYS TRIGGER restcache_changed, ENABLE ALWAYS TRIGGER restcache_truncated;"
  "ALTER TABLE emp ENABLE ALWAYS TRIGGER restcache_changed, ENABLE ALWAYS TRIGGER restcache_truncated";

} // namespace

load_report load_demo_data(connection& c, const load_options& opts,
                           const std::function<void(const load_progress&)>& progress) {
  validate(opts);
  if (c.ok() && PQtransactionStatus(c.get()) != PQTRANS_IDLE)
    throw error("load: the connection is inside a transaction; the load commits batch by batch");
  auto start = clock_type::now();
  load_report rep;

  c.prepare(has_depts_stmt, has_depts_sql);
  c.prepare(max_deptno_stmt, max_deptno_sql);
  c.prepare(max_empno_stmt, max_empno_sql);
  // Loaders of one database take turns (a session-level advisory lock, freed
  // at the end or when the connection goes): a second one started meanwhile
  // waits, then resumes after the first, or skips with only_if_empty.
  c.exec("SELECT pg_advisory_lock(7310593858020254569)");
  struct unlock_at_exit {
    connection& c;
    ~unlock_at_exit() { exec_quietly(c, "SELECT pg_advisory_unlock(7310593858020254569)"); }
  } unlock{c};
  if (opts.only_if_empty && c.exec_prepared(has_depts_stmt, {}).text(0, 0) == "t") {
    rep.skipped = true;
    rep.seconds = seconds_since(start);
    return rep;
  }
  int64_t first = c.exec_prepared(max_deptno_stmt, {}).int64(0, 0) + 1;
  if (first > opts.depts) { // nothing to do; report where we are
    if (progress)
      progress({first - 1, opts.depts, 0, seconds_since(start)});
    rep.seconds = seconds_since(start);
    return rep;
  }
  // empno = (deptno - 1) * K + k: a different K than the earlier load's
  // would collide with its employees. Say so instead of failing on a key.
  if (opts.emps_per_dept > 0) {
    int64_t max_empno = c.exec_prepared(max_empno_stmt, {}).int64(0, 0);
    int64_t first_empno = (first - 1) * opts.emps_per_dept + 1;
    if (max_empno >= first_empno)
      throw error("load: emp already holds empno " + std::to_string(max_empno)
                  + ", but departments from " + std::to_string(first) + " on would start at empno "
                  + std::to_string(first_empno) + " with "
                  + std::to_string(opts.emps_per_dept)
                  + " employees per department; was the existing data loaded with another "
                    "number of employees per department?");
  }
  c.prepare(load_depts_stmt, load_depts_sql);
  c.prepare(load_emps_stmt, load_emps_sql);

  // session_replication_role = replica (superusers only) skips the foreign
  // key checks, which the generated rows satisfy by construction: faster.
  bool replica_role = true;
  try {
    // Session settings for the load. synchronous_commit = off: a crash may
    // lose the last batches, which a rerun loads again (it resumes from
    // max(deptno)).
    c.exec("SET synchronous_commit = off");
    try {
      c.exec("SET session_replication_role = replica");
    } catch (const error& e) {
      if (e.sqlstate() != "42501") // insufficient_privilege: not a superuser
        throw;
      replica_role = false;
    }
    const std::string emps_per_dept = std::to_string(opts.emps_per_dept);
    // Under the WAL feed there are no triggers to bypass: the load's rows
    // reach running instances through the WAL, as a storm that drops their
    // tiers once (changelog.max-pending).
    const bool triggers = c.exec("SELECT count(*) = 4 FROM pg_trigger WHERE tgrelid IN (to_regclass('dept'),"
                                 " to_regclass('emp')) AND tgname IN ('restcache_changed', 'restcache_truncated')")
                            .text(0, 0)
                          == "t";
    for (int64_t lo = first; lo <= opts.depts; lo += opts.batch_depts) {
      int64_t hi = std::min(opts.depts, lo + opts.batch_depts - 1);
      c.exec("BEGIN");
      if (triggers)
        c.exec(disable_change_triggers);
      auto d = c.exec_prepared(load_depts_stmt, {std::to_string(lo), std::to_string(hi)});
      rep.depts_inserted += std::atoll(PQcmdTuples(d.get()));
      if (opts.emps_per_dept > 0) {
        auto e = c.exec_prepared(load_emps_stmt,
                                 {std::to_string(lo), std::to_string(hi), emps_per_dept});
        rep.emps_inserted += std::atoll(PQcmdTuples(e.get()));
      }
      if (triggers)
        c.exec(enable_change_triggers);
      c.exec("COMMIT");
      if (progress)
        progress({hi, opts.depts, rep.emps_inserted, seconds_since(start)});
    }
    // The load bypassed the change log on purpose, so it no longer describes
    // how the data came to be: reset it (TRUNCATE ... CONTINUE IDENTITY).
    //  - A bulk load is not a change stream: logging 100M rows would double
    //    the load's writes with invalidations of ids no cache can hold, as
    //    they did not exist.
    //  - A cache that was filled before the load must not trust the log to
    //    tell it what changed. The sequence is NOT restarted, so seq stays
    //    monotonic: a reader whose persisted watermark is older than the
    //    log's first entry (here: an empty log behind a sequence that moved
    //    on) sees that the log no longer reaches back that far and drops its
    //    tiers, as DESIGN.md asks, instead of mistaking new entries for old.
    //  - It also keeps the log from holding entries of a previous data set.
    // The horizon tells readers with an older watermark that the log has a gap.
    c.exec("BEGIN; TRUNCATE change_log CONTINUE IDENTITY;"
           " UPDATE change_log_horizon SET pruned_below = greatest(pruned_below, pg_current_xact_id());"
           " COMMIT");
  } catch (...) {
    exec_quietly(c, "ROLLBACK"); // ends an aborted batch; the ALTERs roll back too
    if (replica_role)
      exec_quietly(c, "RESET session_replication_role");
    exec_quietly(c, "RESET synchronous_commit");
    throw;
  }
  if (replica_role) // a non-superuser may not even RESET it
    c.exec("RESET session_replication_role");
  c.exec("RESET synchronous_commit");
  // Fresh statistics for the planner (fetch_deptemps must use the deptno index).
  c.exec("ANALYZE dept, emp");
  rep.seconds = seconds_since(start);
  return rep;
}

} // namespace restcache::demo
