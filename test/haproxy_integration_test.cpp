// SPDX-License-Identifier: Apache-2.0
#define CAF_SUITE haproxy_integration
#include "test/fixtures/daemon_process.hpp"

#include <caf/test/dsl.hpp>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fcntl.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "persistence/pg/connection.hpp"
#include "test/fixtures/child_program.hpp"
#include "test/fixtures/http_client.hpp"
#include "test/fixtures/private_pg.hpp"
#include "test/fixtures/test_support.hpp"

// Two restcached instances behind HAProxy as deploy/haproxy.cfg runs them
// (the recipe itself, with its ports replaced and the third instance left
// out): keys split between them, read-your-writes through the balancer, both
// invalidated by a write through either, a killed instance's keys served by
// the other, and the /health fallback to instances serving stale-if-error.

using namespace restcache;
using namespace restcache::test;
using namespace std::chrono_literals;

namespace {

constexpr const char* haproxy_bin = "/usr/sbin/haproxy";

/// HAProxy on deploy/haproxy.cfg with its ports replaced, in the foreground.
class haproxy_process {
public:
  haproxy_process(uint16_t first, uint16_t second) : dir_("haproxy") {
    if (::access(haproxy_bin, X_OK) != 0)
      throw std::runtime_error("haproxy is not installed (Debian package haproxy; scripts/test installs it)");
    port_ = free_loopback_port();
    std::ifstream in{std::string{RESTCACHE_SOURCE_DIR} + "/deploy/haproxy.cfg"};
    std::stringstream recipe;
    recipe << in.rdbuf();
    std::string cfg = recipe.str();
    auto replace_all = [&](const std::string& from, const std::string& to) {
      for (auto at = cfg.find(from); at != std::string::npos; at = cfg.find(from, at + to.size()))
        cfg.replace(at, from.size(), to);
    };
    replace_all("127.0.0.1:8080", "127.0.0.1:" + std::to_string(port_));
    replace_all("127.0.0.1:8081", "127.0.0.1:" + std::to_string(first));
    replace_all("127.0.0.1:8082", "127.0.0.1:" + std::to_string(second));
    stats_port_ = free_loopback_port();
    replace_all("127.0.0.1:8404", "127.0.0.1:" + std::to_string(stats_port_));
    // Checks every 100 ms instead of every second: the same rules, sooner.
    replace_all("inter 1s", "inter 100ms");
    cfg = std::regex_replace(cfg, std::regex{"\n[^\n]*127\\.0\\.0\\.1:8083[^\n]*"}, "");
    CAF_REQUIRE(cfg.find(":8083") == std::string::npos);
    auto path = dir_.path + "/haproxy.cfg";
    std::ofstream{path} << cfg;
    log_path_ = dir_.path + "/haproxy.log";
    int log_fd = ::open(log_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    pid_ = spawn_program({haproxy_bin, "-f", path, "-db"}, log_fd, log_fd);
    ::close(log_fd);
    http_client c{port_};
    if (!wait_until([&] { return c.get("/health").status == 200; }, 10s))
      throw std::runtime_error("haproxy did not answer: " + log());
  }
  ~haproxy_process() {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
  uint16_t port() const noexcept { return port_; }
  /// The state HAProxy's checks give `backend` as a whole ("UP", "DOWN"),
  /// from its stats page.
  std::string backend_state(const std::string& backend) const {
    http_client c{stats_port_};
    std::istringstream csv{c.get("/stats;csv").body};
    for (std::string line; std::getline(csv, line);) {
      if (line.rfind(backend + ",BACKEND,", 0) != 0)
        continue;
      std::vector<std::string> fields;
      std::istringstream row{line};
      for (std::string f; std::getline(row, f, ',');)
        fields.push_back(f);
      return fields.size() > 17 ? fields[17] : "";
    }
    return "";
  }
  std::string log() const {
    std::ifstream in{log_path_};
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }

private:
  temp_dir dir_;
  uint16_t port_ = 0;
  uint16_t stats_port_ = 0;
  pid_t pid_ = -1;
  std::string log_path_;
};

struct fixture {
  std::unique_ptr<private_pg> own_cluster; ///< only for the outage case
  std::string dsn;
  std::unique_ptr<daemon_process> first, second;
  std::unique_ptr<haproxy_process> balancer;

  void start(const std::string& db_dsn) {
    dsn = db_dsn;
    auto args = [&] {
      return std::vector<std::string>{"--db.dsn=" + dsn, "--db.pool-size=2", "--cache.shards=2",
                                      "--log.level=warn", "--changelog.poll-interval=20", "--db.query-timeout-ms=2000",
                                      "--cache.fill-timeout-ms=3000",
                                      // As deploy/haproxy.cfg's instances: the balancer names the client.
                                      "--http.trusted-proxies=127.0.0.1", "--log.access"};
    };
    first = std::make_unique<daemon_process>(args());
    second = std::make_unique<daemon_process>(args());
    for (auto* d : {first.get(), second.get()}) {
      http_client c{d->port()};
      CAF_REQUIRE(wait_until([&] { return c.get("/ready").status == 200; }));
    }
    balancer = std::make_unique<haproxy_process>(first->port(), second->port());
  }

  static int64_t fills(daemon_process& d) {
    http_client c{d.port()};
    return metric_sum(c.get("/metrics").body, "restcache_cache_fills_total");
  }
};

std::string demo_dsn() {
  static const std::string dsn = create_demo_database("haproxy", 200, 4);
  return dsn;
}

/// The document with its department name replaced (a body PUT accepts).
std::string renamed(const std::string& doc, const std::string& name) {
  return std::regex_replace(doc, std::regex{"\"deptName\":\"[^\"]*\""}, "\"deptName\":\"" + name + "\"");
}

} // namespace

CAF_TEST_FIXTURE_SCOPE(haproxy_integration_tests, fixture)

CAF_TEST(each key lands on one instance and a write is read back through the balancer) {
  start(demo_dsn());
  http_client lb{balancer->port()};
  for (int32_t id = 1; id <= 100; ++id)
    CAF_REQUIRE_EQUAL(lb.get("/deptemps/" + std::to_string(id)).status, 200);
  size_t repeats_from_memory = 0;
  for (int32_t id = 1; id <= 100; ++id)
    repeats_from_memory += lb.get("/deptemps/" + std::to_string(id)).header_or_empty("Cache-Status")
                           == "restcache; hit; detail=memory";
  CAF_CHECK_EQUAL(repeats_from_memory, 100u);
  // Every key was read from PostgreSQL once, by one instance; both got some.
  auto a = fills(*first), b = fills(*second);
  CAF_MESSAGE("keys per instance: " << a << " and " << b);
  CAF_CHECK_EQUAL(a + b, 100);
  CAF_CHECK_GREATER(a, 10);
  CAF_CHECK_GREATER(b, 10);
  // The key hashed is the path's id as written; the daemon takes only its
  // one spelling, so "077" is no second copy of 77 on another instance.
  for (auto other : {"/deptemps/077", "/deptemps/0077", "/depts/emps/0761"})
    CAF_CHECK_EQUAL(lb.get(other).status, 400);
  CAF_CHECK_EQUAL(fills(*first) + fills(*second), 100);

  // Read-your-writes through the balancer: the write and the read of one
  // department go to the same instance, which answers the write only once
  // it has dropped what the write changed.
  for (int32_t id : {42, 43, 44, 45}) {
    auto doc = lb.get("/deptemps/" + std::to_string(id)).body;
    auto name = "RENAMED " + std::to_string(id);
    auto put = lb.request("PUT", "/depts/" + std::to_string(id), {{"Content-Type", "application/json"}},
                          renamed(doc, name));
    CAF_REQUIRE_EQUAL(put.status, 204);
    CAF_CHECK(lb.get("/deptemps/" + std::to_string(id)).body.find(name) != std::string::npos);
  }
}

CAF_TEST(the balancer names its client to the instances) {
  start(demo_dsn());
  http_client lb{balancer->port()};
  lb.set_source("127.0.0.2"); // a client other than the balancer's own address
  for (int32_t id = 1; id <= 20; ++id)
    CAF_REQUIRE_EQUAL(lb.get("/deptemps/" + std::to_string(id)).status, 200);
  // The instances log and count the client the PROXY header names: what
  // http.max-connections-per-address and the slow-down of wrong tokens see.
  auto proxied = [](daemon_process& d) {
    http_client c{d.port()};
    return metric(c.get("/metrics").body, "restcache_http_connections_proxied_total");
  };
  CAF_CHECK_GREATER(proxied(*first) + proxied(*second), 0);
  CAF_CHECK(wait_until([&] {
    return (first->log() + second->log()).find("127.0.0.2 ") != std::string::npos;
  }));
  // The test's own direct connections (no header) are the balancer host's.
  CAF_CHECK_EQUAL(http_client{first->port()}.get("/health").status, 200);
}

CAF_TEST(a write through the balancer drops the document on both instances) {
  start(demo_dsn());
  http_client on_first{first->port()}, on_second{second->port()}, lb{balancer->port()};
  auto before = on_first.get("/deptemps/61").body;
  CAF_REQUIRE_EQUAL(on_second.get("/deptemps/61").body, before);
  CAF_CHECK_EQUAL(on_first.get("/deptemps/61").header_or_empty("Cache-Status"), "restcache; hit; detail=memory");
  CAF_CHECK_EQUAL(on_second.get("/deptemps/61").header_or_empty("Cache-Status"), "restcache; hit; detail=memory");
  auto put = lb.request("PUT", "/depts/61", {{"Content-Type", "application/json"}}, renamed(before, "BOTH DROP IT"));
  CAF_REQUIRE_EQUAL(put.status, 204);
  for (auto* c : {&on_first, &on_second})
    CAF_CHECK(wait_until([&] { return c->get("/deptemps/61").body.find("BOTH DROP IT") != std::string::npos; }));
}

CAF_TEST(a killed instance costs no failed read: its keys move to the other) {
  start(demo_dsn());
  http_client lb{balancer->port()};
  for (int32_t id = 101; id <= 160; ++id)
    CAF_REQUIRE_EQUAL(lb.get("/deptemps/" + std::to_string(id)).status, 200);
  ::kill(first->pid(), SIGKILL);
  size_t failed = 0;
  for (int round = 0; round < 3; ++round)
    for (int32_t id = 101; id <= 160; ++id)
      failed += lb.get("/deptemps/" + std::to_string(id)).status != 200;
  CAF_CHECK_EQUAL(failed, 0u);
  CAF_CHECK_GREATER_OR_EQUAL(fills(*second), 60);
}

CAF_TEST(with no instance ready the balancer falls back to instances serving stale) {
  own_cluster = std::make_unique<private_pg>();
  load_demo(own_cluster->dsn(), 50, 3);
  start(own_cluster->dsn());
  http_client lb{balancer->port()};
  auto cached = lb.get("/deptemps/7");
  CAF_REQUIRE_EQUAL(cached.status, 200);
  own_cluster->stop_server();
  // Neither instance is ready now; the balancer sees it within its checks.
  for (auto* d : {first.get(), second.get()}) {
    http_client c{d->port()};
    CAF_REQUIRE(wait_until([&] { return c.get("/ready").status == 503; }));
  }
  CAF_REQUIRE(wait_until([&] { return balancer->backend_state("restcache") == "DOWN"; }));
  auto stale = lb.get("/deptemps/7");
  CAF_CHECK_EQUAL(stale.status, 200);
  CAF_CHECK_EQUAL(stale.header_or_empty("Cache-Status"), "restcache; hit; detail=stale-if-error");
  CAF_CHECK_EQUAL(stale.body, cached.body);
  CAF_CHECK(stale.has_header("Age"));
  auto uncached = lb.get("/deptemps/8");
  CAF_CHECK_EQUAL(uncached.status, 503);
  CAF_CHECK_EQUAL(uncached.header_or_empty("Retry-After"), "1");
  CAF_CHECK_EQUAL(uncached.header_or_empty("Content-Type"), "application/problem+json"); // restcached's, not HAProxy's
}

CAF_TEST_FIXTURE_SCOPE_END()
