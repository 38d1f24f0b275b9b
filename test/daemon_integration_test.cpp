// SPDX-License-Identifier: Apache-2.0
#define CAF_SUITE daemon_integration
#include "test/fixtures/daemon_process.hpp"

#include <caf/test/dsl.hpp>

#include <filesystem>
#include <memory>
#include <signal.h>

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

namespace {

constexpr int64_t demo_depts = 300;

/// One database with demo data for the whole suite.
const std::string& demo_dsn() {
  static const std::string dsn = [] {
    return create_demo_database("daemon", demo_depts, 10);
  }();
  return dsn;
}


struct fixture {
  std::unique_ptr<daemon_process> daemon;

  void start(std::vector<std::string> extra = {}) {
    std::vector<std::string> args{"--db.dsn=" + demo_dsn(), "--db.pool-size=2",
                                  "--cache.shards=2", "--log.level=warn"};
    args.insert(args.end(), extra.begin(), extra.end());
    daemon = std::make_unique<daemon_process>(args);
  }

  int64_t db_queries() {
    http_client c{daemon->port()};
    auto r = c.get("/metrics");
    CAF_REQUIRE_EQUAL(r.status, 200);
    return metric(r.body, "restcache_db_queries_total{pool=\"fill\"}");
  }

  /// Waits (bounded) until the pool has a connection and the id set is loaded.
  void wait_ready() {
    http_client c{daemon->port()};
    for (int i = 0; i < 250; ++i) {
      auto r = c.get("/metrics");
      // Caught up: until then GETs bypass the tiers (cache.on-listener-loss).
      if (r.status == 200 && metric(r.body, "restcache_dept_ids") == demo_depts
          && metric(r.body, "restcache_listener_caught_up") != 0 && c.get("/ready").status == 200)
        return;
      std::this_thread::sleep_for(std::chrono::milliseconds{20});
    }
    CAF_FAIL("daemon not ready within 5 s; log:\n" << daemon->log());
  }

  fixture() {
    start();
    wait_ready();
  }
};

} // namespace

CAF_TEST_FIXTURE_SCOPE(daemon_integration_tests, fixture)

CAF_TEST(a second GET of the same id is answered from memory) {
  http_client c{daemon->port()};
  auto before = db_queries();
  auto first = c.get("/deptemps/17");
  CAF_REQUIRE_EQUAL(first.status, 200);
  CAF_CHECK_EQUAL(db_queries(), before + 1);
  auto second = c.get("/deptemps/17");
  CAF_REQUIRE_EQUAL(second.status, 200);
  CAF_CHECK_EQUAL(second.body, first.body);
  CAF_CHECK_EQUAL(second.header_or_empty("ETag"), first.header_or_empty("ETag"));
  CAF_CHECK_EQUAL(db_queries(), before + 1); // no query for the second GET
  CAF_CHECK_EQUAL(c.connects(), 1u);         // both on one keep-alive connection
}

CAF_TEST(the document is the department with its employees as PostgreSQL has them) {
  http_client c{daemon->port()};
  auto r = c.get("/deptemps/42");
  CAF_REQUIRE_EQUAL(r.status, 200);
  CAF_CHECK_EQUAL(r.header_or_empty("Content-Type"), "application/json");
  pg::connection db{demo_dsn()};
  pg::prepare_statements(db);
  auto expected = demo::fetch_deptemps(db, 42);
  CAF_REQUIRE(expected.has_value());
  CAF_REQUIRE_EQUAL(expected->emps.size(), 10u);
  CAF_CHECK_EQUAL(r.body, demo::encode_deptemps(*expected));
  CAF_CHECK_EQUAL(r.header_or_empty("ETag"), strong_etag(r.body));
  // The original benchmark's document: about 1.5 KB for ten employees.
  CAF_CHECK_GREATER(r.body.size(), 1200u);
  CAF_CHECK_LESS(r.body.size(), 1800u);
  CAF_CHECK(r.body.find("\"deptNumber\":42,\"deptName\":") == 1);
}

CAF_TEST(the employee document is the employee as PostgreSQL has it) {
  http_client c{daemon->port()};
  auto r = c.get("/depts/emps/425");
  CAF_REQUIRE_EQUAL(r.status, 200);
  pg::connection db{demo_dsn()};
  auto expected = demo::fetch_emp(db, 425);
  CAF_REQUIRE(expected.has_value());
  CAF_CHECK_EQUAL(r.body, demo::encode_emp(*expected));
  CAF_CHECK_EQUAL(c.get("/depts/emps/425").body, r.body);
  auto missing = c.get("/depts/emps/99999999");
  CAF_CHECK_EQUAL(missing.status, 404);
  CAF_CHECK(missing.body.find("employee 99999999 does not exist") != std::string::npos);
  CAF_CHECK_EQUAL(c.get("/depts/emps/-1").status, 400);
}

CAF_TEST(unknown and malformed ids get problem json) {
  http_client c{daemon->port()};
  auto missing = c.get("/deptemps/999999");
  CAF_CHECK_EQUAL(missing.status, 404);
  CAF_CHECK_EQUAL(missing.header_or_empty("Content-Type"), "application/problem+json");
  CAF_CHECK(missing.body.find("\"status\":404") != std::string::npos);
  auto bad = c.get("/deptemps/12x");
  CAF_CHECK_EQUAL(bad.status, 400);
  CAF_CHECK_EQUAL(bad.header_or_empty("Content-Type"), "application/problem+json");
  auto huge = c.get("/deptemps/99999999999999999999");
  CAF_CHECK_EQUAL(huge.status, 400);
  // The daemon keeps serving on the same connection.
  CAF_CHECK_EQUAL(c.get("/deptemps/1").status, 200);
}

CAF_TEST(depts random serves existing departments through the cache) {
  http_client c{daemon->port()};
  for (int i = 0; i < 20; ++i) {
    auto r = c.get("/depts/random");
    CAF_REQUIRE_EQUAL(r.status, 200);
    auto id = std::stoll(r.body.substr(r.body.find(':') + 1));
    CAF_CHECK_GREATER_OR_EQUAL(id, 1);
    CAF_CHECK_LESS_OR_EQUAL(id, demo_depts);
  }
}

CAF_TEST(health and ready answer) {
  http_client c{daemon->port()};
  CAF_CHECK_EQUAL(c.get("/health").status, 200);
  CAF_CHECK_EQUAL(c.get("/ready").status, 200);
}

CAF_TEST(two hundred concurrent GETs of one cold id run one query) {
  constexpr int n = 200;
  std::vector<std::unique_ptr<http_client>> clients;
  for (int i = 0; i < n; ++i) {
    clients.push_back(std::make_unique<http_client>(daemon->port(), std::chrono::seconds{10}));
    CAF_REQUIRE(clients.back()->connect());
  }
  auto before = db_queries();
  // All requests are on the wire before any answer is read.
  for (auto& c : clients)
    CAF_REQUIRE(c->send_raw("GET /deptemps/123 HTTP/1.1\r\nHost: t\r\n\r\n"));
  std::string body;
  int ok = 0;
  for (auto& c : clients) {
    auto r = c->read_response();
    ok += r.status == 200 ? 1 : 0;
    if (body.empty())
      body = r.body;
    CAF_CHECK_EQUAL(r.body, body);
  }
  CAF_CHECK_EQUAL(ok, n);
  CAF_CHECK_EQUAL(db_queries(), before + 1);
}

CAF_TEST(connections killed by the server are replaced and serving goes on) {
  http_client c{daemon->port()};
  CAF_REQUIRE_EQUAL(c.get("/deptemps/60").status, 200);
  auto connects_before = metric(c.get("/metrics").body, "restcache_db_connects_total{pool=\"fill\"}");
  {
    pg::connection admin{demo_dsn()};
    auto killed = admin.exec("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
                             " WHERE datname = current_database() AND pid <> pg_backend_pid()"
                             "   AND backend_type = 'client backend'");
    CAF_CHECK_GREATER_OR_EQUAL(killed.int64(0, 0), 2); // the pool's two connections
  }
  // Cold ids: each needs the database. A fill on a dead connection answers
  // 503 at worst; within a bounded number of tries the pool has reconnected.
  int ok = 0;
  for (int id = 61; id < 161 && ok < 5; ++id) {
    auto r = c.get("/deptemps/" + std::to_string(id));
    CAF_CHECK(r.status == 200 || r.status == 503);
    ok += r.status == 200 ? 1 : 0;
    if (r.status != 200)
      std::this_thread::sleep_for(std::chrono::milliseconds{50});
  }
  CAF_CHECK_EQUAL(ok, 5);
  // A connection notices its loss when it next runs a statement: at least
  // the one that served the retries has reconnected.
  CAF_CHECK_GREATER(metric(c.get("/metrics").body, "restcache_db_connects_total{pool=\"fill\"}"), connects_before);
  // Ready again once the listener's connection (killed too) has caught up.
  CAF_CHECK(wait_until([&] { return c.get("/ready").status == 200; }, std::chrono::seconds{10}));
  CAF_CHECK_EQUAL(c.get("/deptemps/60").status, 200); // the cached entry never needed it
}

CAF_TEST(a termination signal stops the daemon cleanly) {
  http_client c{daemon->port()};
  CAF_REQUIRE_EQUAL(c.get("/deptemps/5").status, 200);
  CAF_CHECK_EQUAL(daemon->terminate(), 0);
}

CAF_TEST(cache mode none sends every GET to PostgreSQL) {
  daemon->terminate();
  start({"--cache.mode=none"});
  wait_ready();
  http_client c{daemon->port()};
  auto before = db_queries();
  CAF_CHECK_EQUAL(c.get("/deptemps/9").status, 200);
  CAF_CHECK_EQUAL(c.get("/deptemps/9").status, 200);
  CAF_CHECK_EQUAL(db_queries(), before + 2);
}

CAF_TEST(with the caf scheduler the daemon serves the same way) {
  // runtime.scheduler=caf: actors on CAF's threads next to the HTTP threads
  // (what CAF's profiler needs); replies reach the sessions by a post.
  daemon->terminate();
  start({"--runtime.scheduler=caf", "--http.threads=2"});
  wait_ready();
  http_client c{daemon->port()};
  auto before = db_queries();
  auto first = c.get("/deptemps/11");
  CAF_REQUIRE_EQUAL(first.status, 200);
  CAF_CHECK_EQUAL(c.get("/deptemps/11").body, first.body);
  CAF_CHECK_EQUAL(db_queries(), before + 1);
  CAF_CHECK_EQUAL(daemon->terminate(), 0);
}

CAF_TEST(cache populate loads every department at start up) {
  daemon->terminate();
  start({"--cache.populate", "--cache.populate-page=64"});
  wait_ready();
  http_client c{daemon->port()};
  int64_t entries = 0;
  for (int i = 0; i < 250 && entries < demo_depts; ++i) {
    auto text = c.get("/metrics").body;
    entries = metric_sum(text, "restcache_cache_entries");
    std::this_thread::sleep_for(std::chrono::milliseconds{20});
  }
  CAF_CHECK_EQUAL(entries, demo_depts);
  auto before = db_queries();
  CAF_CHECK_EQUAL(c.get("/deptemps/250").status, 200);
  CAF_CHECK_EQUAL(c.get("/deptemps/3").status, 200);
  CAF_CHECK_EQUAL(db_queries(), before); // served from what populate loaded
}

CAF_TEST(records queued at shutdown are written and a restart serves them from LMDB) {
  daemon->terminate();
  temp_dir dir{"lmdb"}; // outlives one daemon: the restart reads it
  // A flush interval longer than the test: only the shutdown drain writes.
  std::vector<std::string> tier_args{"--lmdb.path=" + dir.path, "--lmdb.flush-interval=600000"};
  start(tier_args);
  wait_ready();
  std::vector<std::string> bodies;
  {
    http_client c{daemon->port()};
    for (int id = 1; id <= 40; ++id) {
      auto r = c.get("/deptemps/" + std::to_string(id));
      CAF_REQUIRE_EQUAL(r.status, 200);
      bodies.push_back(r.body);
    }
    CAF_CHECK_EQUAL(metric(c.get("/metrics").body, "restcache_lmdb_records"), 0);
  }
  CAF_REQUIRE_EQUAL(daemon->terminate(), 0);
  start(tier_args);
  wait_ready();
  http_client c{daemon->port()};
  auto text = c.get("/metrics").body;
  CAF_CHECK_EQUAL(metric(text, "restcache_lmdb_records"), 40);
  auto before = db_queries();
  for (int id = 1; id <= 40; ++id) {
    auto r = c.get("/deptemps/" + std::to_string(id));
    CAF_REQUIRE_EQUAL(r.status, 200);
    CAF_CHECK_EQUAL(r.body, bodies[static_cast<size_t>(id - 1)]);
  }
  CAF_CHECK_EQUAL(db_queries(), before); // warm restart: no query
  CAF_CHECK_EQUAL(metric_sum(c.get("/metrics").body, "restcache_cache_hits_total", "tier=\"lmdb\""), 40);
}

CAF_TEST(lmdb mode keeps nothing in memory and serves repeats from the tier) {
  daemon->terminate();
  start({"--cache.mode=lmdb", "--lmdb.flush-interval=20"});
  wait_ready();
  http_client c{daemon->port()};
  auto first = c.get("/deptemps/123");
  CAF_REQUIRE_EQUAL(first.status, 200);
  for (int i = 0; i < 250 && metric(c.get("/metrics").body, "restcache_lmdb_records") < 1; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds{20});
  auto before = db_queries();
  auto again = c.get("/deptemps/123");
  CAF_REQUIRE_EQUAL(again.status, 200);
  CAF_CHECK_EQUAL(again.body, first.body);
  CAF_CHECK_EQUAL(again.header_or_empty("ETag"), first.header_or_empty("ETag"));
  CAF_CHECK_EQUAL(db_queries(), before);
  auto text = c.get("/metrics").body;
  CAF_CHECK_EQUAL(metric_sum(text, "restcache_cache_hits_total", "tier=\"lmdb\""), 1);
  CAF_CHECK_EQUAL(metric_sum(text, "restcache_cache_entries"), 0);
}

CAF_TEST(the async driver serves the same documents) {
  daemon->terminate();
  start({"--db.driver=async"});
  wait_ready();
  http_client c{daemon->port()};
  auto before = db_queries();
  auto r = c.get("/deptemps/77");
  CAF_REQUIRE_EQUAL(r.status, 200);
  pg::connection db{demo_dsn()};
  CAF_CHECK_EQUAL(r.body, demo::encode_deptemps(*demo::fetch_deptemps(db, 77)));
  CAF_CHECK_EQUAL(c.get("/depts/emps/771").status, 200);
  CAF_CHECK_EQUAL(c.get("/deptemps/99999").status, 404);
  CAF_CHECK_EQUAL(db_queries(), before + 3);
}

CAF_TEST(a bad option stops start-up with a message naming it) {
  daemon->terminate();
  bool failed = false;
  try {
    daemon_process bad{{"--db.dsn=" + demo_dsn(), "--cache.mode=sometimes"}};
  } catch (const std::runtime_error& e) {
    failed = true;
    CAF_CHECK(std::string{e.what()}.find("cache.mode") != std::string::npos);
  }
  CAF_CHECK(failed);
  failed = false;
  try {
    daemon_process bad{{"--db.dsn=" + demo_dsn(), "--db.pool-size=two"}};
  } catch (const std::runtime_error& e) {
    failed = true;
    CAF_CHECK(std::string{e.what()}.find("invalid value 'two' for --db.pool-size") != std::string::npos);
  }
  CAF_CHECK(failed);
}

CAF_TEST_FIXTURE_SCOPE_END()
