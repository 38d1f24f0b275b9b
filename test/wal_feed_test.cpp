// SPDX-License-Identifier: Apache-2.0
// The WAL feed end to end: a database whose feed is the WAL (restcache-load
// --feed=wal: a publication, REPLICA IDENTITY FULL where a key column is not
// in the identity, no triggers), the real daemon streaming its own slot, and
// what an administrator or a writer does to it: rows moved between
// documents, deletes, 2PC, a rolled-back savepoint, a write through the
// instance, a key column renamed, the identity undone, the slot dropped
// under a running instance or invalidated by max_slot_wal_keep_size, a
// restart with the LMDB file, a memory-only instance's reconnect, a logical
// subscriber's applied writes, and a changelog.feed the database does not have.
#define CAF_SUITE wal_feed
#include "test/fixtures/daemon_process.hpp"

#include <caf/test/unit_test.hpp>

#include <signal.h>

#include <algorithm>
#include <fstream>
#include <memory>
#include <sstream>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "messages/document_encoder.hpp"
#include "persistence/pg/schema.hpp"
#include "persistence/pg/statements.hpp"
#include "persistence/pg/feed_switch.hpp"
#include "persistence/pg/wal_feed.hpp"
#include "demo/demo_catalogue.hpp"
#include "test/fixtures/catalogue_guard.hpp"
#include "test/fixtures/child_program.hpp"
#include "test/fixtures/http_client.hpp"
#include "test/fixtures/private_pg.hpp"
#include "test/fixtures/test_support.hpp"
#include "demo/demo_encoders.hpp"
#include "demo/demo_reads.hpp"

using namespace restcache;
using namespace restcache::test;
using namespace std::chrono_literals;

namespace {

constexpr int64_t depts = 40;

struct fixture {
  std::string dsn;
  pg::connection sql;
  temp_dir lmdb{"walfeed"};

  fixture() : dsn(create_demo_database("walfeed", depts, 4)), sql(dsn) {
    pg::install_feed(sql, feed_kind::wal);
  }

  ~fixture() {
    // Its slots first: a database with one cannot be dropped.
    try {
      sql.exec("SELECT pg_terminate_backend(active_pid) FROM pg_replication_slots"
               " WHERE database = current_database() AND active_pid IS NOT NULL");
      for (int i = 0; i < 50; ++i) {
        auto left = sql.exec("SELECT count(*) FROM pg_replication_slots WHERE database = current_database()"
                             " AND (active OR NOT temporary)");
        sql.exec("SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots"
                 " WHERE database = current_database() AND NOT active");
        if (left.int64(0, 0) == 0)
          break;
        std::this_thread::sleep_for(20ms);
      }
    } catch (const std::exception&) {
    }
    shared_private_pg().drop_database(dsn);
  }

  std::string db_name() const {
    auto db = dsn.substr(dsn.find("dbname=") + 7);
    return db.substr(0, db.find(' '));
  }

  std::unique_ptr<daemon_process> start(std::vector<std::string> extra = {}, bool with_lmdb = true) {
    std::vector<std::string> args{"--db.dsn=" + dsn, "--db.pool-size=2", "--cache.shards=2", "--log.level=info",
                                  "--lmdb.flush-interval=20", "--changelog.drift-interval=200"};
    if (with_lmdb)
      args.push_back("--lmdb.path=" + lmdb.path);
    args.insert(args.end(), extra.begin(), extra.end());
    // The demo's department ids come with its own declarations only.
    bool demo = std::none_of(extra.begin(), extra.end(), [](const std::string& a) {
      return a.starts_with("--documents.file=");
    });
    auto d = std::make_unique<daemon_process>(args);
    http_client c{d->port()};
    CAF_REQUIRE(wait_until([&] {
      auto text = c.get("/metrics").body;
      return metric(text, "restcache_listener_caught_up") == 1 && (!demo || metric(text, "restcache_dept_ids") > 0);
    }, 15s));
    CAF_REQUIRE_EQUAL(metric(c.get("/metrics").body, "restcache_listener_feed_wal"), 1);
    return d;
  }

  std::string truth(int32_t deptno) {
    auto d = demo::fetch_deptemps(sql, deptno);
    return d ? demo::encode_deptemps(*d) : std::string{};
  }

  std::string get(uint16_t port, int32_t deptno) {
    http_client c{port};
    return c.get("/deptemps/" + std::to_string(deptno)).body;
  }

  /// Waits (bounded) until the daemon serves the database's document.
  bool serves_truth(uint16_t port, int32_t deptno, std::chrono::milliseconds limit = 5s) {
    http_client c{port};
    auto want = truth(deptno);
    return wait_until([&] { return c.get("/deptemps/" + std::to_string(deptno)).body == want; }, limit);
  }

  /// GETs until the answer comes from memory: the document is cached.
  bool cached(uint16_t port, int32_t deptno) {
    http_client c{port};
    return wait_until([&] {
      return c.get("/deptemps/" + std::to_string(deptno)).header_or_empty("Cache-Status")
             == "restcache; hit; detail=memory";
    }, 5s);
  }

  int64_t metric_of(uint16_t port, const std::string& name) {
    http_client c{port};
    return metric(c.get("/metrics").body, name);
  }

  /// Keeps the daemon's connections out of the database (or lets them in).
  void cut_connections(bool cut) {
    pg::connection admin{shared_private_pg().dsn()};
    admin.exec("ALTER DATABASE " + db_name() + " ALLOW_CONNECTIONS " + (cut ? "false" : "true"));
    if (cut)
      admin.exec("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '" + db_name()
                 + "' AND application_name IN ('restcache-listener', 'restcache-wal', 'restcache-relay')");
  }

  std::string slot() {
    auto r = sql.exec("SELECT slot_name FROM pg_replication_slots WHERE database = current_database()"
                      " AND slot_name LIKE 'restcache\\_%'");
    return r.rows() == 1 ? std::string{r.text(0, 0)} : std::string{};
  }

  int32_t an_emp_of(int32_t deptno) {
    return static_cast<int32_t>(
      sql.exec("SELECT min(empno) FROM emp WHERE deptno = " + std::to_string(deptno)).int64(0, 0));
  }
};

} // namespace

CAF_TEST_FIXTURE_SCOPE(wal_feed_tests, fixture)

CAF_TEST(the WAL feed is installed without triggers and with the identities the old keys need) {
  // On the watched tables (restcache's own tables keep restcache_not_replicated).
  auto triggers = sql.exec("SELECT count(*) FROM pg_trigger WHERE tgname LIKE 'restcache%'"
                           " AND tgrelid IN ('dept'::regclass, 'emp'::regclass)");
  CAF_CHECK_EQUAL(triggers.int64(0, 0), 0);
  auto published = sql.exec("SELECT string_agg(tablename, ',' ORDER BY tablename) FROM pg_publication_tables"
                            " WHERE pubname = 'restcache'");
  CAF_CHECK_EQUAL(published.text(0, 0), "dept,emp");
  auto identity_of_emp = [&] {
    return std::string{sql.exec("SELECT relreplident FROM pg_class WHERE oid = 'emp'::regclass").text(0, 0)};
  };
  // emp's old department is not in its primary key, and the kinds reading
  // it by department know their rows of it: its identity stays as it was.
  CAF_CHECK_EQUAL(identity_of_emp(), "d");
  CAF_CHECK(pg::identity_changes(sql).empty());
  {
    // Kinds that do not know their rows: its whole old row must be in the WAL.
    auto kinds = demo::demo_kinds();
    for (auto& k : kinds)
      for (auto& r : k.reads)
        r.row_columns.clear();
    catalogue_guard guard{std::move(kinds)};
    auto report = pg::install_feed(sql, feed_kind::wal);
    CAF_CHECK_EQUAL(identity_of_emp(), "f");
    CAF_REQUIRE_EQUAL(report.set_full.size(), 1u);
    CAF_CHECK_EQUAL(report.set_full[0].table, "public.emp");
    CAF_CHECK(pg::identity_changes(sql).empty());
    CAF_CHECK(pg::install_feed(sql, feed_kind::wal).set_full.empty()); // FULL before and after: no news
  }
  // The kinds know their rows again: FULL is put back as it was found.
  auto report = pg::install_feed(sql, feed_kind::wal);
  CAF_CHECK_EQUAL(identity_of_emp(), "d");
  CAF_CHECK_EQUAL(report.restored, (std::vector<std::string>{"public.emp: DEFAULT"}));
  CAF_CHECK(report.set_full.empty());
  // Back to the triggers: the identity as it was, the publication gone.
  pg::install_feed(sql, feed_kind::triggers);
  CAF_CHECK_EQUAL(std::string{sql.exec("SELECT relreplident FROM pg_class WHERE oid = 'emp'::regclass").text(0, 0)}, "d");
  CAF_CHECK_EQUAL(sql.exec("SELECT count(*) FROM pg_publication").int64(0, 0), 0);
  CAF_CHECK_EQUAL(sql.exec("SELECT count(*) FROM pg_trigger WHERE tgname LIKE 'restcache%'"
                           " AND tgrelid IN ('dept'::regclass, 'emp'::regclass)")
                    .int64(0, 0),
                  4);
}

CAF_TEST(an employee moved to another department and a deleted one leave no document stale) {
  auto d = start();
  for (int32_t dept : {1, 2, 3})
    CAF_REQUIRE(cached(d->port(), dept));
  auto moved = an_emp_of(1);
  auto deleted = an_emp_of(3);
  CAF_REQUIRE(cached(d->port(), 4));
  sql.exec("UPDATE emp SET deptno = 2 WHERE empno = " + std::to_string(moved));
  sql.exec("DELETE FROM emp WHERE empno = " + std::to_string(deleted));
  for (int32_t dept : {1, 2, 3})
    CHECK_SAYING(serves_truth(d->port(), dept), "department " << dept);
  CAF_CHECK(metric_of(d->port(), "restcache_listener_changes_read_total") >= 3);
  // The old departments were found by the rows their documents hold (emp's
  // identity is its primary key): the others stay cached.
  CAF_CHECK_EQUAL(std::string{sql.exec("SELECT relreplident FROM pg_class WHERE oid = 'emp'::regclass").text(0, 0)}, "d");
  http_client c{d->port()};
  CAF_CHECK_EQUAL(c.get("/deptemps/4").header_or_empty("Cache-Status"), "restcache; hit; detail=memory");
}

CAF_TEST(committed prepared transactions and rolled back savepoints are applied as they committed) {
  auto d = start();
  for (int32_t dept : {9, 10, 11})
    CAF_REQUIRE(cached(d->port(), dept));
  sql.exec("BEGIN; UPDATE dept SET loc = 'Prepared' WHERE deptno = 9; PREPARE TRANSACTION 'walfeed_2pc'");
  std::this_thread::sleep_for(300ms);
  CAF_CHECK_EQUAL(get(d->port(), 9), truth(9)); // not committed yet: the cached one is the database's
  sql.exec("COMMIT PREPARED 'walfeed_2pc'");
  CAF_CHECK(serves_truth(d->port(), 9));
  sql.exec("BEGIN; UPDATE dept SET loc = 'Kept' WHERE deptno = 10; SAVEPOINT s;"
           " UPDATE dept SET loc = 'Undone' WHERE deptno = 11; ROLLBACK TO SAVEPOINT s; COMMIT");
  CAF_CHECK(serves_truth(d->port(), 10));
  CAF_CHECK(serves_truth(d->port(), 11));
  // Writes applied as a subscriber or pg_restore applies them fire no
  // trigger; the WAL has them all the same.
  sql.exec("BEGIN; SET LOCAL session_replication_role = replica; UPDATE dept SET loc = 'Replica' WHERE deptno = 10;"
           " COMMIT");
  CAF_CHECK(serves_truth(d->port(), 10));
}

CAF_TEST(a logical replication subscriber on the WAL feed serves what the publisher wrote) {
  // The publisher: another database of the cluster with the same rows and no
  // restcache; this test's database subscribes to it. Its apply worker's
  // writes (session_replication_role = replica) are in the subscriber's WAL
  // like any other, and so in the instance's own slot.
  auto pub_dsn = create_demo_database("walfeed_pub", depts, 4);
  pg::connection pub{pub_dsn};
  pg::uninstall_schema(pub);
  auto slot = "rc_walsub_" + std::to_string(getpid());
  subscribe_demo_tables(sql, pub, pub_dsn, slot);
  auto d = start();
  http_client c{d->port()};
  auto applied = [&](int32_t deptno) {
    auto on_pub = demo::fetch_deptemps(pub, deptno);
    auto want = on_pub ? demo::encode_deptemps(*on_pub) : std::string{};
    return wait_until([&] { return truth(deptno) == want; }, 10s);
  };
  for (int32_t id = 21; id <= 28; ++id)
    CAF_REQUIRE(cached(d->port(), id));
  CAF_REQUIRE_EQUAL(c.get("/deptemps/9001").status, 404); // remembered as missing
  auto first_emp = [&](int32_t deptno) {
    return std::to_string(pub.exec("SELECT min(empno) FROM emp WHERE deptno = " + std::to_string(deptno)).int64(0, 0));
  };
  pub.exec("UPDATE dept SET dname = 'PUBLISHED' WHERE deptno = 21");
  pub.exec("INSERT INTO dept VALUES (9001, 'NEW', 'THERE')");
  pub.exec("UPDATE emp SET deptno = 23 WHERE empno = " + first_emp(22));
  pub.exec("DELETE FROM emp WHERE empno = " + first_emp(24));
  pub.exec("DELETE FROM dept WHERE deptno = 25");
  for (int32_t id : {21, 9001, 22, 23, 24, 25}) {
    CAF_CHECK(applied(id));
    if (truth(id).empty()) // deleted
      CAF_CHECK(wait_until([&] { return c.get("/deptemps/" + std::to_string(id)).status == 404; }, 5s));
    else
      CHECK_SAYING(serves_truth(d->port(), id), "department " << id);
  }
  pub.exec("TRUNCATE emp");
  CAF_CHECK(applied(26));
  CAF_CHECK(serves_truth(d->port(), 26));
  CAF_CHECK_GREATER_OR_EQUAL(metric_of(d->port(), "restcache_listener_truncates_total"), 1);
  CAF_CHECK(unsubscribe_demo_tables(sql, pub, slot));
  CAF_CHECK_EQUAL(d->terminate(), 0);
  pub = pg::connection{shared_private_pg().dsn()};
  shared_private_pg().drop_database(pub_dsn);
}

CAF_TEST(a write through the instance is read back at once) {
  auto d = start();
  CAF_REQUIRE(cached(d->port(), 4));
  CAF_REQUIRE(cached(d->port(), 5));
  auto empno = an_emp_of(4);
  http_client c{d->port()};
  auto emp = c.get("/depts/emps/" + std::to_string(empno)).body;
  auto at = emp.find("\"deptNumber\":4");
  CAF_REQUIRE(at != std::string::npos);
  emp.replace(at, 14, "\"deptNumber\":5");
  auto put = c.request("PUT", "/depts/emps/" + std::to_string(empno), {{"Content-Type", "application/json"}}, emp);
  CAF_REQUIRE_EQUAL(put.status, 204);
  // No wait: the write answered once the feed had passed its commit.
  CAF_CHECK_EQUAL(c.get("/deptemps/4").body, truth(4));
  CAF_CHECK_EQUAL(c.get("/deptemps/5").body, truth(5));
}

CAF_TEST(a key column renamed fails no write and bypasses the kinds reading it until renamed back) {
  auto d = start();
  CAF_REQUIRE(cached(d->port(), 6));
  sql.exec("ALTER TABLE emp RENAME COLUMN deptno TO dept_no");
  // No trigger reads it: the writers' statements are theirs alone.
  sql.exec("UPDATE emp SET sal = sal + 1 WHERE dept_no = 6");
  CAF_CHECK(wait_until([&] { return metric_of(d->port(), "restcache_documents_drifted{kind=\"deptemps\"}") == 1; }, 5s));
  sql.exec("ALTER TABLE emp RENAME COLUMN dept_no TO deptno");
  CAF_CHECK(wait_until([&] { return metric_of(d->port(), "restcache_documents_drifted{kind=\"deptemps\"}") == 0; }, 5s));
  CAF_CHECK(serves_truth(d->port(), 6));
}

CAF_TEST(a replica identity that no longer carries a key column is drift until repaired) {
  // Declarations whose kinds do not know their employees' rows: the old
  // department must come in the WAL (REPLICA IDENTITY FULL on emp).
  std::string declarations = demo::demo_declarations;
  for (auto at = declarations.find(", row_columns = [4]"); at != std::string::npos;
       at = declarations.find(", row_columns = [4]"))
    declarations.erase(at, std::string_view{", row_columns = [4]"}.size());
  auto kinds = demo::demo_kinds();
  for (auto& k : kinds)
    for (auto& r : k.reads)
      r.row_columns.clear();
  catalogue_guard guard{std::move(kinds)};
  pg::install_feed(sql, feed_kind::wal);
  temp_dir dir{"walfeed-norows"};
  auto file = dir.path + "/no-rows.toml";
  std::ofstream{file} << declarations;
  auto d = start({"--documents.file=" + file});
  sql.exec("ALTER TABLE emp REPLICA IDENTITY DEFAULT");
  CAF_CHECK(wait_until([&] { return metric_of(d->port(), "restcache_documents_drifted{kind=\"deptemps\"}") == 1; }, 5s));
  // An employee moved meanwhile: answered from PostgreSQL.
  auto moved = an_emp_of(7);
  sql.exec("UPDATE emp SET deptno = 8 WHERE empno = " + std::to_string(moved));
  CAF_CHECK_EQUAL(get(d->port(), 7), truth(7));
  pg::install_feed(sql, feed_kind::wal); // what restcache-load --schema-only does
  CAF_CHECK(wait_until([&] { return metric_of(d->port(), "restcache_documents_drifted{kind=\"deptemps\"}") == 0; }, 5s));
  CAF_CHECK(serves_truth(d->port(), 7));
  CAF_CHECK(serves_truth(d->port(), 8));
}

CAF_TEST(a primary key dropped under the WAL feed fails no write and takes the table out of the publication) {
  auto d = start();
  CAF_REQUIRE(cached(d->port(), 19));
  // dept's identity is its primary key: without one, PostgreSQL would refuse
  // every UPDATE and DELETE of a published dept.
  sql.exec("ALTER TABLE dept DROP CONSTRAINT dept_pkey CASCADE");
  sql.exec("UPDATE dept SET loc = 'No key' WHERE deptno = 19");
  sql.exec("DELETE FROM dept WHERE deptno = 20");
  CAF_CHECK_EQUAL(sql.exec("SELECT count(*) FROM pg_publication_tables WHERE tablename = 'dept'").int64(0, 0), 0);
  CAF_CHECK(wait_until([&] { return metric_of(d->port(), "restcache_documents_drifted{kind=\"dept\"}") == 1; }, 5s));
  CAF_CHECK_EQUAL(get(d->port(), 19), truth(19));
  // The repair gives it an identity that names its old rows, and publishes it.
  pg::install_feed(sql, feed_kind::wal);
  CAF_CHECK_EQUAL(std::string{sql.exec("SELECT relreplident FROM pg_class WHERE oid = 'dept'::regclass").text(0, 0)}, "f");
  CAF_CHECK(wait_until([&] { return metric_of(d->port(), "restcache_documents_drifted{kind=\"dept\"}") == 0; }, 5s));
  sql.exec("UPDATE dept SET loc = 'Keyless but full' WHERE deptno = 19");
  CAF_CHECK(serves_truth(d->port(), 19));
}

CAF_TEST(the slot dropped under a running instance drops both tiers and makes a new one) {
  auto d = start();
  CAF_REQUIRE(cached(d->port(), 12));
  auto first = slot();
  CAF_REQUIRE(!first.empty());
  cut_connections(true);
  CAF_REQUIRE(wait_until([&] {
    sql.exec("SELECT pg_terminate_backend(active_pid) FROM pg_replication_slots WHERE slot_name = '" + first
             + "' AND active_pid IS NOT NULL");
    return sql.exec("SELECT count(*) FROM pg_replication_slots WHERE slot_name = '" + first + "' AND active")
             .int64(0, 0)
           == 0;
  }, 5s));
  sql.exec("SELECT pg_drop_replication_slot('" + first + "')");
  sql.exec("UPDATE dept SET loc = 'Unseen' WHERE deptno = 12"); // no slot sees it
  cut_connections(false);
  CAF_CHECK(wait_until([&] { return metric_of(d->port(), "restcache_listener_slot_resets_total") >= 1; }, 10s));
  CAF_CHECK(serves_truth(d->port(), 12));
  CAF_CHECK_EQUAL(slot(), first); // the instance's own name again
}

CAF_TEST(a restart with the LMDB file resumes from the slot and serves what changed meanwhile fresh) {
  {
    auto d = start();
    CAF_REQUIRE(cached(d->port(), 13));
    CAF_REQUIRE(cached(d->port(), 14));
    CAF_REQUIRE(cached(d->port(), 16));
    std::this_thread::sleep_for(300ms); // the records reach LMDB
    CAF_REQUIRE_EQUAL(d->terminate(), 0);
  }
  sql.exec("UPDATE dept SET loc = 'While down' WHERE deptno = 13");
  sql.exec("UPDATE emp SET deptno = 15 WHERE empno = " + std::to_string(an_emp_of(14)));
  auto d = start();
  CAF_CHECK_EQUAL(metric_of(d->port(), "restcache_listener_slot_resets_total"), 0);
  CAF_CHECK_EQUAL(get(d->port(), 13), truth(13));
  CAF_CHECK_EQUAL(get(d->port(), 14), truth(14));
  // What did not change was kept: answered from the file (the moved
  // employee's department was found by its row, not by dropping the kind).
  http_client c{d->port()};
  CAF_CHECK_EQUAL(c.get("/deptemps/16").header_or_empty("Cache-Status"), "restcache; hit; detail=lmdb");
}

CAF_TEST(an older copy restored in place and written past the tiers watermark is not served) {
  // A cluster of its own: the shared one cannot be stopped and restored.
  private_pg own;
  load_demo(own.dsn(), 5, 3);
  pg::connection c{own.dsn()};
  pg::install_feed(c, feed_kind::wal);
  auto truth_of = [&](int32_t deptno) {
    auto d = demo::fetch_deptemps(c, deptno);
    return d ? demo::encode_deptemps(*d) : std::string{};
  };
  std::vector<std::string> args{"--db.dsn=" + own.dsn(), "--db.pool-size=2", "--cache.shards=2", "--log.level=info",
                                "--lmdb.flush-interval=20", "--lmdb.path=" + lmdb.path};
  auto serve = [&](auto&& body) {
    daemon_process d{args, 0};
    http_client h{d.port()};
    CAF_REQUIRE(wait_until([&] { return metric(h.get("/metrics").body, "restcache_listener_caught_up") == 1; }, 15s));
    body(d, h);
    std::this_thread::sleep_for(300ms); // its records reach LMDB
    CAF_REQUIRE_EQUAL(d.terminate(), 0);
  };
  serve([&](daemon_process&, http_client& h) { CAF_CHECK_EQUAL(h.get("/deptemps/1").body, truth_of(1)); });
  c = pg::connection{shared_private_pg().dsn()}; // let go of the cluster
  own.stop_server();
  own.save_data("before");
  own.restart_server();
  c = pg::connection{own.dsn()};
  c.exec("SET synchronous_commit = on");
  c.exec("UPDATE dept SET loc = 'Lost with the copy' WHERE deptno = 1");
  serve([&](daemon_process&, http_client& h) {
    CAF_CHECK(wait_until([&] { return h.get("/deptemps/1").body == truth_of(1); }, 5s));
  });
  // Back to the copy, then more WAL than the tiers saw in few transactions:
  // the WAL positions pass the tiers' watermark, the transaction ids do not.
  c = pg::connection{shared_private_pg().dsn()};
  own.stop_server();
  own.restore_data("before");
  own.restart_server();
  c = pg::connection{own.dsn()};
  c.exec("CREATE TABLE filler AS SELECT g, repeat('x', 200) AS pad FROM generate_series(1, 60000) g");
  serve([&](daemon_process&, http_client& h) {
    CAF_CHECK_EQUAL(h.get("/deptemps/1").body, truth_of(1));
    CAF_CHECK(truth_of(1).find("Lost with the copy") == std::string::npos);
    auto m = h.get("/metrics").body;
    CAF_CHECK_EQUAL(metric(m, "restcache_listener_history_resets_total{rule=\"went_backwards\"}")
                      + metric(m, "restcache_listener_slot_resets_total"),
                    1);
  });
}

CAF_TEST(an instance down while 100000 rows change catches up from its slot and serves none stale) {
  {
    auto d = start();
    for (int32_t dept = 21; dept <= 30; ++dept)
      CAF_REQUIRE(cached(d->port(), dept));
    std::this_thread::sleep_for(300ms);
    CAF_REQUIRE_EQUAL(d->terminate(), 0);
  }
  // 160 employees changed 625 times over, in 25 transactions.
  for (int t = 0; t < 25; ++t)
    sql.exec("DO $$ BEGIN FOR i IN 1..25 LOOP UPDATE emp SET sal = sal + 1; END LOOP; END $$");
  sql.exec("UPDATE dept SET loc = 'After the storm' WHERE deptno = 25");
  auto d = start();
  CAF_CHECK_EQUAL(metric_of(d->port(), "restcache_listener_slot_resets_total"), 0);
  for (int32_t dept = 21; dept <= 30; ++dept)
    CHECK_SAYING(get(d->port(), dept) == truth(dept), "department " << dept);
}

CAF_TEST(a slot invalidated by max_slot_wal_keep_size drops both tiers at the next start) {
  {
    auto d = start();
    CAF_REQUIRE(cached(d->port(), 17));
    std::this_thread::sleep_for(300ms);
    CAF_REQUIRE_EQUAL(d->terminate(), 0);
  }
  pg::connection admin{shared_private_pg().dsn()};
  admin.exec("ALTER SYSTEM SET max_slot_wal_keep_size = '1MB'");
  admin.exec("SELECT pg_reload_conf()");
  sql.exec("UPDATE dept SET loc = 'Lost' WHERE deptno = 17");
  bool lost = wait_until([&] {
    sql.exec("CREATE TABLE IF NOT EXISTS wal_filler (x int); INSERT INTO wal_filler SELECT generate_series(1, 20000)");
    admin.exec("SELECT pg_switch_wal()");
    admin.exec("CHECKPOINT");
    return sql.exec("SELECT count(*) FROM pg_replication_slots WHERE database = current_database()"
                    " AND wal_status = 'lost'")
             .int64(0, 0)
           == 1;
  }, 20s);
  admin.exec("ALTER SYSTEM RESET max_slot_wal_keep_size");
  admin.exec("SELECT pg_reload_conf()");
  CAF_REQUIRE(lost);
  auto d = start();
  CAF_CHECK_EQUAL(metric_of(d->port(), "restcache_listener_slot_resets_total"), 1);
  CAF_CHECK_EQUAL(get(d->port(), 17), truth(17));
}

CAF_TEST(a memory only instance empties its memory when its temporary slot ends) {
  auto d = start({"--cache.mode=memory"}, false);
  CAF_REQUIRE(cached(d->port(), 18));
  auto temporary = sql.exec("SELECT temporary FROM pg_replication_slots WHERE database = current_database()");
  CAF_REQUIRE_EQUAL(temporary.rows(), 1);
  CAF_CHECK_EQUAL(temporary.text(0, 0), "t");
  cut_connections(true);
  sql.exec("UPDATE dept SET loc = 'Between slots' WHERE deptno = 18");
  cut_connections(false);
  CAF_CHECK(wait_until([&] { return metric_of(d->port(), "restcache_listener_connects_total") >= 2; }, 10s));
  CAF_CHECK(serves_truth(d->port(), 18));
}

CAF_TEST(the slot of a stopped instance is reported by another and dropped once idle) {
  // The slot in the metrics: restcache_wal_slot_active{slot="..."} 1.
  auto slots = [&](uint16_t port) {
    std::map<std::string, int64_t> out;
    http_client c{port};
    std::istringstream text{c.get("/metrics").body};
    std::string line;
    const std::string prefix = "restcache_wal_slot_active{slot=\"";
    while (std::getline(text, line))
      if (line.starts_with(prefix)) {
        auto end = line.find('"', prefix.size());
        out[line.substr(prefix.size(), end - prefix.size())] = std::stoll(line.substr(line.rfind(' ') + 1));
      }
    return out;
  };
  std::string first;
  {
    auto d = start();
    CAF_REQUIRE(wait_until([&] { return slots(d->port()).size() == 1; }, 5s));
    auto mine = slots(d->port()); // a local: the check macro keeps references into its operands
    first = mine.begin()->first;
    CAF_CHECK_EQUAL(mine[first], 1);
    CAF_REQUIRE_EQUAL(d->terminate(), 0);
  }
  temp_dir other{"walfeed-other"};
  auto d = start({"--lmdb.path=" + other.path}, false);
  // Its own slot streamed, the stopped one's idle: an alert through the living.
  CAF_CHECK(wait_until([&] {
    auto s = slots(d->port());
    return s.size() == 2 && s.count(first) == 1 && s[first] == 0;
  }, 5s));
  CAF_CHECK(metric_of(d->port(), "restcache_wal_slot_retained_bytes{slot=\"" + first + "\"}") > 0);
  auto r = run_program({RESTCACHE_LOAD_BIN, "--dsn", dsn, "--drop-idle-slots"});
  CAF_CHECK_EQUAL(r.status, 0);
  CAF_CHECK(r.err.find("dropped the slot " + first) != std::string::npos);
  auto left = sql.exec("SELECT string_agg(slot_name, ',') FROM pg_replication_slots WHERE database = current_database()");
  CAF_CHECK(std::string{left.text(0, 0)}.find(first) == std::string::npos);
  CAF_CHECK(wait_until([&] { return slots(d->port()).size() == 1; }, 5s)); // its own, still streamed
  CAF_CHECK_EQUAL(metric_of(d->port(), "restcache_listener_connected"), 1);
}

CAF_TEST(changelog.feed naming the other feed refuses to start) {
  bool refused = false;
  try {
    daemon_process d{{"--db.dsn=" + dsn, "--changelog.feed=triggers", "--cache.mode=memory"}};
  } catch (const std::runtime_error& e) {
    refused = std::string{e.what()}.find("changelog.feed is triggers but the database's change feed is wal")
              != std::string::npos;
  }
  CAF_CHECK(refused);
}

CAF_TEST(a switch of feed under a running instance is followed at once either way) {
  // The periodic check far off: what the switch logs through the old feed
  // makes the instance check at once, in commit order with the writes, and
  // start a session on the new feed (its tiers dropped).
  auto run = [&](feed_kind from, feed_kind to) {
    pg::install_feed(sql, from);
    auto d = std::make_unique<daemon_process>(std::vector<std::string>{
      "--db.dsn=" + dsn, "--db.pool-size=2", "--cache.shards=2", "--log.level=info",
      "--changelog.drift-interval=60000", "--lmdb.path=" + lmdb.path});
    CAF_REQUIRE(wait_until([&] {
      http_client c{d->port()};
      return metric(c.get("/metrics").body, "restcache_listener_caught_up") == 1;
    }, 15s));
    CAF_REQUIRE(cached(d->port(), 20));
    pg::install_feed(sql, to);
    sql.exec("UPDATE dept SET loc = 'Switched to " + std::string{to_string(to)} + "' WHERE deptno = 20");
    CHECK_SAYING(serves_truth(d->port(), 20, 2s), "switched from " << to_string(from) << " to " << to_string(to));
    bool followed = wait_until([&] {
      return metric_of(d->port(), "restcache_listener_feed_wal") == (to == feed_kind::wal ? 1 : 0)
             && metric_of(d->port(), "restcache_listener_caught_up") == 1;
    }, 5s);
    CHECK_SAYING(followed, "switched from " << to_string(from) << " to " << to_string(to));
    if (!followed)
      CAF_MESSAGE(d->log());
    sql.exec("UPDATE dept SET loc = 'Then " + std::string{to_string(to)} + "' WHERE deptno = 20");
    CAF_CHECK(cached(d->port(), 20)); // cached again under the new feed
    sql.exec("UPDATE dept SET loc = 'Again' WHERE deptno = 20");
    CAF_CHECK(serves_truth(d->port(), 20, 2s));
    CAF_CHECK_EQUAL(d->terminate(), 0);
  };
  run(feed_kind::triggers, feed_kind::wal);
  run(feed_kind::wal, feed_kind::triggers);
}

CAF_TEST(instances on the WAL relay share one slot and stay fresh through the leader stopping) {
  const std::vector<std::string> relay{"--changelog.wal-relay=true"};
  temp_dir second{"walfeed-relay"};
  auto a = start(relay);
  std::vector<std::string> b_args = relay;
  b_args.push_back("--lmdb.path=" + second.path);
  auto b = start(b_args, false);
  auto relay_slots = [&] {
    auto r = sql.exec("SELECT count(*) FILTER (WHERE slot_name LIKE '%\\_relay'), count(*) FROM pg_replication_slots"
                      " WHERE database = current_database()");
    return std::pair{r.int64(0, 0), r.int64(0, 1)};
  };
  CAF_CHECK(relay_slots() == (std::pair<int64_t, int64_t>{1, 1})); // one slot, no slot of their own
  CAF_CHECK_EQUAL(metric_of(a->port(), "restcache_wal_relay_following"), 1);
  CAF_CHECK_EQUAL(metric_of(b->port(), "restcache_wal_relay_following"), 1);
  CAF_CHECK_EQUAL(metric_of(a->port(), "restcache_wal_relay_leading") + metric_of(b->port(), "restcache_wal_relay_leading"), 1);
  for (auto* d : {a.get(), b.get()}) {
    CAF_REQUIRE(cached(d->port(), 18));
    CAF_REQUIRE(cached(d->port(), 19));
  }
  // A department renamed, an employee moved (found by its row), one deleted.
  sql.exec("UPDATE dept SET loc = 'Relayed' WHERE deptno = 18");
  sql.exec("UPDATE emp SET deptno = 18 WHERE empno = " + std::to_string(an_emp_of(19)));
  sql.exec("DELETE FROM emp WHERE empno = " + std::to_string(an_emp_of(19)));
  for (auto* d : {a.get(), b.get()}) {
    CAF_CHECK(serves_truth(d->port(), 18, 2s));
    CAF_CHECK(serves_truth(d->port(), 19, 2s));
  }
  // The leader stops; the other takes its slot over where it was confirmed.
  auto& leader = metric_of(a->port(), "restcache_wal_relay_leading") == 1 ? a : b;
  auto& other = leader == a ? b : a;
  const bool a_led = leader == a;
  CAF_REQUIRE_EQUAL(leader->terminate(), 0);
  leader.reset();
  sql.exec("UPDATE dept SET loc = 'While nobody led' WHERE deptno = 19");
  CAF_CHECK(wait_until([&] { return metric_of(other->port(), "restcache_wal_relay_leading") == 1; }, 10s));
  CAF_CHECK(serves_truth(other->port(), 19, 3s));
  sql.exec("UPDATE dept SET loc = 'Under the new leader' WHERE deptno = 18");
  CAF_CHECK(serves_truth(other->port(), 18, 2s));
  CAF_CHECK_EQUAL(metric_of(other->port(), "restcache_listener_tier_drops_total"), 0);
  // Back with its LMDB file: what changed while it was down is served fresh
  // from the relay, its tiers kept.
  sql.exec("UPDATE dept SET loc = 'While one was down' WHERE deptno = 20");
  auto back = a_led ? start(relay) : start(b_args, false);
  CAF_CHECK_EQUAL(metric_of(back->port(), "restcache_wal_relay_following"), 1);
  auto drops = metric_of(back->port(), "restcache_listener_tier_drops_total");
  CAF_CHECK_EQUAL(drops, 0);
  if (drops != 0)
    CAF_MESSAGE(back->log());
  for (int dept : {18, 19, 20})
    CAF_CHECK(serves_truth(back->port(), dept, 2s));
  CAF_CHECK(relay_slots() == (std::pair<int64_t, int64_t>{1, 1}));
}

CAF_TEST(a relay started again under its followers drops their tiers and serves fresh) {
  auto d = start({"--changelog.wal-relay=true"});
  CAF_REQUIRE(cached(d->port(), 21));
  // The slot gone (a failover's new primary has none): the lead ends, the
  // next makes a new slot and starts the relay again past the follower.
  cut_connections(true);
  // Its walsender ends a moment after it is cut off.
  CAF_REQUIRE(wait_until([&] {
    sql.exec("SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots"
             " WHERE slot_name LIKE '%\\_relay' AND NOT active");
    return sql.exec("SELECT count(*) FROM pg_replication_slots WHERE slot_name LIKE '%\\_relay'").int64(0, 0) == 0;
  }, 5s));
  sql.exec("UPDATE dept SET loc = 'Between relays' WHERE deptno = 21");
  cut_connections(false);
  CAF_CHECK(wait_until([&] { return metric_of(d->port(), "restcache_listener_tier_drops_total") >= 1; }, 10s));
  CAF_CHECK(serves_truth(d->port(), 21, 5s));
  CAF_CHECK(cached(d->port(), 21));
  sql.exec("UPDATE dept SET loc = 'After the new relay' WHERE deptno = 21");
  CAF_CHECK(serves_truth(d->port(), 21, 2s));
}

CAF_TEST(an instance serving other declarations than the relay leader streams a slot of its own) {
  auto leader = start({"--changelog.wal-relay=true"});
  CAF_REQUIRE(wait_until([&] { return metric_of(leader->port(), "restcache_wal_relay_leading") == 1; }, 5s));
  // The demo's declarations with one statement spelled otherwise: another
  // fingerprint (what it reads is the same, which the relay cannot know).
  std::string declarations = demo::demo_declarations;
  auto at = declarations.find("SELECT d.deptno, d.dname, d.loc,");
  CAF_REQUIRE(at != std::string::npos);
  declarations.replace(at, 6, "SELECT /* spelled otherwise */");
  temp_dir dir{"walfeed-other-decl"};
  auto file = dir.path + "/other.toml";
  std::ofstream{file} << declarations;
  auto other = start({"--changelog.wal-relay=true", "--documents.file=" + file, "--lmdb.path=" + dir.path + "/lmdb"},
                     false);
  CAF_CHECK_EQUAL(metric_of(other->port(), "restcache_wal_relay_following"), 0);
  CAF_CHECK_EQUAL(metric_of(other->port(), "restcache_listener_feed_wal"), 1);
  auto slots = sql.exec("SELECT count(*) FROM pg_replication_slots WHERE database = current_database()");
  CAF_CHECK_EQUAL(slots.int64(0, 0), 2);
  CAF_REQUIRE(cached(other->port(), 22));
  sql.exec("UPDATE dept SET loc = 'Seen by its own slot' WHERE deptno = 22");
  CAF_CHECK(serves_truth(other->port(), 22, 2s));
  CAF_CHECK(serves_truth(leader->port(), 22, 2s));
}

CAF_TEST(the followers of a frozen relay leader stop serving their tiers until it relays again) {
  const std::vector<std::string> relay{"--changelog.wal-relay=true"};
  auto leader = start(relay);
  CAF_REQUIRE(wait_until([&] { return metric_of(leader->port(), "restcache_wal_relay_leading") == 1; }, 5s));
  temp_dir second{"walfeed-frozen"};
  auto follower = start({"--changelog.wal-relay=true", "--lmdb.path=" + second.path}, false);
  CAF_REQUIRE(cached(follower->port(), 25));
  // Frozen, its lock held: nobody else may lead, nothing is relayed.
  ::kill(leader->pid(), SIGSTOP);
  struct thaw {
    pid_t pid;
    ~thaw() { ::kill(pid, SIGCONT); }
  } guard{leader->pid()};
  sql.exec("UPDATE dept SET loc = 'While the leader is frozen' WHERE deptno = 25");
  CAF_CHECK(wait_until([&] { return metric_of(follower->port(), "restcache_listener_caught_up") == 0; }, 20s));
  CAF_CHECK_EQUAL(get(follower->port(), 25), truth(25)); // from PostgreSQL
  ::kill(leader->pid(), SIGCONT);
  CAF_CHECK(wait_until([&] { return metric_of(follower->port(), "restcache_listener_caught_up") == 1; }, 20s));
  CAF_CHECK(serves_truth(follower->port(), 25, 2s));
  sql.exec("UPDATE dept SET loc = 'Relayed again' WHERE deptno = 25");
  CAF_CHECK(serves_truth(follower->port(), 25, 2s));
}

CAF_TEST(a new slot waiting for a prepared transaction names it and the instance serves fresh meanwhile) {
  pg::connection holder{dsn};
  holder.exec("BEGIN; UPDATE dept SET loc = 'Prepared' WHERE deptno = 23; PREPARE TRANSACTION 'rc_holds_the_slot'");
  // Never left prepared: the database could not be dropped.
  struct finish {
    pg::connection& c;
    ~finish() {
      try {
        c.exec("ROLLBACK PREPARED 'rc_holds_the_slot'");
      } catch (const std::exception&) {
      }
    }
  } guard{holder};
  daemon_process d{{"--db.dsn=" + dsn, "--db.pool-size=2", "--cache.shards=2", "--log.level=info",
                    "--changelog.slot-create-wait=300", "--lmdb.path=" + lmdb.path}};
  CAF_CHECK(wait_until([&] { return d.log().find("'rc_holds_the_slot'") != std::string::npos; }, 10s));
  CAF_CHECK_EQUAL(metric_of(d.port(), "restcache_listener_caught_up"), 0);
  // Answered from PostgreSQL meanwhile.
  auto before = truth(23);
  CAF_CHECK_EQUAL(get(d.port(), 23), before);
  sql.exec("UPDATE dept SET loc = 'While the slot waits' WHERE deptno = 24");
  CAF_CHECK_EQUAL(get(d.port(), 24), truth(24));
  holder.exec("COMMIT PREPARED 'rc_holds_the_slot'");
  CAF_CHECK(wait_until([&] { return metric_of(d.port(), "restcache_listener_caught_up") == 1; }, 10s));
  CAF_CHECK(slot() != "");
  CAF_CHECK(serves_truth(d.port(), 23));
  CAF_CHECK(cached(d.port(), 23));
  sql.exec("UPDATE dept SET loc = 'Once streamed' WHERE deptno = 23");
  CAF_CHECK(serves_truth(d.port(), 23, 2s));
}

CAF_TEST(a switch to the WAL waits for the instances reading the log and an instance left on it is bypassed) {
  // One instance follows the database (it carries its tiers across);
  // another is pinned to the triggers, as one that cannot follow is; a
  // third session registered as a reader never moves.
  pg::install_feed(sql, feed_kind::triggers);
  const auto args = [&](const std::string& feed, const std::string& path) {
    return std::vector<std::string>{"--db.dsn=" + dsn, "--db.pool-size=2", "--cache.shards=2", "--log.level=info",
                                    "--changelog.feed=" + feed, "--lmdb.path=" + path};
  };
  temp_dir pinned_lmdb{"restcache-test-walfeed-pinned"};
  auto follows = std::make_unique<daemon_process>(args("auto", lmdb.path));
  auto pinned = std::make_unique<daemon_process>(args("triggers", pinned_lmdb.path));
  for (auto* d : {follows.get(), pinned.get()}) {
    CAF_REQUIRE(wait_until([&] { return metric_of(d->port(), "restcache_listener_caught_up") == 1; }, 15s));
    CAF_REQUIRE(cached(d->port(), 20));
  }
  pg::connection stuck{dsn};
  CAF_REQUIRE(pg::hold_trigger_reader(stuck));
  auto started = std::chrono::steady_clock::now();
  auto report = pg::install_feed(sql, feed_kind::wal, 3s);
  auto waited = std::chrono::steady_clock::now() - started;
  // Waited for the reader that never moved, named it, retired the
  // triggers all the same.
  CAF_CHECK(report.triggers_retired);
  CAF_CHECK_EQUAL(report.readers_left.size(), 1u);
  CAF_CHECK_GREATER_OR_EQUAL(waited, 3s);
  CAF_CHECK_EQUAL(sql.exec("SELECT count(*) FROM pg_trigger WHERE tgname = 'restcache_changed'").int64(0, 0), 0);
  sql.exec("UPDATE dept SET loc = 'After the switch' WHERE deptno = 20");
  // The pinned one answers from PostgreSQL, never from what the log no
  // longer reports; the other follows with its tiers.
  CAF_CHECK(serves_truth(pinned->port(), 20, 2s));
  CAF_CHECK(serves_truth(follows->port(), 20, 2s));
  CAF_CHECK(wait_until([&] { return metric_of(pinned->port(), "restcache_listener_caught_up") == 0; }, 2s));
  {
    http_client c{pinned->port()};
    auto status = c.get("/deptemps/20").header_or_empty("Cache-Status");
    CAF_CHECK_EQUAL(status.find("hit"), std::string::npos);
  }
  CAF_CHECK(wait_until([&] { return metric_of(follows->port(), "restcache_listener_feed_wal") == 1
                                    && metric_of(follows->port(), "restcache_listener_caught_up") == 1; }, 5s));
  CAF_CHECK_EQUAL(metric_of(follows->port(), "restcache_listener_tiers_carried_total"), 1);
  CAF_CHECK(cached(follows->port(), 20));
  // The next write is seen through the WAL alone.
  sql.exec("UPDATE dept SET loc = 'Through the WAL' WHERE deptno = 20");
  CAF_CHECK(serves_truth(follows->port(), 20, 2s));
  CAF_CHECK(serves_truth(pinned->port(), 20, 2s));
}

CAF_TEST(a switch of feed each way under a writer serves nothing stale and fails no write) {
  // Starts on the triggers; the WAL feed at 2 s, the triggers again at 5 s,
  // while restcache-freshness writes by SQL and reads every changed
  // document back through the instance 300 ms after its COMMIT.
  pg::install_feed(sql, feed_kind::triggers);
  auto d = std::make_unique<daemon_process>(std::vector<std::string>{
    "--db.dsn=" + dsn, "--db.pool-size=2", "--cache.shards=2", "--log.level=info", "--lmdb.path=" + lmdb.path});
  CAF_REQUIRE(wait_until([&] { return metric_of(d->port(), "restcache_listener_caught_up") == 1; }, 15s));
  std::string switched;
  int64_t drops_before = metric_of(d->port(), "restcache_listener_tier_drops_total");
  int64_t drops_on_wal = -1, carried_on_wal = -1;
  bool triggers_went = false;
  std::thread switcher{[&] {
    try {
      pg::connection admin{dsn};
      std::this_thread::sleep_for(2s);
      // Returns once the instance has moved (the triggers retired then).
      auto report = pg::install_feed(admin, feed_kind::wal);
      triggers_went = report.triggers_retired && report.readers_left.empty();
      switched += "wal ";
      wait_until([&] { return metric_of(d->port(), "restcache_listener_feed_wal") == 1
                              && metric_of(d->port(), "restcache_listener_caught_up") == 1; }, 5s);
      drops_on_wal = metric_of(d->port(), "restcache_listener_tier_drops_total");
      carried_on_wal = metric_of(d->port(), "restcache_listener_tiers_carried_total");
      std::this_thread::sleep_for(3s);
      pg::install_feed(admin, feed_kind::triggers);
      switched += "triggers";
    } catch (const std::exception& e) {
      switched += std::string{"failed: "} + e.what();
    }
  }};
  auto out_path = lmdb.path + "/freshness-switch.out";
  auto cmd = std::string{RESTCACHE_FRESHNESS_BIN} + " --duration 8 --writes-per-second 15"
             + " --read-delay-ms 300 --readers 1 --reads-per-second 100 --latency-every 0"
             + " --kinds rename_dept,change_sal,move_emp,insert_emp,delete_emp --json"
             + " --dsn '" + dsn + "' --url http://127.0.0.1:" + std::to_string(d->port()) + " > " + out_path;
  auto status = std::system(cmd.c_str());
  switcher.join();
  CAF_CHECK_EQUAL(switched, "wal triggers");
  // Onto the WAL with its tiers: the log read up to the slot's snapshot,
  // and the triggers retired only once the instance had moved.
  CAF_CHECK(triggers_went);
  CAF_CHECK_EQUAL(carried_on_wal, 1);
  CAF_CHECK_EQUAL(drops_on_wal, drops_before);
  std::ifstream in{out_path};
  std::string out{std::istreambuf_iterator<char>{in}, {}};
  auto field = [&](const std::string& name) {
    auto at = out.find("\"" + name + "\":");
    return at == std::string::npos ? -1 : std::atoll(out.c_str() + at + name.size() + 3);
  };
  CAF_CHECK(WIFEXITED(status));
  CAF_CHECK_EQUAL(WEXITSTATUS(status), 0); // 0 stale, 0 errors
  CAF_CHECK_EQUAL(field("stale"), 0);
  CAF_CHECK_EQUAL(field("write_failures"), 0);
  CAF_CHECK_GREATER(field("writes"), 50);
  if (WEXITSTATUS(status) != 0)
    CAF_MESSAGE("restcache-freshness: " << out << "\nrestcached's log:\n" << d->log());
  // Followed both ways: on the triggers again, caught up.
  CAF_CHECK(wait_until([&] {
    return metric_of(d->port(), "restcache_listener_feed_wal") == 0
           && metric_of(d->port(), "restcache_listener_caught_up") == 1;
  }, 5s));
  CAF_CHECK_GREATER_OR_EQUAL(metric_of(d->port(), "restcache_listener_connects_total"), 3);
  // And back with them: the WAL streamed up to where the log takes over.
  CAF_CHECK_EQUAL(metric_of(d->port(), "restcache_listener_tiers_carried_total"), 2);
  CAF_CHECK_EQUAL(metric_of(d->port(), "restcache_listener_tier_drops_total"), drops_before);
}

CAF_TEST_FIXTURE_SCOPE_END()
