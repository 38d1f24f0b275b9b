// SPDX-License-Identifier: Apache-2.0
#define CAF_SUITE operability
#include <caf/test/dsl.hpp>

#include <signal.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include <simdjson.h>

#include "config/options.hpp"
#include "demo/demo_catalogue.hpp"
#include "persistence/lmdb/store.hpp"
#include "persistence/pg/connection.hpp"
#include "persistence/pg/schema.hpp"
#include "test/fixtures/private_pg.hpp"
#include "test/fixtures/child_program.hpp"
#include "test/fixtures/daemon_process.hpp"
#include "test/fixtures/exposition.hpp"
#include "test/fixtures/http_client.hpp"
#include "test/fixtures/test_support.hpp"

using namespace restcache;
using namespace restcache::test;
using namespace std::chrono_literals;

namespace {

constexpr int64_t demo_depts = 400;

const std::string& demo_dsn() {
  static const std::string dsn = create_demo_database("operability", demo_depts, 5);
  return dsn;
}

program_run restcached(std::vector<std::string> args, const std::vector<std::string>& env = {}) {
  args.insert(args.begin(), RESTCACHED_BIN);
  return run_program(std::move(args), 20s, std::nullopt, env);
}

std::string read_file(const std::string& path) {
  std::ifstream in{path};
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_file(const std::string& path, const std::string& text) {
  std::ofstream{path} << text;
}

size_t count_lines(const std::string& s) {
  return static_cast<size_t>(std::count(s.begin(), s.end(), '\n'));
}

/// Start-up refused: exit 2 and exactly one line on stderr containing `want`.
void check_refused(const std::vector<std::string>& args, const std::string& want) {
  auto r = restcached(args);
  CAF_CHECK_EQUAL(r.status, 2);
  CAF_CHECK_EQUAL(count_lines(r.err), 1u);
  CHECK_SAYING(r.err.find(want) != std::string::npos, "stderr: " << r.err << " lacks: " << want);
  CAF_CHECK(r.err.rfind("restcached: ", 0) == 0);
  CAF_CHECK(r.err.find("parser_error") == std::string::npos);
}

struct fixture {
  temp_dir dir{"operability"};

  /// `own_args`: no --db.dsn, --cache.shards or --db.pool-size of the fixture's.
  std::unique_ptr<daemon_process> start(std::vector<std::string> extra = {}, bool own_args = false) {
    std::vector<std::string> args{"--log.level=warn"};
    if (!own_args)
      args.insert(args.end(), {"--db.pool-size=2", "--cache.shards=2", "--db.dsn=" + demo_dsn()});
    args.insert(args.end(), extra.begin(), extra.end());
    auto d = std::make_unique<daemon_process>(args);
    http_client c{d->port()};
    if (!wait_until([&] { return c.get("/ready").status == 200; }, 10s))
      CAF_FAIL("daemon not ready within 10 s; log:\n" << d->log());
    return d;
  }

  std::string path(const std::string& name) const { return dir.path + "/" + name; }
};

} // namespace

CAF_TEST_FIXTURE_SCOPE(operability_tests, fixture)

CAF_TEST(the removed mark interval is refused with what replaced it) {
  check_refused({"--changelog.mark-interval=50"},
                "changelog.mark-interval was removed: the listener reads the change log every "
                "changelog.poll-interval ms");
}

CAF_TEST(a database whose restcache schema is newer than the build is refused at start) {
  auto dsn = create_demo_database("newer_schema", 10, 2);
  {
    pg::connection c{dsn};
    c.exec("INSERT INTO restcache_schema (version) VALUES (" + std::to_string(pg::schema_version + 1) + ")");
  }
  auto r = restcached({"--http.port=0", "--db.dsn=" + dsn, "--cache.mode=memory"});
  CAF_CHECK_EQUAL(r.status, 1);
  CHECK_SAYING(r.err.find("newer than this build's") != std::string::npos, "stderr: " << r.err);
  shared_private_pg().drop_database(dsn);
}

CAF_TEST(a bad option on the command line is refused with one line naming it) {
  check_refused({"--http.port=abc"}, "invalid value 'abc' for --http.port: expected an integer 0..65535");
  check_refused({"--http.port=70000"}, "invalid value '70000' for --http.port: expected an integer 0..65535");
  check_refused({"--cache.mode=sometimes"},
                "invalid value 'sometimes' for --cache.mode: expected one of tiered, memory, lmdb, none");
  check_refused({"--db.pool-size=0"}, "invalid value '0' for --db.pool-size: expected an integer 1..1000");
  check_refused({"--cache.populate=maybe"}, "invalid value 'maybe' for --cache.populate: expected a flag");
  check_refused({"--log.format=xml"}, "expected one of text, json");
  check_refused({"--http.bogus=1"}, "unknown option --http.bogus=1");
  check_refused({"--http.port"}, "option --http.port needs a value");
  check_refused({"stray"}, "unexpected argument 'stray'");
  check_refused({"--lmdb.batch-size=500", "--lmdb.max-queue=100"},
                "invalid value 100 for lmdb.max-queue: expected at least lmdb.batch-size (500)");
}

CAF_TEST(a bad config file is refused with its file line and option) {
  auto f = path("bad.conf");
  write_file(f, "; comment\n[http]\nport = \"x\"\n");
  check_refused({"--config-file=" + f}, f + ":3: invalid value \"x\" for http.port: expected an integer 0..65535");
  write_file(f, "[cache]\nmode = lmdb\n");
  check_refused({"--config-file=" + f}, f + ":2: invalid value lmdb for cache.mode: expected a quoted string");
  write_file(f, "[cache]\nmode = \"sometimes\"\n");
  check_refused({"--config-file=" + f}, "expected one of tiered, memory, lmdb, none");
  write_file(f, "[http]\nprot = 8080\n");
  check_refused({"--config-file=" + f}, f + ":2: unknown option http.prot");
  check_refused({"--config-file=" + path("missing.conf")}, "cannot read config file " + path("missing.conf"));
}

CAF_TEST(help lists every option with its default and version names the release) {
  auto r = restcached({"--help"});
  CAF_CHECK_EQUAL(r.status, 0);
  restcache_config cfg;
  CAF_REQUIRE_GREATER(cfg.specs().size(), 30u);
  for (auto& s : cfg.specs()) {
    auto at = r.out.find("--" + s.key());
    CHECK_SAYING(at != std::string::npos, s.key() << " missing from --help");
    auto def = s.type == option_spec::kind::text ? "default \"" + s.default_text + "\"" : "default " + s.default_text;
    CHECK_SAYING(r.out.find(def, at) != std::string::npos, s.key() << ": no '" << def << "'");
  }
  CAF_CHECK(r.out.find("--scheduler.enable-profiling") != std::string::npos);
  CAF_CHECK(r.out.find("/etc/restcache/restcached.conf") != std::string::npos);
  auto v = restcached({"--version"});
  CAF_CHECK_EQUAL(v.status, 0);
  CAF_CHECK(std::regex_match(v.out, std::regex{R"(restcached \d+\.\d+\.\d+ \(\S+\)\nCopyright \d{4} .*\n)"
                                                R"(Licensed under the Apache License, Version 2\.0 \(SPDX: Apache-2\.0\).*\n)"}));
  CAF_CHECK(r.out.find("--options-page") != std::string::npos);
}

CAF_TEST(every tool prints the version restcached prints and lists version in its help) {
  auto daemon = restcached({"--version"});
  CAF_REQUIRE_EQUAL(daemon.status, 0);
  for (const char* tool : {RESTCACHE_LOAD_BIN, RESTCACHE_FRESHNESS_BIN, RESTCACHE_INSPECT_BIN}) {
    auto v = run_program({tool, "--version"});
    CHECK_SAYING(v.status == 0, tool << " --version exited " << v.status << ": " << v.err);
    CHECK_SAYING(v.out == daemon.out, tool << " --version printed '" << v.out << "', restcached '" << daemon.out
                                          << "'");
    auto help = run_program({tool, "--help"});
    CAF_CHECK_EQUAL(help.status, 0);
    CHECK_SAYING(help.out.find("--version") != std::string::npos, tool << " --help does not mention --version");
  }
  // The bench program takes a DSN first and has no --help; its usage names --version.
  auto v = run_program({RESTCACHE_BENCH_DBHOP_BIN, "--version"});
  CHECK_SAYING(v.status == 0 && v.out == daemon.out,
               "restcache-bench-dbhop --version exited " << v.status << " printing '" << v.out << "'");
}

CAF_TEST(options page shows every option with its declared default and no machine value) {
  auto r = restcached({"--options-page"});
  CAF_REQUIRE_EQUAL(r.status, 0);
  restcache_config cfg;
  for (auto& s : cfg.specs())
    CHECK_SAYING(r.out.find("| `" + s.key() + "` | ") != std::string::npos, s.key() << " missing from the page");
  // The automatic defaults appear as declared, 0, not as this machine resolves them.
  CAF_CHECK(r.out.find("| `cache.shards` | `0`: one per core |") != std::string::npos);
  CAF_CHECK(r.out.find("| `lmdb.max-bytes` | `1073741824` (1 GiB) |") != std::string::npos);
  // Neither the config file nor the command line changes it.
  auto f = path("page.conf");
  write_file(f, "[cache]\nshards = 3\n");
  auto with_file = restcached({"--config-file=" + f, "--http.port=1234", "--options-page"});
  CAF_CHECK_EQUAL(with_file.status, 0);
  CAF_CHECK_EQUAL(with_file.out, r.out);
}

CAF_TEST(dump config prints the effective values and reads back as a config file) {
  auto f = path("a.conf");
  write_file(f, "[http]\nport = 7777 ; trailing comment\n[cache]\nmode = \"lmdb\"\nshards = 3\n");
  auto r = restcached({"--config-file=" + f, "--cache.mode=memory", "--db.dsn=host=x password=hunter2",
                       "--http.write-token=s3cret", "--dump-config"});
  CAF_REQUIRE_EQUAL(r.status, 0);
  CAF_CHECK(r.out.find("port = 7777\n") != std::string::npos);   // from the file
  CAF_CHECK(r.out.find("mode = \"memory\"\n") != std::string::npos); // the command line wins
  CAF_CHECK(r.out.find("shards = 3\n") != std::string::npos);
  CAF_CHECK(r.out.find("memory-bytes = 0\n") == std::string::npos); // resolved
  CAF_CHECK(r.out.find("hunter2") == std::string::npos);
  CAF_CHECK(r.out.find("s3cret") == std::string::npos);
  CAF_CHECK(r.out.find("dsn = \"host=x password=***\"") != std::string::npos);
  CAF_CHECK(r.out.find("[scheduler]\npolicy = 'sharing'") != std::string::npos);
  // Without secrets, the dump is a config file giving the same dump.
  auto plain = restcached({"--config-file=" + f, "--dump-config"});
  CAF_REQUIRE_EQUAL(plain.status, 0);
  auto g = path("b.conf");
  write_file(g, plain.out);
  auto again = restcached({"--config-file=" + g, "--dump-config"});
  CAF_REQUIRE_EQUAL(again.status, 0);
  auto body = [](const std::string& dump) { return dump.substr(dump.find("\n[")); };
  CAF_CHECK_EQUAL(body(again.out), body(plain.out));
}

CAF_TEST(the shipped production config file is accepted) {
  auto r = restcached({std::string{"--config-file="} + RESTCACHE_SOURCE_DIR + "/deploy/restcached.conf", "--dump-config"});
  CAF_CHECK_EQUAL(r.status, 0);
  CAF_CHECK_EQUAL(r.err, "");
  CAF_CHECK(r.out.find("file = \"/var/log/restcache/restcached.log\"") != std::string::npos);
}

CAF_TEST(open writes beyond loopback refuse to start unless the operator says so) {
  const std::string shipped = std::string{"--config-file="} + RESTCACHE_SOURCE_DIR + "/deploy/restcached.conf";
  auto dump = restcached({shipped, "--dump-config"});
  CAF_REQUIRE_EQUAL(dump.status, 0);
  CAF_CHECK(dump.out.find("address = \"127.0.0.1\"\n") != std::string::npos); // safe as installed
  CAF_CHECK(dump.out.find("writes = \"closed\"\n") != std::string::npos);
  // The shipped file with an address other hosts reach and writes that need no token.
  for (auto address : {"0.0.0.0", "::", "10.1.2.3", "cache.example"})
    check_refused({shipped, std::string{"--http.address="} + address, "--http.writes=auto"},
                  std::string{"refusing to start: http.address "} + address + " is not loopback");
  check_refused({"--http.address=0.0.0.0"}, "writes need no token");
  // Closed writes, a token, or the operator's explicit word: it starts.
  CAF_CHECK_EQUAL(restcached({shipped, "--http.address=0.0.0.0", "--dump-config"}).status, 0);
  CAF_CHECK_EQUAL(
    restcached({"--http.address=0.0.0.0", "--http.write-token=t0k3n-of-16-bytes", "--dump-config"}).status, 0);
  // A token short enough to guess is refused off loopback, from any source.
  check_refused({"--http.address=0.0.0.0", "--http.write-token=t0k3n"}, "the write token is 5 bytes");
  check_refused({"--http.address=10.1.2.3", "--http.write-token=x"}, "must be at least 16");
  CAF_CHECK_EQUAL(restcached({"--http.address=127.0.0.1", "--http.write-token=t0k3n", "--dump-config"}).status, 0);
  CAF_CHECK_EQUAL(
    restcached({"--http.address=0.0.0.0", "--http.allow-open-writes-on-network", "--dump-config"}).status, 0);
  for (auto loopback : {"127.0.0.1", "127.1.2.3", "::1", "localhost"})
    CAF_CHECK_EQUAL(restcached({std::string{"--http.address="} + loopback, "--dump-config"}).status, 0);
  // Contradictions are refused too.
  check_refused({"--http.writes=open", "--http.write-token=t0k3n"}, "http.writes=open, but a write token is given");
  check_refused({"--http.metrics=token"}, "http.metrics=token needs a write token");
}

CAF_TEST(the shipped config started on loopback serves reads and closes writes) {
  auto d = start({std::string{"--config-file="} + RESTCACHE_SOURCE_DIR + "/deploy/restcached.conf", "--http.port=0",
                  "--lmdb.path=" + path("lmdb"), "--log.file=\"\"", "--log.level=warn"});
  http_client c{d->port()};
  CAF_CHECK_EQUAL(c.get("/deptemps/5").status, 200);
  auto r = c.request("DELETE", "/depts/5");
  CAF_CHECK_EQUAL(r.status, 403);
  CAF_CHECK(r.body.find("writes are closed") != std::string::npos);
  r = c.request("DELETE", "/depts/5", {{"Authorization", "Bearer anything"}});
  CAF_CHECK_EQUAL(r.status, 403);
  CAF_CHECK_EQUAL(c.get("/deptemps/5").status, 200);
}

CAF_TEST(the write token comes from a file or the environment) {
  auto token_file = path("write-token");
  write_file(token_file, "f1le-t0ken\n");
  {
    auto d = start({"--http.write-token-file=" + token_file});
    http_client c{d->port()};
    CAF_CHECK_EQUAL(c.request("DELETE", "/depts/emps/999999").status, 401);
    auto past = c.request("DELETE", "/depts/emps/999999", {{"Authorization", "Bearer f1le-t0ken"}}).status;
    CHECK_SAYING(past != 401 && past != 403 && past != 0, "status " << past); // past the token (404: no such employee)
  }
  setenv("RESTCACHE_WRITE_TOKEN", "env-t0ken", 1);
  {
    auto d = start({"--http.metrics=token"});
    http_client c{d->port()};
    CAF_CHECK_EQUAL(c.request("DELETE", "/depts/emps/999999", {{"Authorization", "Bearer f1le-t0ken"}}).status, 401);
    auto past = c.request("DELETE", "/depts/emps/999999", {{"Authorization", "bearer env-t0ken"}}).status;
    CHECK_SAYING(past != 401 && past != 403 && past != 0, "status " << past);
    CAF_CHECK_EQUAL(c.get("/metrics").status, 401);
    CAF_CHECK_EQUAL(c.get("/metrics", {{"Authorization", "Bearer env-t0ken"}}).status, 200);
    CAF_CHECK_NOT_EQUAL(c.get("/ready").status, 401); // load balancers need no token
    // Given, it does not appear in --dump-config.
    auto dump = restcached({"--dump-config"});
    CAF_CHECK(dump.out.find("env-t0ken") == std::string::npos);
  }
  unsetenv("RESTCACHE_WRITE_TOKEN");
  check_refused({"--http.write-token-file=" + path("missing")}, "cannot read http.write-token-file");
  check_refused({"--http.write-token-file=" + token_file, "--http.write-token=x"}, "both given");
  write_file(path("empty-token"), "\n");
  check_refused({"--http.write-token-file=" + path("empty-token")}, "holds no token");
}

CAF_TEST(a config file sets options the command line overrides and PG variables reach the database) {
  // The DSN's parts as PG* variables, no db.dsn anywhere.
  std::map<std::string, std::string> parts;
  std::istringstream words{demo_dsn()};
  for (std::string w; words >> w;)
    if (auto eq = w.find('='); eq != std::string::npos)
      parts[w.substr(0, eq)] = w.substr(eq + 1);
  for (auto [name, part] : {std::pair{"PGHOST", "host"}, {"PGPORT", "port"}, {"PGDATABASE", "dbname"}, {"PGUSER", "user"}})
    if (parts.count(part))
      setenv(name, parts[part].c_str(), 1); // inherited by the daemons started below
  auto f = path("daemon.conf");
  write_file(f, "[cache]\nshards = 3\n[http]\nread-timeout-ms = 20000\n");
  {
    auto d = start({"--config-file=" + f}, true);
    http_client c{d->port()};
    CAF_CHECK_EQUAL(c.get("/deptemps/1").status, 200);
    auto m = c.get("/metrics").body;
    CAF_CHECK_EQUAL(metric(m, "restcache_cache_entries{shard=\"2\"}") >= 0, true); // three shards
  }
  auto d = start({"--config-file=" + f, "--cache.shards=1"}, true);
  http_client c{d->port()};
  auto m = c.get("/metrics").body;
  CAF_CHECK_EQUAL(metric(m, "restcache_cache_entries{shard=\"0\"}") >= 0, true);
  CAF_CHECK_EQUAL(metric(m, "restcache_cache_entries{shard=\"1\"}"), -1);
  for (auto name : {"PGHOST", "PGPORT", "PGDATABASE", "PGUSER"})
    unsetenv(name);
}

CAF_TEST(health and ready answer short json) {
  auto d = start();
  http_client c{d->port()};
  auto h = c.get("/health");
  CAF_CHECK_EQUAL(h.status, 200);
  CAF_CHECK_EQUAL(h.header_or_empty("Content-Type"), "application/json");
  CAF_CHECK_EQUAL(h.body, R"({"status":"ok"})");
  auto r = c.get("/ready");
  CAF_CHECK_EQUAL(r.status, 200);
  CAF_CHECK_EQUAL(r.header_or_empty("Content-Type"), "application/json");
  CAF_CHECK_EQUAL(r.body, R"({"status":"ready","checks":{"database":"up","listener":"caught up","documents":"cached","lmdb":"open"}})");
}

CAF_TEST(metrics are valid exposition text and move with requests) {
  auto d = start({"--cache.mode=memory"});
  http_client c{d->port()};
  auto before = parse_exposition(c.get("/metrics").body);
  for (auto& p : before.problems)
    CAF_FAIL("exposition: " << p);
  const std::string route = R"(route="/deptemps/{id}")";
  for (int i = 0; i < 5; ++i)
    CAF_REQUIRE_EQUAL(c.get("/deptemps/7").status, 200);
  CAF_REQUIRE_EQUAL(c.get("/deptemps/999999").status, 404);
  CAF_REQUIRE_EQUAL(c.get("/nowhere").status, 404);
  auto after = parse_exposition(c.get("/metrics").body);
  for (auto& p : after.problems)
    CAF_FAIL("exposition: " << p);
  auto moved = [&](const std::string& name, const std::string& label = {}) {
    return after.sum(name, label) - before.sum(name, label);
  };
  CAF_CHECK_EQUAL(moved("restcache_http_requests_total", route + R"(,status="200")"), 5);
  CAF_CHECK_EQUAL(moved("restcache_http_requests_total", route + R"(,status="404")"), 1);
  CAF_CHECK_EQUAL(moved("restcache_http_requests_total", R"(route="not_found",status="404")"), 1);
  CAF_CHECK_EQUAL(moved("restcache_http_request_duration_seconds_count", route), 6);
  CAF_CHECK_EQUAL(moved("restcache_http_request_duration_seconds_bucket", route + R"(,le="+Inf")"), 6);
  CAF_CHECK_GREATER(moved("restcache_http_request_duration_seconds_sum", route), 0);
  CAF_CHECK_EQUAL(moved("restcache_cache_hits_total", R"(tier="memory")"), 4);
  CAF_CHECK_EQUAL(moved("restcache_cache_fills_total"), 2);
  // Two fills; the department id loader may have run once meanwhile.
  auto queries = moved("restcache_db_queries_total", R"(pool="fill")");
  CAF_CHECK(queries == 2 || queries == 3);
  CAF_CHECK_EQUAL(moved("restcache_db_query_duration_seconds_count", R"(pool="fill")"), queries);
  CAF_CHECK_GREATER(after.sum("restcache_cache_bytes"), 0);
  CAF_CHECK_GREATER_OR_EQUAL(after.sum("restcache_cache_entries"), 1);
  // Every long-lived actor reports its mailbox.
  for (auto actor : {"shard-0", "shard-1", "db-pool", "db-write-pool", "notify-listener"})
    CHECK_SAYING(after.samples.count(std::string{"restcache_actor_mailbox_messages{actor=\""} + actor + "\"}"),
                      actor << " reports no mailbox");
  for (auto name : {"restcache_http_request_duration_seconds", "restcache_db_query_duration_seconds",
                    "restcache_invalidation_latency_seconds", "restcache_listener_poll_seconds"})
    CAF_CHECK_EQUAL(after.types[name], "histogram");
  CAF_CHECK_GREATER(after.sum("process_resident_memory_bytes"), 0);
  CAF_CHECK_GREATER(after.sum("process_open_fds"), 0);
  CAF_CHECK_EQUAL(after.sum("restcache_listener_connected"), 1);
  CAF_CHECK_GREATER_OR_EQUAL(after.sum("restcache_listener_connects_total"), 1);
}

CAF_TEST(logs are json lines in a file that a hangup signal reopens after a rotation) {
  auto log = path("restcached.log");
  auto d = start({"--log.file=" + log, "--log.format=json", "--log.level=info", "--log.access"});
  http_client c{d->port()};
  CAF_REQUIRE_EQUAL(c.get("/deptemps/3", {{"X-Request-Id", "before-rotation"}}).status, 200);
  CAF_REQUIRE(wait_until([&] { return read_file(log).find("before-rotation") != std::string::npos; }, 5s));
  std::filesystem::rename(log, log + ".1"); // what logrotate does
  CAF_REQUIRE_EQUAL(kill(d->pid(), SIGHUP), 0);
  CAF_REQUIRE(wait_until([&] { return read_file(log).find("log files reopened") != std::string::npos; }, 5s));
  CAF_REQUIRE_EQUAL(c.get("/deptemps/4", {{"X-Request-Id", "after-rotation"}}).status, 200);
  CAF_REQUIRE(wait_until([&] { return read_file(log).find("after-rotation") != std::string::npos; }, 5s));
  CAF_CHECK_EQUAL(d->terminate(), 0);
  auto old_text = read_file(log + ".1");
  auto new_text = read_file(log);
  CAF_CHECK(old_text.find("after-rotation") == std::string::npos);
  CAF_CHECK(new_text.find("before-rotation") == std::string::npos);
  // Every line is one JSON object; the access lines say what was asked.
  static const std::regex json_line{R"(\{"time":"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z",.*\})"};
  for (auto* text : {&old_text, &new_text}) {
    std::istringstream lines{*text};
    for (std::string line; std::getline(lines, line);)
      CHECK_SAYING(std::regex_match(line, json_line), "not a JSON line: " << line);
  }
  CAF_CHECK(new_text.find(R"("method":"GET","target":"/deptemps/4","status":200,)") != std::string::npos);
  CAF_CHECK(new_text.find(R"("level":"info")") != std::string::npos);
  CAF_CHECK(new_text.find("restcached stopped") != std::string::npos);
}

CAF_TEST(the text access log has one line per request in its own file) {
  auto access = path("access.log");
  auto d = start({"--log.access", "--log.access-file=" + access});
  http_client c{d->port()};
  CAF_REQUIRE_EQUAL(c.get("/deptemps/5", {{"X-Request-Id", "text-line"}}).status, 200);
  CAF_REQUIRE_EQUAL(c.get("/deptemps/x\"y").status, 400);
  CAF_REQUIRE(wait_until([&] { return read_file(access).find("/deptemps/x") != std::string::npos; }, 5s));
  auto text = read_file(access);
  static const std::regex line{
    R"(127\.0\.0\.1 - - \[\d{4}-\d\d-\d\dT[0-9:.]+Z\] "GET /deptemps/5 HTTP/1\.1" 200 \d+ \d+\.\d{6} "text-line"\n)"};
  CHECK_SAYING(std::regex_search(text, line), "access log: " << text);
  CAF_CHECK(text.find(R"("GET /deptemps/x\x22y HTTP/1.1" 400)") != std::string::npos); // quotes escaped
  // A long target is logged cut, saying how much: a line stays bounded.
  CAF_REQUIRE_EQUAL(c.get("/long/" + std::string(7000, 'q')).status, 404);
  CAF_REQUIRE(wait_until([&] { return read_file(access).find("/long/") != std::string::npos; }, 5s));
  text = read_file(access);
  auto at = text.find("/long/");
  auto end = text.find('\n', at);
  CAF_CHECK(text.substr(at, end - at).find("...(+6494 bytes)") != std::string::npos);
  CAF_CHECK_LESS(end - at, 700u);
  CAF_CHECK_EQUAL(metric(c.get("/metrics").body, "restcache_access_log_dropped_total"), 0);
}

CAF_TEST(every json access log line parses with non UTF-8 targets and refused requests named) {
  auto access = path("access.json");
  auto d = start({"--log.access", "--log.format=json", "--log.access-file=" + access});
  http_client c{d->port()};
  CAF_REQUIRE_EQUAL(c.get("/deptemps/\xff\xfe\xc3(").status, 400);
  CAF_REQUIRE_EQUAL(c.get("/deptemps/caf\xc3\xa9").status, 400);
  http_client raw{d->port()};
  CAF_REQUIRE(raw.send_raw("GET /refused-header HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n"));
  CAF_REQUIRE_EQUAL(raw.read_response().status, 400);
  CAF_REQUIRE(wait_until([&] { return read_file(access).find("/refused-header") != std::string::npos; }, 5s));
  auto text = read_file(access);
  simdjson::dom::parser parser;
  std::istringstream lines{text};
  // Each io thread writes its own lines: requests on different connections
  // may be logged in any order, so the lines are matched by target.
  std::map<std::string, std::string> method_of_target;
  for (std::string line; std::getline(lines, line);) {
    simdjson::dom::element e;
    auto err = parser.parse(line).get(e);
    CHECK_SAYING(!err, "not JSON: " << line);
    if (err)
      continue;
    std::string_view target = e["target"];
    if (target == "/ready")
      continue; // the fixture's polls
    method_of_target[std::string{target}] = std::string{std::string_view(e["method"])};
  }
  CAF_CHECK_EQUAL(method_of_target.size(), 3u);
  CAF_CHECK(method_of_target.count("/deptemps/%FF%FE%C3(") == 1); // the bytes, percent-encoded
  CAF_CHECK(method_of_target.count("/deptemps/caf%C3%A9") == 1);
  // Refused while parsing its header, still named.
  CAF_CHECK_EQUAL(method_of_target["/refused-header"], "GET");
}

CAF_TEST(SIGTERM under load answers every request in flight and writes every queued record) {
  auto lmdb_dir = path("lmdb");
  // Records stay queued in the batch writer until shutdown.
  auto d = start({"--lmdb.path=" + lmdb_dir, "--lmdb.flush-interval=600000", "--lmdb.batch-size=100000",
                  "--lmdb.max-queue=100000", "--http.shutdown-timeout-ms=5000"});
  const uint16_t port = d->port();
  std::atomic<bool> stop{false};
  std::atomic<int> started{0}, answered{0}, cut{0};
  std::mutex mtx;
  std::set<int32_t> served; // deptemps documents answered 200 (each a fill, so a queued record)
  std::vector<std::thread> clients;
  for (int t = 0; t < 8; ++t)
    clients.emplace_back([&, t] {
      http_client c{port, 5s};
      for (int32_t id = 1 + t; !stop.load() && id <= demo_depts; id += 8) {
        started.fetch_add(1);
        auto r = c.get("/deptemps/" + std::to_string(id));
        if (r.status == 200) {
          answered.fetch_add(1);
          std::lock_guard lk{mtx};
          served.insert(id);
        } else if (r.status == 0 && c.connects() > 0) {
          // The server closed the idle keep-alive connection as we sent,
          // or refused a new one: the request never reached a session.
          cut.fetch_add(1);
          break;
        } else {
          CAF_FAIL("request for " << id << " answered " << r.status << " " << r.error);
        }
      }
    });
  CAF_REQUIRE(wait_until([&] { return answered.load() >= 40; }, 10s));
  auto status = d->terminate(20s); // SIGTERM, then waits for the exit
  stop = true;
  for (auto& th : clients)
    th.join();
  CAF_CHECK_EQUAL(status, 0);
  CAF_MESSAGE(answered.load() << " answered, " << cut.load() << " connections closed by the shutdown");
  auto log = d->log();
  CAF_CHECK(log.find("did not drain") == std::string::npos);
  // Every document served was queued for LMDB; all of them are in the file.
  lmdb::store s(lmdb::env_options{lmdb_dir, uint64_t{1} << 30});
  auto txn = s.begin_read();
  size_t missing = 0;
  for (auto id : served)
    if (!s.get(txn, doc_key{demo::deptemps_kind, id}))
      ++missing;
  CAF_CHECK_EQUAL(missing, 0u);
  CAF_CHECK_EQUAL(s.count(), served.size());
}

CAF_TEST_FIXTURE_SCOPE_END()
