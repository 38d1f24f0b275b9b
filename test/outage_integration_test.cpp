// SPDX-License-Identifier: Apache-2.0
#define CAF_SUITE outage_integration
#include "test/fixtures/daemon_process.hpp"

#include <caf/test/unit_test.hpp>

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "messages/document_encoder.hpp"
#include "persistence/pg/statements.hpp"
#include "test/fixtures/http_client.hpp"
#include "test/fixtures/private_pg.hpp"
#include "test/fixtures/test_support.hpp"
#include "demo/demo_encoders.hpp"
#include "demo/demo_reads.hpp"

// PostgreSQL stopped under a running daemon: a cluster of the suite's own,
// since the shared one cannot be stopped.

using namespace restcache;
using namespace restcache::test;
using namespace std::chrono_literals;

namespace {

struct fixture {
  private_pg cluster;
  std::unique_ptr<daemon_process> d;

  fixture() {
    load_demo(cluster.dsn(), 100, 5);
    d = std::make_unique<daemon_process>(std::vector<std::string>{
      "--db.dsn=" + cluster.dsn(), "--db.pool-size=2", "--cache.shards=2", "--log.level=warn",
      "--cache.mode=memory", "--changelog.poll-interval=20", "--db.query-timeout-ms=2000",
      "--cache.fill-timeout-ms=3000"});
    wait_ready();
  }

  /// Caught up and the pool connected (a fill before that answers 503).
  void wait_ready() {
    http_client c{d->port()};
    CAF_REQUIRE(wait_until([&] { return c.get("/ready").status == 200; }));
  }

  static std::string truth(pg::connection& c, int32_t deptno) {
    auto doc = demo::fetch_deptemps(c, deptno);
    return doc ? demo::encode_deptemps(*doc) : std::string{};
  }

  /// No new session may reach the database (the listener cannot come back);
  /// sessions open already keep working. Set from another database: it
  /// holds across a restart of the server.
  void allow_connections(bool yes) {
    pg::connection admin{cluster.dsn("postgres")};
    admin.exec(std::string{"ALTER DATABASE "} + private_pg::database_name + " ALLOW_CONNECTIONS "
               + (yes ? "true" : "false"));
    if (!yes)
      admin.exec("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = "
                 "'restcache-listener'");
  }

  /// The listener's connection is gone and the listener actor has taken
  /// it in (its caught-up gauge falls once the tiers are bypassed): the
  /// thread's gauge alone falls a moment before the bypass.
  bool listener_down() {
    return metric_now("restcache_listener_connected") == 0 && metric_now("restcache_listener_caught_up") == 0;
  }

  int64_t metric_now(const std::string& name) {
    http_client c{d->port()};
    return metric(c.get("/metrics").body, name);
  }
};

} // namespace

CAF_TEST_FIXTURE_SCOPE(outage_integration_tests, fixture)

CAF_TEST(with PostgreSQL stopped cached documents answer stale and a change it hid is served fresh after) {
  http_client c{d->port()};
  auto first = c.get("/deptemps/21");
  CAF_REQUIRE_EQUAL(first.status, 200);
  CAF_CHECK_EQUAL(first.header_or_empty("Cache-Status"), "restcache; fwd=uri-miss; stored");
  CAF_CHECK_EQUAL(c.get("/deptemps/21").header_or_empty("Cache-Status"), "restcache; hit; detail=memory");
  auto other = c.get("/deptemps/22").body;
  auto before = first.body;

  // The listener's backend is terminated and cannot reconnect; a change is
  // written through a session of its own (open before the cut); then
  // PostgreSQL stops, before the listener could have seen anything.
  pg::connection writer{cluster.dsn()};
  allow_connections(false);
  CAF_REQUIRE(wait_until([&] { return listener_down(); }));
  auto bypassed = c.get("/deptemps/22"); // still reachable through the pool
  CAF_CHECK_EQUAL(bypassed.status, 200);
  CAF_CHECK_EQUAL(bypassed.header_or_empty("Cache-Status"), "restcache; fwd=bypass");
  CAF_CHECK_EQUAL(bypassed.body, other);
  writer.exec("UPDATE dept SET loc = 'WHILE BLIND' WHERE deptno = 21");
  auto changed = truth(writer, 21);
  CAF_REQUIRE_NOT_EQUAL(changed, before);
  cluster.stop_server();

  auto stale = c.get("/deptemps/21");
  CAF_CHECK_EQUAL(stale.status, 200);
  CAF_CHECK_EQUAL(stale.body, before);
  CAF_CHECK_EQUAL(stale.header_or_empty("Cache-Status"), "restcache; hit; detail=stale-if-error");
  CAF_CHECK(stale.has_header("Age"));
  auto uncached = c.get("/deptemps/50");
  CAF_CHECK_EQUAL(uncached.status, 503);
  CAF_CHECK_EQUAL(uncached.header_or_empty("Retry-After"), "1");
  CAF_CHECK_EQUAL(uncached.header_or_empty("Content-Type"), "application/problem+json");
  auto ready = c.get("/ready");
  CAF_CHECK_EQUAL(ready.status, 503);
  CAF_CHECK(ready.body.find("serving stale") != std::string::npos);
  CAF_CHECK_EQUAL(c.get("/health").status, 200);
  CAF_CHECK_GREATER(metric_now("restcache_serving_stale_since_seconds"), 0);
  CAF_CHECK_GREATER_OR_EQUAL(metric_now("restcache_cache_answers_total{cache_status=\"stale_if_error\"}"), 1);

  cluster.restart_server();
  allow_connections(true);
  CAF_REQUIRE(wait_until([&] { return c.get("/ready").status == 200; }, 15s));
  auto fresh = c.get("/deptemps/21");
  CAF_CHECK_EQUAL(fresh.status, 200);
  CAF_CHECK_EQUAL(fresh.body, changed); // the replay dropped the old copy
  CAF_CHECK_EQUAL(fresh.header_or_empty("Cache-Status"), "restcache; fwd=uri-miss; stored");
  CAF_CHECK_EQUAL(metric_now("restcache_serving_stale_since_seconds"), 0);
  CAF_CHECK_EQUAL(c.get("/ready").status, 200);
}

CAF_TEST(a database restart drops nothing and resets no history) {
  http_client c{d->port()};
  CAF_REQUIRE_EQUAL(c.get("/deptemps/40").status, 200);
  auto counters = [&] { return drop_counters(c.get("/metrics").body); };
  auto before = counters();
  auto connects = metric_now("restcache_listener_connects_total");
  cluster.stop_server();
  CAF_REQUIRE(wait_until([&] { return listener_down(); }));
  cluster.restart_server();
  CAF_REQUIRE(wait_until([&] {
    return metric_now("restcache_listener_connects_total") > connects && c.get("/ready").status == 200;
  }, 15s));
  CAF_CHECK_EQUAL(counters(), before);
  CAF_CHECK_EQUAL(c.get("/deptemps/40").header_or_empty("Cache-Status"), "restcache; hit; detail=memory");
}

CAF_TEST(with stale-if-error off a cached document answers 503 while PostgreSQL is stopped) {
  d = std::make_unique<daemon_process>(std::vector<std::string>{
    "--db.dsn=" + cluster.dsn(), "--db.pool-size=2", "--cache.shards=2", "--log.level=warn",
    "--cache.mode=memory", "--cache.stale-if-error=0"});
  wait_ready();
  http_client c{d->port()};
  CAF_REQUIRE_EQUAL(c.get("/deptemps/30").status, 200);
  cluster.stop_server();
  CAF_REQUIRE(wait_until([&] { return listener_down(); }));
  auto r = c.get("/deptemps/30");
  CAF_CHECK_EQUAL(r.status, 503);
  CAF_CHECK_EQUAL(r.header_or_empty("Retry-After"), "1");
  cluster.restart_server();
}

CAF_TEST(a document read while blind never answers an older copy once PostgreSQL stops in any tier mode) {
  for (std::string mode : {"tiered", "lmdb"}) {
    CAF_MESSAGE("cache.mode=" << mode);
    temp_dir lmdb{"outage-lmdb"};
    d = std::make_unique<daemon_process>(std::vector<std::string>{
      "--db.dsn=" + cluster.dsn(), "--db.pool-size=2", "--cache.shards=2", "--log.level=warn",
      "--cache.mode=" + mode, "--lmdb.path=" + lmdb.path, "--lmdb.flush-interval=20",
      "--changelog.poll-interval=20", "--db.query-timeout-ms=2000", "--cache.fill-timeout-ms=3000"});
    wait_ready();
    http_client c{d->port()};
    pg::connection writer{cluster.dsn()};
    auto xid = std::stoull(std::string{
      writer.exec("BEGIN; UPDATE dept SET loc = 'BEFORE' WHERE deptno IN (31, 32);"
                  " SELECT pg_current_xact_id()::text").text(0, 0)});
    writer.exec("COMMIT");
    // Its invalidation applied first: it would delete what the reads below
    // put into the file. The watermark is past its xid on the triggers, past
    // the WAL position after its commit on the WAL feed (an LSN).
    const uint64_t applied_past =
      test_feed() == feed_kind::wal
        ? std::stoull(std::string{writer.exec("SELECT (pg_current_wal_insert_lsn() - '0/0')::text").text(0, 0)}) - 1
        : xid;
    CAF_REQUIRE(wait_until(
      [&] { return static_cast<uint64_t>(metric_now("restcache_listener_watermark_xid")) > applied_past; }));
    CAF_REQUIRE(wait_until([&] { return c.get("/deptemps/31").body == truth(writer, 31); }));
    auto before = c.get("/deptemps/31").body;
    auto other = c.get("/deptemps/32").body;
    CAF_REQUIRE_EQUAL(other, truth(writer, 32));
    // Both documents are in the LMDB file, not only queued for it.
    CAF_REQUIRE(wait_until([&] { return metric_now("restcache_lmdb_records") >= 2; }));

    allow_connections(false);
    CAF_REQUIRE(wait_until([&] { return listener_down(); }));
    writer.exec("UPDATE dept SET loc = 'READ WHILE BLIND' WHERE deptno = 31");
    auto changed = truth(writer, 31);
    CAF_REQUIRE_NOT_EQUAL(changed, before);
    auto blind = c.get("/deptemps/31"); // through the pool, which is still connected
    CAF_CHECK_EQUAL(blind.header_or_empty("Cache-Status"), "restcache; fwd=bypass");
    CAF_CHECK_EQUAL(blind.body, changed);
    cluster.stop_server();

    // Never the copy from before the newer answer; a document not read
    // while blind still answers stale.
    auto after = c.get("/deptemps/31");
    CAF_CHECK_NOT_EQUAL(after.body, before);
    CAF_CHECK(after.status == 503 || after.body == changed);
    auto stale = c.get("/deptemps/32");
    CAF_CHECK_EQUAL(stale.status, 200);
    CAF_CHECK_EQUAL(stale.body, other);
    CAF_CHECK_EQUAL(stale.header_or_empty("Cache-Status"), "restcache; hit; detail=stale-if-error");

    cluster.restart_server();
    allow_connections(true);
    d.reset();
  }
}

CAF_TEST(a changed column type and terminated sessions answer no error and a restart fails no write) {
  for (std::string driver : {"async", "threads"}) {
    CAF_MESSAGE("db.driver=" << driver);
    // Every GET reads PostgreSQL (cache.mode=none): each one meets the hiccups.
    d = std::make_unique<daemon_process>(std::vector<std::string>{
      "--db.dsn=" + cluster.dsn(), "--db.pool-size=2", "--db.write-pool-size=2", "--cache.shards=2",
      "--log.level=warn", "--cache.mode=none", "--changelog.poll-interval=20", "--db.driver=" + driver,
      "--cache.fill-timeout-ms=5000"});
    wait_ready();
    std::atomic<bool> stop{false};
    std::atomic<int64_t> answers{0};
    std::mutex bad_m;
    std::vector<std::string> bad;
    std::vector<std::thread> readers;
    for (int r = 0; r < 3; ++r)
      readers.emplace_back([&, r] {
        http_client c{d->port()};
        for (int i = r; !stop; ++i) {
          auto res = c.get("/deptemps/" + std::to_string(1 + i % 100));
          ++answers;
          if (res.status != 200) {
            std::lock_guard lock{bad_m};
            bad.push_back(std::to_string(res.status) + " " + res.body);
          }
        }
      });
    auto some_answers = [&] {
      auto target = answers.load() + 50;
      return wait_until([&] { return answers.load() >= target; }, 10s);
    };
    CAF_REQUIRE(some_answers());
    pg::connection admin{cluster.dsn()};
    // Every prepared statement reading the column goes stale at once.
    admin.exec(driver == "async" ? "ALTER TABLE emp ALTER COLUMN sal TYPE bigint"
                                 : "ALTER TABLE emp ALTER COLUMN sal TYPE int");
    CAF_CHECK(some_answers());
    // Every session of the daemon ended by the server, the listener's too.
    admin.exec("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database()"
               " AND pid <> pg_backend_pid() AND backend_type = 'client backend'");
    CAF_CHECK(some_answers());
    stop = true;
    for (auto& r : readers)
      r.join();
    CAF_CHECK(bad.empty());
    for (size_t i = 0; i < bad.size() && i < 5; ++i)
      CAF_MESSAGE("not 200: " << bad[i]);
    if (!bad.empty())
      CAF_MESSAGE("the daemon's log:\n" << d->log());
    // A restart: once ready again, the first write on each idle write
    // connection succeeds (their sessions ended while idle).
    admin = pg::connection{cluster.dsn("postgres")}; // not the database the restart is waited on
    cluster.stop_server();
    cluster.restart_server();
    wait_ready();
    http_client c{d->port()};
    for (int id = 60; id < 64; ++id) {
      auto doc = c.get("/deptemps/" + std::to_string(id));
      CAF_REQUIRE_EQUAL(doc.status, 200);
      auto put = c.request("PUT", "/depts/" + std::to_string(id), {{"Content-Type", "application/json"}}, doc.body);
      CHECK_SAYING(put.status / 100 == 2, "PUT /depts/" << id << " after the restart: " << put.status << " " << put.body);
    }
    d.reset();
  }
}

CAF_TEST_FIXTURE_SCOPE_END()
