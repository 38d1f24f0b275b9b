// SPDX-License-Identifier: Apache-2.0
#pragma once

// The named prepared statements of the writes (demo/writes.cpp,
// the only file that includes this): their names and SQL texts.

namespace restcache::demo::write_sql {

// -- statement names and texts ------------------------------------------------
//
// Employee sets travel as ONE jsonb parameter: the JSON array of their emp
// documents (encode_emp, the API's field names), unpacked set-based by
// jsonb_to_recordset. One statement inserts or upserts them all, so a
// manager may be an employee listed later in the same set (the foreign key
// is checked at the end of the statement) and a 10-employee department costs
// one round trip, not ten.

#define RESTCACHE_EMP_RECORDSET                                                  \
  " FROM jsonb_to_recordset($1::jsonb) AS e (\"empNo\" int, \"empName\" text,"   \
  "   job text, mgr int, hiredate date, sal int, comm int, \"deptNumber\" int)"

#define RESTCACHE_EMP_COLUMNS " (empno, ename, job, mgr, hiredate, sal, comm, deptno)"

#define RESTCACHE_EMP_SELECT                                                     \
  " SELECT e.\"empNo\", e.\"empName\", e.job, e.mgr, e.hiredate, e.sal, e.comm," \
  "        e.\"deptNumber\""

struct statement {
  const char* name;
  const char* sql;
};

// Locks for If-Match: the row(s) whose document is compared stay as read
// until COMMIT. FOR UPDATE on the department also blocks employees moving
// into it or being inserted into it (their foreign-key check takes FOR KEY
// SHARE on it); the employees are locked in empno order, the order every
// set-based statement here meets them in most plans.
inline constexpr statement lock_dept{"restcache_w_lock_dept",
                              "SELECT deptno FROM dept WHERE deptno = $1::int FOR UPDATE"};
inline constexpr statement lock_dept_emps{
  "restcache_w_lock_dept_emps",
  "SELECT empno FROM emp WHERE deptno = $1::int ORDER BY empno FOR UPDATE"};
inline constexpr statement lock_emp{"restcache_w_lock_emp",
                             "SELECT empno FROM emp WHERE empno = $1::int FOR UPDATE"};

inline constexpr statement insert_dept{
  "restcache_w_insert_dept",
  "INSERT INTO dept (deptno, dname, loc) VALUES ($1::int, $2::text, $3::text)"
  " ON CONFLICT (deptno) DO NOTHING RETURNING deptno"};

inline constexpr statement insert_emps{
  "restcache_w_insert_emps",
  "INSERT INTO emp" RESTCACHE_EMP_COLUMNS RESTCACHE_EMP_SELECT RESTCACHE_EMP_RECORDSET
  " ON CONFLICT (empno) DO NOTHING RETURNING empno"};

inline constexpr statement update_dept{
  "restcache_w_update_dept",
  "UPDATE dept SET dname = $2::text, loc = $3::text WHERE deptno = $1::int RETURNING deptno"};

// The employees of the department not listed in the new set ($2, an int[]).
inline constexpr statement delete_unlisted_emps{
  "restcache_w_delete_unlisted_emps",
  "DELETE FROM emp WHERE deptno = $1::int AND empno <> ALL ($2::int[])"};

// Listed employees: inserted, or updated in place (one of another department
// moves here). An unchanged row is left alone (it is still locked), so its
// emp document is not invalidated for nothing; the department's document is
// invalidated by the dept UPDATE anyway.
inline constexpr statement upsert_emps{
  "restcache_w_upsert_emps",
  "INSERT INTO emp" RESTCACHE_EMP_COLUMNS RESTCACHE_EMP_SELECT RESTCACHE_EMP_RECORDSET
  " ON CONFLICT (empno) DO UPDATE SET ename = EXCLUDED.ename, job = EXCLUDED.job,"
  "   mgr = EXCLUDED.mgr, hiredate = EXCLUDED.hiredate, sal = EXCLUDED.sal,"
  "   comm = EXCLUDED.comm, deptno = EXCLUDED.deptno"
  " WHERE (emp.ename, emp.job, emp.mgr, emp.hiredate, emp.sal, emp.comm, emp.deptno)"
  "   IS DISTINCT FROM (EXCLUDED.ename, EXCLUDED.job, EXCLUDED.mgr, EXCLUDED.hiredate,"
  "                     EXCLUDED.sal, EXCLUDED.comm, EXCLUDED.deptno)"};

// ON DELETE CASCADE deletes the employees, ON DELETE SET NULL clears the mgr
// of their reports in other departments; both run as row-level DELETE and
// UPDATE statements on emp, so emp's restcache_changed trigger logs every one of them
// (and their departments).
inline constexpr statement delete_dept_stmt{"restcache_w_delete_dept",
                                     "DELETE FROM dept WHERE deptno = $1::int RETURNING deptno"};

// A random number between the smallest and the largest deptno (both one
// index probe), then the first department at or above it (one more; the
// pick is a scalar subquery, an InitPlan parameter of an index range scan,
// not a join the planner could turn into a scan from the start): a
// department after a gap is picked more often, none is never picked, and
// the cost does not grow with the table (ORDER BY random() would read all of
// it; TABLESAMPLE SYSTEM picks whole pages, often none of a small table, and
// SYSTEM_ROWS needs the tsm_system_rows extension). The UPDATE writes the
// row's own values, so only the triggers notice: the original service's
// write benchmark. No row: the table is empty, or the picked department was
// deleted meanwhile (the caller tries again).
inline constexpr statement rewrite_random{
  "restcache_w_rewrite_random_dept",
  "WITH b AS (SELECT min(deptno) AS lo, max(deptno) AS hi FROM dept),"
  "     r AS (SELECT lo + floor(random() * (hi::bigint - lo + 1))::bigint AS pick"
  "             FROM b WHERE lo IS NOT NULL)"
  " UPDATE dept AS d SET dname = d.dname, loc = d.loc"
  "  WHERE d.deptno = (SELECT deptno FROM dept WHERE deptno >= (SELECT pick FROM r)"
  "                     ORDER BY deptno LIMIT 1)"
  " RETURNING d.deptno"};

inline constexpr statement insert_emp{
  "restcache_w_insert_emp",
  "INSERT INTO emp" RESTCACHE_EMP_COLUMNS
  " VALUES ($1::int, $2::text, $3::text, $4::int, $5::date, $6::int, $7::int, $8::int)"
  " ON CONFLICT (empno) DO NOTHING RETURNING empno"};

inline constexpr statement update_emp{
  "restcache_w_update_emp",
  "UPDATE emp SET ename = $2::text, job = $3::text, mgr = $4::int, hiredate = $5::date,"
  "   sal = $6::int, comm = $7::int, deptno = $8::int"
  " WHERE empno = $1::int RETURNING empno"};

inline constexpr statement delete_emp_stmt{"restcache_w_delete_emp",
                                    "DELETE FROM emp WHERE empno = $1::int RETURNING empno"};

// The keys this transaction's change-log entries name, each with its
// highest sequence. The xid is an InitPlan parameter, so the lookup uses
// change_log_xid_idx whatever the volatility of pg_current_xact_id().
inline constexpr statement read_changes_stmt{
  "restcache_w_read_changes",
  "SELECT u.k, max(c.seq), max((extract(epoch FROM c.changed_at) * 1000000)::bigint)"
  "  FROM change_log c, unnest(c.keys) AS u (k) WHERE c.xid = (SELECT pg_current_xact_id())"
  " GROUP BY u.k ORDER BY 2, 1"};

// Which of the given employee numbers ($1, int[]) exists, and where: the
// detail of a conflict.
inline constexpr statement existing_emp{
  "restcache_w_existing_emp",
  "SELECT empno, deptno FROM emp WHERE empno = ANY ($1::int[]) ORDER BY empno LIMIT 1"};

// After a foreign-key violation (the transaction rolled back, so this reads
// the state the write started from): a manager of a department's employee
// set ($1, the managers not in the set itself) that is no employee, or one
// of the department's ($2) own employees (a replace deletes those not listed).
inline constexpr statement missing_dept_mgr{
  "restcache_w_missing_dept_mgr",
  "SELECT m, EXISTS (SELECT 1 FROM emp WHERE empno = m) FROM unnest($1::int[]) AS m"
  " WHERE NOT EXISTS (SELECT 1 FROM emp WHERE empno = m AND deptno IS DISTINCT FROM $2::int)"
  " ORDER BY m LIMIT 1"};

// The same for one employee: is its department ($1) missing, is its manager
// ($2, unless it is itself, $3) missing?
inline constexpr statement missing_emp_refs{
  "restcache_w_missing_emp_refs",
  "SELECT $1::int IS NOT NULL AND NOT EXISTS (SELECT 1 FROM dept WHERE deptno = $1::int),"
  "       $2::int IS NOT NULL AND $2::int IS DISTINCT FROM $3::int"
  "         AND NOT EXISTS (SELECT 1 FROM emp WHERE empno = $2::int)"};

#undef RESTCACHE_EMP_RECORDSET
#undef RESTCACHE_EMP_COLUMNS
#undef RESTCACHE_EMP_SELECT

inline constexpr statement all_statements[] = {
  lock_dept,        lock_dept_emps,  lock_emp,          insert_dept,       insert_emps,
  update_dept,      delete_unlisted_emps, upsert_emps,  delete_dept_stmt,  rewrite_random,
  insert_emp,       update_emp,      delete_emp_stmt,   read_changes_stmt, existing_emp,
  missing_dept_mgr, missing_emp_refs,
};

/// The last one prepare_write_statements prepares: when it is prepared, all are.
inline constexpr const char* last_statement = "restcache_w_missing_emp_refs";

} // namespace restcache::demo::write_sql
