// SPDX-License-Identifier: Apache-2.0
#define CAF_SUITE lmdb_faults
#include "test/fixtures/daemon_process.hpp"

#include <caf/test/dsl.hpp>

#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "persistence/pg/connection.hpp"
#include "test/fixtures/http_client.hpp"
#include "test/fixtures/test_support.hpp"

// The LMDB tier in trouble under the real daemon: its disk full, its
// directory read-only, its file damaged. Memory and PostgreSQL keep
// answering, the answers stay fresh, and /ready and /metrics say what
// happened. The disks are tmpfs mounts (root in CI; skipped without).

using namespace restcache;
using namespace restcache::test;

namespace {

constexpr int64_t depts = 1500;

const std::string& faults_dsn() {
  static const std::string dsn = create_demo_database("lmdbfaults", depts, 10);
  return dsn;
}

struct fixture {
  std::unique_ptr<daemon_process> d;

  void start(const std::string& lmdb_path, std::vector<std::string> extra) {
    std::vector<std::string> args{"--db.dsn=" + faults_dsn(), "--db.pool-size=2", "--cache.shards=2",
                                  "--log.level=warn", "--lmdb.path=" + lmdb_path, "--lmdb.flush-interval=20",
                                  "--changelog.poll-interval=20"};
    args.insert(args.end(), extra.begin(), extra.end());
    d = std::make_unique<daemon_process>(args);
    http_client c{d->port()};
    CAF_REQUIRE(wait_until([&] { return c.get("/ready").status == 200; }));
  }

  std::string metrics() {
    http_client c{d->port()};
    return c.get("/metrics").body;
  }
};

} // namespace

CAF_TEST_FIXTURE_SCOPE(lmdb_faults_tests, fixture)

CAF_TEST(a full LMDB disk lowers the budget and every answer stays a fresh 200) {
  tmpfs_dir disk{"lmdb-disk-full", 1 << 20}; // ~1,500 documents of ~1.5 KB need 3 MB
  if (!disk.mounted()) {
    CAF_MESSAGE("skipped: mounting a tmpfs needs CAP_SYS_ADMIN");
    return;
  }
  // lmdb mode: nothing in memory, every repeat is read from the tier.
  start(disk.path(), {"--cache.mode=lmdb", "--lmdb.max-bytes=67108864"});
  http_client c{d->port()};
  size_t not_ok = 0;
  for (int32_t id = 1; id <= depts; ++id)
    not_ok += c.get("/deptemps/" + std::to_string(id)).status != 200;
  CAF_CHECK_EQUAL(not_ok, 0u);
  CAF_REQUIRE(wait_until([&] { return metric(metrics(), "restcache_lmdb_disk_full_total") >= 1; }));
  auto text = metrics();
  CAF_CHECK_LESS(metric(text, "restcache_lmdb_budget_bytes"), int64_t{1} << 20);
  CAF_CHECK_EQUAL(metric(text, "restcache_lmdb_tier_state{state=\"off\"}"), 0);
  // Two endings, by the timing of the commits: the tier goes on within the
  // lowered budget (ok), or the disk is so full that not even an eviction
  // can commit (degraded: writes fail, reads go on). Either is said.
  auto ready = c.get("/ready");
  CAF_CHECK_EQUAL(ready.status, 200);
  CAF_CHECK(ready.body.find("disk ran full") != std::string::npos
            || ready.body.find("degraded: writes failing") != std::string::npos);
  CAF_CHECK(wait_until([&] {
    auto log = d->log();
    return log.find("disk is full: its budget is lowered") != std::string::npos
           || log.find("batch writer: writing records (dropped)") != std::string::npos;
  }));

  // The tier's state moves with each commit: one that read "ok" above may
  // fail its next commits once the disk has filled further. So either ending
  // is waited for: the newest documents read back from the tier, or the tier
  // saying its writes fail.
  bool read_back = false;
  bool ended = wait_until([&] {
    for (int32_t id = depts - 20; id <= depts; ++id)
      if (c.get("/deptemps/" + std::to_string(id)).header_or_empty("Cache-Status") == "restcache; hit; detail=lmdb") {
        read_back = true;
        return true;
      }
    return metric(metrics(), "restcache_lmdb_tier_state{state=\"degraded\"}") == 1;
  });
  if (!ended) {
    // Neither: what the tier did, for the failure's report.
    std::string tier;
    auto all = metrics();
    for (size_t at = all.find("\nrestcache_lmdb_"); at != std::string::npos; at = all.find("\nrestcache_lmdb_", at + 1))
      tier += all.substr(at + 1, all.find('\n', at + 1) - at);
    CAF_MESSAGE("the tier neither read back nor degraded:\n" << tier << d->log());
  }
  CAF_CHECK(ended);
  if (ended && !read_back)
    CAF_MESSAGE("the disk filled past what an eviction needs: the tier is degraded");
  for (int32_t id = depts - 100; id <= depts; ++id)
    not_ok += c.get("/deptemps/" + std::to_string(id)).status != 200;
  CAF_CHECK_EQUAL(not_ok, 0u);

  // And stays fresh: a change drops what the full disk holds.
  auto before = c.get("/deptemps/1490").body;
  pg::connection sql{faults_dsn()};
  sql.exec("UPDATE dept SET loc = 'FULL DISK' WHERE deptno = 1490");
  CAF_CHECK(wait_until([&] {
    auto now = c.get("/deptemps/1490");
    return now.status == 200 && now.body != before && now.body.find("FULL DISK") != std::string::npos;
  }));
  CAF_CHECK_EQUAL(c.get("/health").status, 200);
}

CAF_TEST(an LMDB directory that cannot be written leaves the tier off and memory serving) {
  tmpfs_dir read_only{"lmdb-read-only", 1 << 20, true};
  if (!read_only.mounted()) {
    CAF_MESSAGE("skipped: mounting a tmpfs needs CAP_SYS_ADMIN");
    return;
  }
  start(read_only.path(), {"--cache.mode=tiered"});
  http_client c{d->port()};
  CAF_CHECK_EQUAL(c.get("/deptemps/5").status, 200);
  auto again = c.get("/deptemps/5");
  CAF_CHECK_EQUAL(again.status, 200);
  CAF_CHECK_EQUAL(again.header_or_empty("Cache-Status"), "restcache; hit; detail=memory");
  auto ready = c.get("/ready");
  CAF_CHECK_EQUAL(ready.status, 200);
  CAF_CHECK(ready.body.find("off: cannot open") != std::string::npos);
  auto text = metrics();
  CAF_CHECK_EQUAL(metric(text, "restcache_lmdb_tier_state{state=\"off\"}"), 1);
  CAF_CHECK_EQUAL(metric(text, "restcache_lmdb_records"), -1); // no such series without a tier
  CAF_CHECK(d->log().find("LMDB tier off") != std::string::npos);
}

CAF_TEST(a data file not written by LMDB is deleted at start and the tier rebuilt) {
  temp_dir dir{"lmdb-damaged"};
  { std::ofstream{dir.path + "/data.mdb"} << std::string(1 << 16, '#'); }
  start(dir.path, {"--cache.mode=lmdb"});
  http_client c{d->port()};
  CAF_CHECK_EQUAL(c.get("/deptemps/9").status, 200);
  CAF_CHECK(wait_until([&] { return metric(metrics(), "restcache_lmdb_records") >= 1; }));
  CAF_CHECK_EQUAL(c.get("/deptemps/9").header_or_empty("Cache-Status"), "restcache; hit; detail=lmdb");
  auto ready = c.get("/ready");
  CAF_CHECK_EQUAL(ready.status, 200);
  CAF_CHECK(ready.body.find("damaged file was deleted") != std::string::npos);
  CAF_CHECK(d->log().find("is damaged") != std::string::npos);
}

CAF_TEST_FIXTURE_SCOPE_END()
