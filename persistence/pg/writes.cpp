#include "persistence/pg/writes.hpp"

#include <algorithm>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "messages/doc_catalogue.hpp"
#include "messages/document_encoder.hpp"
#include "messages/text.hpp"
#include "persistence/pg/schema.hpp"
#include "persistence/pg/statements.hpp"

namespace restcache::pg {

namespace {

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
constexpr statement lock_dept{"restcache_w_lock_dept",
                              "SELECT deptno FROM dept WHERE deptno = $1::int FOR UPDATE"};
constexpr statement lock_dept_emps{
  "restcache_w_lock_dept_emps",
  "SELECT empno FROM emp WHERE deptno = $1::int ORDER BY empno FOR UPDATE"};
constexpr statement lock_emp{"restcache_w_lock_emp",
                             "SELECT empno FROM emp WHERE empno = $1::int FOR UPDATE"};

constexpr statement insert_dept{
  "restcache_w_insert_dept",
  "INSERT INTO dept (deptno, dname, loc) VALUES ($1::int, $2::text, $3::text)"
  " ON CONFLICT (deptno) DO NOTHING RETURNING deptno"};

constexpr statement insert_emps{
  "restcache_w_insert_emps",
  "INSERT INTO emp" RESTCACHE_EMP_COLUMNS RESTCACHE_EMP_SELECT RESTCACHE_EMP_RECORDSET
  " ON CONFLICT (empno) DO NOTHING RETURNING empno"};

constexpr statement update_dept{
  "restcache_w_update_dept",
  "UPDATE dept SET dname = $2::text, loc = $3::text WHERE deptno = $1::int RETURNING deptno"};

// The employees of the department not listed in the new set ($2, an int[]).
constexpr statement delete_unlisted_emps{
  "restcache_w_delete_unlisted_emps",
  "DELETE FROM emp WHERE deptno = $1::int AND empno <> ALL ($2::int[])"};

// Listed employees: inserted, or updated in place (one of another department
// moves here). An unchanged row is left alone (it is still locked), so its
// emp document is not invalidated for nothing; the department's document is
// invalidated by the dept UPDATE anyway.
constexpr statement upsert_emps{
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
// UPDATE statements on emp, so restcache_emp_changed logs every one of them
// (and their departments).
constexpr statement delete_dept_stmt{"restcache_w_delete_dept",
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
constexpr statement rewrite_random{
  "restcache_w_rewrite_random_dept",
  "WITH b AS (SELECT min(deptno) AS lo, max(deptno) AS hi FROM dept),"
  "     r AS (SELECT lo + floor(random() * (hi::bigint - lo + 1))::bigint AS pick"
  "             FROM b WHERE lo IS NOT NULL)"
  " UPDATE dept AS d SET dname = d.dname, loc = d.loc"
  "  WHERE d.deptno = (SELECT deptno FROM dept WHERE deptno >= (SELECT pick FROM r)"
  "                     ORDER BY deptno LIMIT 1)"
  " RETURNING d.deptno"};

constexpr statement insert_emp{
  "restcache_w_insert_emp",
  "INSERT INTO emp" RESTCACHE_EMP_COLUMNS
  " VALUES ($1::int, $2::text, $3::text, $4::int, $5::date, $6::int, $7::int, $8::int)"
  " ON CONFLICT (empno) DO NOTHING RETURNING empno"};

constexpr statement update_emp{
  "restcache_w_update_emp",
  "UPDATE emp SET ename = $2::text, job = $3::text, mgr = $4::int, hiredate = $5::date,"
  "   sal = $6::int, comm = $7::int, deptno = $8::int"
  " WHERE empno = $1::int RETURNING empno"};

constexpr statement delete_emp_stmt{"restcache_w_delete_emp",
                                    "DELETE FROM emp WHERE empno = $1::int RETURNING empno"};

// The change-log entries of this transaction, one per key. The xid is an
// InitPlan parameter, so the lookup uses change_log_xid_idx whatever the
// volatility of pg_current_xact_id().
constexpr statement read_changes_stmt{
  "restcache_w_read_changes",
  "SELECT entity, id, max(seq), max((extract(epoch FROM changed_at) * 1000000)::bigint)"
  "  FROM change_log WHERE xid = (SELECT pg_current_xact_id())"
  " GROUP BY entity, id ORDER BY 3"};

// Which of the given employee numbers ($1, int[]) exists, and where: the
// detail of a conflict.
constexpr statement existing_emp{
  "restcache_w_existing_emp",
  "SELECT empno, deptno FROM emp WHERE empno = ANY ($1::int[]) ORDER BY empno LIMIT 1"};

// After a foreign-key violation (the transaction rolled back, so this reads
// the state the write started from): a manager of a department's employee
// set ($1, the managers not in the set itself) that is no employee, or one
// of the department's ($2) own employees (a replace deletes those not listed).
constexpr statement missing_dept_mgr{
  "restcache_w_missing_dept_mgr",
  "SELECT m, EXISTS (SELECT 1 FROM emp WHERE empno = m) FROM unnest($1::int[]) AS m"
  " WHERE NOT EXISTS (SELECT 1 FROM emp WHERE empno = m AND deptno IS DISTINCT FROM $2::int)"
  " ORDER BY m LIMIT 1"};

// The same for one employee: is its department ($1) missing, is its manager
// ($2, unless it is itself, $3) missing?
constexpr statement missing_emp_refs{
  "restcache_w_missing_emp_refs",
  "SELECT $1::int IS NOT NULL AND NOT EXISTS (SELECT 1 FROM dept WHERE deptno = $1::int),"
  "       $2::int IS NOT NULL AND $2::int IS DISTINCT FROM $3::int"
  "         AND NOT EXISTS (SELECT 1 FROM emp WHERE empno = $2::int)"};

#undef RESTCACHE_EMP_RECORDSET
#undef RESTCACHE_EMP_COLUMNS
#undef RESTCACHE_EMP_SELECT

constexpr statement all_statements[] = {
  lock_dept,        lock_dept_emps,  lock_emp,          insert_dept,       insert_emps,
  update_dept,      delete_unlisted_emps, upsert_emps,  delete_dept_stmt,  rewrite_random,
  insert_emp,       update_emp,      delete_emp_stmt,   read_changes_stmt, existing_emp,
  missing_dept_mgr, missing_emp_refs,
};

/// The last one prepare_write_statements prepares: when it is prepared, all are.
constexpr const char* last_statement = "restcache_w_missing_emp_refs";

// -- helpers ------------------------------------------------------------------

using params = std::vector<std::optional<std::string>>;

result run(connection& c, const statement& s, const params& p) {
  return c.exec_prepared(s.name, p);
}

std::string str(int32_t v) {
  return std::to_string(v);
}

std::optional<std::string> opt_str(const std::optional<int32_t>& v) {
  if (!v)
    return std::nullopt;
  return std::to_string(*v);
}

/// An int[] literal: {1,2,3}.
std::string int_array(const std::vector<int32_t>& xs) {
  std::string out = "{";
  for (size_t i = 0; i < xs.size(); ++i) {
    if (i > 0)
      out.push_back(',');
    out += std::to_string(xs[i]);
  }
  out.push_back('}');
  return out;
}

/// The JSON array of the employees' documents (the jsonb parameter).
std::string emps_json(const std::vector<emp_row>& emps) {
  std::string out = "[";
  for (size_t i = 0; i < emps.size(); ++i) {
    if (i > 0)
      out.push_back(',');
    out += encode_emp(emps[i]);
  }
  out.push_back(']');
  return out;
}

params emp_params(const emp_row& e) {
  return {str(e.empno), e.ename, e.job, opt_str(e.mgr), e.hiredate, opt_str(e.sal),
          opt_str(e.comm), opt_str(e.deptno)};
}

write_outcome outcome(rc_error e, int32_t id, std::string detail = {}) {
  write_outcome out;
  out.error = e;
  out.id = id;
  out.detail = std::move(detail);
  return out;
}

write_outcome created(int32_t id) {
  auto out = outcome(rc_error::none, id);
  out.created = true;
  return out;
}

/// BEGIN on construction; ROLLBACK on destruction unless committed, also
/// while an exception unwinds, so the connection is left idle (or broken,
/// which the caller sees as connection_lost).
class transaction {
public:
  explicit transaction(connection& c) : c_(c) {
    c_.exec("BEGIN");
  }
  transaction(const transaction&) = delete;
  transaction& operator=(const transaction&) = delete;
  ~transaction() {
    if (done_)
      return;
    try {
      rollback();
    } catch (...) {
      // nop: the connection is broken; the error that brought us here tells
    }
  }
  void commit() {
    done_ = true; // a failed COMMIT ends the transaction too
    c_.exec("COMMIT");
  }
  void rollback() {
    done_ = true;
    if (c_.ok() && PQtransactionStatus(c_.get()) != PQTRANS_IDLE)
      c_.exec("ROLLBACK");
  }
private:
  connection& c_;
  bool done_ = false;
};

change_batch read_changes(connection& c) {
  auto r = run(c, read_changes_stmt, {});
  change_batch out;
  out.reserve(static_cast<size_t>(r.rows()));
  for (int i = 0; i < r.rows(); ++i) {
    key_change k;
    auto entity = r.text(i, 0);
    auto kind = change_kind(entity);
    if (!kind)
      throw error("change_log: unknown entity '" + std::string{entity} + "'");
    k.key.kind = *kind;
    k.key.id = *r.opt_int32(i, 1);
    k.seq = static_cast<uint64_t>(r.int64(i, 2));
    k.changed_us = r.int64(i, 3);
    out.push_back(k);
  }
  return out;
}

bool retryable(const error& e) {
  // deadlock_detected, serialization_failure: nothing was written.
  return !e.connection_lost() && (e.sqlstate() == "40P01" || e.sqlstate() == "40001");
}

constexpr int max_attempts = 3;

/// Runs `body` (returns a write_outcome) in one transaction: on ok/created,
/// reads the change-log entries and commits; otherwise rolls back. A
/// pg::error rolls back, is retried when transient, then offered to
/// `on_error` (after the rollback, so it may run statements of its own) to
/// map to an outcome; unmapped, it propagates.
template <class Body, class OnError>
write_outcome run_write(connection& c, Body&& body, OnError&& on_error) {
  prepare_write_statements(c);
  for (int attempt = 1;; ++attempt) {
    try {
      transaction tx{c};
      write_outcome out = body();
      if (out.error == rc_error::none) {
        out.changes = read_changes(c);
        tx.commit();
      } else {
        out.changes.clear();
        tx.rollback();
      }
      return out;
    } catch (const error& e) {
      if (retryable(e) && attempt < max_attempts)
        continue;
      if (!e.connection_lost())
        if (auto mapped = on_error(e))
          return std::move(*mapped);
      throw;
    }
  }
}

bool sqlstate_class(const error& e, std::string_view cls) {
  return e.sqlstate().size() == 5 && std::string_view{e.sqlstate()}.substr(0, 2) == cls;
}

/// Errors every write maps the same way: a value PostgreSQL rejects (data
/// exceptions, class 22, e.g. a hiredate that is no date or a string with a
/// NUL character; not-null and check violations) is the client's. Foreign
/// keys and unique keys are mapped by each write, which knows which.
std::optional<write_outcome> common_error(const error& e, int32_t id) {
  if (sqlstate_class(e, "22") || e.sqlstate() == "23502" || e.sqlstate() == "23514")
    return outcome(rc_error::unprocessable, id,
                   "a value was rejected by the database (SQLSTATE " + e.sqlstate() + ")");
  if (e.sqlstate() == "23505")
    return outcome(rc_error::conflict, id, "the key already exists");
  if (e.sqlstate() == "23503")
    return outcome(rc_error::unprocessable, id, "a referenced manager or department does not exist");
  return std::nullopt;
}

bool is_star(std::string_view if_match) {
  return trim(if_match) == "*";
}

/// If-Match against the current department document (call with the
/// department locked); locks its employees first.
bool dept_matches(connection& c, int32_t deptno, const std::string& if_match) {
  if (is_star(if_match))
    return true;
  run(c, lock_dept_emps, {str(deptno)});
  auto doc = fetch_deptemps(c, deptno);
  return doc && if_match_satisfied(if_match, strong_etag(encode_deptemps(*doc)));
}

/// If-Match against the current employee document (call with it locked).
bool emp_matches(connection& c, int32_t empno, const std::string& if_match) {
  if (is_star(if_match))
    return true;
  auto doc = fetch_emp(c, empno);
  return doc && if_match_satisfied(if_match, strong_etag(encode_emp(*doc)));
}

/// Checks a department's employee set and returns it with every deptno set
/// to the department's; or the reason it is invalid.
std::variant<std::vector<emp_row>, std::string> dept_emps(const dept_with_emps& d) {
  std::vector<emp_row> emps = d.emps;
  std::vector<int32_t> nos;
  nos.reserve(emps.size());
  for (auto& e : emps) {
    if (e.deptno && *e.deptno != d.dept.deptno)
      return "employee " + str(e.empno) + " has deptNumber " + str(*e.deptno)
             + ", not the department's " + str(d.dept.deptno);
    e.deptno = d.dept.deptno;
    nos.push_back(e.empno);
  }
  std::sort(nos.begin(), nos.end());
  if (auto i = std::adjacent_find(nos.begin(), nos.end()); i != nos.end())
    return "employee " + str(*i) + " is listed twice";
  return emps;
}

std::vector<int32_t> empnos(const std::vector<emp_row>& emps) {
  std::vector<int32_t> out;
  out.reserve(emps.size());
  for (const auto& e : emps)
    out.push_back(e.empno);
  std::sort(out.begin(), out.end());
  return out;
}

/// After a foreign-key violation of a department write: which manager.
write_outcome dept_mgr_invalid(connection& c, const dept_with_emps& d,
                               const std::vector<emp_row>& emps) {
  auto nos = empnos(emps);
  std::vector<int32_t> outside; // managers not in the set itself
  for (const auto& e : emps)
    if (e.mgr && !std::binary_search(nos.begin(), nos.end(), *e.mgr))
      outside.push_back(*e.mgr);
  auto id = d.dept.deptno;
  if (!outside.empty()) {
    auto r = run(c, missing_dept_mgr, {int_array(outside), str(id)});
    if (r.rows() > 0) {
      auto m = *r.opt_int32(0, 0);
      auto e = std::find_if(emps.begin(), emps.end(),
                            [m](const emp_row& x) { return x.mgr == m; });
      return outcome(rc_error::unprocessable, id,
                     "manager " + str(m) + " of employee " + str(e->empno)
                       + (r.text(0, 1) == "t" ? " is an employee of the department not listed"
                                                " (this change deletes it)"
                                              : " does not exist"));
    }
  }
  return outcome(rc_error::unprocessable, id, "a referenced manager does not exist");
}

/// After a foreign-key violation of an employee write: department or manager.
write_outcome emp_ref_invalid(connection& c, const emp_row& e) {
  auto r = run(c, missing_emp_refs, {opt_str(e.deptno), opt_str(e.mgr), str(e.empno)});
  if (r.text(0, 0) == "t")
    return outcome(rc_error::unprocessable, e.empno,
                   "department " + str(*e.deptno) + " does not exist");
  if (r.text(0, 1) == "t")
    return outcome(rc_error::unprocessable, e.empno, "manager " + str(*e.mgr) + " does not exist");
  return outcome(rc_error::unprocessable, e.empno,
                 "a referenced manager or department does not exist");
}

/// The detail of an employee number that exists already (inside the
/// transaction, so the row is the one the insert met).
std::string existing_emp_detail(connection& c, const std::vector<int32_t>& candidates) {
  auto r = run(c, existing_emp, {int_array(candidates)});
  if (r.rows() == 0)
    return "an employee number exists already";
  auto dept = r.opt_int32(0, 1);
  return "employee " + str(*r.opt_int32(0, 0)) + " exists already ("
         + (dept ? "department " + str(*dept) : std::string{"in no department"}) + ")";
}

} // namespace

// -- public API ---------------------------------------------------------------

bool if_match_satisfied(std::string_view if_match, std::string_view current_etag) noexcept {
  auto s = trim(if_match);
  if (s == "*")
    return true;
  // #entity-tag: entity-tags separated by commas and optional whitespace.
  size_t i = 0;
  while (i < s.size()) {
    char ch = s[i];
    if (ch == ',' || ch == ' ' || ch == '\t') {
      ++i;
      continue;
    }
    bool weak = false;
    if (ch == 'W' && i + 1 < s.size() && s[i + 1] == '/') {
      weak = true;
      i += 2;
    }
    if (i >= s.size() || s[i] != '"')
      return false; // malformed: nothing matches
    auto close = s.find('"', i + 1);
    if (close == std::string_view::npos)
      return false;
    auto tag = s.substr(i, close - i + 1); // with its quotes
    if (!weak && tag == current_etag)
      return true;
    i = close + 1;
  }
  return false;
}

void prepare_write_statements(connection& c) {
  if (!c.is_prepared(fetch_deptemps_statement) || !c.is_prepared(fetch_emp_statement))
    prepare_statements(c); // outside any transaction: its SETs must not roll back
  if (c.is_prepared(last_statement))
    return;
  for (const auto& s : all_statements)
    c.prepare(s.name, s.sql);
}

write_outcome create_dept(connection& c, const dept_with_emps& d) {
  const auto id = d.dept.deptno;
  auto checked = dept_emps(d);
  if (auto* why = std::get_if<std::string>(&checked))
    return outcome(rc_error::unprocessable, id, std::move(*why));
  const auto& emps = std::get<std::vector<emp_row>>(checked);
  return run_write(
    c,
    [&] {
      if (run(c, insert_dept, {str(id), d.dept.dname, d.dept.loc}).rows() == 0)
        return outcome(rc_error::conflict, id, "department " + str(id) + " exists already");
      if (!emps.empty()) {
        auto r = run(c, insert_emps, {emps_json(emps)});
        if (r.rows() != static_cast<int>(emps.size())) {
          std::vector<int32_t> inserted;
          for (int i = 0; i < r.rows(); ++i)
            inserted.push_back(*r.opt_int32(i, 0));
          std::sort(inserted.begin(), inserted.end());
          std::vector<int32_t> skipped;
          for (auto no : empnos(emps))
            if (!std::binary_search(inserted.begin(), inserted.end(), no))
              skipped.push_back(no);
          return outcome(rc_error::conflict, id, existing_emp_detail(c, skipped));
        }
      }
      return created(id);
    },
    [&](const error& e) -> std::optional<write_outcome> {
      if (e.sqlstate() == "23503")
        return dept_mgr_invalid(c, d, emps);
      return common_error(e, id);
    });
}

write_outcome replace_dept(connection& c, const dept_with_emps& d,
                           const std::optional<std::string>& if_match) {
  const auto id = d.dept.deptno;
  auto checked = dept_emps(d);
  if (auto* why = std::get_if<std::string>(&checked))
    return outcome(rc_error::unprocessable, id, std::move(*why));
  const auto& emps = std::get<std::vector<emp_row>>(checked);
  return run_write(
    c,
    [&] {
      if (if_match) {
        if (run(c, lock_dept, {str(id)}).rows() == 0)
          return outcome(rc_error::not_found, id, "department " + str(id) + " does not exist");
        if (!dept_matches(c, id, *if_match))
          return outcome(rc_error::precondition_failed, id,
                         "the department's document has another ETag");
      }
      if (run(c, update_dept, {str(id), d.dept.dname, d.dept.loc}).rows() == 0)
        return outcome(rc_error::not_found, id, "department " + str(id) + " does not exist");
      // Delete first: a listed employee whose manager is deleted here fails
      // the foreign key (invalid) instead of silently losing its mgr.
      run(c, delete_unlisted_emps, {str(id), int_array(empnos(emps))});
      if (!emps.empty())
        run(c, upsert_emps, {emps_json(emps)});
      return outcome(rc_error::none, id);
    },
    [&](const error& e) -> std::optional<write_outcome> {
      if (e.sqlstate() == "23503")
        return dept_mgr_invalid(c, d, emps);
      return common_error(e, id);
    });
}

namespace {

/// DELETE of one row by key, with If-Match checked against its document
/// under the row lock: departments and employees differ only in these.
write_outcome delete_row(connection& c, int32_t id, const std::optional<std::string>& if_match,
                         const statement& lock, const statement& remove,
                         bool (*matches)(connection&, int32_t, const std::string&), const char* noun) {
  const std::string missing = std::string{noun} + " " + str(id) + " does not exist";
  return run_write(
    c,
    [&] {
      if (if_match) {
        if (run(c, lock, {str(id)}).rows() == 0)
          return outcome(rc_error::not_found, id, missing);
        if (!matches(c, id, *if_match))
          return outcome(rc_error::precondition_failed, id,
                         std::string{"the "} + noun + "'s document has another ETag");
      }
      if (run(c, remove, {str(id)}).rows() == 0)
        return outcome(rc_error::not_found, id, missing);
      return outcome(rc_error::none, id);
    },
    [&](const error& e) { return common_error(e, id); });
}

} // namespace

write_outcome delete_dept(connection& c, int32_t deptno, const std::optional<std::string>& if_match) {
  return delete_row(c, deptno, if_match, lock_dept, delete_dept_stmt, dept_matches, "department");
}

write_outcome rewrite_random_dept(connection& c) {
  return run_write(
    c,
    [&] {
      // No row: an empty table, or the pick was deleted by a transaction that
      // committed meanwhile; pick again a few times.
      for (int i = 0; i < 5; ++i) {
        auto r = run(c, rewrite_random, {});
        if (r.rows() > 0)
          return outcome(rc_error::none, *r.opt_int32(0, 0));
      }
      return outcome(rc_error::not_found, 0, "there is no department");
    },
    [&](const error& e) { return common_error(e, 0); });
}

write_outcome create_emp(connection& c, const emp_row& e) {
  return run_write(
    c,
    [&] {
      if (run(c, insert_emp, emp_params(e)).rows() == 0)
        return outcome(rc_error::conflict, e.empno, existing_emp_detail(c, {e.empno}));
      return created(e.empno);
    },
    [&](const error& err) -> std::optional<write_outcome> {
      if (err.sqlstate() == "23503")
        return emp_ref_invalid(c, e);
      return common_error(err, e.empno);
    });
}

write_outcome replace_emp(connection& c, const emp_row& e,
                          const std::optional<std::string>& if_match) {
  return run_write(
    c,
    [&] {
      if (if_match) {
        if (run(c, lock_emp, {str(e.empno)}).rows() == 0)
          return outcome(rc_error::not_found, e.empno,
                         "employee " + str(e.empno) + " does not exist");
        if (!emp_matches(c, e.empno, *if_match))
          return outcome(rc_error::precondition_failed, e.empno,
                         "the employee's document has another ETag");
      }
      if (run(c, update_emp, emp_params(e)).rows() == 0)
        return outcome(rc_error::not_found, e.empno,
                       "employee " + str(e.empno) + " does not exist");
      return outcome(rc_error::none, e.empno);
    },
    [&](const error& err) -> std::optional<write_outcome> {
      if (err.sqlstate() == "23503")
        return emp_ref_invalid(c, e);
      return common_error(err, e.empno);
    });
}

write_outcome delete_emp(connection& c, int32_t empno, const std::optional<std::string>& if_match) {
  return delete_row(c, empno, if_match, lock_emp, delete_emp_stmt, emp_matches, "employee");
}

} // namespace restcache::pg
