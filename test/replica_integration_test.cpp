// SPDX-License-Identifier: Apache-2.0
#define CAF_SUITE replica_integration
#include "test/fixtures/daemon_process.hpp"

#include <caf/test/dsl.hpp>

#include <memory>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "messages/document_encoder.hpp"
#include "messages/replica_health.hpp"
#include "persistence/pg/connection.hpp"
#include "persistence/pg/statements.hpp"
#include "test/fixtures/http_client.hpp"
#include "test/fixtures/private_pg.hpp"
#include "test/fixtures/test_support.hpp"
#include "demo/demo_encoders.hpp"
#include "demo/demo_reads.hpp"

// Fills from a streaming standby held back by recovery_min_apply_delay: the
// notification of a change reaches the daemon from the primary seconds
// before the standby shows the change. A fill that reads the standby then
// must neither answer nor keep the old row. With the WAL check switched off
// (db.replica-lsn-check=false) the same reads answer it: the race is real,
// and the checks here fail without the remedy.

using namespace restcache;
using namespace restcache::test;
using namespace std::chrono_literals;

namespace {

constexpr auto apply_delay = 2000ms;

struct fixture {
  private_pg primary;
  std::unique_ptr<private_pg> standby;
  std::unique_ptr<daemon_process> d;

  fixture() {
    load_demo(primary.dsn(), 60, 3);
    standby = private_pg::standby_of(primary, apply_delay);
  }

  void start(std::vector<std::string> extra = {}) {
    std::vector<std::string> args{"--db.dsn=" + primary.dsn(), "--db.replicas=" + standby->dsn(),
                                  "--db.pool-size=2", "--cache.shards=2", "--log.level=warn",
                                  "--cache.mode=memory", "--changelog.poll-interval=20",
                                  "--db.replica-wait-ms=100"};
    args.insert(args.end(), extra.begin(), extra.end());
    d = std::make_unique<daemon_process>(args);
    http_client c{d->port()};
    CAF_REQUIRE(wait_until([&] {
      return c.get("/ready").status == 200
             && metric(c.get("/metrics").body, "restcache_replica_usable{replica=\"0\"}") == 1;
    }));
  }

  int64_t metric_now(const std::string& name) {
    http_client c{d->port()};
    return metric(c.get("/metrics").body, name);
  }

  std::string truth(int32_t deptno) {
    pg::connection c{primary.dsn()};
    auto doc = demo::fetch_deptemps(c, deptno);
    return doc ? demo::encode_deptemps(*doc) : std::string{};
  }

  /// Changes department `id` on the primary and waits until the daemon has
  /// applied the change's invalidation (the standby is still seconds behind).
  std::string change(int32_t id, const std::string& loc) {
    auto before = metric_now("restcache_listener_applied_seq");
    pg::connection c{primary.dsn()};
    c.exec("UPDATE dept SET loc = '" + loc + "' WHERE deptno = " + std::to_string(id));
    CAF_REQUIRE(wait_until([&] { return metric_now("restcache_listener_applied_seq") > before; }));
    return truth(id);
  }
};

} // namespace

CAF_TEST_FIXTURE_SCOPE(replica_integration_tests, fixture)

CAF_TEST(a standby that has not replayed a change answers no fill of its key) {
  start();
  // Until the standby has replayed past the primary's position at the
  // listener's connect, fills read the primary; then the standby.
  std::this_thread::sleep_for(apply_delay + 500ms);
  http_client c{d->port()};
  auto first = c.get("/deptemps/5");
  CAF_REQUIRE_EQUAL(first.status, 200);
  CAF_CHECK_EQUAL(first.body, truth(5));
  CAF_CHECK_GREATER_OR_EQUAL(metric_now("restcache_replica_fills_total"), 1);
  CAF_CHECK_EQUAL(metric_now("restcache_replica_fills_to_primary_total"), 0);

  // The standby is 2 s behind: its row is the old one for 2 s.
  size_t stale = 0;
  for (int32_t id : {5, 6, 7}) {
    auto now = change(id, "CHANGED " + std::to_string(id));
    auto got = c.get("/deptemps/" + std::to_string(id));
    CAF_REQUIRE_EQUAL(got.status, 200);
    stale += got.body != now;
    CAF_CHECK_EQUAL(c.get("/deptemps/" + std::to_string(id)).body, now); // and what it kept
  }
  CAF_CHECK_EQUAL(stale, 0u);
  CAF_CHECK_GREATER_OR_EQUAL(metric_now("restcache_replica_fills_behind_total"), 3);
  CAF_CHECK_GREATER_OR_EQUAL(metric_now("restcache_replica_fills_to_primary_total"), 3);

  // Once the standby has replayed the change, a fill of the key reads it there.
  auto now = change(8, "REPLAYED LATER");
  std::this_thread::sleep_for(apply_delay + 500ms);
  auto to_primary = metric_now("restcache_replica_fills_to_primary_total");
  CAF_CHECK_EQUAL(c.get("/deptemps/8").body, now);
  CAF_CHECK_EQUAL(metric_now("restcache_replica_fills_to_primary_total"), to_primary);
}

CAF_TEST(without the WAL check the same reads answer and keep the old row) {
  start({"--db.replica-lsn-check=false"});
  http_client c{d->port()};
  CAF_REQUIRE_EQUAL(c.get("/deptemps/9").status, 200);
  auto before = c.get("/deptemps/9").body;
  auto now = change(9, "NAIVE READ");
  auto got = c.get("/deptemps/9");
  CAF_CHECK_EQUAL(got.status, 200);
  CAF_CHECK_EQUAL(got.body, before); // stale: what the check prevents
  CAF_CHECK_NOT_EQUAL(got.body, now);
  CAF_CHECK_EQUAL(c.get("/deptemps/9").header_or_empty("Cache-Status"), "restcache; hit; detail=memory");
}

CAF_TEST(a write through the daemon is read back at once though the standby lags) {
  start();
  http_client c{d->port()};
  auto doc = c.get("/deptemps/11").body;
  auto renamed = std::regex_replace(doc, std::regex{"\"deptName\":\"[^\"]*\""}, "\"deptName\":\"WRITTEN HERE\"");
  auto put = c.request("PUT", "/depts/11", {{"Content-Type", "application/json"}}, renamed);
  CAF_REQUIRE_EQUAL(put.status, 204);
  auto after = c.get("/deptemps/11");
  CAF_CHECK(after.body.find("WRITTEN HERE") != std::string::npos);
  CAF_CHECK_EQUAL(after.body, truth(11));
  // The department's own document too (fanned out with the write's WAL position).
  auto emp = c.get("/depts/11");
  CAF_CHECK(emp.body.find("WRITTEN HERE") != std::string::npos);
}

CAF_TEST(a stopped standby gets no fills and the primary answers them) {
  start();
  http_client c{d->port()};
  standby->stop_server();
  CAF_REQUIRE(wait_until([&] { return metric_now("restcache_replica_usable{replica=\"0\"}") == 0; }));
  for (int32_t id = 20; id < 30; ++id) {
    auto r = c.get("/deptemps/" + std::to_string(id));
    CAF_CHECK_EQUAL(r.status, 200);
    CAF_CHECK_EQUAL(r.body, truth(id));
  }
  CAF_CHECK_EQUAL(metric_now("restcache_replica_up{replica=\"0\"}"), 0);
  CAF_CHECK_EQUAL(c.get("/ready").status, 200); // readiness does not depend on standbys
}

CAF_TEST_FIXTURE_SCOPE_END()

// A server that was never a standby (a logical copy: the same rows, its own
// cluster) named in db.replicas: it answers, but fills never read from it.
CAF_TEST(a server that is not a standby of the primary gets no fills) {
  private_pg primary;
  private_pg copy;
  load_demo(primary.dsn(), 30, 2);
  load_demo(copy.dsn(), 30, 2);
  pg::connection{copy.dsn()}.exec("UPDATE dept SET loc = 'ONLY ON THE COPY'");
  daemon_process d{{"--db.dsn=" + primary.dsn(), "--db.replicas=" + copy.dsn(), "--db.pool-size=2",
                    "--cache.shards=2", "--log.level=warn", "--cache.mode=memory", "--changelog.poll-interval=20"}};
  http_client c{d.port()};
  auto now = [&](const std::string& name) { return metric(c.get("/metrics").body, name); };
  CAF_REQUIRE(wait_until([&] { return c.get("/ready").status == 200 && now("restcache_replica_up{replica=\"0\"}") == 1; }));
  CAF_CHECK_EQUAL(now("restcache_replica_standby{replica=\"0\"}"), 0);
  CAF_CHECK_EQUAL(now("restcache_replica_usable{replica=\"0\"}"), 0);
  CAF_CHECK(d.log().find("replica 0: not used: not a standby (not in recovery") != std::string::npos);
  for (int32_t id = 1; id <= 20; ++id)
    CAF_CHECK_EQUAL(c.get("/deptemps/" + std::to_string(id)).body.find("ONLY ON THE COPY"), std::string::npos);
}

CAF_TEST(only a server in recovery of the system of the primary is a standby) {
  CAF_CHECK_EQUAL(standby_refusal(true, 42, 42), "");
  CAF_CHECK(standby_refusal(false, 42, 42).find("not a standby (not in recovery") == 0);
  CAF_CHECK(standby_refusal(true, 7, 42).find("not a standby of the primary (system identifier 7, the primary's 42)")
            == 0);
  CAF_CHECK(standby_refusal(true, 42, 0).find("not checked yet") == 0);
}
