// SPDX-License-Identifier: Apache-2.0
#define CAF_SUITE failover_integration
#include "test/fixtures/daemon_process.hpp"

#include <caf/test/dsl.hpp>

#include <memory>
#include <regex>
#include <string>
#include <vector>

#include "messages/document_encoder.hpp"
#include "persistence/pg/connection.hpp"
#include "persistence/pg/statements.hpp"
#include "test/fixtures/http_client.hpp"
#include "test/fixtures/private_pg.hpp"
#include "test/fixtures/test_support.hpp"
#include "demo/demo_encoders.hpp"
#include "demo/demo_reads.hpp"

// A failover under a running daemon: the primary stops, its synchronous
// standby is promoted, and the daemon follows through a multi-host DSN
// (target_session_attrs=read-write). What the tiers hold belongs to the old
// timeline: it is dropped before anything is served from it, by the
// listener's reconnect, without a restart; every write the old primary
// acknowledged is on the new one; fresh reads and writes work again.

using namespace restcache;
using namespace restcache::test;
using namespace std::chrono_literals;

namespace {

struct fixture {
  private_pg primary;
  std::unique_ptr<private_pg> standby;
  std::unique_ptr<daemon_process> d;

  fixture() {
    load_demo(primary.dsn(), 40, 3);
    standby = private_pg::standby_of(primary);
  }

  /// Synchronous: a commit the primary acknowledged is on the standby.
  void make_synchronous() {
    pg::connection admin{primary.dsn("postgres")};
    admin.exec("ALTER SYSTEM SET synchronous_standby_names = '*'");
    admin.exec("ALTER SYSTEM SET synchronous_commit = 'on'");
    admin.exec("SELECT pg_reload_conf()");
    CAF_REQUIRE(wait_until([&] {
      return admin.exec("SELECT count(*) FROM pg_stat_replication WHERE sync_state = 'sync'").text(0, 0) == "1";
    }));
  }

  /// Both servers, the writable one wherever it is.
  std::string failover_dsn() const {
    return "host=127.0.0.1,127.0.0.1 port=" + std::to_string(primary.port()) + "," + std::to_string(standby->port())
           + " user=" + private_pg::superuser + " dbname=" + private_pg::database_name
           + " target_session_attrs=read-write connect_timeout=2";
  }

  void start(const std::string& lmdb_path) {
    d = std::make_unique<daemon_process>(std::vector<std::string>{
      "--db.dsn=" + failover_dsn(), "--db.pool-size=2", "--cache.shards=2", "--log.level=warn",
      "--changelog.poll-interval=20", "--lmdb.path=" + lmdb_path, "--lmdb.flush-interval=20",
      "--db.query-timeout-ms=2000", "--cache.fill-timeout-ms=3000"});
    http_client c{d->port()};
    CAF_REQUIRE(wait_until([&] { return c.get("/ready").status == 200; }));
  }

  int64_t metric_now(const std::string& name) {
    http_client c{d->port()};
    return metric(c.get("/metrics").body, name);
  }

  std::string truth(const std::string& dsn, int32_t deptno) {
    pg::connection c{dsn};
    auto doc = demo::fetch_deptemps(c, deptno);
    return doc ? demo::encode_deptemps(*doc) : std::string{};
  }
};

std::string renamed(const std::string& doc, const std::string& name) {
  return std::regex_replace(doc, std::regex{"\"deptName\":\"[^\"]*\""}, "\"deptName\":\"" + name + "\"");
}

} // namespace

CAF_TEST_FIXTURE_SCOPE(failover_integration_tests, fixture)

CAF_TEST(a promoted standby is followed and nothing of the old timeline is served) {
  make_synchronous();
  temp_dir lmdb{"failover-lmdb"};
  start(lmdb.path);
  http_client c{d->port()};
  for (int32_t id = 1; id <= 10; ++id)
    CAF_REQUIRE_EQUAL(c.get("/deptemps/" + std::to_string(id)).status, 200);
  CAF_REQUIRE(wait_until([&] { return metric_now("restcache_lmdb_records") >= 10; }));

  // Writes acknowledged by the old primary, through the daemon.
  std::vector<std::pair<int32_t, std::string>> acknowledged;
  for (int32_t id = 1; id <= 5; ++id) {
    auto name = "BEFORE FAILOVER " + std::to_string(id);
    auto put = c.request("PUT", "/depts/" + std::to_string(id), {{"Content-Type", "application/json"}},
                         renamed(c.get("/deptemps/" + std::to_string(id)).body, name));
    CAF_REQUIRE_EQUAL(put.status, 204);
    acknowledged.emplace_back(id, name);
  }

  // The failover: the primary goes (and stays down), the standby is promoted.
  primary.stop_server();
  standby->promote();
  CAF_REQUIRE(!standby->in_recovery());
  // The new primary changes a document the daemon still holds from before.
  {
    pg::connection on_new{standby->dsn()};
    on_new.exec("UPDATE dept SET loc = 'NEW TIMELINE' WHERE deptno = 8");
  }

  // The daemon follows without a restart; its listener finds another
  // timeline and drops both tiers before it is ready again.
  CAF_REQUIRE(wait_until([&] { return c.get("/ready").status == 200; }, 30s));
  CAF_CHECK_EQUAL(metric_now("restcache_listener_history_resets_total{rule=\"other_timeline\"}"), 1);
  auto eight = c.get("/deptemps/8");
  CAF_CHECK_EQUAL(eight.status, 200);
  CAF_CHECK_EQUAL(eight.body, truth(standby->dsn(), 8));
  CAF_CHECK(eight.body.find("NEW TIMELINE") != std::string::npos);
  for (int32_t id = 1; id <= 10; ++id) {
    auto got = c.get("/deptemps/" + std::to_string(id));
    CAF_CHECK_EQUAL(got.body, truth(standby->dsn(), id));
  }
  // Nothing acknowledged before the failover was lost.
  for (auto& [id, name] : acknowledged)
    CAF_CHECK(truth(standby->dsn(), id).find(name) != std::string::npos);
  // Writes work again once the write pool has reconnected (its back-off),
  // and are read back.
  auto body = renamed(c.get("/deptemps/9").body, "AFTER FAILOVER");
  CAF_CHECK(wait_until([&] {
    return c.request("PUT", "/depts/9", {{"Content-Type", "application/json"}}, body).status == 204;
  }));
  CAF_CHECK(c.get("/deptemps/9").body.find("AFTER FAILOVER") != std::string::npos);
}

CAF_TEST(a commit lost in an asynchronous failover is never served) {
  temp_dir lmdb{"failover-lost-lmdb"};
  start(lmdb.path);
  http_client c{d->port()};
  auto before = c.get("/deptemps/3").body;
  // The standby misses a commit: it is down while the write commits, the
  // daemon reads and keeps the written document (memory and LMDB).
  standby->stop_server();
  auto put = c.request("PUT", "/depts/3", {{"Content-Type", "application/json"}}, renamed(before, "LOST WRITE"));
  CAF_REQUIRE_EQUAL(put.status, 204);
  CAF_REQUIRE(c.get("/deptemps/3").body.find("LOST WRITE") != std::string::npos);
  CAF_REQUIRE(wait_until([&] { return metric_now("restcache_lmdb_records") >= 1; }));
  // The primary is gone with it; the standby comes back and is promoted.
  primary.stop_server();
  standby->restart_server();
  standby->promote();
  CAF_REQUIRE_EQUAL(truth(standby->dsn(), 3), before);
  CAF_REQUIRE(wait_until([&] { return c.get("/ready").status == 200; }, 30s));
  // The document of a commit the database no longer holds is not served:
  // the other timeline dropped both tiers (the change log of the new
  // primary knows nothing of that write, so no replay could).
  auto got = c.get("/deptemps/3");
  CAF_CHECK_EQUAL(got.status, 200);
  CAF_CHECK_EQUAL(got.body, before);
  CAF_CHECK_EQUAL(metric_now("restcache_listener_history_resets_total{rule=\"other_timeline\"}"), 1);
}

CAF_TEST_FIXTURE_SCOPE_END()
