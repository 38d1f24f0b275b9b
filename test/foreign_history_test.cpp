// SPDX-License-Identifier: Apache-2.0
#define CAF_SUITE foreign_history
#include "test/fixtures/daemon_process.hpp"

#include <caf/test/unit_test.hpp>

#include <memory>
#include <thread>
#include <string>
#include <vector>

#include "messages/document_encoder.hpp"
#include "demo/data_generator.hpp"
#include "persistence/pg/schema.hpp"
#include "persistence/pg/statements.hpp"
#include "test/fixtures/child_program.hpp"
#include "test/fixtures/http_client.hpp"
#include "test/fixtures/private_pg.hpp"
#include "test/fixtures/test_support.hpp"
#include "demo/demo_encoders.hpp"
#include "demo/demo_reads.hpp"

// An LMDB file written from one history (a database of a cluster, up to a
// watermark) and a daemon started on it against another: the other's
// documents are served, never the file's.

using namespace restcache;
using namespace restcache::test;
using namespace std::chrono_literals;

namespace {

constexpr int32_t probe = 77; ///< the department both histories hold, differently

/// Schema and one department inserted by SQL: `probe`, with no employees.
void insert_other(const std::string& dsn) {
  pg::connection c{dsn};
  demo::ensure_demo_schema(c);
  c.exec("INSERT INTO dept VALUES (" + std::to_string(probe) + ", 'OTHER DATABASE', 'Nowhere')");
}

std::string truth(const std::string& dsn, int32_t deptno) {
  pg::connection c{dsn};
  auto d = demo::fetch_deptemps(c, deptno);
  return d ? demo::encode_deptemps(*d) : std::string{};
}

struct fixture {
  temp_dir lmdb{"history"};

  /// A daemon on `dsn` with the shared LMDB directory, caught up.
  std::unique_ptr<daemon_process> start(const std::string& dsn) {
    auto d = std::make_unique<daemon_process>(std::vector<std::string>{
      "--db.dsn=" + dsn, "--db.pool-size=2", "--cache.shards=2", "--log.level=warn",
      "--lmdb.flush-interval=20", "--changelog.poll-interval=20", "--lmdb.path=" + lmdb.path});
    http_client c{d->port()};
    // Ready, not only caught up: a fill before the pool's first connect answers 503.
    CAF_REQUIRE(wait_until([&] {
      return metric(c.get("/metrics").body, "restcache_listener_caught_up") == 1 && c.get("/ready").status == 200;
    }));
    return d;
  }

  /// Caches `ids` in memory and LMDB through GETs, waits until they are
  /// all in the file and the watermark is in it too, and stops the daemon.
  void fill_file(const std::string& dsn, const std::vector<int32_t>& ids) {
    auto d = start(dsn);
    http_client c{d->port()};
    for (auto id : ids)
      CAF_REQUIRE_EQUAL(c.get("/deptemps/" + std::to_string(id)).status, 200);
    CAF_REQUIRE(wait_until([&] {
      return metric(c.get("/metrics").body, "restcache_lmdb_records") == static_cast<int64_t>(ids.size());
    }));
    // Caught up means a watermark; the writer stores it by the time it drains.
    CAF_REQUIRE_GREATER(metric(c.get("/metrics").body, "restcache_listener_watermark_xid"), 0);
    CAF_REQUIRE_EQUAL(d->terminate(), 0);
  }

  /// Demo data in `cluster`, a copy of its data directory, then `probe`
  /// updated and `extra_xids` transactions more, the file filled, and the
  /// copy restored in place (no recovery: it runs as it was). Returns the
  /// probe's document as the file holds it.
  std::string file_then_older_copy(private_pg& cluster, int extra_xids) {
    load_demo(cluster.dsn(), 100, 10);
    cluster.stop_server();
    cluster.save_data("before");
    cluster.start_server();
    {
      pg::connection c{cluster.dsn()};
      c.exec("UPDATE dept SET dname = 'AFTER THE COPY' WHERE deptno = " + std::to_string(probe));
      for (int i = 0; i < extra_xids; ++i)
        c.exec("SELECT pg_current_xact_id()");
    }
    auto after = truth(cluster.dsn(), probe);
    fill_file(cluster.dsn(), {probe, 9});
    cluster.stop_server();
    cluster.restore_data("before");
    cluster.start_server();
    return after;
  }

  /// GET /deptemps/`probe` on a daemon started on `dsn` with the file:
  /// checks it is the database's document, not the file's.
  void check_serves(const std::string& dsn, const std::string& rule) {
    auto d = start(dsn);
    http_client c{d->port()};
    auto want = truth(dsn, probe);
    CAF_CHECK_EQUAL(c.get("/deptemps/" + std::to_string(probe)).body, want);
    auto text = c.get("/metrics").body;
    CAF_CHECK_EQUAL(metric(text, "restcache_listener_history_resets_total{rule=\"" + rule + "\"}"), 1);
    // What is in the file now is of this history: a restart serves it.
    CAF_REQUIRE_EQUAL(d->terminate(), 0);
    d = start(dsn);
    http_client again{d->port()};
    CAF_CHECK_EQUAL(again.get("/deptemps/" + std::to_string(probe)).body, want);
    CAF_CHECK_EQUAL(metric(again.get("/metrics").body, "restcache_listener_history_resets_total{rule=\"" + rule + "\"}"),
                    0);
  }
};

} // namespace

CAF_TEST_FIXTURE_SCOPE(foreign_history_tests, fixture)

CAF_TEST(a file filled from another cluster is dropped and the database is served) {
  auto a = create_demo_database("hist_a", 100, 10);
  fill_file(a, {probe, 1, 2, 3});
  // A brand-new cluster: its xids are far below the file's watermark.
  private_pg other;
  auto b = other.create_database("hist_b");
  insert_other(b);
  CAF_REQUIRE_NOT_EQUAL(truth(b, probe), truth(a, probe));
  check_serves(b, "other_cluster");
  shared_private_pg().drop_database(a);
}

CAF_TEST(a file filled from another database of the same cluster is dropped) {
  // B's rows are older than A's watermark: a replay from it would miss them.
  auto b = shared_private_pg().create_database("hist_b");
  insert_other(b);
  auto a = create_demo_database("hist_a", 100, 10);
  fill_file(a, {probe, 5, 6});
  CAF_REQUIRE_NOT_EQUAL(truth(b, probe), truth(a, probe));
  check_serves(b, "other_database");
  shared_private_pg().drop_database(a);
  shared_private_pg().drop_database(b);
}

CAF_TEST(a cluster taken back to an older copy of its data is not served from the file) {
  private_pg cluster;
  auto after = file_then_older_copy(cluster, 20); // xids the copy never saw
  CAF_REQUIRE(after.find("AFTER THE COPY") != std::string::npos);
  CAF_REQUIRE_NOT_EQUAL(truth(cluster.dsn(), probe), after);
  check_serves(cluster.dsn(), "went_backwards");
}

CAF_TEST(an older copy restored in place and then written past the watermark is not served from the file) {
  private_pg cluster;
  auto after = file_then_older_copy(cluster, 0);
  {
    // 3,000 transactions: the next xid passes the file's watermark, so the
    // identity and xid rule alone would take the copy for the same history.
    pg::connection c{cluster.dsn()};
    c.exec("DO $$ BEGIN FOR i IN 1..3000 LOOP PERFORM pg_current_xact_id(); COMMIT; END LOOP; END $$");
  }
  CAF_REQUIRE_NOT_EQUAL(truth(cluster.dsn(), probe), after);
  check_serves(cluster.dsn(), "went_backwards");
}

CAF_TEST(a dump restored in sections into a database of the same oid never serves a document of before) {
  private_pg cluster;
  load_demo(cluster.dsn(), 100, 10);
  temp_dir dir{"history-dump"};
  auto file = dir.path + "/demo.dump";
  auto dumped = run_program({pg_program("pg_dump"), "--format=custom", "--file=" + file, cluster.dsn()}, 60s);
  CAF_REQUIRE_EQUAL(dumped.status, 0);
  // After the dump: what the restore takes back, cached in memory and LMDB.
  {
    pg::connection c{cluster.dsn()};
    c.exec("UPDATE dept SET dname = 'AFTER THE DUMP' WHERE deptno = " + std::to_string(probe));
  }
  auto d = start(cluster.dsn());
  http_client c{d->port()};
  auto path = "/deptemps/" + std::to_string(probe);
  CAF_REQUIRE(c.get(path).body.find("AFTER THE DUMP") != std::string::npos);
  CAF_REQUIRE_EQUAL(c.get(path).header_or_empty("Cache-Status"), "restcache; hit; detail=memory");
  CAF_REQUIRE(wait_until([&] { return metric(c.get("/metrics").body, "restcache_lmdb_records") >= 1; }));
  // The same name and oid (PostgreSQL 15 takes an OID), restored in
  // sections: tables first, then rows, then indexes and triggers, with
  // reads in between. Each answer is what the database holds then, or an
  // error, or marked stale-if-error (while the pool reconnects after the
  // DROP, as in any outage, within cache.stale-if-error); never an unmarked
  // document of before the restore.
  {
    pg::connection admin{cluster.dsn("postgres")};
    auto oid = admin.exec(std::string{"SELECT oid FROM pg_database WHERE datname = '"} + private_pg::database_name + "'")
                 .int64(0, 0);
    admin.exec(std::string{"DROP DATABASE "} + private_pg::database_name + " WITH (FORCE)");
    admin.exec(std::string{"CREATE DATABASE "} + private_pg::database_name + " OID = " + std::to_string(oid));
  }
  int stale = 0, answered = 0, marked_stale = 0;
  auto read_during = [&](const char* section) {
    for (int i = 0; i < 20; ++i) {
      for (int32_t id : {probe, 5}) {
        auto r = c.get("/deptemps/" + std::to_string(id));
        if (r.status != 200)
          continue;
        if (r.header_or_empty("Cache-Status") == "restcache; hit; detail=stale-if-error") {
          ++marked_stale;
          continue;
        }
        ++answered;
        auto want = truth(cluster.dsn(), id);
        if (r.body != want) {
          ++stale;
          CAF_MESSAGE("after " << section << ": " << r.header_or_empty("Cache-Status") << " " << r.body.substr(0, 60)
                                 << " (database: " << want.substr(0, 60) << ")");
        }
      }
      std::this_thread::sleep_for(50ms);
    }
  };
  for (const char* section : {"pre-data", "data", "post-data"}) {
    auto restored = run_program({pg_program("pg_restore"), "--section=" + std::string{section},
                                 "--dbname=" + cluster.dsn(), file}, 60s);
    CAF_REQUIRE_EQUAL(restored.status, 0);
    read_during(section);
  }
  CAF_CHECK_EQUAL(stale, 0);
  CAF_CHECK_GREATER(answered, 0);
  CAF_MESSAGE(answered << " answers, " << marked_stale << " marked stale-if-error");
  // Restored complete: cached again once the listener has checked it all.
  CAF_CHECK(wait_until([&] {
    return c.get(path).header_or_empty("Cache-Status") == "restcache; hit; detail=memory";
  }, 20s));
  CAF_CHECK_EQUAL(c.get(path).body, truth(cluster.dsn(), probe));
  CAF_CHECK(c.get(path).body.find("AFTER THE DUMP") == std::string::npos);
}

CAF_TEST_FIXTURE_SCOPE_END()
