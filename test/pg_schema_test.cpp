// SPDX-License-Identifier: Apache-2.0
#define CAF_SUITE pg_schema

#include "persistence/pg/schema.hpp"
#include "persistence/pg/stored_declarations.hpp"

#include <caf/test/dsl.hpp>

#include <algorithm>
#include <chrono>
#include <set>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include "demo/demo_catalogue.hpp"
#include "persistence/pg/connection.hpp"
#include "demo/data_generator.hpp"
#include "persistence/pg/doc_queries.hpp"
#include "persistence/pg/statements.hpp"
#include "test/fixtures/child_program.hpp"
#include "test/fixtures/private_pg.hpp"
#include "test/fixtures/test_support.hpp"
#include "demo/demo_reads.hpp"

using namespace std::chrono_literals;
using namespace restcache;
using restcache::test::insert_scott_rows;
using restcache::test::receive_notifications;
using restcache::test::shared_private_pg;

namespace {

using change = std::pair<std::string, std::string>; // (key space, key)

/// A fresh database of the shared cluster (dropped afterwards), a connection
/// to it, and helpers to read the change log.
struct fixture {
  std::string dsn;
  pg::connection c;

  fixture() : dsn(shared_private_pg().create_database("pg_schema")), c(dsn) {
    // nop
  }

  ~fixture() {
    // Close ours first; WITH (FORCE) ends any other session of the test.
    c = pg::connection{shared_private_pg().dsn("postgres")};
    shared_private_pg().drop_database(dsn);
  }

  /// Applies the schema and inserts departments 10, 20, 30 and five
  /// employees, then empties the change log.
  void seed() {
    CAF_REQUIRE_EQUAL(demo::ensure_demo_schema(c), pg::schema_version);
    insert_scott_rows(c);
  }

  /// Every (key space, key) logged after `after_seq`, as a set; the
  /// event trigger's DDL entries ("!:<table>") only when asked.
  std::multiset<change> changes_after(int64_t after_seq = 0, bool with_ddl = false) {
    auto r = c.exec_params("SELECT split_part(u.k, ':', 1), substr(u.k, strpos(u.k, ':') + 1)"
                           " FROM change_log c, unnest(c.keys) AS u (k) WHERE c.seq > $1::bigint"
                           "   AND ($2::bool OR u.k NOT LIKE '!:%')",
                           {std::to_string(after_seq), with_ddl ? "true" : "false"});
    std::multiset<change> out;
    for (int i = 0; i < r.rows(); ++i)
      out.emplace(std::string{r.text(i, 0)}, std::string{r.text(i, 1)});
    return out;
  }

  int64_t max_seq() {
    return c.exec("SELECT coalesce(max(seq), 0) FROM change_log").int64(0, 0);
  }

  int64_t count(const std::string& sql) {
    return c.exec(sql).int64(0, 0);
  }

  /// True when `sql` fails on `on` (the session stays usable).
  static bool fails(pg::connection& on, const std::string& sql) {
    try {
      on.exec(sql);
      return false;
    } catch (const pg::error&) {
      return true;
    }
  }
};

std::multiset<change> changes(std::initializer_list<std::pair<std::string, int>> xs) {
  std::multiset<change> out;
  for (auto& [space, id] : xs)
    out.emplace(space, std::to_string(id));
  return out;
}

} // namespace

CAF_TEST_FIXTURE_SCOPE(pg_schema_tests, fixture)

// -- schema -------------------------------------------------------------------

CAF_TEST(installed version is 0 on an empty database) {
  CAF_CHECK_EQUAL(pg::installed_schema_version(c), 0);
  // Also inside a transaction, which it must not abort.
  c.exec("BEGIN");
  CAF_CHECK_EQUAL(pg::installed_schema_version(c), 0);
  CAF_CHECK_EQUAL(PQtransactionStatus(c.get()), PQTRANS_INTRANS);
  CAF_CHECK_EQUAL(c.exec("SELECT 41 + 1").int64(0, 0), 42);
  c.exec("COMMIT");
}

CAF_TEST(integer text is taken as sent and anything else is refused) {
  auto r = c.exec("SELECT '-12', '0', '2147483647', NULL::text, '', '1e3', ' 7', '12a', '-',"
                  " '12345678901234567890'");
  auto digits = [&](int col) { return std::string{r.opt_int_text(0, col)->digits}; };
  CAF_CHECK_EQUAL(digits(0), "-12");
  CAF_CHECK_EQUAL(digits(1), "0");
  CAF_CHECK_EQUAL(digits(2), "2147483647");
  CAF_CHECK(!r.opt_int_text(0, 3).has_value());
  CAF_CHECK(!r.opt_view(0, 3).has_value());
  CAF_CHECK(r.opt_view(0, 4).has_value() && r.opt_view(0, 4)->empty());
  for (int col = 4; col < 10; ++col) {
    bool refused = false;
    try {
      r.opt_int_text(0, col);
    } catch (const pg::error& e) {
      refused = std::string_view{e.what()}.find("malformed integer") != std::string_view::npos;
    }
    CAF_CHECK(refused);
  }
}

CAF_TEST(schema applies twice and records its version) {
  CAF_CHECK_EQUAL(demo::ensure_demo_schema(c), pg::schema_version);
  CAF_CHECK_EQUAL(demo::ensure_demo_schema(c), pg::schema_version);
  CAF_CHECK_EQUAL(pg::installed_schema_version(c), pg::schema_version);
  CAF_CHECK_EQUAL(count("SELECT count(*) FROM restcache_schema"), 1);
  CAF_CHECK_EQUAL(count("SELECT count(*) FROM restcache_schema WHERE version = " + std::to_string(pg::schema_version)), 1);
  CAF_CHECK_EQUAL(count("SELECT count(*) FROM change_log_horizon"), 1);
  CAF_CHECK_EQUAL(PQtransactionStatus(c.get()), PQTRANS_IDLE);
  // Exactly one row and one TRUNCATE trigger per table survive the second
  // application, each firing in every replication role.
  CAF_CHECK_EQUAL(count("SELECT count(*) FROM pg_trigger WHERE NOT tgisinternal"
                        " AND tgrelid IN ('dept'::regclass, 'emp'::regclass)"),
                  4);
  CAF_CHECK_EQUAL(count("SELECT count(*) FROM pg_trigger WHERE NOT tgisinternal AND tgenabled = 'A'"
                        " AND tgrelid IN ('dept'::regclass, 'emp'::regclass)"),
                  4);
  CAF_CHECK_EQUAL(count("SELECT count(*) FROM pg_indexes WHERE indexname = 'emp_deptno_idx'"), 1);
  CAF_CHECK_EQUAL(count("SELECT count(*) FROM pg_indexes WHERE indexname = 'emp_mgr_idx'"), 1);
  // Applying over existing data keeps it.
  c.exec("INSERT INTO dept VALUES (1, 'a', 'b')");
  CAF_CHECK_EQUAL(demo::ensure_demo_schema(c), pg::schema_version);
  CAF_CHECK_EQUAL(count("SELECT count(*) FROM dept"), 1);
}

CAF_TEST(concurrent appliers do not collide) {
  constexpr int n = 4;
  std::vector<std::thread> threads;
  std::vector<std::string> errors(n);
  std::vector<int> versions(n, -1);
  for (int i = 0; i < n; ++i)
    threads.emplace_back([&, i] {
      try {
        pg::connection own{dsn};
        versions[i] = demo::ensure_demo_schema(own);
      } catch (const std::exception& e) {
        errors[i] = e.what();
      }
    });
  for (auto& t : threads)
    t.join();
  for (int i = 0; i < n; ++i) {
    CAF_CHECK_EQUAL(errors[i], "");
    CAF_CHECK_EQUAL(versions[i], pg::schema_version);
  }
}

CAF_TEST(ensure_schema refuses to run inside a transaction) {
  c.exec("BEGIN");
  bool thrown = false;
  try {
    pg::ensure_schema(c);
  } catch (const pg::error&) {
    thrown = true;
  }
  CAF_CHECK(thrown);
  c.exec("ROLLBACK");
  CAF_CHECK_EQUAL(pg::ensure_schema(c), pg::schema_version);
}

// -- change log and notifications ---------------------------------------------

CAF_TEST(a dept update logs one row naming its document and notifies nobody) {
  seed();
  pg::connection listener{dsn};
  listener.exec("LISTEN restcache_changes");
  auto xid = std::string{c.exec("BEGIN; UPDATE dept SET loc = 'BOSTON' WHERE deptno = 20;"
                                " SELECT pg_current_xact_id()::text").text(0, 0)};
  c.exec("COMMIT");
  auto r = c.exec("SELECT keys::text, xid::text FROM change_log");
  CAF_REQUIRE_EQUAL(r.rows(), 1);
  CAF_CHECK_EQUAL(r.text(0, 0), "{dept:20}");
  CAF_CHECK_EQUAL(r.text(0, 1), xid);
  // Writers notify nobody: NOTIFY serialises every writer's commit and
  // forbids PREPARE TRANSACTION.
  CAF_CHECK_EQUAL(receive_notifications(listener, 1, 200ms).size(), 0u);
}

CAF_TEST(only committed changes are logged and one row per changed row) {
  seed();
  c.exec("BEGIN; UPDATE emp SET sal = sal + 1 WHERE deptno = 30; ROLLBACK");
  CAF_CHECK_EQUAL(count("SELECT count(*) FROM change_log"), 0);
  c.exec("UPDATE emp SET sal = sal + 1 WHERE deptno = 30");
  CAF_CHECK_EQUAL(count("SELECT count(*) FROM change_log"), 2); // two emps
  CAF_CHECK_EQUAL(changes_after(), changes({{"emp", 7499}, {"dept", 30}, {"emp", 7521}, {"dept", 30}}));
}

CAF_TEST(dept insert delete and key change log old and new keys) {
  seed();
  c.exec("INSERT INTO dept VALUES (40, 'OPERATIONS', 'BOSTON')");
  CAF_CHECK_EQUAL(changes_after(), changes({{"dept", 40}}));
  auto s = max_seq();
  c.exec("UPDATE dept SET deptno = 50 WHERE deptno = 40");
  CAF_CHECK_EQUAL(changes_after(s), changes({{"dept", 40}, {"dept", 50}}));
  s = max_seq();
  c.exec("DELETE FROM dept WHERE deptno = 50");
  CAF_CHECK_EQUAL(changes_after(s), changes({{"dept", 50}}));
}

CAF_TEST(emp insert and update log the emp and its dept) {
  seed();
  c.exec("INSERT INTO emp (empno, ename, deptno) VALUES (8000, 'NEW', 20)");
  CAF_CHECK_EQUAL(changes_after(), changes({{"emp", 8000}, {"dept", 20}}));
  auto s = max_seq();
  c.exec("INSERT INTO emp (empno, ename) VALUES (8001, 'NODEPT')");
  CAF_CHECK_EQUAL(changes_after(s), changes({{"emp", 8001}}));
  s = max_seq();
  c.exec("UPDATE emp SET sal = 100 WHERE empno = 8000");
  CAF_CHECK_EQUAL(changes_after(s), changes({{"emp", 8000}, {"dept", 20}}));
  s = max_seq();
  c.exec("UPDATE emp SET empno = 8002 WHERE empno = 8000");
  CAF_CHECK_EQUAL(changes_after(s), changes({{"emp", 8000}, {"emp", 8002}, {"dept", 20}}));
  s = max_seq();
  c.exec("UPDATE emp SET deptno = 10 WHERE empno = 8001"); // from NULL
  CAF_CHECK_EQUAL(changes_after(s), changes({{"emp", 8001}, {"dept", 10}}));
}

CAF_TEST(an emp moved from dept A to B logs emp A and B) {
  seed();
  c.exec("UPDATE emp SET deptno = 20 WHERE empno = 7499");
  CAF_CHECK_EQUAL(changes_after(), changes({{"emp", 7499}, {"dept", 30}, {"dept", 20}}));
}

CAF_TEST(an emp moved to no dept logs the old dept) {
  seed();
  c.exec("UPDATE emp SET deptno = NULL WHERE empno = 7521");
  CAF_CHECK_EQUAL(changes_after(), changes({{"emp", 7521}, {"dept", 30}}));
}

CAF_TEST(deleting a dept cascades and logs its emps) {
  seed();
  c.exec("DELETE FROM dept WHERE deptno = 30");
  CAF_CHECK_EQUAL(count("SELECT count(*) FROM emp WHERE deptno = 30"), 0);
  // The dept itself, and per employee its emp document and (again) the dept;
  // WARD's mgr was ALLEN, but ALLEN is deleted with him, so no SET NULL update.
  CAF_CHECK_EQUAL(changes_after(), changes({{"dept", 30},
                                            {"emp", 7499},
                                            {"dept", 30},
                                            {"emp", 7521},
                                            {"dept", 30}}));
}

CAF_TEST(deleting a manager logs the employees whose mgr is cleared) {
  seed();
  c.exec("DELETE FROM emp WHERE empno = 7499"); // WARD's manager
  CAF_CHECK_EQUAL(count("SELECT count(*) FROM emp WHERE empno = 7521 AND mgr IS NULL"), 1);
  CAF_CHECK_EQUAL(changes_after(),
                  changes({{"emp", 7499}, {"dept", 30}, {"emp", 7521}, {"dept", 30}}));
}

CAF_TEST(truncate logs one truncate entry per table) {
  seed();
  c.exec("TRUNCATE emp");
  CAF_CHECK_EQUAL(count("SELECT count(*) FROM emp"), 0);
  CAF_CHECK_EQUAL(changes_after(), (std::multiset<change>{{"*", "public.emp"}}));
  // CASCADE truncates emp too: an entry for each table, no row entries.
  auto s = max_seq();
  c.exec("TRUNCATE dept CASCADE");
  CAF_CHECK_EQUAL(changes_after(s), (std::multiset<change>{{"*", "public.dept"}, {"*", "public.emp"}}));
}

CAF_TEST(writes in replica mode are logged like any other) {
  seed();
  // How logical replication applies changes on a subscriber.
  c.exec("SET session_replication_role = replica");
  c.exec("UPDATE dept SET dname = 'REPLICATED' WHERE deptno = 20");
  c.exec("DELETE FROM emp WHERE empno = 7521");
  c.exec("TRUNCATE emp");
  c.exec("RESET session_replication_role");
  auto logged = changes_after();
  CAF_CHECK_EQUAL(logged.count({"*", "public.emp"}), 1u);
  logged.erase({"*", "public.emp"});
  CAF_CHECK_EQUAL(logged, changes({{"dept", 20}, {"emp", 7521}, {"dept", 30}}));
}

CAF_TEST(a version 6 database is migrated and its listeners are cut off) {
  CAF_REQUIRE_EQUAL(demo::ensure_demo_schema(c), pg::schema_version);
  insert_scott_rows(c);
  // What version 6 left, in short: an (entity, id) log written by notifying
  // triggers of its own names, and a listener session.
  c.exec("SELECT restcache_remove_triggers(); DROP TABLE change_log, change_log_digest;"
         "CREATE TABLE change_log (seq bigserial PRIMARY KEY, xid xid8 NOT NULL DEFAULT pg_current_xact_id(),"
         "  entity text NOT NULL, id int NOT NULL, changed_at timestamptz NOT NULL DEFAULT clock_timestamp());"
         "CREATE TABLE change_log_digest (digest_no int);"
         "CREATE FUNCTION restcache_dept_changed() RETURNS trigger LANGUAGE plpgsql AS $$"
         " BEGIN INSERT INTO change_log (entity, id) VALUES ('dept', NEW.deptno);"
         " PERFORM pg_notify('restcache_changes', 'dept:' || NEW.deptno); RETURN NULL; END $$;"
         "CREATE TRIGGER restcache_dept_changed AFTER UPDATE ON dept FOR EACH ROW"
         " EXECUTE FUNCTION restcache_dept_changed();"
         "DELETE FROM restcache_schema; INSERT INTO restcache_schema (version) VALUES (6)");
  c.exec("UPDATE dept SET loc = 'OLD' WHERE deptno = 10");
  pg::connection old_listener{dsn, "restcache-listener"};
  old_listener.exec("LISTEN restcache_changes");
  auto before = std::string{c.exec("SELECT pg_current_xact_id()::text").text(0, 0)};
  CAF_CHECK_EQUAL(demo::ensure_demo_schema(c), pg::schema_version);
  CAF_CHECK_EQUAL(count("SELECT count(*) FROM pg_trigger WHERE tgname = 'restcache_dept_changed'"), 0);
  CAF_CHECK_EQUAL(count("SELECT count(*) FROM pg_proc WHERE proname = 'restcache_dept_changed'"), 0);
  // Its entries cannot be replayed: every watermark at or below the
  // migration drops its tiers.
  CAF_CHECK_EQUAL(count("SELECT count(*) FROM change_log_horizon WHERE pruned_below > '" + before + "'::xid8"), 1);
  // The old listener was terminated (it reconnects, finds no replay of its
  // kind and stays bypassed).
  CAF_CHECK(fails(old_listener, "SELECT 1"));
  c.exec("UPDATE dept SET loc = 'NEW' WHERE deptno = 10");
  CAF_CHECK_EQUAL(changes_after(), changes({{"dept", 10}}));
  // A version 6 build applying its schema to this database fails instead of
  // installing its notifying triggers again.
  CAF_CHECK(fails(c, "ALTER TABLE change_log ADD CONSTRAINT change_log_entity_check"
                     " CHECK (entity IN ('dept', 'emp', 'truncate'))"));
}

CAF_TEST(writes postgresql accepts are accepted under any search path role or commit protocol) {
  seed();
  // The empty search_path of pg_dump's scripts and of logical replication's
  // apply workers.
  c.exec("SET search_path = ''; UPDATE public.dept SET loc = 'NOWHERE' WHERE deptno = 20; RESET search_path");
  // A role granted DML on the watched tables and nothing of restcache's.
  c.exec("CREATE ROLE rc_dml_only LOGIN; GRANT SELECT, INSERT, UPDATE, DELETE ON dept, emp TO rc_dml_only");
  c.exec("SET ROLE rc_dml_only; UPDATE emp SET sal = sal + 1 WHERE empno = 7499;"
         "INSERT INTO dept VALUES (40, 'OPERATIONS', 'BOSTON'); RESET ROLE");
  CAF_CHECK(fails(c, "SET ROLE rc_dml_only; SELECT count(*) FROM change_log"));
  c.exec("RESET ROLE");
  // Two-phase commit.
  c.exec("BEGIN; UPDATE dept SET loc = 'PREPARED' WHERE deptno = 10; PREPARE TRANSACTION 'rc_schema_2pc'");
  CAF_CHECK_EQUAL(count("SELECT count(*) FROM change_log WHERE keys = '{dept:10}'"), 0); // not yet committed
  c.exec("COMMIT PREPARED 'rc_schema_2pc'");
  CAF_CHECK_EQUAL(changes_after(), changes({{"dept", 20}, {"emp", 7499}, {"dept", 30}, {"dept", 40}, {"dept", 10}}));
  c.exec("DROP OWNED BY rc_dml_only; DROP ROLE rc_dml_only");
}

CAF_TEST(a data only dump replays through psql with restcache installed) {
  seed();
  auto src = shared_private_pg().create_database("pg_schema_dump");
  {
    pg::connection s{src};
    demo::ensure_demo_schema(s);
    insert_scott_rows(s);
    s.exec("UPDATE dept SET loc = 'DUMPED'");
  }
  restcache::test::temp_dir dir{"pg_schema_dump"};
  auto file = dir.path + "/data.sql";
  // pg_dump's script sets an empty search_path and COPYs into the
  // schema-qualified tables: the triggers fire under it.
  auto dump = restcache::test::run_program(
    {restcache::test::pg_program("pg_dump"), "--data-only", "--table=dept", "--table=emp", "--file=" + file, src});
  CAF_REQUIRE_EQUAL(dump.status, 0);
  c.exec("TRUNCATE emp, dept");
  auto s = max_seq();
  auto replay = restcache::test::run_program(
    {restcache::test::pg_program("psql"), "-X", "-q", "-v", "ON_ERROR_STOP=1", "-f", file, dsn});
  CAF_CHECK_EQUAL(replay.status, 0);
  if (replay.status != 0)
    CAF_MESSAGE("psql: " << replay.err);
  CAF_CHECK_EQUAL(count("SELECT count(*) FROM dept WHERE loc = 'DUMPED'"), 3);
  auto logged = changes_after(s);
  CAF_CHECK_EQUAL(logged.count({"dept", "10"}), 3u); // the row, and its two employees
  CAF_CHECK_EQUAL(logged.count({"emp", "7839"}), 1u);
  CAF_CHECK_EQUAL(logged.size(), 3u + 2u * 5u);
  shared_private_pg().drop_database(src);
}

CAF_TEST(installing the triggers repairs what administration undid and leaves the rest alone) {
  seed();
  CAF_CHECK_EQUAL(count("SELECT restcache_install_triggers()"), 0); // all in place
  auto logged_in_replica_mode = [&] {
    auto s = max_seq();
    c.exec("SET session_replication_role = replica; UPDATE dept SET loc = 'R' WHERE deptno = 10;"
           "RESET session_replication_role");
    return max_seq() > s;
  };
  CAF_CHECK(logged_in_replica_mode());
  // What pg_restore --disable-triggers runs: back to origin mode.
  auto before_ddl = max_seq();
  c.exec("ALTER TABLE dept DISABLE TRIGGER ALL; ALTER TABLE dept ENABLE TRIGGER ALL");
  // The event trigger logged both statements, for instances to check at once.
  CAF_CHECK_EQUAL(changes_after(before_ddl, true), (std::multiset<change>{{"!", "public.dept"}, {"!", "public.dept"}}));
  CAF_CHECK(!logged_in_replica_mode());
  CAF_CHECK_EQUAL(count("SELECT restcache_install_triggers()"), 2); // both of dept's
  CAF_CHECK(logged_in_replica_mode());
  // A table dropped and recreated: no triggers until installed again.
  c.exec("CREATE TABLE emp_copy AS SELECT * FROM emp; DROP TABLE emp CASCADE;"
         "ALTER TABLE emp_copy RENAME TO emp");
  auto s = max_seq();
  c.exec("UPDATE emp SET sal = 1 WHERE empno = 7499");
  CAF_CHECK_EQUAL(max_seq(), s);
  CAF_CHECK_EQUAL(count("SELECT restcache_install_triggers()"), 2);
  c.exec("UPDATE emp SET sal = 2 WHERE empno = 7499");
  CAF_CHECK_EQUAL(changes_after(s), changes({{"emp", 7499}, {"dept", 30}}));
}

CAF_TEST(a key column renamed or dropped fails no write and logs its table whole with or without event triggers) {
  seed();
  auto guarded = [&] {
    return count("SELECT count(*) FROM pg_proc WHERE proname LIKE 'restcache_changed_emp_%'"
                 " AND prosrc LIKE '%EXCEPTION WHEN OTHERS%'")
           == 1;
  };
  // A superuser's install follows DDL as it happens: no guard on the writers' path.
  CAF_CHECK(!guarded());
  pg::connection writer{dsn};
  auto logged = [&](const std::string& sql) {
    auto s = max_seq();
    writer.exec(sql); // throws, failing the test, when the write fails
    return changes_after(s);
  };
  for (bool followed : {true, false}) {
    CAF_MESSAGE("DDL followed by event triggers: " << followed);
    if (!followed) {
      // A non-superuser install has no event triggers: the functions, generated
      // again, guard their reads.
      c.exec("DROP EVENT TRIGGER restcache_ddl_end; DROP EVENT TRIGGER restcache_ddl_drop");
      CAF_CHECK_EQUAL(count("SELECT restcache_define_trigger_functions()"), 2);
      CAF_CHECK(guarded());
    }
    c.exec("ALTER TABLE emp RENAME COLUMN deptno TO dept_no");
    // Every kind of write succeeds and names every document of the table
    // (followed: regenerated without the column, its other keys still named;
    // guarded: the guard's table-wide entry alone).
    auto update = logged("UPDATE emp SET sal = sal + 1 WHERE empno = 7499");
    CAF_CHECK_EQUAL(update.count({"*", "public.emp"}), 1u);
    CAF_CHECK_EQUAL(update.count({"emp", "7499"}), followed ? 1u : 0u);
    CAF_CHECK_EQUAL(logged("INSERT INTO emp (empno, ename, dept_no) VALUES (9001, 'NEW', 20)").count({"*", "public.emp"}),
                    1u);
    CAF_CHECK_EQUAL(logged("DELETE FROM emp WHERE empno = 9001").count({"*", "public.emp"}), 1u);
    CAF_CHECK_EQUAL(logged("UPDATE emp SET dept_no = 10 WHERE empno = 7521").count({"*", "public.emp"}), 1u);
    // Renamed back: each key named again.
    c.exec("ALTER TABLE emp RENAME COLUMN dept_no TO deptno");
    CAF_CHECK_EQUAL(logged("UPDATE emp SET sal = sal + 1 WHERE empno = 7499"), changes({{"emp", 7499}, {"dept", 30}}));
    // Dropped, with a cascade from dept writing through the trigger.
    c.exec("ALTER TABLE emp DROP COLUMN deptno");
    CAF_CHECK_EQUAL(logged("UPDATE emp SET sal = sal + 1 WHERE empno = 7499").count({"*", "public.emp"}), 1u);
    CAF_CHECK_EQUAL(logged("DELETE FROM emp WHERE empno = 7521").count({"*", "public.emp"}), 1u);
    c.exec("ALTER TABLE emp ADD COLUMN deptno int REFERENCES dept ON DELETE CASCADE;"
           "UPDATE emp SET deptno = 30 WHERE empno = 7499");
    CAF_CHECK_EQUAL(logged("DELETE FROM dept WHERE deptno = 30"),
                    changes({{"dept", 30}, {"emp", 7499}, {"dept", 30}}));
    // Back as it was for the next round.
    writer.exec("INSERT INTO dept VALUES (30, 'SALES', 'CHICAGO');"
                "INSERT INTO emp VALUES (7499, 'ALLEN', 'SALESMAN', 7839, '1981-02-20', 1600, 300, 30),"
                "  (7521, 'WARD', 'SALESMAN', 7499, '1981-02-22', 1250, 500, 30)");
    CAF_CHECK_EQUAL(guarded(), !followed);
  }
}

CAF_TEST(writers never prune the log and its age bound is kept by whoever prunes) {
  seed();
  c.exec("INSERT INTO change_log (keys, changed_at)"
         " SELECT ARRAY['dept:10'], now() - interval '8 days' FROM generate_series(1, 50)");
  c.exec("UPDATE change_log_horizon SET max_age = '7 days'");
  auto horizon_before = std::string{c.exec("SELECT pruned_below::text FROM change_log_horizon").text(0, 0)};
  c.exec("SELECT setval('change_log_seq', 19999)");
  c.exec("UPDATE dept SET dname = 'NOT PRUNED' WHERE deptno = 20");
  CAF_CHECK_EQUAL(count("SELECT count(*) FROM change_log WHERE changed_at < now() - interval '7 days'"), 50);
  CAF_CHECK_EQUAL(count("SELECT restcache_prune_change_log()"), 50); // operators, and instances, call it
  CAF_CHECK_EQUAL(changes_after(), changes({{"dept", 20}}));
  auto horizon_after = std::string{c.exec("SELECT pruned_below::text FROM change_log_horizon").text(0, 0)};
  CAF_CHECK_NOT_EQUAL(horizon_after, horizon_before); // readers behind it drop their tiers
  auto size = pg::measure_change_log(c);
  CAF_CHECK_GREATER(size.bytes, 0);
  CAF_CHECK_LESS(size.oldest_age_s, 3600.0);
}

CAF_TEST(uninstall removes what restcache installed and keeps the data) {
  seed();
  auto depts = count("SELECT count(*) FROM dept");
  pg::store_declarations(c, "format = 1\n", "/etc/restcache/documents.toml");
  CAF_CHECK(pg::read_stored_declarations(c).has_value());
  pg::uninstall_schema(c);
  CAF_CHECK(!pg::read_stored_declarations(c).has_value());
  CAF_CHECK_EQUAL(pg::installed_schema_version(c), 0);
  CAF_CHECK_EQUAL(count("SELECT count(*) FROM pg_trigger WHERE NOT tgisinternal"), 0);
  CAF_CHECK_EQUAL(count("SELECT count(*) FROM pg_proc WHERE proname LIKE 'restcache%'"), 0);
  CAF_CHECK_EQUAL(count("SELECT count(*) FROM pg_class WHERE relname IN ('change_log', 'change_log_horizon', 'change_log_digest',"
                        " 'restcache_schema', 'restcache_watched_key', 'restcache_declarations', 'change_log_seq')"),
                  0);
  CAF_CHECK_EQUAL(count("SELECT count(*) FROM dept"), depts);
  c.exec("UPDATE dept SET dname = 'UNWATCHED' WHERE deptno = 10"); // no trigger left to fail
  pg::uninstall_schema(c); // twice is fine
  CAF_CHECK_EQUAL(demo::ensure_demo_schema(c), pg::schema_version); // and it installs again
  c.exec("UPDATE dept SET dname = 'WATCHED' WHERE deptno = 10");
  CAF_CHECK_EQUAL(changes_after(), changes({{"dept", 10}}));
}

CAF_TEST(change log xid is the writing transaction id) {
  seed();
  c.exec("BEGIN");
  c.exec("UPDATE dept SET dname = 'R&D' WHERE deptno = 20");
  c.exec("UPDATE emp SET sal = 3000 WHERE empno = 7566");
  auto xid = std::string{c.exec("SELECT pg_current_xact_id()::text").text(0, 0)};
  c.exec("COMMIT");
  auto r = c.exec("SELECT DISTINCT xid::text FROM change_log");
  CAF_REQUIRE_EQUAL(r.rows(), 1);
  CAF_CHECK_EQUAL(std::string{r.text(0, 0)}, xid);
  CAF_CHECK_EQUAL(count("SELECT count(*) FROM change_log"), 2); // a row per changed row
  // Another transaction, another xid.
  c.exec("UPDATE dept SET dname = 'X' WHERE deptno = 10");
  CAF_CHECK_EQUAL(count("SELECT count(DISTINCT xid) FROM change_log"), 2);
}

// -- statements ---------------------------------------------------------------

CAF_TEST(fetch_deptemps returns the dept and its emps ordered by empno) {
  seed();
  pg::prepare_statements(c);
  c.exec("INSERT INTO emp (empno, deptno) VALUES (7000, 30)"); // all other columns NULL
  auto d = demo::fetch_deptemps(c, 30);
  CAF_REQUIRE(d.has_value());
  CAF_CHECK_EQUAL(d->dept.deptno, 30);
  CAF_CHECK_EQUAL(d->dept.dname, std::optional<std::string>{"SALES"});
  CAF_CHECK_EQUAL(d->dept.loc, std::optional<std::string>{"CHICAGO"});
  CAF_REQUIRE_EQUAL(d->emps.size(), 3u);
  CAF_CHECK_EQUAL(d->emps[0].empno, 7000);
  CAF_CHECK_EQUAL(d->emps[1].empno, 7499);
  CAF_CHECK_EQUAL(d->emps[2].empno, 7521);
  const auto& blank = d->emps[0];
  CAF_CHECK(!blank.ename && !blank.job && !blank.mgr && !blank.hiredate && !blank.sal
            && !blank.comm);
  CAF_CHECK_EQUAL(blank.deptno, std::optional<int32_t>{30});
  const auto& ward = d->emps[2];
  CAF_CHECK_EQUAL(ward.ename, std::optional<std::string>{"WARD"});
  CAF_CHECK_EQUAL(ward.job, std::optional<std::string>{"SALESMAN"});
  CAF_CHECK_EQUAL(ward.mgr, std::optional<int32_t>{7499});
  CAF_CHECK_EQUAL(ward.hiredate, std::optional<std::string>{"1981-02-22"});
  CAF_CHECK_EQUAL(ward.sal, std::optional<int32_t>{1250});
  CAF_CHECK_EQUAL(ward.comm, std::optional<int32_t>{500});
  CAF_CHECK_EQUAL(ward.deptno, std::optional<int32_t>{30});
  // KING has no mgr and no comm.
  auto acc = demo::fetch_deptemps(c, 10);
  CAF_REQUIRE(acc.has_value());
  CAF_REQUIRE_EQUAL(acc->emps.size(), 2u);
  CAF_CHECK_EQUAL(acc->emps[0].empno, 7782);
  CAF_CHECK_EQUAL(acc->emps[1].empno, 7839);
  CAF_CHECK(!acc->emps[1].mgr && !acc->emps[1].comm);
}

CAF_TEST(fetch_deptemps handles missing depts empty depts and null columns) {
  seed();
  CAF_CHECK(!demo::fetch_deptemps(c, 99).has_value()); // prepares lazily
  c.exec("INSERT INTO dept (deptno) VALUES (60)");
  auto d = demo::fetch_deptemps(c, 60);
  CAF_REQUIRE(d.has_value());
  CAF_CHECK_EQUAL(d->dept.deptno, 60);
  CAF_CHECK(!d->dept.dname && !d->dept.loc);
  CAF_CHECK(d->emps.empty());
  // A session with another DateStyle still gets ISO dates.
  c.exec("SET DateStyle = 'SQL, DMY'");
  auto r = demo::fetch_deptemps(c, 20);
  CAF_REQUIRE(r.has_value());
  CAF_REQUIRE_EQUAL(r->emps.size(), 1u);
  CAF_CHECK_EQUAL(r->emps[0].hiredate, std::optional<std::string>{"1981-04-02"});
}

CAF_TEST(a statement whose column is missing is prepared at its first use once the column is back) {
  seed();
  c.exec("ALTER TABLE dept RENAME COLUMN loc TO location");
  pg::prepare_statements(c); // the others are prepared
  CAF_CHECK(!c.is_prepared(demo::deptemps_statement()));
  CAF_CHECK(c.is_prepared(demo::emp_statement()));
  CAF_CHECK(demo::fetch_emp(c, 7521).has_value());
  std::string sqlstate;
  try {
    demo::fetch_deptemps(c, 30);
  } catch (const pg::error& e) {
    sqlstate = e.sqlstate();
  }
  CAF_CHECK_EQUAL(sqlstate, "42703"); // undefined_column, mapped to a 503
  c.exec("ALTER TABLE dept RENAME COLUMN location TO loc");
  auto d = demo::fetch_deptemps(c, 30);
  CAF_REQUIRE(d.has_value());
  CAF_CHECK_EQUAL(d->dept.loc, std::optional<std::string>{"CHICAGO"});
  CAF_CHECK(c.is_prepared(demo::deptemps_statement()));
}

CAF_TEST(fetch_deptemps is one round trip) {
  seed();
  pg::prepare_statements(c);
  c.exec("SELECT pg_stat_statements_reset()");
  for (int i = 0; i < 3; ++i)
    CAF_CHECK(demo::fetch_deptemps(c, 30).has_value());
  // Only this connection uses this database: three fetches, three statements.
  auto r = c.exec("SELECT coalesce(sum(calls), 0),"
                  "       coalesce(sum(calls) FILTER (WHERE query LIKE '%LEFT JOIN emp e%'), 0)"
                  "  FROM pg_stat_statements"
                  " WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())"
                  "   AND query NOT LIKE '%pg_stat_statements%'");
  CAF_CHECK_EQUAL(r.int64(0, 0), 3);
  CAF_CHECK_EQUAL(r.int64(0, 1), 3);
}

CAF_TEST(fetch_emp returns one employee with nulls as empty optionals) {
  seed();
  auto king = demo::fetch_emp(c, 7839);
  CAF_REQUIRE(king.has_value());
  CAF_CHECK_EQUAL(king->ename, std::optional<std::string>{"KING"});
  CAF_CHECK(!king->mgr && !king->comm);
  CAF_CHECK_EQUAL(king->hiredate, std::optional<std::string>{"1981-11-17"});
  CAF_CHECK_EQUAL(king->deptno, std::optional<int32_t>{10});
  CAF_CHECK(!demo::fetch_emp(c, 1).has_value());
}

CAF_TEST(a populate page is whole documents of its kind in key order) {
  seed();
  c.exec("INSERT INTO dept (deptno) VALUES (40)"); // no employees
  const auto& kind = doc_kind_info(demo::deptemps_kind);
  CAF_CHECK_EQUAL(pg::count_documents(c, kind), 4);
  auto first = pg::read_page(c, kind, std::string{first_key(kind.key)}, 2);
  CAF_REQUIRE_EQUAL(first.documents.size(), 2u);
  CAF_CHECK(first.documents[0].first == (doc_key{demo::deptemps_kind, 10}));
  CAF_CHECK(first.documents[1].first == (doc_key{demo::deptemps_kind, 20}));
  CAF_CHECK_EQUAL(first.last_key, "20");
  // Each page's documents are the single-document statement's, byte for byte.
  for (auto& [key, body] : first.documents)
    CAF_CHECK_EQUAL(body, pg::read_document(c, key));
  CAF_CHECK(first.documents[0].second.find("7782") < first.documents[0].second.find("7839")); // by empno
  auto second = pg::read_page(c, kind, first.last_key, 2);
  CAF_REQUIRE_EQUAL(second.documents.size(), 2u);
  CAF_CHECK(second.documents[1].first == (doc_key{demo::deptemps_kind, 40}));
  CAF_CHECK_EQUAL(second.documents[1].second, pg::read_document(c, {demo::deptemps_kind, 40}));
  auto end = pg::read_page(c, kind, "40", 2);
  CAF_CHECK_EQUAL(end.rows, 0);
  CAF_CHECK(end.documents.empty());
}

CAF_TEST(fetch_dept_ids lists every dept ascending across pages) {
  seed();
  // More than one page (100,000 ids per page), and a negative id.
  c.exec("SET session_replication_role = replica;"
         "INSERT INTO dept (deptno) SELECT g FROM generate_series(1000, 101099) g;"
         "INSERT INTO dept (deptno) VALUES (-5);"
         "RESET session_replication_role");
  auto ids = demo::fetch_dept_ids(c);
  CAF_CHECK_EQUAL(ids.size(), 100100u + 3u + 1u);
  CAF_CHECK(std::is_sorted(ids.begin(), ids.end()));
  CAF_CHECK(std::adjacent_find(ids.begin(), ids.end()) == ids.end());
  CAF_REQUIRE(!ids.empty());
  CAF_CHECK_EQUAL(ids.front(), -5);
  CAF_CHECK_EQUAL(ids.back(), 101099);
  CAF_CHECK(std::binary_search(ids.begin(), ids.end(), 10));
  CAF_CHECK(std::binary_search(ids.begin(), ids.end(), 30));
  // An empty table gives an empty list.
  c.exec("TRUNCATE dept, emp");
  CAF_CHECK(demo::fetch_dept_ids(c).empty());
}

// -- connection ---------------------------------------------------------------

CAF_TEST(a failed statement reports its SQLSTATE and keeps the connection) {
  seed();
  bool thrown = false;
  try {
    c.exec("INSERT INTO dept VALUES (10, 'dup', 'dup')");
  } catch (const pg::error& e) {
    thrown = true;
    CAF_CHECK_EQUAL(e.sqlstate(), "23505"); // unique_violation
    CAF_CHECK(!e.connection_lost());
    CAF_CHECK(std::string{e.what()}.find("duplicate key") != std::string::npos);
  }
  CAF_CHECK(thrown);
  CAF_CHECK(c.ok());
  CAF_CHECK_EQUAL(c.exec_params("SELECT $1::int + 1", {std::string{"41"}}).int64(0, 0), 42);
  auto r = c.exec_params("SELECT $1::text IS NULL", {std::nullopt});
  CAF_CHECK_EQUAL(r.text(0, 0), "t");
  // prepare is idempotent for the same text and refuses another one.
  c.prepare("p1", "SELECT 1");
  c.prepare("p1", "SELECT 1");
  CAF_CHECK(c.is_prepared("p1"));
  thrown = false;
  try {
    c.prepare("p1", "SELECT 2");
  } catch (const pg::error&) {
    thrown = true;
  }
  CAF_CHECK(thrown);
  CAF_CHECK_EQUAL(c.exec_prepared("p1", {}).int64(0, 0), 1);
}

CAF_TEST(a terminated backend is reported as a lost connection) {
  auto pid = c.exec("SELECT pg_backend_pid()").int64(0, 0);
  pg::connection other{dsn};
  other.exec_params("SELECT pg_terminate_backend($1::int)", {std::to_string(pid)});
  bool lost = false;
  // The server closes the socket asynchronously; the first statement after
  // that fails (libpq may need one attempt to notice).
  for (int i = 0; i < 50 && !lost; ++i) {
    try {
      c.exec("SELECT 1");
      std::this_thread::sleep_for(20ms);
    } catch (const pg::error& e) {
      lost = e.connection_lost();
      CAF_CHECK(lost);
    }
  }
  CAF_CHECK(lost);
  CAF_CHECK(!c.ok());
}

CAF_TEST(connecting to nowhere throws a clear error) {
  bool thrown = false;
  try {
    pg::connection bad{"host=127.0.0.1 port=1 connect_timeout=5"};
  } catch (const pg::error& e) {
    thrown = true;
    CAF_CHECK(e.connection_lost());
    CAF_CHECK(std::string{e.what()}.find("cannot connect to PostgreSQL") != std::string::npos);
  }
  CAF_CHECK(thrown);
}

CAF_TEST_FIXTURE_SCOPE_END()
