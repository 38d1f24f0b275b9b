// SPDX-License-Identifier: Apache-2.0
#define CAF_SUITE pg_writes

#include "demo/writes.hpp"

#include <caf/test/dsl.hpp>

#include <algorithm>
#include <chrono>
#include <functional>
#include <set>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "demo/demo_catalogue.hpp"
#include "messages/document_encoder.hpp"
#include "persistence/pg/connection.hpp"
#include "demo/data_generator.hpp"
#include "persistence/pg/schema.hpp"
#include "persistence/pg/statements.hpp"
#include "test/fixtures/private_pg.hpp"
#include "test/fixtures/test_support.hpp"
#include "demo/demo_encoders.hpp"
#include "demo/demo_reads.hpp"

using namespace std::chrono_literals;
using namespace restcache;
using restcache::test::insert_scott_rows;
using restcache::test::shared_private_pg;

namespace {

using key_set = std::set<std::string>; // "dept:10", "emp:7499"

std::string key_name(const doc_key& k) {
  return std::string{k.kind() == demo::deptemps_kind ? "dept:" : "emp:"} + std::to_string(k.id());
}

key_set keys(std::initializer_list<const char*> xs) {
  key_set out;
  for (auto x : xs)
    out.emplace(x);
  return out;
}

std::optional<std::string> s(const char* x) {
  return std::string{x};
}

std::optional<int32_t> i(int32_t x) {
  return x;
}

demo::emp_row emp(int32_t empno, const char* name, std::optional<int32_t> mgr,
            std::optional<int32_t> deptno, std::optional<int32_t> sal = std::nullopt) {
  demo::emp_row e;
  e.empno = empno;
  e.ename = s(name);
  e.job = s("CLERK");
  e.mgr = mgr;
  e.hiredate = s("1990-01-02");
  e.sal = sal;
  e.deptno = deptno;
  return e;
}

/// A fresh database of the shared cluster with the schema, the SCOTT rows
/// of pg_schema_test and an empty change log; `c` has the daemon's
/// statements prepared (the write statements prepare themselves).
struct fixture {
  std::string dsn;
  pg::connection c;

  fixture() : dsn(shared_private_pg().create_database("pg_writes")), c(dsn) {
    CAF_REQUIRE_EQUAL(demo::ensure_demo_schema(c), pg::schema_version);
    insert_scott_rows(c);
    pg::prepare_statements(c);
  }

  ~fixture() {
    c = pg::connection{shared_private_pg().dsn("postgres")};
    shared_private_pg().drop_database(dsn);
  }

  bool idle() {
    return c.ok() && PQtransactionStatus(c.get()) == PQTRANS_IDLE;
  }

  int64_t count(const std::string& sql) {
    return c.exec(sql).int64(0, 0);
  }

  int64_t log_size() {
    return count("SELECT count(*) FROM change_log");
  }

  std::optional<std::string> deptemps_doc(int32_t id) {
    auto d = demo::fetch_deptemps(c, id);
    if (!d)
      return std::nullopt;
    return demo::encode_deptemps(*d);
  }

  std::optional<std::string> emp_doc(int32_t id) {
    auto e = demo::fetch_emp(c, id);
    if (!e)
      return std::nullopt;
    return demo::encode_emp(*e);
  }

  std::optional<int32_t> mgr_of(int32_t empno) {
    return c.exec_params("SELECT mgr FROM emp WHERE empno = $1::int", {std::to_string(empno)})
      .opt_int32(0, 0);
  }

  /// Checks a successful write's change batch against the change log of
  /// its transaction (the newest xid): one entry per key with its highest
  /// seq and time, ordered by seq and key; returns its keys.
  key_set checked_keys(const demo::write_outcome& out) {
    auto r = c.exec("SELECT u.k, max(c.seq),"
                    "       max((extract(epoch FROM c.changed_at) * 1000000)::bigint)"
                    "  FROM change_log c, unnest(c.keys) AS u (k)"
                    " WHERE c.xid = (SELECT max(xid::text::bigint)::text::xid8 FROM change_log)"
                    " GROUP BY u.k ORDER BY 2, 1");
    CAF_CHECK_EQUAL(static_cast<size_t>(r.rows()), out.changes.size());
    key_set ks;
    for (size_t n = 0; n < out.changes.size(); ++n) {
      const auto& k = out.changes[n];
      ks.insert(key_name(k.key));
      if (n >= static_cast<size_t>(r.rows()))
        continue;
      auto row = static_cast<int>(n);
      CAF_CHECK_EQUAL(std::string{r.text(row, 0)}, key_name(k.key));
      CAF_CHECK_EQUAL(static_cast<int64_t>(k.seq), r.int64(row, 1));
      CAF_CHECK_EQUAL(k.changed_us, r.int64(row, 2));
      if (n > 0) // an employee's row names its department under the same seq
        CAF_CHECK(out.changes[n - 1].seq <= k.seq);
    }
    return ks;
  }

  /// A write that must change nothing: no change batch, no log entry, the
  /// connection idle.
  void check_nothing_written(const demo::write_outcome& out, int64_t log_before = 0) {
    CAF_CHECK(out.changes.empty());
    CAF_CHECK_EQUAL(log_size(), log_before);
    CAF_CHECK(idle());
  }
};

} // namespace

CAF_TEST_FIXTURE_SCOPE(pg_writes_tests, fixture)

// -- create_dept ----------------------------------------------------------------

CAF_TEST(create_dept inserts the dept and its emps and reports their keys) {
  demo::dept_with_emps d;
  d.dept = {40, s("OPERATIONS"), s("BOSTON")};
  d.emps.push_back(emp(8001, "A", 7839, 40, 1000)); // managed by an existing employee
  d.emps.push_back(emp(8002, "B", 8003, std::nullopt)); // by one listed after it
  d.emps.push_back(emp(8003, "C", std::nullopt, 40));
  d.emps.back().comm = 7;
  d.emps.back().hiredate = std::nullopt;
  auto out = demo::create_dept(c, d);
  CAF_CHECK(out.error == rc_error::none && out.created);
  CAF_CHECK_EQUAL(out.id, 40);
  CAF_CHECK(idle());
  CAF_CHECK_EQUAL(checked_keys(out), keys({"dept:40", "emp:8001", "emp:8002", "emp:8003"}));
  // The document read back is the one written (deptNumber filled in).
  d.emps[1].deptno = 40;
  CAF_CHECK_EQUAL(deptemps_doc(40), demo::encode_deptemps(d));
  CAF_CHECK_EQUAL(emp_doc(8003), demo::encode_emp(d.emps[2]));
}

CAF_TEST(create_dept with no emps and null columns) {
  demo::dept_with_emps d;
  d.dept.deptno = 50;
  auto out = demo::create_dept(c, d);
  CAF_CHECK(out.error == rc_error::none && out.created);
  CAF_CHECK_EQUAL(checked_keys(out), keys({"dept:50"}));
  CAF_CHECK_EQUAL(deptemps_doc(50), std::string{R"({"deptNumber":50,"emps":[]})"});
}

CAF_TEST(create_dept of an existing dept is a conflict and writes nothing) {
  auto before = deptemps_doc(10);
  demo::dept_with_emps d;
  d.dept = {10, s("X"), s("Y")};
  d.emps.push_back(emp(8001, "A", std::nullopt, 10));
  auto out = demo::create_dept(c, d);
  CAF_CHECK(out.error == rc_error::conflict);
  CAF_CHECK_EQUAL(out.id, 10);
  CAF_CHECK(out.detail.find("10") != std::string::npos);
  check_nothing_written(out);
  CAF_CHECK_EQUAL(deptemps_doc(10), before);
  CAF_CHECK(!emp_doc(8001));
}

CAF_TEST(create_dept with an existing empNo is a conflict naming it) {
  demo::dept_with_emps d;
  d.dept = {40, s("OPERATIONS"), s("BOSTON")};
  d.emps.push_back(emp(7499, "ALLEN AGAIN", std::nullopt, 40)); // exists in 30
  d.emps.push_back(emp(8001, "A", std::nullopt, 40));
  auto out = demo::create_dept(c, d);
  CAF_CHECK(out.error == rc_error::conflict);
  CAF_MESSAGE("detail: " << out.detail);
  CAF_CHECK(out.detail.find("7499") != std::string::npos);
  CAF_CHECK(out.detail.find("department 30") != std::string::npos);
  check_nothing_written(out);
  CAF_CHECK(!deptemps_doc(40));
  CAF_CHECK(!emp_doc(8001));
  auto allen = demo::fetch_emp(c, 7499);
  CAF_REQUIRE(allen.has_value());
  CAF_CHECK_EQUAL(allen->ename, s("ALLEN"));
}

CAF_TEST(create_dept with a missing mgr is invalid naming it) {
  demo::dept_with_emps d;
  d.dept = {40, s("OPERATIONS"), s("BOSTON")};
  d.emps.push_back(emp(8001, "A", std::nullopt, 40));
  d.emps.push_back(emp(8002, "B", 9999, 40));
  auto out = demo::create_dept(c, d);
  CAF_CHECK(out.error == rc_error::unprocessable);
  CAF_MESSAGE("detail: " << out.detail);
  CAF_CHECK_EQUAL(out.detail, "manager 9999 of employee 8002 does not exist");
  check_nothing_written(out);
  CAF_CHECK(!deptemps_doc(40));
}

CAF_TEST(create_dept rejects duplicate empNos and a foreign deptNumber) {
  demo::dept_with_emps d;
  d.dept = {40, s("OPERATIONS"), s("BOSTON")};
  d.emps.push_back(emp(8001, "A", std::nullopt, 40));
  d.emps.push_back(emp(8001, "B", std::nullopt, 40));
  auto out = demo::create_dept(c, d);
  CAF_CHECK(out.error == rc_error::unprocessable);
  CAF_CHECK(out.detail.find("8001") != std::string::npos);
  check_nothing_written(out);
  d.emps[1].empno = 8002;
  d.emps[1].deptno = 20;
  out = demo::create_dept(c, d);
  CAF_CHECK(out.error == rc_error::unprocessable);
  CAF_CHECK(out.detail.find("8002") != std::string::npos);
  check_nothing_written(out);
  CAF_CHECK(!deptemps_doc(40));
}

// -- replace_dept -----------------------------------------------------------------

CAF_TEST(replace_dept updates inserts deletes and moves emps) {
  // Dept 10 has KING (7839) and CLARK (7782). The new set keeps KING as he
  // is, moves JONES (7566) here from 20, adds 8100 managed by JONES and
  // leaves CLARK out.
  auto king = *demo::fetch_emp(c, 7839);
  auto jones = *demo::fetch_emp(c, 7566);
  jones.deptno = 10;
  jones.sal = 3000;
  demo::dept_with_emps d;
  d.dept = {10, s("ACCT"), std::nullopt};
  d.emps = {emp(7566, "", 7839, 10), king, emp(8100, "NEW", 7566, std::nullopt)};
  d.emps[0] = jones;
  auto out = demo::replace_dept(c, d);
  CAF_CHECK(out.error == rc_error::none && !out.created);
  CAF_CHECK_EQUAL(out.id, 10);
  CAF_CHECK(idle());
  // KING is unchanged: his document is not invalidated.
  CAF_CHECK_EQUAL(checked_keys(out),
                  keys({"dept:10", "dept:20", "emp:7566", "emp:7782", "emp:8100"}));
  // What is read back is what was written (emps ordered by empNo).
  demo::dept_with_emps expected = d;
  expected.emps[2].deptno = 10;
  CAF_CHECK_EQUAL(deptemps_doc(10), demo::encode_deptemps(expected));
  CAF_CHECK_EQUAL(deptemps_doc(20), std::string{R"({"deptNumber":20,"deptName":"RESEARCH",)"
                                                R"("deptLocation":"DALLAS","emps":[]})"});
  CAF_CHECK(!emp_doc(7782));
}

CAF_TEST(replace_dept round trips a GET document with its ETag) {
  auto before = demo::fetch_deptemps(c, 30);
  CAF_REQUIRE(before.has_value());
  auto body = demo::encode_deptemps(*before);
  auto out = demo::replace_dept(c, *before, strong_etag(body));
  CAF_CHECK(out.error == rc_error::none && !out.created);
  CAF_CHECK(idle());
  CAF_CHECK_EQUAL(deptemps_doc(30), body);
  // Only the department row was written (the employees are unchanged).
  CAF_CHECK_EQUAL(checked_keys(out), keys({"dept:30"}));
  // The same again without If-Match.
  out = demo::replace_dept(c, *before);
  CAF_CHECK(out.error == rc_error::none && !out.created);
  CAF_CHECK_EQUAL(deptemps_doc(30), body);
}

CAF_TEST(replace_dept checks If-Match against the current document) {
  auto current = demo::fetch_deptemps(c, 20);
  CAF_REQUIRE(current.has_value());
  auto etag = strong_etag(demo::encode_deptemps(*current));
  auto changed = *current;
  changed.dept.loc = s("AUSTIN");
  // Another ETag, a weak one, a malformed one: 412 and nothing written.
  for (const char* bad : {"\"0000000000000000\"", "", "W/", "nonsense"}) {
    auto out = demo::replace_dept(c, changed, std::string{bad});
    CAF_CHECK(out.error == rc_error::precondition_failed);
    check_nothing_written(out);
  }
  auto out = demo::replace_dept(c, changed, "W/" + etag);
  CAF_CHECK(out.error == rc_error::precondition_failed);
  check_nothing_written(out);
  // An employee of the department changed by someone else: the old ETag fails.
  c.exec("UPDATE emp SET sal = 2976 WHERE empno = 7566");
  auto log_before = log_size();
  out = demo::replace_dept(c, changed, etag);
  CAF_CHECK(out.error == rc_error::precondition_failed);
  check_nothing_written(out, log_before);
  // The current ETag (in a list) matches.
  auto now = strong_etag(*deptemps_doc(20));
  out = demo::replace_dept(c, changed, "\"abc\", " + now);
  CAF_CHECK(out.error == rc_error::none && !out.created);
  CAF_CHECK(idle());
  CAF_CHECK_EQUAL(checked_keys(out), keys({"dept:20", "emp:7566"})); // JONES back to 2975
  CAF_CHECK_EQUAL(deptemps_doc(20), demo::encode_deptemps(changed));
  // "*": must exist.
  changed.dept.dname = s("R&D");
  out = demo::replace_dept(c, changed, std::string{"*"});
  CAF_CHECK(out.error == rc_error::none && !out.created);
  CAF_CHECK_EQUAL(deptemps_doc(20), demo::encode_deptemps(changed));
}

CAF_TEST(replace_dept of a missing dept is not_found) {
  demo::dept_with_emps d;
  d.dept = {99, s("X"), s("Y")};
  d.emps.push_back(emp(8001, "A", std::nullopt, 99));
  for (auto if_match : {std::optional<std::string>{}, s("*"), s("\"0000000000000000\"")}) {
    auto out = demo::replace_dept(c, d, if_match);
    CAF_CHECK(out.error == rc_error::not_found);
    CAF_CHECK_EQUAL(out.id, 99);
    check_nothing_written(out);
  }
  CAF_CHECK(!deptemps_doc(99));
  CAF_CHECK(!emp_doc(8001));
}

CAF_TEST(replace_dept deleting the manager of a listed emp is invalid) {
  // Dept 30: ALLEN (7499) manages WARD (7521). A set without ALLEN deletes
  // him, so WARD's mgr 7499 would name nobody.
  auto before = deptemps_doc(30);
  auto ward = *demo::fetch_emp(c, 7521);
  demo::dept_with_emps d;
  d.dept = {30, s("SALES"), s("CHICAGO")};
  d.emps = {ward};
  auto out = demo::replace_dept(c, d);
  CAF_CHECK(out.error == rc_error::unprocessable);
  CAF_MESSAGE("detail: " << out.detail);
  CAF_CHECK(out.detail.find("manager 7499 of employee 7521 is an employee") != std::string::npos);
  check_nothing_written(out);
  CAF_CHECK_EQUAL(deptemps_doc(30), before);
  // A manager that does not exist at all.
  d.emps[0].mgr = 4242;
  out = demo::replace_dept(c, d);
  CAF_CHECK(out.error == rc_error::unprocessable);
  CAF_CHECK_EQUAL(out.detail, "manager 4242 of employee 7521 does not exist");
  check_nothing_written(out);
  // Without the manager it works, and ALLEN goes.
  d.emps[0].mgr = std::nullopt;
  out = demo::replace_dept(c, d);
  CAF_CHECK(out.error == rc_error::none && !out.created);
  CAF_CHECK_EQUAL(checked_keys(out), keys({"dept:30", "emp:7499", "emp:7521"}));
  CAF_CHECK_EQUAL(deptemps_doc(30), demo::encode_deptemps(d));
}

// -- delete_dept ------------------------------------------------------------------

CAF_TEST(delete_dept cascades and clears mgr references elsewhere) {
  // Dept 10: KING (7839) and CLARK (7782). KING manages JONES (7566, dept
  // 20) and ALLEN (7499, dept 30): the FK's ON DELETE SET NULL clears their
  // mgr, and the row trigger logs them and their departments.
  auto out = demo::delete_dept(c, 10);
  CAF_CHECK(out.error == rc_error::none && !out.created);
  CAF_CHECK_EQUAL(out.id, 10);
  CAF_CHECK(idle());
  CAF_CHECK_EQUAL(checked_keys(out), keys({"dept:10", "emp:7839", "emp:7782", "emp:7566",
                                           "dept:20", "emp:7499", "dept:30"}));
  CAF_CHECK(!deptemps_doc(10));
  CAF_CHECK(!emp_doc(7839));
  CAF_CHECK(!emp_doc(7782));
  CAF_CHECK(!mgr_of(7566));
  CAF_CHECK(!mgr_of(7499));
  CAF_CHECK_EQUAL(mgr_of(7521), i(7499)); // not KING's report: untouched
  CAF_CHECK_EQUAL(deptemps_doc(20)->find("\"mgr\""), std::string::npos);
  // Again: gone.
  auto log_before = log_size();
  out = demo::delete_dept(c, 10);
  CAF_CHECK(out.error == rc_error::not_found);
  check_nothing_written(out, log_before);
}

CAF_TEST(delete_dept checks If-Match) {
  auto etag = strong_etag(*deptemps_doc(30));
  auto out = demo::delete_dept(c, 30, std::string{"\"0123456789abcdef\""});
  CAF_CHECK(out.error == rc_error::precondition_failed);
  check_nothing_written(out);
  CAF_CHECK(deptemps_doc(30).has_value());
  out = demo::delete_dept(c, 30, etag);
  CAF_CHECK(out.error == rc_error::none && !out.created);
  CAF_CHECK_EQUAL(checked_keys(out), keys({"dept:30", "emp:7499", "emp:7521"}));
  CAF_CHECK(!deptemps_doc(30));
  auto log_before = log_size();
  out = demo::delete_dept(c, 30, std::string{"*"});
  CAF_CHECK(out.error == rc_error::not_found);
  check_nothing_written(out, log_before);
  out = demo::delete_dept(c, 20, std::string{"*"});
  CAF_CHECK(out.error == rc_error::none && !out.created);
  CAF_CHECK(!deptemps_doc(20));
}

// -- rewrite_random_dept ----------------------------------------------------------

CAF_TEST(rewrite_random_dept rewrites an existing dept with its own values) {
  c.exec("INSERT INTO dept VALUES (1000, 'FAR', 'AWAY'); TRUNCATE change_log");
  std::vector<std::optional<std::string>> docs;
  for (int id : {10, 20, 30, 1000})
    docs.push_back(deptemps_doc(id));
  std::set<int32_t> seen;
  for (int n = 0; n < 40; ++n) {
    auto out = demo::rewrite_random_dept(c);
    CAF_REQUIRE(out.error == rc_error::none && !out.created);
    CAF_CHECK(out.id == 10 || out.id == 20 || out.id == 30 || out.id == 1000);
    CAF_CHECK_EQUAL(checked_keys(out), key_set{"dept:" + std::to_string(out.id)});
    CAF_CHECK(idle());
    seen.insert(out.id);
  }
  // 1000 sits after the widest gap: it is picked nearly every time.
  CAF_CHECK(seen.count(1000) == 1);
  int n = 0;
  for (int id : {10, 20, 30, 1000})
    CAF_CHECK_EQUAL(deptemps_doc(id), docs[static_cast<size_t>(n++)]);
  c.exec("TRUNCATE dept, emp; TRUNCATE change_log"); // the first logs its own truncate entries
  auto out = demo::rewrite_random_dept(c);
  CAF_CHECK(out.error == rc_error::not_found);
  check_nothing_written(out);
}

CAF_TEST(rewrite_random_dept probes the index instead of scanning) {
  // Without the change trigger, as restcache-load inserts (it fires in
  // replica mode too).
  c.exec("BEGIN; ALTER TABLE dept DISABLE TRIGGER restcache_changed;"
         "INSERT INTO dept (deptno) SELECT g FROM generate_series(1000, 200999) g;"
         "ALTER TABLE dept ENABLE ALWAYS TRIGGER restcache_changed; COMMIT; ANALYZE dept");
  demo::prepare_write_statements(c);
  auto r = c.exec("EXPLAIN EXECUTE restcache_w_rewrite_random_dept");
  std::string plan;
  for (int n = 0; n < r.rows(); ++n)
    plan += std::string{r.text(n, 0)} + "\n";
  auto scans = plan.find("Seq Scan") != std::string::npos || plan.find("Sort") != std::string::npos;
  if (scans)
    CAF_MESSAGE("plan:\n" << plan);
  CAF_CHECK(!scans);
  auto out = demo::rewrite_random_dept(c);
  CAF_CHECK(out.error == rc_error::none && !out.created);
  CAF_CHECK_EQUAL(checked_keys(out), key_set{"dept:" + std::to_string(out.id)});
}

// -- create_emp -------------------------------------------------------------------

CAF_TEST(create_emp inserts and reports the emp and its dept) {
  auto e = emp(8001, "NEW", 7566, 20, 1234);
  auto out = demo::create_emp(c, e);
  CAF_CHECK(out.error == rc_error::none && out.created);
  CAF_CHECK_EQUAL(out.id, 8001);
  CAF_CHECK(idle());
  CAF_CHECK_EQUAL(checked_keys(out), keys({"emp:8001", "dept:20"}));
  CAF_CHECK_EQUAL(emp_doc(8001), demo::encode_emp(e));
  // Without a department, managing itself.
  auto loner = emp(8002, "LONER", 8002, std::nullopt);
  out = demo::create_emp(c, loner);
  CAF_CHECK(out.error == rc_error::none && out.created);
  CAF_CHECK_EQUAL(checked_keys(out), keys({"emp:8002"}));
  CAF_CHECK_EQUAL(emp_doc(8002), demo::encode_emp(loner));
}

CAF_TEST(create_emp statuses conflict and invalid) {
  auto out = demo::create_emp(c, emp(7499, "DUP", std::nullopt, 10));
  CAF_CHECK(out.error == rc_error::conflict);
  CAF_CHECK(out.detail.find("7499") != std::string::npos);
  CAF_CHECK(out.detail.find("department 30") != std::string::npos);
  check_nothing_written(out);
  out = demo::create_emp(c, emp(8001, "A", std::nullopt, 99));
  CAF_CHECK(out.error == rc_error::unprocessable);
  CAF_CHECK(out.detail.find("department 99") != std::string::npos);
  check_nothing_written(out);
  out = demo::create_emp(c, emp(8001, "A", 9999, 10));
  CAF_CHECK(out.error == rc_error::unprocessable);
  CAF_CHECK(out.detail.find("manager 9999") != std::string::npos);
  check_nothing_written(out);
  // A value PostgreSQL rejects.
  auto bad = emp(8001, "A", std::nullopt, 10);
  bad.hiredate = s("1981-02-30");
  out = demo::create_emp(c, bad);
  CAF_CHECK(out.error == rc_error::unprocessable);
  CAF_MESSAGE("detail: " << out.detail);
  CAF_CHECK(out.detail.find("SQLSTATE 22") != std::string::npos);
  check_nothing_written(out);
  CAF_CHECK(!emp_doc(8001));
}

// -- replace_emp ------------------------------------------------------------------

CAF_TEST(replace_emp moving departments reports the emp and both depts) {
  auto allen = *demo::fetch_emp(c, 7499);
  allen.deptno = 20;
  allen.comm = std::nullopt;
  auto out = demo::replace_emp(c, allen);
  CAF_CHECK(out.error == rc_error::none && !out.created);
  CAF_CHECK_EQUAL(out.id, 7499);
  CAF_CHECK(idle());
  CAF_CHECK_EQUAL(checked_keys(out), keys({"emp:7499", "dept:30", "dept:20"}));
  CAF_CHECK_EQUAL(emp_doc(7499), demo::encode_emp(allen));
  CAF_CHECK_EQUAL(demo::fetch_deptemps(c, 20)->emps.size(), 2u);
  CAF_CHECK_EQUAL(demo::fetch_deptemps(c, 30)->emps.size(), 1u);
  // Out of any department.
  allen.deptno = std::nullopt;
  out = demo::replace_emp(c, allen);
  CAF_CHECK(out.error == rc_error::none && !out.created);
  CAF_CHECK_EQUAL(checked_keys(out), keys({"emp:7499", "dept:20"}));
  CAF_CHECK_EQUAL(emp_doc(7499), demo::encode_emp(allen));
}

CAF_TEST(replace_emp statuses and If-Match) {
  auto ward = *demo::fetch_emp(c, 7521);
  auto etag = strong_etag(demo::encode_emp(ward));
  ward.sal = 1300;
  // Missing.
  auto ghost = emp(9999, "GHOST", std::nullopt, 10);
  for (auto if_match : {std::optional<std::string>{}, s("*"), s("\"0000000000000000\"")}) {
    auto out = demo::replace_emp(c, ghost, if_match);
    CAF_CHECK(out.error == rc_error::not_found);
    check_nothing_written(out);
  }
  // Mismatch.
  auto out = demo::replace_emp(c, ward, std::string{"\"0000000000000000\""});
  CAF_CHECK(out.error == rc_error::precondition_failed);
  check_nothing_written(out);
  // Invalid references.
  auto moved = ward;
  moved.deptno = 99;
  out = demo::replace_emp(c, moved, etag);
  CAF_CHECK(out.error == rc_error::unprocessable);
  CAF_CHECK(out.detail.find("department 99") != std::string::npos);
  check_nothing_written(out);
  moved = ward;
  moved.mgr = 4242;
  out = demo::replace_emp(c, moved);
  CAF_CHECK(out.error == rc_error::unprocessable);
  CAF_CHECK(out.detail.find("manager 4242") != std::string::npos);
  check_nothing_written(out);
  // Match, then the old ETag no longer does; "*" does.
  out = demo::replace_emp(c, ward, etag);
  CAF_CHECK(out.error == rc_error::none && !out.created);
  CAF_CHECK_EQUAL(checked_keys(out), keys({"emp:7521", "dept:30"}));
  CAF_CHECK_EQUAL(emp_doc(7521), demo::encode_emp(ward));
  auto log_before = log_size();
  out = demo::replace_emp(c, ward, etag);
  CAF_CHECK(out.error == rc_error::precondition_failed);
  check_nothing_written(out, log_before);
  ward.job = s("CLERK");
  out = demo::replace_emp(c, ward, std::string{"*"});
  CAF_CHECK(out.error == rc_error::none && !out.created);
  CAF_CHECK_EQUAL(emp_doc(7521), demo::encode_emp(ward));
  // PUT of the GET document with its ETag round-trips.
  auto body = *emp_doc(7521);
  out = demo::replace_emp(c, *demo::fetch_emp(c, 7521), strong_etag(body));
  CAF_CHECK(out.error == rc_error::none && !out.created);
  CAF_CHECK_EQUAL(emp_doc(7521), body);
}

// -- delete_emp -------------------------------------------------------------------

CAF_TEST(delete_emp clears reports and invalidates their depts) {
  // KING manages CLARK (10), JONES (20) and ALLEN (30).
  auto out = demo::delete_emp(c, 7839);
  CAF_CHECK(out.error == rc_error::none && !out.created);
  CAF_CHECK_EQUAL(out.id, 7839);
  CAF_CHECK(idle());
  CAF_CHECK_EQUAL(checked_keys(out), keys({"emp:7839", "dept:10", "emp:7782", "emp:7566",
                                           "dept:20", "emp:7499", "dept:30"}));
  CAF_CHECK(!emp_doc(7839));
  CAF_CHECK(!mgr_of(7782));
  CAF_CHECK(!mgr_of(7566));
  CAF_CHECK(!mgr_of(7499));
  CAF_CHECK_EQUAL(mgr_of(7521), i(7499));
  auto log_before = log_size();
  out = demo::delete_emp(c, 7839);
  CAF_CHECK(out.error == rc_error::not_found);
  check_nothing_written(out, log_before);
}

CAF_TEST(delete_emp checks If-Match) {
  auto etag = strong_etag(*emp_doc(7521));
  auto out = demo::delete_emp(c, 7521, std::string{"W/" + etag});
  CAF_CHECK(out.error == rc_error::precondition_failed);
  check_nothing_written(out);
  out = demo::delete_emp(c, 7521, etag);
  CAF_CHECK(out.error == rc_error::none && !out.created);
  CAF_CHECK_EQUAL(checked_keys(out), keys({"emp:7521", "dept:30"}));
  out = demo::delete_emp(c, 7521, std::string{"*"});
  CAF_CHECK(out.error == rc_error::not_found);
  out = demo::delete_emp(c, 7499, std::string{"*"});
  CAF_CHECK(out.error == rc_error::none && !out.created);
  CAF_CHECK(idle());
}

// -- failures -----------------------------------------------------------------------

CAF_TEST(a lock timeout throws pg error and leaves the connection idle) {
  pg::connection other{dsn};
  other.exec("BEGIN; SELECT 1 FROM dept WHERE deptno = 10 FOR UPDATE");
  c.exec("SET lock_timeout = '200ms'");
  auto d = *demo::fetch_deptemps(c, 10);
  d.dept.loc = s("BOSTON");
  auto expect_lock_timeout = [&](auto&& write) {
    bool thrown = false;
    try {
      write();
    } catch (const pg::error& e) {
      thrown = true;
      CAF_CHECK_EQUAL(e.sqlstate(), "55P03"); // lock_not_available
      CAF_CHECK(!e.connection_lost());
    }
    CAF_CHECK(thrown);
    CAF_CHECK(idle());
  };
  expect_lock_timeout([&] { demo::replace_dept(c, d); });
  expect_lock_timeout([&] { demo::replace_dept(c, d, strong_etag(demo::encode_deptemps(d))); });
  expect_lock_timeout([&] { demo::delete_dept(c, 10); });
  expect_lock_timeout([&] { demo::create_emp(c, emp(8001, "A", std::nullopt, 10)); });
  CAF_CHECK_EQUAL(log_size(), 0);
  other.exec("COMMIT");
  auto out = demo::replace_dept(c, d);
  CAF_CHECK(out.error == rc_error::none && !out.created);
  CAF_CHECK_EQUAL(deptemps_doc(10), demo::encode_deptemps(d));
}

CAF_TEST(a statement error inside a write throws and rolls back) {
  // A trigger that fails after the write's own statements ran: the whole
  // transaction goes, the error is not one of the statuses.
  c.exec("CREATE FUNCTION boom() RETURNS trigger LANGUAGE plpgsql AS"
         " $$BEGIN RAISE EXCEPTION 'boom' USING ERRCODE = 'XX001'; END$$;"
         "CREATE TRIGGER boom AFTER INSERT ON emp FOR EACH ROW EXECUTE FUNCTION boom()");
  auto logged = log_size(); // the CREATE TRIGGER, by the event trigger
  demo::dept_with_emps d;
  d.dept = {40, s("OPERATIONS"), s("BOSTON")};
  d.emps.push_back(emp(8001, "A", std::nullopt, 40));
  bool thrown = false;
  try {
    demo::create_dept(c, d);
  } catch (const pg::error& e) {
    thrown = true;
    CAF_CHECK_EQUAL(e.sqlstate(), "XX001");
  }
  CAF_CHECK(thrown);
  CAF_CHECK(idle());
  CAF_CHECK(!deptemps_doc(40));
  CAF_CHECK_EQUAL(log_size(), logged);
}

CAF_TEST(a lost connection throws with connection_lost) {
  pg::connection admin{dsn};
  auto pid = c.exec("SELECT pg_backend_pid()").int64(0, 0);
  admin.exec_params("SELECT pg_terminate_backend($1::int, 10000)", {std::to_string(pid)});
  bool lost = false;
  try {
    demo::rewrite_random_dept(c);
  } catch (const pg::error& e) {
    lost = e.connection_lost();
  }
  CAF_CHECK(lost);
  CAF_CHECK(!c.ok());
  CAF_CHECK_EQUAL(admin.exec("SELECT count(*) FROM change_log").int64(0, 0), 0);
}

CAF_TEST(writes prepare their statements on a fresh connection) {
  pg::connection fresh{dsn};
  CAF_CHECK(!fresh.is_prepared(demo::emp_statement()));
  auto out = demo::replace_emp(fresh, *demo::fetch_emp(c, 7521), std::string{"\"x\""});
  CAF_CHECK(out.error == rc_error::precondition_failed);
  CAF_CHECK(fresh.is_prepared(demo::emp_statement()));
  CAF_CHECK_EQUAL(PQtransactionStatus(fresh.get()), PQTRANS_IDLE);
  // The session settings were applied outside the rolled-back transaction
  // (a copy: CAF_CHECK_EQUAL holds each side past the result's life).
  CAF_CHECK_EQUAL(std::string{fresh.exec("SHOW TimeZone").text(0, 0)}, "UTC");
  demo::prepare_write_statements(fresh); // idempotent
  out = demo::create_emp(fresh, emp(8001, "A", std::nullopt, 10));
  CAF_CHECK(out.error == rc_error::none && out.created);
}

CAF_TEST(concurrent writes on the same rows all succeed) {
  // Two departments pulling ALLEN (7499) in through replace_dept while a
  // third connection moves him with replace_emp: row locks serialize them.
  auto worker = [this](int kind, std::string& failure) {
    try {
      pg::connection own{dsn};
      auto d = *demo::fetch_deptemps(own, kind == 0 ? 20 : 30);
      for (int n = 0; n < 30; ++n) {
        demo::write_outcome out;
        if (kind < 2) {
          auto allen = *demo::fetch_emp(own, 7499);
          allen.deptno = d.dept.deptno;
          auto e = d;
          std::erase_if(e.emps, [](const demo::emp_row& x) { return x.empno == 7499; });
          e.emps.push_back(allen);
          std::sort(e.emps.begin(), e.emps.end(),
                    [](const demo::emp_row& a, const demo::emp_row& b) { return a.empno < b.empno; });
          e.dept.dname = "D" + std::to_string(n);
          out = demo::replace_dept(own, e);
        } else {
          auto allen = *demo::fetch_emp(own, 7499);
          allen.deptno = n % 2 == 0 ? 10 : 30;
          allen.sal = n;
          out = demo::replace_emp(own, allen, strong_etag(demo::encode_emp(*demo::fetch_emp(own, 7499))));
          if (out.error == rc_error::precondition_failed)
            continue; // moved by another between the two reads
        }
        if (out.error != rc_error::none)
          failure = std::string{"error "} + std::string{to_string(out.error)};
        if (PQtransactionStatus(own.get()) != PQTRANS_IDLE)
          failure = "not idle";
      }
    } catch (const std::exception& e) {
      failure = e.what();
    }
  };
  std::vector<std::string> failures(3);
  std::vector<std::thread> threads;
  for (int k = 0; k < 3; ++k)
    threads.emplace_back(worker, k, std::ref(failures[static_cast<size_t>(k)]));
  for (auto& t : threads)
    t.join();
  for (const auto& f : failures)
    CAF_CHECK_EQUAL(f, "");
  CAF_CHECK(emp_doc(7499).has_value());
  CAF_CHECK_EQUAL(mgr_of(7521), i(7499));
}

CAF_TEST(a deadlock is retried) {
  // `other` locks WARD; the write locks dept 30 and waits for WARD (If-Match
  // locks the department's employees); `other` then asks for dept 30: a
  // deadlock. The backend whose deadlock check runs first while both wait
  // is the one aborted, so the order is made certain rather than timed:
  // `other` asks only once the write is seen waiting for its lock, and
  // checks after 30 s against the write's 2 s. The write is aborted,
  // `other` proceeds and commits, the retry succeeds.
  pg::connection other{dsn};
  pg::connection monitor{dsn};
  auto d = *demo::fetch_deptemps(c, 30);
  auto etag = strong_etag(demo::encode_deptemps(d));
  d.dept.loc = s("BOSTON");
  c.exec("SET deadlock_timeout = '2s'");
  other.exec("SET deadlock_timeout = '30s'");
  other.exec("BEGIN; SELECT 1 FROM emp WHERE empno = 7521 FOR UPDATE");
  const auto writer_pid = std::to_string(PQbackendPID(c.get()));
  std::optional<demo::write_outcome> out;
  std::string failure;
  std::thread writer{[&] {
    try {
      out = demo::replace_dept(c, d, etag);
    } catch (const std::exception& e) {
      failure = e.what();
    }
  }};
  bool writer_waits = false;
  for (int n = 0; n < 200 && !writer_waits; ++n) {
    writer_waits = monitor
                     .exec_params("SELECT count(*) FROM pg_stat_activity"
                                  " WHERE pid = $1::int AND wait_event_type = 'Lock'",
                                  {writer_pid})
                     .int64(0, 0) == 1;
    if (!writer_waits)
      std::this_thread::sleep_for(20ms);
  }
  CAF_CHECK(writer_waits);
  std::string other_failure;
  try {
    other.exec("SELECT 1 FROM dept WHERE deptno = 30 FOR UPDATE");
    other.exec("COMMIT");
  } catch (const pg::error& e) {
    other_failure = e.what();
    other.exec("ROLLBACK");
  }
  writer.join();
  CAF_CHECK_EQUAL(other_failure, "");
  CAF_CHECK_EQUAL(failure, "");
  CAF_REQUIRE(out.has_value());
  CAF_CHECK(out->error == rc_error::none && !out->created);
  CAF_CHECK(idle());
  CAF_CHECK_EQUAL(deptemps_doc(30), demo::encode_deptemps(d));
  CAF_CHECK_EQUAL(checked_keys(*out), keys({"dept:30"}));
  // It was a deadlock (PostgreSQL counts it once the aborted backend
  // reports its statistics, at the latest when it goes idle). On a loaded
  // machine `other` may still be asleep when the retry asks for dept 30:
  // the retry then deadlocks with it once more and the last attempt
  // succeeds, so one or two deadlocks both show a retried write.
  int64_t deadlocks = 0;
  for (int n = 0; n < 50 && deadlocks == 0; ++n) {
    c.exec("SELECT pg_stat_clear_snapshot()");
    deadlocks = count("SELECT deadlocks FROM pg_stat_database WHERE datname = current_database()");
    if (deadlocks == 0)
      std::this_thread::sleep_for(100ms);
  }
  CAF_CHECK_GREATER_OR_EQUAL(deadlocks, 1);
  CAF_CHECK_LESS_OR_EQUAL(deadlocks, 2);
}

// -- If-Match parsing -----------------------------------------------------------------

CAF_TEST(if_match_satisfied takes star lists and strong tags only) {
  const std::string tag = "\"0123456789abcdef\"";
  CAF_CHECK(demo::if_match_satisfied("*", tag));
  CAF_CHECK(demo::if_match_satisfied(" * ", tag));
  CAF_CHECK(demo::if_match_satisfied(tag, tag));
  CAF_CHECK(demo::if_match_satisfied("\"a\", " + tag, tag));
  CAF_CHECK(demo::if_match_satisfied("\"a\",W/\"b\"," + tag + " ", tag));
  CAF_CHECK(!demo::if_match_satisfied("W/" + tag, tag));
  CAF_CHECK(!demo::if_match_satisfied("\"a\"", tag));
  CAF_CHECK(!demo::if_match_satisfied("", tag));
  CAF_CHECK(!demo::if_match_satisfied("0123456789abcdef", tag));
  CAF_CHECK(!demo::if_match_satisfied("\"0123456789abcdef", tag));
  CAF_CHECK(!demo::if_match_satisfied("\"a\", x, " + tag, tag)); // malformed: no match
}

CAF_TEST_FIXTURE_SCOPE_END()
