// SPDX-License-Identifier: Apache-2.0
#define CAF_SUITE invalidation_integration
#include "test/fixtures/daemon_process.hpp"

#include <caf/test/unit_test.hpp>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "messages/document_encoder.hpp"
#include "demo/data_generator.hpp"
#include "persistence/pg/schema.hpp"
#include "persistence/pg/statements.hpp"
#include "test/fixtures/http_client.hpp"
#include "test/fixtures/private_pg.hpp"
#include "test/fixtures/test_support.hpp"
#include "demo/demo_encoders.hpp"
#include "demo/demo_reads.hpp"

using namespace restcache;
using namespace restcache::test;
using namespace std::chrono_literals;

namespace {

constexpr int64_t depts = 200;

/// One database per test (changes would leak between tests otherwise), the
/// daemons on it, and an LMDB directory that outlives a daemon.
struct fixture {
  std::string dsn;
  pg::connection sql;
  temp_dir lmdb{"inval"};
  const std::string& lmdb_dir = lmdb.path;

  fixture() : dsn(make_db()), sql(dsn) {
  }

  ~fixture() {
    shared_private_pg().drop_database(dsn);
  }

  static std::string make_db() {
    return create_demo_database("inval", depts, 5);
  }

  std::unique_ptr<daemon_process> start(std::vector<std::string> extra = {}) {
    std::vector<std::string> args{"--db.dsn=" + dsn, "--db.pool-size=2", "--cache.shards=2",
                                  "--log.level=warn", "--lmdb.flush-interval=20",
                                  "--changelog.poll-interval=20"};
    args.insert(args.end(), extra.begin(), extra.end());
    auto d = std::make_unique<daemon_process>(args);
    http_client c{d->port()};
    // Caught up, and the id set loaded: its query must not land in a
    // test's count of queries. On the WAL feeds the slot's creation first
    // waits out every transaction running then (an autovacuum's analyze of
    // the freshly loaded tables, say) and the next running-transactions
    // record, which PostgreSQL logs every 15 s: hence more than 20 s.
    CAF_REQUIRE(wait_until([&] {
      auto text = c.get("/metrics").body;
      return metric(text, "restcache_listener_caught_up") == 1 && metric(text, "restcache_dept_ids") > 0;
    }, 60s));
    return d;
  }

  std::string truth(int32_t deptno) {
    auto d = demo::fetch_deptemps(sql, deptno);
    return d ? demo::encode_deptemps(*d) : std::string{};
  }

  /// Waits (bounded) until the daemon serves the database's document.
  bool serves_truth(uint16_t port, int32_t deptno, std::chrono::milliseconds limit = 5s) {
    http_client c{port};
    auto want = truth(deptno);
    return wait_until([&] { return c.get("/deptemps/" + std::to_string(deptno)).body == want; }, limit);
  }

  /// Waits (bounded) until `path` is answered from memory. After a repair
  /// the kinds are cached again at once, and the drop the repair's DDL asks
  /// for may land after the first fill was kept.
  bool served_from_memory(uint16_t port, const std::string& path, std::chrono::milliseconds limit = 5s) {
    http_client c{port};
    return wait_until([&] { return c.get(path).header_or_empty("Cache-Status") == "restcache; hit; detail=memory"; },
                      limit);
  }

  /// Waits (bounded) until `kind` is no longer bypassed for drift (after a repair).
  bool cached_again(uint16_t port, const std::string& kind) {
    http_client c{port};
    return wait_until([&] {
      return metric(c.get("/metrics").body, "restcache_documents_drifted{kind=\"" + kind + "\"}") == 0;
    }, 5s);
  }

  int64_t metric_of(uint16_t port, const std::string& name) {
    http_client c{port};
    return metric(c.get("/metrics").body, name);
  }

  void cut_connections(bool cut) {
    auto db = dsn.substr(dsn.find("dbname=") + 7);
    db = db.substr(0, db.find(' '));
    pg::connection admin{shared_private_pg().dsn()};
    admin.exec("ALTER DATABASE " + db + " ALLOW_CONNECTIONS " + (cut ? "false" : "true"));
    if (cut)
      admin.exec("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '" + db
                 + "' AND application_name = 'restcache-listener'");
  }
};

} // namespace

CAF_TEST_FIXTURE_SCOPE(invalidation_integration_tests, fixture)

CAF_TEST(a logical replication subscriber with a daemon in front serves what the publisher wrote) {
  // The publisher: another database of the cluster with the same rows and no
  // restcache; this test's database subscribes to it, and its apply worker
  // writes with session_replication_role = replica and an empty search_path.
  auto pub_dsn = make_db();
  pg::connection pub{pub_dsn};
  pg::uninstall_schema(pub);
  auto slot = "rc_slot_" + std::to_string(getpid()) + "_" + std::to_string(PQbackendPID(sql.get()));
  subscribe_demo_tables(sql, pub, pub_dsn, slot);
  auto d = start();
  http_client c{d->port()};
  auto applied = [&](int32_t deptno) {
    auto on_pub = demo::fetch_deptemps(pub, deptno);
    auto want = on_pub ? demo::encode_deptemps(*on_pub) : std::string{};
    return wait_until([&] { return truth(deptno) == want; }, 10s);
  };
  for (int32_t id = 1; id <= 12; ++id)
    CAF_REQUIRE_EQUAL(c.get("/deptemps/" + std::to_string(id)).status, 200);
  CAF_REQUIRE_EQUAL(c.get("/deptemps/9001").status, 404); // remembered as missing
  auto first_emp = [&](int32_t deptno) {
    return std::to_string(pub.exec("SELECT min(empno) FROM emp WHERE deptno = " + std::to_string(deptno)).int64(0, 0));
  };
  pub.exec("UPDATE dept SET dname = 'PUBLISHED' WHERE deptno = 3");
  pub.exec("INSERT INTO dept VALUES (9001, 'NEW', 'THERE')");
  pub.exec("UPDATE emp SET deptno = 5 WHERE empno = " + first_emp(4));
  pub.exec("DELETE FROM emp WHERE empno = " + first_emp(6));
  pub.exec("DELETE FROM dept WHERE deptno = 7");
  pub.exec("TRUNCATE emp");
  for (int32_t id : {3, 9001, 4, 5, 6, 7, 8}) {
    CAF_CHECK(applied(id)); // the subscriber's writes went through the triggers
    if (truth(id).empty()) // deleted
      CAF_CHECK(wait_until([&] { return c.get("/deptemps/" + std::to_string(id)).status == 404; }, 5s));
    else
      CAF_CHECK(serves_truth(d->port(), id));
  }
  CAF_CHECK_GREATER_OR_EQUAL(metric_of(d->port(), "restcache_listener_truncates_total"), 1);
  CAF_CHECK(unsubscribe_demo_tables(sql, pub, slot));
  CAF_CHECK_EQUAL(d->terminate(), 0);
  pub = pg::connection{shared_private_pg().dsn()};
  shared_private_pg().drop_database(pub_dsn);
}

CAF_TEST(a subscriber of a publication of all tables reads only its own change log) {
  // The publisher: this test's database, restcache installed. The
  // subscriber: a cluster of its own with the same rows and restcache (as
  // pg_dump -s brings it), whose xids lag the publisher's: the publisher's
  // change-log rows would come with xids it has not reached yet.
  private_pg sub_cluster;
  load_demo(sub_cluster.dsn(), depts, 5);
  pg::connection sub{sub_cluster.dsn()};
  // Both clusters are young: the publisher's counter is moved well ahead.
  sql.exec("CREATE PROCEDURE burn_xids(n int) LANGUAGE plpgsql AS $$ BEGIN"
           " FOR i IN 1..n LOOP PERFORM pg_current_xact_id(); COMMIT; END LOOP; END $$");
  sql.exec("CALL burn_xids(20000)");
  CAF_REQUIRE_GREATER(sql.exec("SELECT pg_current_xact_id()::text::bigint").int64(0, 0),
                      sub.exec("SELECT pg_current_xact_id()::text::bigint").int64(0, 0) + 10'000);
  auto slot = "rc_all_" + std::to_string(getpid()) + "_" + std::to_string(PQbackendPID(sql.get()));
  sql.exec("CREATE PUBLICATION rc_all FOR ALL TABLES");
  sql.exec("SELECT pg_create_logical_replication_slot('" + slot + "', 'pgoutput')");
  sub.exec("CREATE SUBSCRIPTION rc_sub CONNECTION '" + dsn + "' PUBLICATION rc_all"
           " WITH (create_slot = false, slot_name = '" + slot + "', copy_data = false)");
  std::vector<std::string> args{"--db.dsn=" + sub_cluster.dsn(), "--db.pool-size=2", "--cache.shards=2",
                                "--log.level=warn", "--changelog.poll-interval=20", "--lmdb.path=" + lmdb_dir};
  daemon_process d{args};
  http_client c{d.port()};
  CAF_REQUIRE(wait_until([&] { return metric(c.get("/metrics").body, "restcache_listener_caught_up") == 1; }));
  for (int32_t id = 1; id <= 12; ++id)
    CAF_REQUIRE_EQUAL(c.get("/deptemps/" + std::to_string(id)).status, 200);
  auto on_sub = [&](int32_t deptno) {
    auto doc = demo::fetch_deptemps(sub, deptno);
    return doc ? demo::encode_deptemps(*doc) : std::string{};
  };
  for (int32_t id : {3, 4}) {
    sql.exec("UPDATE dept SET loc = 'PUBLISHED " + std::to_string(id) + "' WHERE deptno = " + std::to_string(id));
    CAF_REQUIRE(wait_until([&] { return on_sub(id).find("PUBLISHED") != std::string::npos; }, 10s));
    CAF_CHECK(wait_until([&] { return c.get("/deptemps/" + std::to_string(id)).body == on_sub(id); }, 5s));
  }
  // Only the subscriber's own entries: none under an xid it has not reached.
  CAF_CHECK_EQUAL(sub.exec("SELECT count(*) FROM change_log WHERE xid >= pg_snapshot_xmax(pg_current_snapshot())")
                    .int64(0, 0),
                  0);
  CAF_CHECK_EQUAL(sub.exec("SELECT count(*) FROM change_log_digest").int64(0, 0), 0);
  // With no write, nothing more is read, and what is cached stays.
  auto read_before = metric(c.get("/metrics").body, "restcache_listener_changes_read_total");
  std::this_thread::sleep_for(1s);
  CAF_CHECK_EQUAL(metric(c.get("/metrics").body, "restcache_listener_changes_read_total"), read_before);
  CAF_CHECK(served_from_memory(d.port(), "/deptemps/5"));
  CAF_CHECK_EQUAL(metric(c.get("/metrics").body, "restcache_listener_tier_drops_total"), 0);
  sub.exec("ALTER SUBSCRIPTION rc_sub DISABLE");
  sub.exec("ALTER SUBSCRIPTION rc_sub SET (slot_name = NONE)");
  sub.exec("DROP SUBSCRIPTION rc_sub");
  CAF_CHECK(wait_until([&] {
    try {
      sql.exec("SELECT pg_drop_replication_slot('" + slot + "')");
      return true;
    } catch (const pg::error&) {
      return false;
    }
  }, 10s));
  sql.exec("DROP PUBLICATION rc_all");
  CAF_CHECK_EQUAL(d.terminate(), 0);
}

CAF_TEST(two daemons on one database both drop a changed document) {
  auto a = start();
  auto b = start();
  http_client ca{a->port()}, cb{b->port()};
  auto before = ca.get("/deptemps/17").body;
  CAF_REQUIRE_EQUAL(cb.get("/deptemps/17").body, before);
  CAF_REQUIRE_EQUAL(ca.get("/deptemps/17").status, 200); // now from memory
  sql.exec("UPDATE dept SET dname = 'CHANGED' WHERE deptno = 17");
  CAF_CHECK(serves_truth(a->port(), 17));
  CAF_CHECK(serves_truth(b->port(), 17));
  CAF_CHECK_NOT_EQUAL(truth(17), before);
  // An employee moved between departments: both documents and the employee.
  auto empno = sql.exec("SELECT min(empno) FROM emp WHERE deptno = 18").int64(0, 0);
  CAF_REQUIRE_EQUAL(ca.get("/deptemps/19").status, 200);
  CAF_REQUIRE_EQUAL(cb.get("/depts/emps/" + std::to_string(empno)).status, 200);
  sql.exec("UPDATE emp SET deptno = 19 WHERE empno = " + std::to_string(empno));
  CAF_CHECK(serves_truth(a->port(), 18));
  CAF_CHECK(serves_truth(a->port(), 19));
  CAF_CHECK(wait_until([&] {
    return cb.get("/depts/emps/" + std::to_string(empno)).body.find("\"deptNumber\":19") != std::string::npos;
  }, 5s));
}

CAF_TEST(a change made while the listener is cut off is served fresh once it is back and ready says so) {
  auto d = start();
  http_client c{d->port()};
  CAF_REQUIRE_EQUAL(c.get("/deptemps/21").status, 200);
  cut_connections(true);
  CAF_REQUIRE(wait_until([&] { return metric(c.get("/metrics").body, "restcache_listener_connected") == 0; }));
  sql.exec("UPDATE dept SET loc = 'WHILE CUT' WHERE deptno = 21");
  // Bypass (the default policy): answers come from PostgreSQL meanwhile, and
  // the pool's connections still work; /ready says the listener is missing.
  CAF_CHECK_EQUAL(c.get("/deptemps/21").body, truth(21));
  auto not_ready = c.get("/ready");
  CAF_CHECK_EQUAL(not_ready.status, 503);
  CAF_CHECK_EQUAL(not_ready.header_or_empty("Content-Type"), "application/problem+json");
  CAF_CHECK(not_ready.body.find(R"("detail":"not ready: listener down")") != std::string::npos);
  CAF_CHECK(not_ready.body.find(R"("checks":{"database":"up","listener":"down","documents":"cached","lmdb":"open"})")
            != std::string::npos);
  CAF_CHECK_EQUAL(c.get("/health").status, 200);
  cut_connections(false);
  CAF_REQUIRE(wait_until([&] { return metric(c.get("/metrics").body, "restcache_listener_caught_up") == 1; }));
  CAF_CHECK_EQUAL(c.get("/ready").status, 200);
  CAF_CHECK_EQUAL(c.get("/deptemps/21").body, truth(21));
  CAF_CHECK_GREATER_OR_EQUAL(metric(c.get("/metrics").body, "restcache_listener_replayed_total"), 1);
}

CAF_TEST(two gets of a missing id run one query and its insert is seen within the propagation window) {
  auto d = start();
  http_client c{d->port()};
  const std::string fills = "restcache_db_queries_total{pool=\"fill\"}";
  auto queries = metric(c.get("/metrics").body, fills);
  auto first = c.get("/deptemps/5000");
  CAF_CHECK_EQUAL(first.status, 404);
  CAF_CHECK_EQUAL(first.header_or_empty("Cache-Status"), "restcache; fwd=uri-miss; stored");
  auto second = c.get("/deptemps/5000");
  CAF_CHECK_EQUAL(second.status, 404);
  CAF_CHECK_EQUAL(second.header_or_empty("Cache-Status"), "restcache; hit; detail=negative");
  CAF_CHECK_EQUAL(metric(c.get("/metrics").body, fills), queries + 1);
  sql.exec("INSERT INTO dept VALUES (5000, 'CREATED', 'Here')");
  CAF_CHECK(serves_truth(d->port(), 5000, 2s));
  // An employee id the same way, through the employee route.
  CAF_CHECK_EQUAL(c.get("/depts/emps/900000").status, 404);
  CAF_CHECK_EQUAL(c.get("/depts/emps/900000").header_or_empty("Cache-Status"), "restcache; hit; detail=negative");
  sql.exec("INSERT INTO emp (empno, ename, job, hiredate, sal, deptno) VALUES (900000, 'NEW', 'CLERK', '2020-01-01', 1000, 5000)");
  CAF_CHECK(wait_until([&] { return c.get("/depts/emps/900000").status == 200; }, 2s));
}

CAF_TEST(no-cache reads a cached document again and keeps the new read when honoured) {
  auto d = start({"--cache.no-cache=honour"});
  http_client c{d->port()};
  const std::string fills = "restcache_db_queries_total{pool=\"fill\"}";
  CAF_REQUIRE_EQUAL(c.get("/deptemps/23").status, 200);
  auto queries = metric(c.get("/metrics").body, fills);
  auto forced = c.get("/deptemps/23", {{"Cache-Control", "no-cache"}});
  CAF_CHECK_EQUAL(forced.status, 200);
  CAF_CHECK_EQUAL(forced.header_or_empty("Cache-Status"), "restcache; fwd=request; stored");
  CAF_CHECK_EQUAL(forced.body, truth(23));
  CAF_CHECK_EQUAL(metric(c.get("/metrics").body, fills), queries + 1);
  CAF_CHECK_EQUAL(c.get("/deptemps/23").header_or_empty("Cache-Status"), "restcache; hit; detail=memory");
}

CAF_TEST(a restart serves unchanged documents from LMDB and replays what changed meanwhile) {
  auto args = std::vector<std::string>{"--lmdb.path=" + lmdb_dir};
  auto d = start(args);
  {
    http_client c{d->port()};
    for (int id = 30; id < 40; ++id)
      CAF_REQUIRE_EQUAL(c.get("/deptemps/" + std::to_string(id)).status, 200);
    CAF_REQUIRE(wait_until([&] { return metric(c.get("/metrics").body, "restcache_lmdb_records") == 10; }));
  }
  CAF_REQUIRE_EQUAL(d->terminate(), 0);
  sql.exec("UPDATE dept SET dname = 'WHILE DOWN' WHERE deptno = 31");
  sql.exec("DELETE FROM dept WHERE deptno = 32");
  d = start(args);
  http_client c{d->port()};
  auto queries = metric(c.get("/metrics").body, "restcache_db_queries_total{pool=\"fill\"}");
  CAF_CHECK_EQUAL(c.get("/deptemps/30").body, truth(30));
  CAF_CHECK_EQUAL(metric(c.get("/metrics").body, "restcache_db_queries_total{pool=\"fill\"}"), queries); // from LMDB
  CAF_CHECK_EQUAL(c.get("/deptemps/31").body, truth(31));
  CAF_CHECK_EQUAL(c.get("/deptemps/32").status, 404);
  CAF_CHECK_GREATER_OR_EQUAL(metric(c.get("/metrics").body, "restcache_listener_replayed_total"), 2);
}

CAF_TEST(after a kill 9 the restarted daemon replays changes made since its last watermark) {
  auto args = std::vector<std::string>{"--lmdb.path=" + lmdb_dir};
  auto d = start(args);
  {
    http_client c{d->port()};
    for (int id = 40; id < 50; ++id)
      CAF_REQUIRE_EQUAL(c.get("/deptemps/" + std::to_string(id)).status, 200);
    CAF_REQUIRE(wait_until([&] { return metric(c.get("/metrics").body, "restcache_lmdb_records") == 10; }));
    // A change the daemon applies, then one it may not get to.
    sql.exec("UPDATE dept SET dname = 'SEEN' WHERE deptno = 41");
    CAF_REQUIRE(serves_truth(d->port(), 41));
  }
  sql.exec("UPDATE dept SET dname = 'UNSEEN' WHERE deptno = 42");
  kill(d->pid(), SIGKILL);
  d.reset();
  sql.exec("UPDATE dept SET dname = 'AFTER' WHERE deptno = 43");
  d = start(args);
  http_client c{d->port()};
  for (int id = 40; id < 50; ++id)
    CAF_CHECK_EQUAL(c.get("/deptemps/" + std::to_string(id)).body, truth(id));
}

CAF_TEST(truncate of emp or of dept cascade drops what memory and LMDB hold) {
  auto d = start({"--lmdb.path=" + lmdb_dir});
  http_client c{d->port()};
  auto empno = sql.exec("SELECT min(empno) FROM emp WHERE deptno = 60").int64(0, 0);
  auto emp_path = "/depts/emps/" + std::to_string(empno);
  auto cache_all = [&] {
    for (int id = 60; id < 65; ++id)
      CAF_REQUIRE_EQUAL(c.get("/deptemps/" + std::to_string(id)).status, 200);
    CAF_REQUIRE_EQUAL(c.get("/depts/61").status, 200);
  };
  cache_all();
  CAF_REQUIRE_EQUAL(c.get(emp_path).status, 200);
  CAF_REQUIRE(wait_until([&] { return metric(c.get("/metrics").body, "restcache_lmdb_records") == 7; }));
  // Each shard clears on its own message, and the two notifications of a
  // CASCADE may come in two reads: every check below waits (bounded) instead
  // of taking one shard's answer for all of them.
  auto truncates_reach = [&](int64_t n) {
    return wait_until([&] { return metric(c.get("/metrics").body, "restcache_listener_truncates_total") == n; }, 5s);
  };
  auto answers = [&](const std::string& path, int status) {
    return wait_until([&] { return c.get(path).status == status; }, 5s);
  };
  sql.exec("TRUNCATE emp");
  CAF_CHECK(wait_until([&] { return metric(c.get("/metrics").body, "restcache_lmdb_records") == 0; }, 5s));
  CAF_CHECK(serves_truth(d->port(), 60));
  CAF_CHECK(serves_truth(d->port(), 61));
  CAF_CHECK(truth(61).find("\"emps\":[]") != std::string::npos);
  CAF_CHECK(answers(emp_path, 404));
  CAF_CHECK(truncates_reach(1));
  // Both tables, with the departments back in memory and in the file.
  cache_all();
  CAF_REQUIRE(wait_until([&] { return metric(c.get("/metrics").body, "restcache_lmdb_records") >= 5; }));
  sql.exec("TRUNCATE dept CASCADE");
  CAF_CHECK(answers("/deptemps/62", 404));
  CAF_CHECK(answers("/depts/61", 404));
  CAF_CHECK(answers("/deptemps/64", 404));
  CAF_CHECK(truncates_reach(3));
}

CAF_TEST(a truncate made while the daemon was down or cut off is replayed as a drop) {
  auto args = std::vector<std::string>{"--lmdb.path=" + lmdb_dir};
  auto d = start(args);
  {
    http_client c{d->port()};
    for (int id = 70; id < 75; ++id)
      CAF_REQUIRE_EQUAL(c.get("/deptemps/" + std::to_string(id)).status, 200);
    CAF_REQUIRE(wait_until([&] { return metric(c.get("/metrics").body, "restcache_lmdb_records") == 5; }));
  }
  CAF_REQUIRE_EQUAL(d->terminate(), 0);
  sql.exec("TRUNCATE emp");
  d = start(args);
  http_client c{d->port()};
  for (int id = 70; id < 75; ++id)
    CAF_CHECK_EQUAL(c.get("/deptemps/" + std::to_string(id)).body, truth(id));
  CAF_CHECK_EQUAL(metric(c.get("/metrics").body, "restcache_listener_truncates_total"), 1);
  // Cut off while running (the memory tier too): the replay after the
  // reconnect sees it.
  sql.exec("INSERT INTO emp (empno, ename, deptno) VALUES (900001, 'BACK', 71)");
  CAF_REQUIRE(serves_truth(d->port(), 71));
  cut_connections(true);
  CAF_REQUIRE(wait_until([&] { return metric(c.get("/metrics").body, "restcache_listener_connected") == 0; }));
  sql.exec("TRUNCATE emp");
  cut_connections(false);
  CAF_REQUIRE(wait_until([&] { return metric(c.get("/metrics").body, "restcache_listener_caught_up") == 1; }));
  CAF_CHECK_EQUAL(c.get("/deptemps/71").body, truth(71));
  CAF_CHECK(truth(71).find("BACK") == std::string::npos);
  CAF_CHECK_EQUAL(metric(c.get("/metrics").body, "restcache_listener_truncates_total"), 2);
}

CAF_TEST(a write applied in replica mode invalidates like any other) {
  auto d = start();
  http_client c{d->port()};
  auto before = c.get("/deptemps/80").body;
  CAF_REQUIRE_EQUAL(c.get("/deptemps/80").body, before); // from memory now
  // How logical replication applies changes on a subscriber.
  sql.exec("SET session_replication_role = replica");
  sql.exec("UPDATE dept SET dname = 'REPLICATED' WHERE deptno = 80");
  sql.exec("RESET session_replication_role");
  CAF_CHECK(serves_truth(d->port(), 80));
  CAF_CHECK(c.get("/deptemps/80").body.find("REPLICATED") != std::string::npos);
}

// -- drift: what administrators do to the watched tables -------------------

CAF_TEST(a kind whose trigger was disabled is answered fresh and not cached until the repair) {
  auto d = start({"--lmdb.path=" + lmdb_dir, "--changelog.drift-interval=200"});
  http_client c{d->port()};
  auto empno = std::to_string(sql.exec("SELECT min(empno) FROM emp WHERE deptno = 40").int64(0, 0));
  auto emp_path = "/depts/emps/" + empno;
  auto emp_truth = [&] { return demo::encode_emp(*demo::fetch_emp(sql, std::stoi(empno))); };
  CAF_REQUIRE_EQUAL(c.get(emp_path).status, 200);
  CAF_REQUIRE_EQUAL(c.get(emp_path).header_or_empty("Cache-Status"), "restcache; hit; detail=memory");
  CAF_REQUIRE_EQUAL(c.get("/depts/41").status, 200);
  auto drifted = [&](const char* kind) {
    return metric(c.get("/metrics").body, std::string{"restcache_documents_drifted{kind=\""} + kind + "\"}");
  };
  auto drift_drops = metric(c.get("/metrics").body, "restcache_listener_drift_drops_total");
  sql.exec("ALTER TABLE emp DISABLE TRIGGER restcache_changed");
  CAF_REQUIRE(wait_until([&] { return drifted("emp") == 1; }, 5s));
  CAF_CHECK_EQUAL(drifted("deptemps"), 1); // reads emp too
  // One drop, or two when a periodic check saw the new catalog before the
  // poll read the DDL's log entry.
  CAF_CHECK_GREATER_OR_EQUAL(metric(c.get("/metrics").body, "restcache_listener_drift_drops_total"), drift_drops + 1);
  // A write the log does not see: answered from PostgreSQL all the same.
  sql.exec("UPDATE emp SET sal = sal + 7, ename = 'UNLOGGED' WHERE empno = " + empno);
  for (int i = 0; i < 2; ++i) {
    auto r = c.get(emp_path);
    CAF_CHECK_EQUAL(r.body, emp_truth());
    CAF_CHECK_EQUAL(r.header_or_empty("Cache-Status"), "restcache; fwd=bypass");
  }
  CAF_CHECK_EQUAL(c.get("/depts/41").header_or_empty("Cache-Status"), "restcache; fwd=bypass");
  // Still ready: every answer is correct; it names what is not cached.
  auto ready = c.get("/ready");
  CAF_CHECK_EQUAL(ready.status, 200);
  CAF_CHECK(ready.body.find(R"("documents":"not cached (drift, see the log): deptemps, emp, dept")")
            != std::string::npos);
  // The repair restcache-load --schema-only runs; then hits again.
  sql.exec("SELECT restcache_install_triggers()");
  CAF_REQUIRE(wait_until([&] { return drifted("emp") == 0 && drifted("deptemps") == 0; }, 5s));
  CAF_CHECK_EQUAL(c.get(emp_path).body, emp_truth());
  CAF_CHECK(served_from_memory(d->port(), emp_path));
  CAF_CHECK(c.get("/ready").body.find(R"("documents":"cached")") != std::string::npos);
  sql.exec("UPDATE emp SET ename = 'LOGGED' WHERE empno = " + empno);
  CAF_CHECK(wait_until([&] { return c.get(emp_path).body == emp_truth(); }, 5s));
}

CAF_TEST(a drift of dept drops the department documents and keeps the employee documents in both tiers) {
  auto d = start({"--lmdb.path=" + lmdb_dir, "--changelog.drift-interval=200"});
  http_client c{d->port()};
  auto empno = std::to_string(sql.exec("SELECT min(empno) FROM emp WHERE deptno = 55").int64(0, 0));
  auto emp_path = "/depts/emps/" + empno;
  CAF_REQUIRE_EQUAL(c.get(emp_path).status, 200);
  CAF_REQUIRE_EQUAL(c.get("/deptemps/55").status, 200);
  CAF_REQUIRE(wait_until([&] { return metric(c.get("/metrics").body, "restcache_lmdb_records") == 2; }));
  auto drops = metric(c.get("/metrics").body, "restcache_listener_drift_drops_total");
  sql.exec("ALTER TABLE dept DISABLE TRIGGER restcache_changed");
  CAF_REQUIRE(wait_until([&] {
    auto m = c.get("/metrics").body;
    return metric(m, "restcache_documents_drifted{kind=\"deptemps\"}") == 1
           && metric(m, "restcache_listener_drift_drops_total") > drops
           && metric(m, "restcache_lmdb_records") == 1;
  }, 5s));
  CAF_CHECK_EQUAL(metric(c.get("/metrics").body, "restcache_documents_drifted{kind=\"emp\"}"), 0);
  // The employee document reads no column of dept: still in memory and LMDB.
  CAF_CHECK_EQUAL(c.get(emp_path).header_or_empty("Cache-Status"), "restcache; hit; detail=memory");
  CAF_CHECK_EQUAL(c.get("/deptemps/55").header_or_empty("Cache-Status"), "restcache; fwd=bypass");
  sql.exec("UPDATE dept SET loc = 'UNLOGGED' WHERE deptno = 55");
  CAF_CHECK_EQUAL(c.get("/deptemps/55").body, truth(55));
  sql.exec("SELECT restcache_install_triggers()");
  CAF_REQUIRE(cached_again(d->port(), "deptemps"));
  CAF_CHECK(served_from_memory(d->port(), "/deptemps/55"));
  CAF_CHECK_EQUAL(c.get("/deptemps/55").body, truth(55));
  CAF_CHECK_EQUAL(c.get(emp_path).header_or_empty("Cache-Status"), "restcache; hit; detail=memory");
}

CAF_TEST(replica mode writes after enable trigger all and after a table was recreated are served fresh) {
  auto d = start({"--changelog.drift-interval=200"});
  http_client c{d->port()};
  auto drifted = [&] { return metric(c.get("/metrics").body, "restcache_documents_drifted{kind=\"deptemps\"}"); };
  auto replica_write = [&](const std::string& sql_text) {
    sql.exec("SET session_replication_role = replica");
    sql.exec(sql_text);
    sql.exec("RESET session_replication_role");
  };
  auto repaired = [&] {
    sql.exec("SELECT restcache_install_triggers()");
    return wait_until([&] { return drifted() == 0; }, 5s);
  };
  // What pg_restore --disable-triggers ends with: origin mode.
  CAF_REQUIRE_EQUAL(c.get("/deptemps/51").status, 200);
  sql.exec("ALTER TABLE dept DISABLE TRIGGER ALL; ALTER TABLE dept ENABLE TRIGGER ALL");
  CAF_REQUIRE(wait_until([&] { return drifted() == 1; }, 5s));
  replica_write("UPDATE dept SET loc = 'REPLICA 1' WHERE deptno = 51");
  CAF_CHECK_EQUAL(c.get("/deptemps/51").body, truth(51));
  CAF_CHECK_EQUAL(c.get("/deptemps/51").header_or_empty("Cache-Status"), "restcache; fwd=bypass");
  CAF_REQUIRE(repaired());
  CAF_CHECK_EQUAL(c.get("/deptemps/51").body, truth(51));
  CAF_CHECK(served_from_memory(d->port(), "/deptemps/51"));
  replica_write("UPDATE dept SET loc = 'REPLICA 2' WHERE deptno = 51");
  CAF_CHECK(serves_truth(d->port(), 51));
  // A table dropped and recreated with its rows (a migration): no triggers.
  CAF_REQUIRE_EQUAL(c.get("/deptemps/52").status, 200);
  sql.exec("CREATE TABLE dept_copy AS SELECT * FROM dept; ALTER TABLE emp DROP CONSTRAINT emp_deptno_fkey;"
           "DROP TABLE dept; ALTER TABLE dept_copy RENAME TO dept; ALTER TABLE dept ADD PRIMARY KEY (deptno)");
  CAF_REQUIRE(wait_until([&] { return drifted() == 1; }, 5s));
  replica_write("UPDATE dept SET dname = 'RECREATED' WHERE deptno = 52");
  CAF_CHECK_EQUAL(c.get("/deptemps/52").body, truth(52));
  CAF_CHECK(truth(52).find("RECREATED") != std::string::npos);
  CAF_REQUIRE(repaired());
  CAF_CHECK_EQUAL(c.get("/deptemps/52").body, truth(52));
  CAF_CHECK(served_from_memory(d->port(), "/deptemps/52"));
  replica_write("UPDATE dept SET dname = 'SEEN' WHERE deptno = 52");
  CAF_CHECK(serves_truth(d->port(), 52));
}

CAF_TEST(a database whose catalog cannot be checked caches nothing until the schema is installed again) {
  auto d = start({"--changelog.drift-interval=200"});
  http_client c{d->port()};
  CAF_REQUIRE_EQUAL(c.get("/deptemps/53").status, 200);
  // What a schema older than the build lacks.
  sql.exec("DROP FUNCTION restcache_trigger_source(text, text)");
  CAF_REQUIRE(wait_until([&] {
    return metric(c.get("/metrics").body, "restcache_documents_drifted{kind=\"emp\"}") == 1;
  }, 5s));
  sql.exec("UPDATE dept SET loc = 'UNCHECKED' WHERE deptno = 53");
  auto r = c.get("/deptemps/53");
  CAF_CHECK_EQUAL(r.body, truth(53));
  CAF_CHECK_EQUAL(r.header_or_empty("Cache-Status"), "restcache; fwd=bypass");
  CAF_CHECK_EQUAL(c.get("/ready").status, 200);
  // What restcache-load --schema-only runs.
  CAF_REQUIRE_EQUAL(demo::ensure_demo_schema(sql), pg::schema_version);
  CAF_REQUIRE(cached_again(d->port(), "emp"));
  CAF_CHECK_EQUAL(c.get("/deptemps/53").body, truth(53));
  CAF_CHECK(served_from_memory(d->port(), "/deptemps/53"));
}

CAF_TEST(writes made with a trigger disabled and enabled again between two checks are not served stale) {
  auto d = start({"--changelog.drift-interval=200"});
  http_client c{d->port()};
  auto before = c.get("/deptemps/42").body;
  CAF_REQUIRE_EQUAL(c.get("/deptemps/42").header_or_empty("Cache-Status"), "restcache; hit; detail=memory");
  auto drops = metric(c.get("/metrics").body, "restcache_listener_drift_drops_total");
  // One transaction: no check can see the trigger disabled.
  sql.exec("BEGIN; ALTER TABLE dept DISABLE TRIGGER restcache_changed;"
           "UPDATE dept SET loc = 'UNSEEN' WHERE deptno = 42;"
           "ALTER TABLE dept ENABLE ALWAYS TRIGGER restcache_changed; COMMIT");
  CAF_CHECK(serves_truth(d->port(), 42));
  CAF_CHECK_NOT_EQUAL(truth(42), before);
  CAF_CHECK_GREATER_OR_EQUAL(metric(c.get("/metrics").body, "restcache_listener_drift_drops_total"), drops + 1);
  CAF_CHECK_EQUAL(metric(c.get("/metrics").body, "restcache_documents_drifted{kind=\"deptemps\"}"), 0);
}

CAF_TEST(a column the documents read dropped answers a 503 naming it and re-added serves again) {
  auto d = start({"--changelog.drift-interval=200"});
  http_client c{d->port()};
  auto empno = std::to_string(sql.exec("SELECT min(empno) FROM emp WHERE deptno = 43").int64(0, 0));
  auto emp_path = "/depts/emps/" + empno;
  CAF_REQUIRE_EQUAL(c.get(emp_path).status, 200);
  sql.exec("ALTER TABLE emp DROP COLUMN comm");
  CAF_REQUIRE(wait_until([&] {
    return metric(c.get("/metrics").body, "restcache_documents_drifted{kind=\"emp\"}") == 1;
  }, 5s));
  auto r = c.get(emp_path);
  CAF_CHECK_EQUAL(r.status, 503);
  CAF_CHECK_EQUAL(r.header_or_empty("Content-Type"), "application/problem+json");
  CAF_CHECK(r.body.find("column public.emp.comm does not exist") != std::string::npos);
  CAF_MESSAGE(r.body);
  CAF_CHECK_EQUAL(c.get("/deptemps/43").status, 503);
  CAF_CHECK_EQUAL(c.get("/ready").status, 200);
  sql.exec("ALTER TABLE emp ADD COLUMN comm int");
  CAF_REQUIRE(cached_again(d->port(), "emp"));
  CAF_CHECK(wait_until([&] { return c.get(emp_path).status == 200; }, 5s));
  CAF_CHECK(served_from_memory(d->port(), emp_path));
  CAF_CHECK(serves_truth(d->port(), 43));
}

CAF_TEST(a daemon started while a column one kind reads is missing serves the others and a 503 naming it) {
  auto empno = std::to_string(sql.exec("SELECT min(empno) FROM emp WHERE deptno = 54").int64(0, 0));
  auto emp_path = "/depts/emps/" + empno;
  sql.exec("ALTER TABLE dept RENAME COLUMN loc TO location");
  for (std::string driver : {"async", "threads"}) {
    CAF_MESSAGE("db.driver=" << driver);
    auto d = start({"--changelog.drift-interval=200", "--db.driver=" + driver});
    http_client c{d->port()};
    // The employee documents read no column of dept: cached as ever.
    CAF_CHECK_EQUAL(c.get(emp_path).status, 200);
    CAF_CHECK(served_from_memory(d->port(), emp_path));
    auto r = c.get("/deptemps/54");
    CAF_CHECK_EQUAL(r.status, 503);
    CAF_CHECK_EQUAL(r.header_or_empty("Content-Type"), "application/problem+json");
    CAF_CHECK(r.body.find("column public.dept.loc does not exist") != std::string::npos);
    CAF_MESSAGE(r.body);
    CAF_CHECK_EQUAL(c.get("/ready").status, 200);
    sql.exec("ALTER TABLE dept RENAME COLUMN location TO loc");
    CAF_REQUIRE(cached_again(d->port(), "deptemps"));
    CAF_CHECK(serves_truth(d->port(), 54));
    CAF_CHECK(served_from_memory(d->port(), "/deptemps/54"));
    sql.exec("UPDATE dept SET loc = 'SEEN " + driver + "' WHERE deptno = 54");
    CAF_CHECK(serves_truth(d->port(), 54));
    sql.exec("ALTER TABLE dept RENAME COLUMN loc TO location");
  }
}

CAF_TEST(a key column renamed or dropped under a writer fails no write and serves nothing stale) {
  auto d = start({"--changelog.drift-interval=200"});
  http_client c{d->port()};
  // The writer changes department 47's documents; 46's are checked.
  auto empno = std::to_string(sql.exec("SELECT min(empno) FROM emp WHERE deptno = 47").int64(0, 0));
  std::atomic<bool> stop{false};
  std::atomic<int64_t> writes{0};
  std::mutex failed_m;
  std::vector<std::string> failed;
  std::thread writer([&] {
    pg::connection w{dsn};
    while (!stop) {
      try {
        w.exec("UPDATE emp SET sal = sal + 1 WHERE empno = " + empno);
        ++writes;
      } catch (const std::exception& e) {
        std::lock_guard lock{failed_m};
        failed.emplace_back(e.what());
      }
      std::this_thread::sleep_for(2ms);
    }
  });
  auto more_writes = [&] {
    auto target = writes.load() + 20;
    return wait_until([&] { return writes.load() >= target; }, 10s);
  };
  auto drifted = [&](int64_t n) {
    return wait_until([&] { return metric_of(d->port(), "restcache_documents_drifted{kind=\"deptemps\"}") == n; }, 5s);
  };
  // Bypassed as drift: nothing is answered from the tiers, so nothing stale.
  auto bypassed = [&] {
    CAF_CHECK(more_writes());
    CAF_CHECK(drifted(1));
    for (int i = 0; i < 3; ++i)
      CAF_CHECK_EQUAL(c.get("/deptemps/46").header_or_empty("Cache-Status").find("hit"), std::string::npos);
    CAF_CHECK_NOT_EQUAL(c.get("/deptemps/46").status, 200); // its statement reads the column
  };
  int round = 0;
  auto cached = [&] {
    CAF_CHECK(more_writes());
    CAF_REQUIRE(cached_again(d->port(), "deptemps"));
    CAF_CHECK(serves_truth(d->port(), 46));
    CAF_CHECK(served_from_memory(d->port(), "/deptemps/46"));
    sql.exec("UPDATE emp SET ename = 'ROUND " + std::to_string(++round) + "' WHERE deptno = 46");
    CAF_CHECK(serves_truth(d->port(), 46));
  };
  for (bool followed : {true, false}) {
    CAF_MESSAGE("DDL followed by event triggers: " << followed);
    if (!followed) // as a non-superuser's install has it: the functions guard their reads
      sql.exec("DROP EVENT TRIGGER restcache_ddl_end; DROP EVENT TRIGGER restcache_ddl_drop;"
               "SELECT restcache_define_trigger_functions()");
    cached();
    sql.exec("ALTER TABLE emp RENAME COLUMN deptno TO dept_no");
    bypassed();
    sql.exec("ALTER TABLE emp RENAME COLUMN dept_no TO deptno");
    cached();
    sql.exec("CREATE TABLE emp_dept AS SELECT empno, deptno FROM emp; ALTER TABLE emp DROP COLUMN deptno");
    bypassed();
    sql.exec("ALTER TABLE emp ADD COLUMN deptno int REFERENCES dept ON DELETE CASCADE;"
             "UPDATE emp e SET deptno = s.deptno FROM emp_dept s WHERE s.empno = e.empno;"
             "CREATE INDEX ON emp (deptno); DROP TABLE emp_dept");
    cached();
  }
  stop = true;
  writer.join();
  CAF_CHECK(failed.empty());
  for (const auto& f : failed)
    CAF_MESSAGE("a write failed: " << f);
}

CAF_TEST(a comment an index or a column no document reads keeps the tiers and row security drops them) {
  auto d = start({"--changelog.drift-interval=200", "--lmdb.path=" + lmdb_dir});
  http_client c{d->port()};
  CAF_REQUIRE_EQUAL(c.get("/deptemps/48").status, 200);
  CAF_REQUIRE(served_from_memory(d->port(), "/deptemps/48"));
  auto drops = metric_of(d->port(), "restcache_listener_drift_drops_total");
  auto checks = metric_of(d->port(), "restcache_listener_drift_checks_total");
  for (const char* ddl : {"COMMENT ON TABLE emp IS 'employees'", "CREATE INDEX emp_sal_idx ON emp (sal)",
                          "ALTER TABLE emp ADD COLUMN note text", "COMMENT ON COLUMN emp.deptno IS 'their department'",
                          "ALTER TABLE dept ADD COLUMN budget numeric DEFAULT 0"}) {
    CAF_MESSAGE(ddl);
    sql.exec(ddl);
    // Seen (the event trigger's entry, or the periodic check), and harmless.
    CAF_CHECK(wait_until([&] { return metric_of(d->port(), "restcache_listener_drift_checks_total") > checks + 1; }, 5s));
    checks = metric_of(d->port(), "restcache_listener_drift_checks_total");
    CAF_CHECK_EQUAL(c.get("/deptemps/48").header_or_empty("Cache-Status"), "restcache; hit; detail=memory");
    CAF_CHECK_EQUAL(metric_of(d->port(), "restcache_listener_drift_drops_total"), drops);
  }
  // Which rows a reader sees may change with row-level security: dropped.
  sql.exec("ALTER TABLE emp ENABLE ROW LEVEL SECURITY");
  CAF_CHECK(wait_until([&] { return metric_of(d->port(), "restcache_listener_drift_drops_total") == drops + 1; }, 5s));
  CAF_CHECK(serves_truth(d->port(), 48));
  CAF_CHECK(served_from_memory(d->port(), "/deptemps/48"));
  sql.exec("CREATE POLICY only_some ON emp USING (sal > 0)");
  CAF_CHECK(wait_until([&] { return metric_of(d->port(), "restcache_listener_drift_drops_total") == drops + 2; }, 5s));
}

CAF_TEST(a role that may read but not prune the change log is said once and keeps its session) {
  auto db = dsn.substr(dsn.find("dbname=") + 7);
  db = db.substr(0, db.find(' '));
  sql.exec("DROP ROLE IF EXISTS inval_reader; CREATE ROLE inval_reader LOGIN;"
           "GRANT SELECT ON ALL TABLES IN SCHEMA public TO inval_reader;"
           "GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA public TO inval_reader");
  auto reader_dsn = dsn;
  reader_dsn.replace(reader_dsn.find("user=restcache"), 14, "user=inval_reader");
  daemon_process d{{"--db.dsn=" + reader_dsn, "--db.pool-size=2", "--cache.shards=2", "--log.level=info",
                    "--changelog.poll-interval=20", "--changelog.retention=1"}};
  http_client c{d.port()};
  CAF_REQUIRE(wait_until([&] { return metric(c.get("/metrics").body, "restcache_listener_caught_up") == 1; }));
  std::this_thread::sleep_for(1500ms); // prunes are due every poll while none has succeeded
  CAF_CHECK_EQUAL(metric(c.get("/metrics").body, "restcache_listener_connects_total"), 1);
  auto log = d.log();
  auto said = log.find("this role may not prune the change log");
  CAF_CHECK_NOT_EQUAL(said, std::string::npos);
  CAF_CHECK_EQUAL(log.find("this role may not prune the change log", said + 1), std::string::npos);
  // Reading, and so freshness, is unaffected.
  CAF_REQUIRE_EQUAL(c.get("/deptemps/49").status, 200);
  sql.exec("UPDATE dept SET loc = 'READ BY A READER' WHERE deptno = 49");
  CAF_CHECK(serves_truth(d.port(), 49));
  sql.exec("REASSIGN OWNED BY inval_reader TO restcache; DROP OWNED BY inval_reader");
}

CAF_TEST(a transaction older than the age bound pruned right after its commit serves nothing stale) {
  // A poll a second: the prune lands between the commit and the next poll.
  auto d = start({"--changelog.poll-interval=1000"});
  http_client c{d->port()};
  CAF_REQUIRE_EQUAL(c.get("/deptemps/46").status, 200);
  CAF_REQUIRE(served_from_memory(d->port(), "/deptemps/46"));
  pg::connection writer{dsn};
  writer.exec("BEGIN");
  writer.exec("UPDATE dept SET loc = 'LONG AGO' WHERE deptno = 46");
  sql.exec("UPDATE change_log_horizon SET max_age = '1 second'");
  std::this_thread::sleep_for(1500ms); // the transaction is older than the bound
  writer.exec("COMMIT");
  CAF_CHECK_GREATER(sql.exec("SELECT restcache_prune_change_log()").int64(0, 0), 0);
  // Pruned by age, not by commit order: the next poll finds the horizon past
  // what it had not read, and drops both tiers.
  CAF_CHECK(serves_truth(d->port(), 46));
  CAF_CHECK(c.get("/deptemps/46").body.find("LONG AGO") != std::string::npos);
}

CAF_TEST(an asynchronous commit read and then lost in a crash is not served after the restart) {
  if (test_feed() != feed_kind::triggers) {
    CAF_MESSAGE("the WAL feed sends only flushed WAL: nothing of a lost commit is ever read");
    return;
  }
  private_pg own;
  load_demo(own.dsn(), depts, 5);
  {
    pg::connection admin{own.dsn()};
    // The WAL writer writes out what asynchronous commits left every 10 s:
    // a crash within that loses them.
    admin.exec("ALTER SYSTEM SET wal_writer_delay = '10s'");
    admin.exec("SELECT pg_reload_conf()");
  }
  daemon_process d{{"--db.dsn=" + own.dsn(), "--db.pool-size=2", "--cache.shards=2", "--log.level=warn",
                    "--changelog.poll-interval=20", "--lmdb.path=" + lmdb_dir, "--lmdb.flush-interval=20"}};
  http_client c{d.port()};
  CAF_REQUIRE(wait_until([&] { return metric(c.get("/metrics").body, "restcache_listener_caught_up") == 1; }));
  auto before = c.get("/deptemps/21").body;
  CAF_REQUIRE(before.find("LOST IN A CRASH") == std::string::npos);
  // The lost transaction takes its xid first; a later one commits durably
  // before it. The newest entry the tiers applied (by xid) then survives
  // the crash, and so does the next xid: neither the witness nor the xids
  // can tell that a commit read was lost.
  pg::connection lost{own.dsn()}, kept{own.dsn()};
  lost.exec("BEGIN");
  lost.exec("UPDATE dept SET loc = 'LOST IN A CRASH' WHERE deptno = 21");
  kept.exec("SET synchronous_commit = on");
  kept.exec("UPDATE dept SET loc = 'KEPT' WHERE deptno = 22");
  CAF_REQUIRE(wait_until([&] { return c.get("/deptemps/22").body.find("KEPT") != std::string::npos; }, 5s));
  lost.exec("SET LOCAL synchronous_commit = off");
  lost.exec("COMMIT");
  // Read by the listener (the document dropped) and by a fill (cached).
  CAF_REQUIRE(wait_until([&] { return c.get("/deptemps/21").body.find("LOST IN A CRASH") != std::string::npos; }, 5s));
  own.crash_server();
  own.restart_server();
  pg::connection after{own.dsn()};
  const std::string lost_loc{after.exec("SELECT loc FROM dept WHERE deptno = 21").text(0, 0)};
  const std::string kept_loc{after.exec("SELECT loc FROM dept WHERE deptno = 22").text(0, 0)};
  CAF_REQUIRE_NOT_EQUAL(lost_loc, "LOST IN A CRASH"); // the commit was lost
  CAF_REQUIRE_EQUAL(kept_loc, "KEPT");
  // Bypassed until the listener is back; then served from the tiers again.
  CAF_REQUIRE(wait_until([&] {
    auto text = c.get("/metrics").body;
    return metric(text, "restcache_listener_connects_total") == 2 && metric(text, "restcache_listener_caught_up") == 1;
  }, 20s));
  CAF_CHECK_EQUAL(c.get("/deptemps/21").body, before);
  CAF_CHECK(served_from_memory(d.port(), "/deptemps/21"));
  CAF_CHECK_EQUAL(c.get("/deptemps/21").body, before);
  CAF_CHECK_EQUAL(metric(c.get("/metrics").body, "restcache_listener_history_resets_total{rule=\"went_backwards\"}"), 1);
  CAF_CHECK_EQUAL(d.terminate(), 0);
}

CAF_TEST(a column type altered with new values drops what was cached and serves the new values) {
  auto d = start({"--changelog.drift-interval=200"});
  http_client c{d->port()};
  CAF_REQUIRE_EQUAL(c.get("/deptemps/44").status, 200);
  auto before = c.get("/deptemps/44").body;
  auto drops = metric(c.get("/metrics").body, "restcache_listener_drift_drops_total");
  // A rewrite: no row trigger fires; the event trigger logs the DDL.
  sql.exec("ALTER TABLE emp ALTER COLUMN sal TYPE bigint USING sal * 2");
  CAF_CHECK_NOT_EQUAL(truth(44), before);
  // Within a poll, as a write: a pooled connection's prepared statement
  // fails once on the new type (a 503 naming it) and is prepared again.
  CAF_CHECK(serves_truth(d->port(), 44, 2s));
  CAF_CHECK_GREATER_OR_EQUAL(metric(c.get("/metrics").body, "restcache_listener_drift_drops_total"), drops + 1);
  CAF_CHECK(wait_until([&] { return c.get("/deptemps/44").header_or_empty("Cache-Status") == "restcache; hit; detail=memory"; }, 2s));
}

CAF_TEST(a table swapped by rename is bypassed until its triggers are installed) {
  auto d = start({"--changelog.drift-interval=200"});
  http_client c{d->port()};
  CAF_REQUIRE_EQUAL(c.get("/deptemps/45").status, 200);
  sql.exec("CREATE TABLE dept_new (LIKE dept INCLUDING ALL); INSERT INTO dept_new SELECT * FROM dept;"
           "UPDATE dept_new SET dname = 'SWAPPED' WHERE deptno = 45;"
           "ALTER TABLE emp DROP CONSTRAINT emp_deptno_fkey;"
           "ALTER TABLE dept RENAME TO dept_old; ALTER TABLE dept_new RENAME TO dept");
  CAF_CHECK(serves_truth(d->port(), 45));
  CAF_CHECK(truth(45).find("SWAPPED") != std::string::npos);
  CAF_CHECK_EQUAL(c.get("/deptemps/45").header_or_empty("Cache-Status"), "restcache; fwd=bypass");
  sql.exec("SELECT restcache_install_triggers()");
  CAF_REQUIRE(cached_again(d->port(), "deptemps"));
  CAF_CHECK(serves_truth(d->port(), 45));
  CAF_CHECK(served_from_memory(d->port(), "/deptemps/45"));
  sql.exec("UPDATE dept SET loc = 'SEEN' WHERE deptno = 45");
  CAF_CHECK(serves_truth(d->port(), 45));
}

CAF_TEST(a trigger toggled while the daemon was down drops what LMDB held at the restart) {
  // Without the event triggers (a database without a superuser to install
  // them, whose trigger functions guard their reads): only the catalog
  // fingerprint kept with the file can tell.
  sql.exec("DROP EVENT TRIGGER restcache_ddl_end; DROP EVENT TRIGGER restcache_ddl_drop;"
           "SELECT restcache_define_trigger_functions()");
  auto args = std::vector<std::string>{"--lmdb.path=" + lmdb_dir};
  auto d = start(args);
  {
    http_client c{d->port()};
    for (int id = 46; id < 49; ++id)
      CAF_REQUIRE_EQUAL(c.get("/deptemps/" + std::to_string(id)).status, 200);
    CAF_REQUIRE(wait_until([&] { return metric(c.get("/metrics").body, "restcache_lmdb_records") == 3; }));
  }
  CAF_REQUIRE_EQUAL(d->terminate(), 0);
  sql.exec("BEGIN; ALTER TABLE dept DISABLE TRIGGER restcache_changed;"
           "UPDATE dept SET loc = 'UNSEEN' WHERE deptno = 47;"
           "ALTER TABLE dept ENABLE ALWAYS TRIGGER restcache_changed; COMMIT");
  d = start(args);
  http_client c{d->port()};
  CAF_CHECK_EQUAL(c.get("/deptemps/47").body, truth(47));
  CAF_CHECK_EQUAL(metric(c.get("/metrics").body, "restcache_listener_drift_drops_total"), 1);
  // Without the toggle, a restart keeps the file (the restart test above).
}

CAF_TEST(a listener kill drops nothing and resets no history) {
  auto d = start({"--lmdb.path=" + lmdb_dir, "--changelog.drift-interval=200"});
  http_client c{d->port()};
  CAF_REQUIRE_EQUAL(c.get("/deptemps/50").status, 200);
  auto counters = [&] { return drop_counters(c.get("/metrics").body); };
  auto before = counters();
  auto connects = metric(c.get("/metrics").body, "restcache_listener_connects_total");
  sql.exec("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'restcache-listener'"
           " AND datname = current_database()");
  CAF_REQUIRE(wait_until([&] {
    return metric(c.get("/metrics").body, "restcache_listener_connects_total") > connects
           && metric(c.get("/metrics").body, "restcache_listener_caught_up") == 1;
  }, 10s));
  CAF_CHECK_EQUAL(counters(), before);
  CAF_CHECK_EQUAL(c.get("/deptemps/50").header_or_empty("Cache-Status"), "restcache; hit; detail=memory");
}

CAF_TEST(the freshness checker counts no stale read while the listener is killed repeatedly) {
  auto d = start();
  std::atomic<bool> stop{false};
  std::thread killer([&] {
    pg::connection admin{shared_private_pg().dsn()};
    while (!stop.load()) {
      admin.exec("SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                 " WHERE application_name = 'restcache-listener'");
      std::this_thread::sleep_for(700ms);
    }
  });
  auto cmd = std::string{RESTCACHE_FRESHNESS_BIN} + " -q --duration 6 --writes-per-second 15"
             + " --read-delay-ms 1000 --readers 1 --reads-per-second 200 --latency-every 3"
             + " --dsn '" + dsn + "' --url http://127.0.0.1:" + std::to_string(d->port());
  auto status = std::system(cmd.c_str());
  stop = true;
  killer.join();
  CAF_CHECK(WIFEXITED(status));
  CAF_CHECK_EQUAL(WEXITSTATUS(status), 0); // 0 stale, 0 errors
  CAF_CHECK_GREATER_OR_EQUAL(metric_of(d->port(), "restcache_listener_connects_total"), 3);
}

CAF_TEST(the freshness checker counts no stale read across truncates and replica mode writes) {
  auto d = start();
  auto cmd = std::string{RESTCACHE_FRESHNESS_BIN} + " -q --duration 6 --writes-per-second 10"
             + " --read-delay-ms 500 --readers 1 --reads-per-second 200 --latency-every 3"
             + " --kinds truncate_reload,replica_rename --json"
             + " --dsn '" + dsn + "' --url http://127.0.0.1:" + std::to_string(d->port()) + " > " + lmdb_dir
             + "/freshness.out";
  auto status = std::system(cmd.c_str());
  CAF_CHECK(WIFEXITED(status));
  CAF_CHECK_EQUAL(WEXITSTATUS(status), 0); // 0 stale, 0 errors
  // Both new kinds were made (a quarter of the writes are truncates; a
  // loaded machine makes fewer writes in the time, so at least one each).
  std::ifstream in{lmdb_dir + "/freshness.out"};
  std::string out{std::istreambuf_iterator<char>{in}, {}};
  auto count_of = [&](const std::string& kind) {
    auto at = out.find("\"" + kind + "\":");
    return at == std::string::npos ? -1 : std::atoi(out.c_str() + at + kind.size() + 3);
  };
  CAF_CHECK_GREATER_OR_EQUAL(count_of("truncate_reload"), 1);
  CAF_CHECK_GREATER_OR_EQUAL(count_of("replica_rename"), 1);
  // The last truncate may have committed just before the checker ended: the
  // listener's next read counts it.
  CAF_CHECK(wait_until([&] {
    return metric_of(d->port(), "restcache_listener_truncates_total") >= count_of("truncate_reload");
  }, 5s));
  if (WEXITSTATUS(status) != 0)
    CAF_MESSAGE("restcache-freshness: " << out);
}

CAF_TEST(the change log size is measured and warned about past changelog.warn-bytes) {
  auto d = start({"--changelog.warn-bytes=1"});
  CAF_CHECK(wait_until([&] { return metric_of(d->port(), "restcache_changelog_bytes") > 0; }, 5s));
  CAF_CHECK_GREATER_OR_EQUAL(metric_of(d->port(), "restcache_changelog_oldest_entry_age_seconds"), 0);
  CAF_CHECK(wait_until([&] { return d->log().find("the change log holds") != std::string::npos; }, 5s));
}

CAF_TEST(the freshness checker creates ids cached as missing and reads them back created) {
  auto d = start();
  auto out_path = lmdb_dir + "/freshness-inserts.out";
  auto cmd = std::string{RESTCACHE_FRESHNESS_BIN} + " -q --duration 4 --writes-per-second 10"
             + " --read-delay-ms 500 --readers 1 --reads-per-second 100 --latency-every 0"
             + " --kinds insert_dept,insert_emp --json"
             + " --dsn '" + dsn + "' --url http://127.0.0.1:" + std::to_string(d->port()) + " > " + out_path;
  auto status = std::system(cmd.c_str());
  CAF_CHECK(WIFEXITED(status));
  CAF_CHECK_EQUAL(WEXITSTATUS(status), 0); // 0 stale: no id answered missing once created
  std::ifstream in{out_path};
  std::string out{std::istreambuf_iterator<char>{in}, {}};
  if (WEXITSTATUS(status) != 0)
    CAF_MESSAGE("restcache-freshness: " << out << "\nrestcached's log:\n" << d->log());
  auto at = out.find("\"primed_missing\":");
  CAF_REQUIRE(at != std::string::npos);
  CAF_CHECK_GREATER_OR_EQUAL(std::atoi(out.c_str() + at + 17), 5);
  CAF_CHECK_GREATER_OR_EQUAL(metric_of(d->port(), "restcache_cache_answers_total{cache_status=\"negative\"}"), 5);
}

CAF_TEST_FIXTURE_SCOPE_END()
