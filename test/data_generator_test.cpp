// SPDX-License-Identifier: Apache-2.0
#define CAF_SUITE data_generator

#include "demo/data_generator.hpp"

#include <caf/test/dsl.hpp>

#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "messages/document_encoder.hpp"
#include "persistence/pg/schema.hpp"
#include "persistence/pg/statements.hpp"
#include "test/fixtures/private_pg.hpp"
#include "demo/demo_encoders.hpp"
#include "demo/demo_reads.hpp"

using namespace std::chrono_literals;
using namespace restcache;
using restcache::test::shared_private_pg;

namespace {

/// A fresh database with the schema applied, and a connection to it.
struct fixture {
  std::string dsn;
  pg::connection c;

  fixture() : dsn(shared_private_pg().create_database("data_generator")), c(dsn) {
    demo::ensure_demo_schema(c);
  }

  ~fixture() {
    c = pg::connection{shared_private_pg().dsn("postgres")}; // close ours first
    shared_private_pg().drop_database(dsn);
  }

  int64_t count(const std::string& sql) {
    return c.exec(sql).int64(0, 0);
  }

  demo::load_report load(int64_t depts, int32_t per_dept = 10, int64_t batch = 50'000,
                       bool only_if_empty = false) {
    demo::load_options opts;
    opts.depts = depts;
    opts.emps_per_dept = per_dept;
    opts.batch_depts = batch;
    opts.only_if_empty = only_if_empty;
    return demo::load_demo_data(c, opts);
  }

  /// A digest of all data, to compare two loads.
  std::string digest() {
    return std::string{c.exec("SELECT md5(string_agg(t::text, '|' ORDER BY t.deptno)) FROM dept t")
                         .text(0, 0)}
           + std::string{c.exec("SELECT md5(string_agg(t::text, '|' ORDER BY t.empno)) FROM emp t")
                           .text(0, 0)};
  }

  /// Pretends departments 1..n exist, so the next load starts at n + 1
  /// (the loader resumes from max(deptno) + 1). No employees, no log (the
  /// triggers fire ALWAYS, so its entry is deleted in the same transaction).
  void fake_loaded_up_to(int64_t n) {
    c.exec("BEGIN");
    c.exec_params("INSERT INTO dept (deptno) VALUES ($1::int)", {std::to_string(n)});
    c.exec("DELETE FROM change_log WHERE xid = pg_current_xact_id()");
    c.exec("COMMIT");
  }
};

} // namespace

CAF_TEST_FIXTURE_SCOPE(data_generator_tests, fixture)

CAF_TEST(loading N depts gives N depts and N times K emps) {
  std::vector<demo::load_progress> seen;
  demo::load_options opts;
  opts.depts = 2'500;
  opts.emps_per_dept = 10;
  opts.batch_depts = 1'000;
  auto rep = demo::load_demo_data(c, opts, [&](const demo::load_progress& p) { seen.push_back(p); });
  CAF_CHECK(!rep.skipped);
  CAF_CHECK_EQUAL(rep.depts_inserted, 2'500);
  CAF_CHECK_EQUAL(rep.emps_inserted, 25'000);
  CAF_CHECK_EQUAL(count("SELECT count(*) FROM dept"), 2'500);
  CAF_CHECK_EQUAL(count("SELECT count(*) FROM emp"), 25'000);
  CAF_CHECK_EQUAL(count("SELECT min(deptno) FROM dept"), 1);
  CAF_CHECK_EQUAL(count("SELECT max(deptno) FROM dept"), 2'500);
  CAF_CHECK_EQUAL(count("SELECT max(empno) FROM emp"), 25'000);
  // Every dept has exactly K employees with empno = (deptno - 1) * K + k.
  CAF_CHECK_EQUAL(count("SELECT count(*) FROM (SELECT deptno FROM emp GROUP BY deptno"
                        " HAVING count(*) = 10 AND min(empno) = (deptno - 1) * 10 + 1"
                        " AND max(empno) = deptno * 10) t"),
                  2'500);
  // One progress report per batch (three batches), the last one complete.
  CAF_REQUIRE_EQUAL(seen.size(), 3u);
  CAF_CHECK_EQUAL(seen[0].depts_done, 1'000);
  CAF_CHECK_EQUAL(seen[1].depts_done, 2'000);
  CAF_CHECK_EQUAL(seen[2].depts_done, 2'500);
  CAF_CHECK_EQUAL(seen[2].depts_total, 2'500);
  CAF_CHECK_EQUAL(seen[2].emps_inserted, 25'000);
  // The tables were analyzed.
  CAF_CHECK_EQUAL(count("SELECT count(*) FROM pg_stat_user_tables"
                        " WHERE relname IN ('dept', 'emp') AND last_analyze IS NOT NULL"),
                  2);
}

CAF_TEST(the load leaves the change log empty) {
  // A change before the load is in the log (after the install's own DDL
  // entries: dept and emp were watched once they existed); the load resets
  // the log.
  auto installed = count("SELECT count(*) FROM change_log");
  c.exec("INSERT INTO dept VALUES (1, 'before', 'load')");
  CAF_CHECK_EQUAL(count("SELECT count(*) FROM change_log"), installed + 1);
  auto seq_before = count("SELECT max(seq) FROM change_log");
  load(1'000, 10, 300);
  CAF_CHECK_EQUAL(count("SELECT count(*) FROM change_log"), 0);
  // The triggers work again afterwards, and seq continued (not restarted).
  c.exec("UPDATE dept SET loc = 'after' WHERE deptno = 500");
  CAF_CHECK_EQUAL(count("SELECT count(*) FROM change_log"), 1);
  CAF_CHECK_GREATER(count("SELECT min(seq) FROM change_log"), seq_before);
  CAF_CHECK_EQUAL(count("SELECT count(*) FROM change_log WHERE keys = '{dept:500}'"), 1);
}

CAF_TEST(loads resume from max deptno and are deterministic) {
  load(300, 10, 100);
  auto rep = load(1'000, 10, 250);
  CAF_CHECK_EQUAL(rep.depts_inserted, 700);
  CAF_CHECK_EQUAL(rep.emps_inserted, 7'000);
  CAF_CHECK_EQUAL(count("SELECT count(*) FROM dept"), 1'000);
  CAF_CHECK_EQUAL(count("SELECT count(*) FROM emp"), 10'000);
  // Loading again up to the same total does nothing.
  auto again = load(1'000);
  CAF_CHECK_EQUAL(again.depts_inserted, 0);
  CAF_CHECK_EQUAL(again.emps_inserted, 0);
  // The same data as one uninterrupted load into another database.
  auto resumed = digest();
  auto other_dsn = shared_private_pg().create_database("data_generator");
  {
    pg::connection other{other_dsn};
    demo::ensure_demo_schema(other);
    demo::load_options opts;
    opts.depts = 1'000;
    demo::load_demo_data(other, opts);
    std::swap(c, other);
    CAF_CHECK_EQUAL(digest(), resumed);
    std::swap(c, other);
  }
  pg::connection admin{shared_private_pg().dsn("postgres")};
  admin.exec("DROP DATABASE " + other_dsn.substr(other_dsn.rfind('=') + 1) + " WITH (FORCE)");
}

CAF_TEST(concurrent loaders take turns) {
  std::string errors[2];
  demo::load_report reps[2];
  std::thread threads[2];
  for (int i = 0; i < 2; ++i)
    threads[i] = std::thread{[&, i] {
      try {
        pg::connection own{dsn};
        demo::load_options opts;
        opts.depts = 3'000;
        opts.batch_depts = 500;
        reps[i] = demo::load_demo_data(own, opts);
      } catch (const std::exception& e) {
        errors[i] = e.what();
      }
    }};
  for (auto& t : threads)
    t.join();
  CAF_CHECK_EQUAL(errors[0], "");
  CAF_CHECK_EQUAL(errors[1], "");
  CAF_CHECK_EQUAL(reps[0].depts_inserted + reps[1].depts_inserted, 3'000);
  CAF_CHECK_EQUAL(count("SELECT count(*) FROM emp"), 30'000);
}

CAF_TEST(resuming with another emps_per_dept is refused clearly) {
  load(100, 10);
  demo::load_options opts;
  opts.depts = 200;
  opts.emps_per_dept = 5; // would start at empno 501, but 1000 exists
  bool thrown = false;
  try {
    demo::load_demo_data(c, opts);
  } catch (const pg::error& e) {
    thrown = true;
    CAF_CHECK(std::string{e.what()}.find("employees per department") != std::string::npos);
  }
  CAF_CHECK(thrown);
  CAF_CHECK_EQUAL(count("SELECT count(*) FROM dept"), 100);
  // More employees per department than before is fine.
  opts.emps_per_dept = 20;
  CAF_CHECK_EQUAL(demo::load_demo_data(c, opts).emps_inserted, 2'000);
  // And the connection is still usable, outside any transaction.
  CAF_CHECK_EQUAL(PQtransactionStatus(c.get()), PQTRANS_IDLE);
}

CAF_TEST(only_if_empty skips when dept has rows) {
  auto rep = load(200, 10, 50'000, true); // empty: loads
  CAF_CHECK(!rep.skipped);
  CAF_CHECK_EQUAL(rep.depts_inserted, 200);
  auto skipped = load(400, 10, 50'000, true);
  CAF_CHECK(skipped.skipped);
  CAF_CHECK_EQUAL(skipped.depts_inserted, 0);
  CAF_CHECK_EQUAL(count("SELECT count(*) FROM dept"), 200);
}

CAF_TEST(managers commissions and value ranges follow the rules) {
  load(2'000);
  // No generated value is NULL except mgr of managers and comm of non-salesmen
  // (a pick past the end of a value array would be NULL).
  CAF_CHECK_EQUAL(count("SELECT count(*) FROM dept WHERE dname IS NULL OR loc IS NULL"), 0);
  CAF_CHECK_EQUAL(count("SELECT count(*) FROM emp WHERE ename IS NULL OR job IS NULL"
                        " OR hiredate IS NULL OR sal IS NULL OR deptno IS NULL"),
                  0);
  // The first employee of each dept is its MANAGER, without mgr ...
  CAF_CHECK_EQUAL(count("SELECT count(*) FROM emp WHERE job = 'MANAGER'"), 2'000);
  CAF_CHECK_EQUAL(count("SELECT count(*) FROM emp WHERE job = 'MANAGER'"
                        " AND empno = (deptno - 1) * 10 + 1 AND mgr IS NULL"),
                  2'000);
  CAF_CHECK_EQUAL(count("SELECT count(*) FROM emp WHERE mgr IS NULL"), 2'000);
  // ... and everybody else reports to that manager.
  CAF_CHECK_EQUAL(count("SELECT count(*) FROM emp e JOIN emp m ON m.empno = e.mgr"
                        " WHERE m.job = 'MANAGER' AND m.deptno = e.deptno"),
                  18'000);
  // comm only for SALESMAN.
  CAF_CHECK_EQUAL(count("SELECT count(*) FROM emp WHERE (comm IS NOT NULL) <> (job = 'SALESMAN')"),
                  0);
  CAF_CHECK_GREATER(count("SELECT count(*) FROM emp WHERE job = 'SALESMAN'"), 2'000);
  CAF_CHECK_EQUAL(count("SELECT count(*) FROM emp WHERE comm < 0 OR comm > 5000"), 0);
  // Ranges.
  CAF_CHECK_EQUAL(count("SELECT count(*) FROM emp WHERE sal < 800 OR sal > 9000"), 0);
  CAF_CHECK_EQUAL(count("SELECT count(*) FROM emp"
                        " WHERE hiredate < '1985-01-01' OR hiredate > '2024-12-31'"),
                  0);
}

CAF_TEST(values vary) {
  load(2'000);
  CAF_CHECK_GREATER_OR_EQUAL(count("SELECT count(DISTINCT regexp_replace(dname, ' [0-9]+$', ''))"
                                   " FROM dept"),
                             20);
  CAF_CHECK_EQUAL(count("SELECT count(DISTINCT dname) FROM dept"), 2'000);
  CAF_CHECK_GREATER_OR_EQUAL(count("SELECT count(DISTINCT loc) FROM dept"), 30);
  CAF_CHECK_GREATER_OR_EQUAL(count("SELECT count(DISTINCT ename) FROM emp"), 10'000);
  CAF_CHECK_GREATER_OR_EQUAL(count("SELECT count(DISTINCT split_part(ename, ' ', 3)) FROM emp"),
                             50);
  CAF_CHECK_GREATER_OR_EQUAL(count("SELECT count(DISTINCT job) FROM emp"), 8);
  CAF_CHECK_GREATER_OR_EQUAL(count("SELECT count(DISTINCT sal) FROM emp"), 500);
  CAF_CHECK_GREATER_OR_EQUAL(count("SELECT count(DISTINCT hiredate) FROM emp"), 5'000);
  CAF_CHECK_GREATER_OR_EQUAL(count("SELECT count(DISTINCT extract(year FROM hiredate)) FROM emp"),
                             40);
  // Even with short ids (empno < 20,000) a document stays about 1.4 KB.
  pg::prepare_statements(c);
  size_t total = 0;
  for (int32_t d = 1; d <= 200; ++d)
    total += demo::encode_deptemps(*demo::fetch_deptemps(c, d)).size();
  CAF_MESSAGE("average department document at ids 1..200: " << total / 200 << " bytes");
  CAF_CHECK_GREATER_OR_EQUAL(total / 200, 1'350u);
  CAF_CHECK_LESS_OR_EQUAL(total / 200, 1'600u);
  // Not all departments look alike: their salary totals differ.
  CAF_CHECK_GREATER_OR_EQUAL(count("SELECT count(DISTINCT s) FROM"
                                   " (SELECT sum(sal) s FROM emp GROUP BY deptno) t"),
                             1'500);
}

CAF_TEST(ids fit int4 at 10M depts and the documents are about 1.5 KB) {
  // Start just below the 10M-department scale: empno reaches 100,000,000.
  fake_loaded_up_to(9'999'900);
  auto rep = load(10'000'000);
  CAF_CHECK_EQUAL(rep.depts_inserted, 100);
  CAF_CHECK_EQUAL(count("SELECT max(empno) FROM emp"), 100'000'000);
  pg::prepare_statements(c);
  size_t total = 0;
  size_t n = 0;
  for (int32_t d = 9'999'901; d <= 10'000'000; ++d) {
    auto doc = demo::fetch_deptemps(c, d);
    CAF_REQUIRE(doc.has_value());
    CAF_CHECK_EQUAL(doc->emps.size(), 10u);
    total += demo::encode_deptemps(*doc).size();
    ++n;
  }
  auto avg = total / n;
  CAF_MESSAGE("average department document at 10M scale: " << avg << " bytes");
  CAF_CHECK_GREATER_OR_EQUAL(avg, 1'400u);
  CAF_CHECK_LESS_OR_EQUAL(avg, 1'600u);
  // Beyond int4: refused before anything is written.
  demo::load_options too_big;
  too_big.depts = 300'000'000;
  too_big.emps_per_dept = 10;
  bool thrown = false;
  try {
    demo::load_demo_data(c, too_big);
  } catch (const pg::error& e) {
    thrown = true;
    CAF_CHECK(std::string{e.what()}.find("int4") != std::string::npos);
  }
  CAF_CHECK(thrown);
  CAF_CHECK_EQUAL(count("SELECT max(deptno) FROM dept"), 10'000'000);
}

CAF_TEST(documents at the 1M scale are about 1.5 KB) {
  fake_loaded_up_to(999'800);
  load(1'000'000);
  pg::prepare_statements(c);
  size_t total = 0;
  for (int32_t d = 999'801; d <= 1'000'000; ++d) {
    auto doc = demo::fetch_deptemps(c, d);
    CAF_REQUIRE(doc.has_value());
    total += demo::encode_deptemps(*doc).size();
  }
  auto avg = total / 200;
  CAF_MESSAGE("average department document at 1M scale: " << avg << " bytes");
  CAF_CHECK_GREATER_OR_EQUAL(avg, 1'400u);
  CAF_CHECK_LESS_OR_EQUAL(avg, 1'600u);
}

CAF_TEST(bad options are refused) {
  auto refused = [&](demo::load_options o) {
    try {
      demo::load_demo_data(c, o);
    } catch (const pg::error&) {
      return true;
    }
    return false;
  };
  demo::load_options o;
  o.batch_depts = 0;
  CAF_CHECK(refused(o));
  o = {};
  o.depts = -1;
  CAF_CHECK(refused(o));
  o = {};
  o.emps_per_dept = -1;
  CAF_CHECK(refused(o));
  CAF_CHECK_EQUAL(count("SELECT count(*) FROM dept"), 0);
}

CAF_TEST(a non-superuser owner loads by disabling the triggers per batch) {
  // A role that owns its database and tables but may not set
  // session_replication_role.
  auto role = "loader_" + std::to_string(getpid());
  pg::connection admin{shared_private_pg().dsn("postgres")};
  admin.exec("SET client_min_messages = warning");
  admin.exec("DROP ROLE IF EXISTS " + role);
  admin.exec("CREATE ROLE " + role + " LOGIN NOSUPERUSER");
  auto db = "dg_owned_" + std::to_string(getpid());
  admin.exec("DROP DATABASE IF EXISTS " + db);
  admin.exec("CREATE DATABASE " + db + " OWNER " + role);
  {
    auto port = std::to_string(shared_private_pg().port());
    pg::connection own{"host=127.0.0.1 port=" + port + " user=" + role + " dbname=" + db};
    // PostgreSQL 15: only the owner may create in the public schema of a
    // new database, which this role is.
    demo::ensure_demo_schema(own);
    demo::load_options opts;
    opts.depts = 600;
    opts.batch_depts = 250;
    auto rep = demo::load_demo_data(own, opts);
    CAF_CHECK_EQUAL(rep.depts_inserted, 600);
    CAF_CHECK_EQUAL(rep.emps_inserted, 6'000);
    CAF_CHECK_EQUAL(own.exec("SELECT count(*) FROM change_log").int64(0, 0), 0);
    // The triggers are enabled again, in every replication role.
    CAF_CHECK_EQUAL(own.exec("SELECT count(*) FROM pg_trigger WHERE NOT tgisinternal"
                             " AND tgenabled = 'A' AND tgrelid IN ('dept'::regclass, 'emp'::regclass)")
                      .int64(0, 0),
                    4);
    own.exec("UPDATE emp SET sal = sal + 1 WHERE empno = 42");
    CAF_CHECK_EQUAL(own.exec("SELECT count(*) FROM change_log").int64(0, 0), 1); // a row per changed row
  }
  admin.exec("DROP DATABASE " + db + " WITH (FORCE)");
  admin.exec("DROP ROLE " + role);
}

CAF_TEST_FIXTURE_SCOPE_END()
