// SPDX-License-Identifier: Apache-2.0
#define CAF_SUITE catalog_drift
#include "persistence/pg/catalog_drift.hpp"

#include <caf/test/dsl.hpp>

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "demo/demo_catalogue.hpp"
#include "persistence/pg/connection.hpp"
#include "demo/data_generator.hpp"
#include "persistence/pg/schema.hpp"
#include "test/fixtures/child_program.hpp"
#include "test/fixtures/private_pg.hpp"
#include "test/fixtures/test_support.hpp"

using namespace restcache;
using restcache::test::insert_scott_rows;
using restcache::test::shared_private_pg;

namespace {

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

/// The facts of a table as installed and untouched.
pg::table_facts healthy(const watched_table& t) {
  pg::table_facts f;
  f.name = t.name;
  f.exists = true;
  f.qualified = "public." + t.name;
  f.oid = "100";
  for (auto* trg : {&f.changed, &f.truncated}) {
    trg->present = true;
    trg->id = "1/2/3/4";
    trg->enabled = 'A';
    trg->calls_generated = true;
    trg->source_current = true;
  }
  f.changed.type = 29;
  f.truncated.type = 32;
  for (const auto& col : t.columns)
    f.columns.push_back({col, "1/23/-1/5"});
  f.watched = t.keys;
  return f;
}

pg::catalog_facts healthy(const std::vector<watched_table>& tables) {
  pg::catalog_facts f;
  f.log_id = "7/7";
  for (const auto& t : tables)
    f.tables.push_back(healthy(t));
  return f;
}

size_t index_of(const std::vector<watched_table>& tables, const std::string& name) {
  for (size_t i = 0; i < tables.size(); ++i)
    if (tables[i].name == name)
      return i;
  CAF_FAIL("no table " << name);
  return 0;
}

} // namespace

// -- judging (no server) --------------------------------------------------------

CAF_TEST(the catalogue kinds read dept and emp and need their keys logged) {
  auto tables = watched_tables();
  CAF_REQUIRE_EQUAL(tables.size(), 2u);
  auto& emp = tables[index_of(tables, "emp")];
  CAF_CHECK_EQUAL(emp.kinds, kind_bit(demo::deptemps_kind) | kind_bit(demo::emp_kind) | kind_bit(demo::dept_kind));
  CAF_CHECK(std::find(emp.keys.begin(), emp.keys.end(), "emp:empno") != emp.keys.end());
  CAF_CHECK(std::find(emp.keys.begin(), emp.keys.end(), "dept:deptno") != emp.keys.end());
  CAF_CHECK_EQUAL(tables[index_of(tables, "dept")].kinds, kind_bit(demo::deptemps_kind) | kind_bit(demo::dept_kind));
  CAF_CHECK_EQUAL(kind_names(kind_bit(demo::emp_kind) | kind_bit(demo::dept_kind)), "emp, dept");
}

CAF_TEST(an installed catalog has no problem and the same facts give the same fingerprint) {
  auto tables = watched_tables();
  auto a = pg::judge_catalog(healthy(tables), tables);
  CAF_CHECK_EQUAL(a.drifted, 0u);
  CAF_CHECK_EQUAL(a.problems(), "");
  CAF_CHECK_EQUAL(pg::judge_catalog(healthy(tables), tables).fingerprint, a.fingerprint);
  CAF_CHECK(pg::fingerprint_changes(a.fingerprint, a.fingerprint).empty());
}

CAF_TEST(each kind of drift names what is wrong and bypasses only the kinds that read the table) {
  auto tables = watched_tables();
  auto dept = index_of(tables, "dept"), emp = index_of(tables, "emp");
  struct drift_case {
    size_t table;
    std::function<void(pg::table_facts&)> change;
    std::string says;
  };
  std::vector<drift_case> cases{
    {dept, [](auto& f) { f.changed.enabled = 'D'; }, "restcache_changed on public.dept is disabled"},
    {dept, [](auto& f) { f.truncated.enabled = 'O'; }, "restcache_truncated on public.dept fires in origin mode only"},
    {emp, [](auto& f) { f.changed.present = false; }, "public.emp has no trigger restcache_changed"},
    {emp, [](auto& f) { f.changed.calls_generated = false; }, "does not call restcache's generated function"},
    {emp, [](auto& f) { f.changed.source_current = false; }, "is not as restcache generates it now"},
    {emp, [](auto& f) { f.changed.conditional = true; }, "is not defined as restcache defines it"},
    {emp, [](auto& f) { f.columns[5].id.clear(); }, "column public.emp.sal does not exist"},
    {emp, [](auto& f) { f.watched.clear(); }, "public.emp does not log key emp:empno"},
    {emp, [](auto& f) { f.exists = false; }, "table emp does not exist"},
    {emp, [](auto& f) { f.descendants.back().changed.enabled = 'D'; },
     "restcache_changed on public.emp_1 (a partition of public.emp) is disabled"},
    {emp, [](auto& f) { f.descendants.back().truncated.present = false; },
     "public.emp_1 (a partition of public.emp) has no trigger restcache_truncated"},
    {emp, [](auto& f) { f.descendants.back().watched = true; },
     "public.emp_1 (a partition of public.emp) is watched itself: its changes would log its own keys"},
  };
  for (auto& c : cases) {
    auto facts = healthy(tables);
    // emp partitioned: its partition's triggers as installed.
    auto partition = facts.tables[emp];
    facts.tables[emp].descendants.push_back({"public.emp_1", "101", true, false, partition.changed, partition.truncated});
    CAF_CHECK_EQUAL(pg::judge_catalog(facts, tables).problems(), "");
    c.change(facts.tables[c.table]);
    auto r = pg::judge_catalog(facts, tables);
    CAF_MESSAGE(r.problems());
    CAF_CHECK(has(r.problems(), c.says));
    CAF_CHECK_EQUAL(r.drifted, tables[c.table].kinds);
  }
  // dept's drift leaves the employee document cached.
  auto facts = healthy(tables);
  facts.tables[dept].changed.enabled = 'D';
  CAF_CHECK_EQUAL(pg::judge_catalog(facts, tables).drifted & kind_bit(demo::emp_kind), 0u);
  // No log: every kind.
  facts = healthy(tables);
  facts.log_id.clear();
  auto r = pg::judge_catalog(facts, tables);
  CAF_CHECK(has(r.problems(), "the change log (change_log) does not exist"));
  CAF_CHECK_EQUAL(r.drifted, tables[dept].kinds | tables[emp].kinds);
}

CAF_TEST(a fingerprint change drops only the kinds that read the changed table) {
  auto tables = watched_tables();
  auto before = pg::judge_catalog(healthy(tables), tables).fingerprint;
  auto dept = index_of(tables, "dept"), emp = index_of(tables, "emp");
  auto kinds_after = [&](auto change) {
    auto facts = healthy(tables);
    change(facts);
    return pg::fingerprint_kinds(before, pg::judge_catalog(facts, tables).fingerprint, tables);
  };
  const uint64_t all = tables[dept].kinds | tables[emp].kinds;
  CAF_CHECK_EQUAL(kinds_after([](pg::catalog_facts&) {}), 0u);
  CAF_CHECK_EQUAL(kinds_after([&](pg::catalog_facts& f) { f.tables[dept].oid += "1"; }), tables[dept].kinds);
  CAF_CHECK_EQUAL(kinds_after([&](pg::catalog_facts& f) { f.tables[emp].oid += "1"; }), tables[emp].kinds);
  CAF_CHECK_EQUAL(kinds_after([&](pg::catalog_facts& f) { f.log_id = "1/2"; }), all);
  CAF_CHECK_EQUAL(pg::fingerprint_kinds("", before, tables), all); // nothing known
  // The department kinds read dept; the employee kind does not.
  CAF_CHECK((tables[dept].kinds & kind_bit(demo::emp_kind)) == 0);
  CAF_CHECK_EQUAL(pg::kinds_of_table(tables, "public.dept"), tables[dept].kinds);
  CAF_CHECK_EQUAL(pg::kinds_of_table(tables, "emp"), tables[emp].kinds);
  CAF_CHECK_EQUAL(pg::kinds_of_table(tables, "other.unknown"), all);
}

CAF_TEST(what the documents read is compared across a switch of feed without the feeds own objects) {
  auto tables = watched_tables();
  auto emp = index_of(tables, "emp");
  auto triggers = healthy(tables);
  auto wal = healthy(tables);
  wal.feed = feed_kind::wal;
  wal.wal.recorded_feed = "wal";
  wal.wal.publication = "16500:900";
  wal.wal.publishes_all = true;
  for (auto& t : wal.tables) {
    t.changed = {};   // retired
    t.truncated = {};
  }
  const auto of = [&](const pg::catalog_facts& f) {
    return pg::fingerprint_of_documents(pg::judge_catalog(f, tables).fingerprint);
  };
  // The triggers gone and the publication there: the same documents.
  CAF_CHECK_EQUAL(of(triggers), of(wal));
  CAF_CHECK_NOT_EQUAL(pg::judge_catalog(triggers, tables).fingerprint, pg::judge_catalog(wal, tables).fingerprint);
  // A column read, the table itself, a partition or the log: not the same.
  auto column = wal;
  column.tables[emp].columns[5].id = "6/20/-1/9";
  CAF_CHECK_NOT_EQUAL(of(triggers), of(column));
  auto table = wal;
  table.tables[emp].oid = "200";
  CAF_CHECK_NOT_EQUAL(of(triggers), of(table));
  auto partition = wal;
  partition.tables[emp].descendants.push_back({"public.emp_1", "101", true, false, {}, {}});
  CAF_CHECK_NOT_EQUAL(of(triggers), of(partition));
  auto log = wal;
  log.log_id = "1/2";
  CAF_CHECK_NOT_EQUAL(of(triggers), of(log));
  // Under the WAL feed a trigger installed again is no change at all.
  auto reinstalled = wal;
  reinstalled.tables[emp].changed.id = "1/9/3/4";
  CAF_CHECK_EQUAL(pg::judge_catalog(reinstalled, tables).fingerprint, pg::judge_catalog(wal, tables).fingerprint);
}

CAF_TEST(a fingerprint change says which table changed and how) {
  auto tables = watched_tables();
  auto emp = index_of(tables, "emp");
  auto before = pg::judge_catalog(healthy(tables), tables).fingerprint;
  auto changed = [&](auto change) {
    auto facts = healthy(tables);
    change(facts);
    auto lines = pg::fingerprint_changes(before, pg::judge_catalog(facts, tables).fingerprint);
    std::string all;
    for (auto& l : lines)
      all += l + "\n";
    CAF_MESSAGE(all);
    return all;
  };
  CAF_CHECK(has(changed([&](auto& f) { f.tables[emp].changed.id = "1/9/3/4"; }),
                "table emp: its restcache triggers were created, altered or dropped"));
  CAF_CHECK(has(changed([&](auto& f) { f.tables[emp].columns[5].id = "6/20/-1/9"; }),
                "table emp: a column its documents read was altered, dropped or added"));
  CAF_CHECK(has(changed([&](auto& f) { f.tables[emp].oid = "200"; }), "table emp is another table now"));
  CAF_CHECK(has(changed([&](auto& f) {
                  f.tables[emp].descendants.push_back({"public.emp_1", "101", true, false, {}, {}});
                }),
                "table emp: its partitions or inheriting tables, or restcache's triggers on them, changed"));
  CAF_CHECK(has(changed([&](auto& f) { f.log_id = "7/8"; }), "the change log was truncated or recreated"));
  CAF_CHECK(!has(changed([&](auto& f) { f.log_id = "7/8"; }), "table emp"));
}

// -- against PostgreSQL -----------------------------------------------------------

namespace {

struct fixture {
  std::string dsn;
  pg::connection c;
  std::vector<watched_table> tables = watched_tables();

  fixture() : dsn(shared_private_pg().create_database("catalog_drift")), c(dsn) {
    CAF_REQUIRE_EQUAL(demo::ensure_demo_schema(c), pg::schema_version);
    insert_scott_rows(c);
  }
  ~fixture() {
    c = pg::connection{shared_private_pg().dsn("postgres")};
    shared_private_pg().drop_database(dsn);
  }
  pg::drift_report check() {
    auto r = pg::judge_catalog(pg::read_catalog_facts(c, tables), tables);
    CAF_MESSAGE("problems: " << r.problems());
    return r;
  }
  int64_t repair() { return c.exec("SELECT restcache_install_triggers()").int64(0, 0); }
};

} // namespace

CAF_TEST_FIXTURE_SCOPE(catalog_drift_tests, fixture)

CAF_TEST(what administrators do to the watched tables is seen and the repair clears it) {
  auto installed = check();
  CAF_REQUIRE_EQUAL(installed.drifted, 0u);
  // Installing again changes nothing an instance watches.
  CAF_CHECK_EQUAL(repair(), 0);
  CAF_CHECK_EQUAL(check().fingerprint, installed.fingerprint);
  // Ordinary writes and a VACUUM FULL (a rewrite that changes no value) are no drift.
  c.exec("UPDATE emp SET sal = sal + 1");
  c.exec("VACUUM FULL emp");
  c.exec("ANALYZE emp");
  CAF_CHECK_EQUAL(check().fingerprint, installed.fingerprint);

  // Disabled: a problem; enabled again ALWAYS, no problem but another
  // fingerprint (writes in between went unseen).
  c.exec("ALTER TABLE emp DISABLE TRIGGER restcache_changed");
  auto disabled = check();
  CAF_CHECK(has(disabled.problems(), "restcache_changed on public.emp is disabled"));
  CAF_CHECK_EQUAL(disabled.drifted, tables[1].kinds | tables[0].kinds);
  c.exec("ALTER TABLE emp ENABLE ALWAYS TRIGGER restcache_changed");
  auto toggled = check();
  CAF_CHECK_EQUAL(toggled.drifted, 0u);
  CAF_CHECK_NOT_EQUAL(toggled.fingerprint, installed.fingerprint);

  // ENABLE TRIGGER ALL (pg_restore --disable-triggers ends with it): origin mode.
  c.exec("ALTER TABLE dept DISABLE TRIGGER ALL; ALTER TABLE dept ENABLE TRIGGER ALL");
  auto origin = check();
  CAF_CHECK(has(origin.problems(), "restcache_changed on public.dept fires in origin mode only"));
  CAF_CHECK_EQUAL(origin.drifted & kind_bit(demo::emp_kind), 0u); // the employee document reads no dept
  CAF_CHECK_EQUAL(repair(), 2);
  CAF_CHECK_EQUAL(check().drifted, 0u);

  // A column's type altered (a rewrite that fires no row trigger).
  auto before_type = check().fingerprint;
  c.exec("ALTER TABLE emp ALTER COLUMN sal TYPE bigint");
  auto retyped = check();
  CAF_CHECK_EQUAL(retyped.drifted, 0u);
  auto what = pg::fingerprint_changes(before_type, retyped.fingerprint);
  CAF_REQUIRE_EQUAL(what.size(), 1u);
  CAF_CHECK(has(what[0], "a column its documents read was altered"));
  // The same type again, through USING: still seen.
  c.exec("ALTER TABLE emp ALTER COLUMN sal TYPE bigint USING sal * 2");
  CAF_CHECK_NOT_EQUAL(check().fingerprint, retyped.fingerprint);

  // A column dropped: a problem naming it, until it is back.
  c.exec("ALTER TABLE emp DROP COLUMN comm");
  CAF_CHECK(has(check().problems(), "column public.emp.comm does not exist"));
  c.exec("ALTER TABLE emp ADD COLUMN comm int");
  CAF_CHECK_EQUAL(check().drifted, 0u);

  // A table swapped by RENAME: another table, without triggers, until repaired.
  auto before_swap = check().fingerprint;
  c.exec("CREATE TABLE emp_new (LIKE emp INCLUDING ALL); INSERT INTO emp_new SELECT * FROM emp;"
         "ALTER TABLE emp RENAME TO emp_old; ALTER TABLE emp_new RENAME TO emp");
  auto swapped = check();
  CAF_CHECK(has(swapped.problems(), "public.emp has no trigger restcache_changed"));
  CAF_CHECK(has(pg::fingerprint_changes(before_swap, swapped.fingerprint).at(0), "is another table now"));
  CAF_CHECK_EQUAL(repair(), 2);
  CAF_CHECK_EQUAL(check().drifted, 0u);

  // The generated function edited by hand.
  c.exec("CREATE OR REPLACE FUNCTION " + std::string{c.exec("SELECT restcache_trigger_function('public', 'dept')").text(0, 0)}
         + "() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp"
           " AS $$ BEGIN RETURN NULL; END $$");
  CAF_CHECK(has(check().problems(), "is not as restcache generates it now"));
  CAF_CHECK_EQUAL(repair(), 0); // the triggers were right; the function is rewritten
  CAF_CHECK_EQUAL(check().drifted, 0u);

  // The event triggers dropped: DDL is no longer followed as it happens, so
  // the functions must guard their reads (a write must never fail on a
  // column renamed since); until repaired, they are drift.
  c.exec("DROP EVENT TRIGGER restcache_ddl_end; DROP EVENT TRIGGER restcache_ddl_drop");
  CAF_CHECK(has(check().problems(), "is not as restcache generates it now"));
  CAF_CHECK_EQUAL(repair(), 0);
  CAF_CHECK_EQUAL(check().drifted, 0u);
  CAF_CHECK_EQUAL(c.exec("SELECT count(*) FROM pg_proc WHERE proname LIKE 'restcache_changed_%'"
                         " AND prosrc LIKE '%EXCEPTION WHEN OTHERS%'")
                    .int64(0, 0),
                  2);
  c.exec("SELECT restcache_event_triggers(); SELECT restcache_define_trigger_functions()");
  CAF_CHECK_EQUAL(check().drifted, 0u);

  // The log truncated by hand: entries no one read are gone.
  auto before_log = check().fingerprint;
  c.exec("TRUNCATE change_log");
  CAF_CHECK(has(pg::fingerprint_changes(before_log, check().fingerprint).at(0), "the change log was truncated"));

  // A table dropped.
  c.exec("DROP TABLE emp_old; DROP TABLE emp CASCADE");
  CAF_CHECK(has(check().problems(), "table emp does not exist"));
}

CAF_TEST(restcache-load verifies without changing anything and its schema-only run repairs) {
  auto verify = [&] {
    return restcache::test::run_program({RESTCACHE_LOAD_BIN, "--dsn", dsn, "--verify"});
  };
  auto fine = verify();
  CAF_CHECK_EQUAL(fine.status, 0);
  CAF_CHECK(has(fine.out, "schema: version " + std::to_string(pg::schema_version)));
  CAF_CHECK(has(fine.out, "event triggers: installed"));
  CAF_CHECK(has(fine.out, "emp (read by deptemps, emp, dept): as restcache needs it"));
  c.exec("ALTER TABLE emp DISABLE TRIGGER restcache_changed");
  auto drifted = verify();
  CAF_CHECK_EQUAL(drifted.status, 3);
  CAF_CHECK(has(drifted.out, "restcache_changed on public.emp is disabled"));
  CAF_CHECK(has(check().problems(), "is disabled")); // verified, not repaired
  auto repaired = restcache::test::run_program({RESTCACHE_LOAD_BIN, "--dsn", dsn, "--schema-only"});
  CAF_CHECK_EQUAL(repaired.status, 0);
  CAF_CHECK_EQUAL(verify().status, 0);
  CAF_CHECK_EQUAL(check().drifted, 0u);
}

CAF_TEST(a database without the restcache functions cannot be checked and says why) {
  c.exec("DROP FUNCTION restcache_trigger_source(text, text)");
  try {
    check();
    CAF_FAIL("the check should have failed");
  } catch (const pg::error& e) {
    CAF_CHECK(has(e.what(), "restcache_trigger_source"));
  }
}

CAF_TEST_FIXTURE_SCOPE_END()
