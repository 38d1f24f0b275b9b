// SPDX-License-Identifier: Apache-2.0
#define CAF_SUITE shop_example

// The shop example (examples/shop): its tables and loader, its declarations
// checked by the database and watched by restcache-load, served by a daemon
// in this process from the file alone, and kept fresh: a line moved to
// another order changes both orders, a TRUNCATE every order, a customer is
// keyed by uuid, an order's code needs escaping in the path; and the
// freshness checker's shop writes, with the listener killed and the daemon
// restarted meanwhile, find no stale document.

#include <caf/test/dsl.hpp>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "app/startup.hpp"
#include "demo/demo_routes.hpp"
#include "messages/doc_catalogue.hpp"
#include "persistence/pg/connection.hpp"
#include "test/fixtures/child_program.hpp"
#include "test/fixtures/daemon_process.hpp"
#include "test/fixtures/http_client.hpp"
#include "test/fixtures/in_process_daemon.hpp"
#include "test/fixtures/private_pg.hpp"
#include "test/fixtures/test_support.hpp"

using namespace restcache;
using namespace restcache::test;

namespace {

const std::string example_dir = std::string{RESTCACHE_SOURCE_DIR} + "/examples/shop";
const std::string declarations = example_dir + "/shop.toml";

std::string read_text(const std::string& path) {
  std::ifstream in{path};
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// Puts the demo back (its kinds and its routes) when a test is done.
struct demo_back {
  ~demo_back() { demo::install_demo(); }
};

const char* const first_order = "/orders/SO%2F2026%2F000001";
const char* const second_order = "/orders/SO%2F2026%2F000002";

bool has(const http_response& r, const std::string& text) {
  return r.status == 200 && r.body.find(text) != std::string::npos;
}

/// A database `name` with the shop's tables and `orders` orders, its kinds
/// applied by restcache-load when `apply` (as an administrator would).
std::string shop_database(const std::string& name, int orders, bool apply = true) {
  auto dsn = shared_private_pg().create_database(name);
  {
    pg::connection c{dsn};
    c.exec(read_text(example_dir + "/shop.sql"));
    c.exec("SELECT shop_load(" + std::to_string(orders) + ")");
  }
  if (apply)
    CAF_REQUIRE_EQUAL(run_program({RESTCACHE_LOAD_BIN, "--dsn", dsn, "--documents", declarations, "--schema-only"}).status,
                      0);
  return dsn;
}

/// A copy of shop.toml in `dir` whose orders gain a member, "state" (the
/// status again); the customers' declaration stays as it was.
std::string write_order_with_state(const temp_dir& dir) {
  std::string text = read_text(declarations);
  const std::string status_field = R"({ name = "status", column = 4, type = "text" },)";
  text.replace(text.find(status_field), status_field.size(),
               status_field + R"( { name = "state", column = 4, type = "text" },)");
  auto changed = dir.path + "/shop.toml";
  std::ofstream{changed} << text;
  return changed;
}

} // namespace

CAF_TEST(the shop example loads passes the check and is served fresh) {
  demo_back restore;
  auto dsn = shared_private_pg().create_database("shop");
  {
    pg::connection c{dsn};
    c.exec(read_text(example_dir + "/shop.sql"));
    CAF_CHECK_EQUAL(c.exec("SELECT shop_load(200)").int64(0, 0), 200);
    CAF_CHECK_EQUAL(c.exec("SELECT shop_load(200)").int64(0, 0), 200); // the same again: nothing added
  }
  auto loaded = run_program({RESTCACHE_LOAD_BIN, "--dsn", dsn, "--documents", declarations, "--schema-only"});
  CAF_CHECK_EQUAL(loaded.status, 0);
  if (loaded.status != 0)
    CAF_MESSAGE(loaded.err);

  daemon_options o;
  o.documents_file = declarations;
  startup::install_documents(o);
  in_process_daemon d{dsn, {"--documents.file=" + declarations, "--cache.mode=memory"}};
  auto ready = get_until(d.port(), "/ready", [](const http_response& r) { return r.status == 200; });
  CAF_REQUIRE_EQUAL(ready.status, 200);
  http_client c{d.port()};
  auto first = c.get(first_order);
  CAF_CHECK(has(first, R"({"code":"SO/2026/000001","customer":")"));
  CAF_CHECK(has(first, R"("placed":"2026-01-01T00:07:00+00:00","status":"paid","total":)"));
  CAF_CHECK(has(first, R"("lines":[{"line":1,"sku":"SKU-20","qty":3,"price":)"));
  CAF_CHECK_EQUAL(c.get(first_order).header_or_empty("Cache-Status"), "restcache; hit; detail=memory");
  auto tenth = c.get("/orders/SO%2F2026%2F000010");
  CAF_CHECK(has(tenth, R"("note":{"gift": true, "message": "Für dich"})"));
  CAF_CHECK_EQUAL(c.get("/orders/SO%2F2026%2F999999").status, 404);

  pg::connection db{dsn};
  auto customer = std::string{db.exec("SELECT md5('customer 2')::uuid").text(0, 0)};
  auto who = c.get("/customers/" + customer);
  CAF_CHECK(has(who, R"("name":"Customer 2","email":"customer2@example.com","since":)"));
  CAF_CHECK_EQUAL(c.get("/customers/not-a-uuid").status, 400);

  // A line moved to another order: both orders change (its old and its new code).
  auto second = c.get(second_order);
  CAF_CHECK(has(second, R"("lines":[)"));
  db.exec("UPDATE shop_line SET order_code = 'SO/2026/000002', line_no = 100"
          " WHERE order_code = 'SO/2026/000001' AND line_no = 1");
  auto moved_from = get_until(d.port(), first_order, [](const http_response& r) {
    return r.status == 200 && r.body.find(R"("line":1,)") == std::string::npos;
  });
  CAF_CHECK(has(moved_from, R"("code":"SO/2026/000001")"));
  CAF_CHECK(moved_from.body.find(R"("line":1,)") == std::string::npos);
  auto moved_to = get_until(d.port(), second_order, [](const http_response& r) {
    return r.body.find(R"("line":100,)") != std::string::npos;
  });
  CAF_CHECK(has(moved_to, R"({"line":100,"sku":"SKU-20")"));

  // A customer renamed: its document changes.
  db.exec_params("UPDATE shop_customer SET name = 'Renamed' WHERE id = $1", {customer});
  CAF_CHECK(has(get_until(d.port(), "/customers/" + customer,
                          [](const http_response& r) { return r.body.find("Renamed") != std::string::npos; }),
                R"("name":"Renamed")"));

  // TRUNCATE of the lines: every order is read again, without lines.
  CAF_CHECK_EQUAL(c.get("/orders/SO%2F2026%2F000003").header_or_empty("Cache-Status").find("hit") == std::string::npos,
                  true); // the first read fills it
  db.exec("TRUNCATE shop_line");
  for (const char* path : {first_order, second_order, "/orders/SO%2F2026%2F000003"}) {
    auto after = get_until(d.port(), path, [](const http_response& r) {
      return r.body.find(R"("lines":[])") != std::string::npos;
    });
    CAF_CHECK(has(after, R"("lines":[])"));
  }

  // Its OpenAPI document: both kinds, the uuid key, nothing of the demo's.
  auto openapi = c.get("/openapi.json").body;
  CAF_CHECK(openapi.find(R"("/orders/{code}": {)") != std::string::npos);
  CAF_CHECK(openapi.find(R"("/customers/{id}": {)") != std::string::npos);
  CAF_CHECK(openapi.find(R"("format": "uuid")") != std::string::npos);
  CAF_CHECK(openapi.find("/deptemps/") == std::string::npos);
}

CAF_TEST(a changed declaration drops its old documents from LMDB and keeps the other kinds) {
  demo_back restore;
  auto dsn = shop_database("shop_changed", 20);
  std::string customer = pg::connection{dsn}.exec("SELECT md5('customer 1')::uuid").text(0, 0).data();
  const std::string customer_path = "/customers/" + customer;
  temp_dir dir{"shop-changed"};
  const std::vector<std::string> lmdb_args{"--cache.mode=lmdb", "--lmdb.path=" + dir.path + "/lmdb",
                                           "--lmdb.flush-interval=20"};
  auto lmdb_hit = [](const http_response& r) {
    return r.header_or_empty("Cache-Status") == "restcache; hit; detail=lmdb";
  };
  daemon_options o;
  o.documents_file = declarations;
  startup::install_documents(o);
  std::string old_order;
  {
    auto args = lmdb_args;
    args.push_back("--documents.file=" + declarations);
    in_process_daemon d{dsn, args};
    CAF_REQUIRE_EQUAL(get_until(d.port(), "/ready", [](const http_response& r) { return r.status == 200; }).status,
                      200);
    http_client c{d.port()};
    old_order = c.get(first_order).body;
    CAF_CHECK(lmdb_hit(get_until(d.port(), first_order, lmdb_hit)));
    CAF_CHECK(lmdb_hit(get_until(d.port(), customer_path, lmdb_hit)));
  }
  auto changed = write_order_with_state(dir);
  o.documents_file = changed;
  startup::install_documents(o);
  auto args = lmdb_args;
  args.push_back("--documents.file=" + changed);
  in_process_daemon d{dsn, args};
  CAF_REQUIRE_EQUAL(get_until(d.port(), "/ready", [](const http_response& r) { return r.status == 200; }).status, 200);
  http_client c{d.port()};
  auto order = c.get(first_order);
  CAF_CHECK_EQUAL(order.status, 200);
  CAF_CHECK(order.body != old_order);
  CAF_CHECK(has(order, R"("status":"paid","state":"paid")"));
  CAF_CHECK(order.header_or_empty("Cache-Status").find("detail=lmdb") == std::string::npos); // not the old shape
  CAF_CHECK(lmdb_hit(c.get(customer_path))); // the other kind's document survived
}

CAF_TEST(the freshness checker counts no stale shop document under writes listener kills and restarts) {
  auto dsn = shop_database("shop_fresh", 300);
  temp_dir dir{"shop-fresh"};
  // Memory and LMDB tiers: a restarted daemon finds the documents its
  // predecessor wrote to LMDB and must drop those changed while it was down.
  const std::vector<std::string> args{"--db.dsn=" + dsn, "--documents.file=" + declarations, "--db.pool-size=2",
                                      "--cache.shards=2", "--log.level=warn", "--lmdb.path=" + dir.path + "/lmdb",
                                      "--lmdb.flush-interval=20", "--changelog.poll-interval=20"};
  auto d = std::make_unique<daemon_process>(args);
  const uint16_t port = d->port();
  CAF_REQUIRE_EQUAL(get_until(port, "/ready", [](const http_response& r) { return r.status == 200; }).status, 200);

  // While the checker writes: the listener's session killed every 600 ms
  // for 3 s, then the daemon killed (SIGKILL) and started again, then
  // stopped (SIGTERM) and started again, on the same port and LMDB.
  std::atomic<bool> restarted{false};
  std::atomic<bool> checked{false};
  std::string restart_error;
  std::thread disturber([&] {
    try {
      pg::connection admin{shared_private_pg().dsn()};
      for (int i = 0; i < 5; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds{600});
        admin.exec("SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                   " WHERE application_name = 'restcache-listener' AND datname = 'shop_fresh'");
      }
      d.reset(); // SIGKILL
      d = std::make_unique<daemon_process>(args, port);
      std::this_thread::sleep_for(std::chrono::seconds{2});
      d->terminate();
      d = std::make_unique<daemon_process>(args, port);
      restarted = true;
    } catch (const std::exception& e) {
      restart_error = e.what();
    }
    // A child dies with the thread that started it (PR_SET_PDEATHSIG):
    // this one stays until the checker is done.
    while (!checked.load())
      std::this_thread::sleep_for(std::chrono::milliseconds{50});
  });
  auto checker = [&](std::vector<std::string> extra, std::chrono::seconds limit) {
    std::vector<std::string> cmd{RESTCACHE_FRESHNESS_BIN, "-q", "--writes", "shop", "--documents", declarations,
                                 "--readers", "1", "--json", "--dsn", dsn, "--url",
                                 "http://127.0.0.1:" + std::to_string(port)};
    cmd.insert(cmd.end(), extra.begin(), extra.end());
    return run_program(cmd, limit);
  };
  // Every kind of write in turn (TRUNCATEs are rare among them by weight).
  auto run = checker({"--in-turn", "--duration", "8", "--writes-per-second", "12", "--read-delay-ms", "600",
                      "--reads-per-second", "150", "--latency-every", "4"},
                     std::chrono::seconds{90});
  checked = true;
  disturber.join();

  CAF_CHECK_EQUAL(restart_error, "");
  CAF_CHECK(restarted.load());
  auto count_of = [](const program_run& r, const std::string& field) {
    auto at = r.out.find("\"" + field + "\":");
    return at == std::string::npos ? -1 : std::atoi(r.out.c_str() + at + field.size() + 3);
  };
  CAF_CHECK_EQUAL(run.status, 0); // 0 stale, 0 errors
  CAF_MESSAGE("restcache-freshness: " << run.out << (run.status != 0 ? run.err : ""));
  CAF_CHECK_EQUAL(count_of(run, "stale"), 0);
  CAF_CHECK_GREATER_OR_EQUAL(count_of(run, "checked"), 40);
  // The writes that matter most here were made (the machine made at least
  // one round of the kinds).
  for (const char* kind : {"move_line", "insert_order", "recode_order", "delete_order", "truncate_reload"})
    CAF_CHECK_GREATER_OR_EQUAL(count_of(run, kind), 1);
}

CAF_TEST(a kind with a ttl reads unwatched tables and is read again after its ttl and a capped kind is not kept) {
  demo_back restore;
  auto dsn = shop_database("shop_ttl", 20, false);
  temp_dir dir{"shop-ttl"};
  // An order's status with its customer's name: neither table is watched
  // (no reads), the ttl bounds how long a change goes unseen.
  const std::string file = dir.path + "/status.toml";
  std::ofstream{file} << R"(format = 1
[[kind]]
name = "order_status"
route = "/order-status/{code}"
key = "text"
sql = '''SELECT o.code, o.status, c.name FROM shop_order o JOIN shop_customer c ON c.id = o.customer_id
          WHERE o.code = $1'''
fields = [
  { name = "code", column = 1, type = "text" },
  { name = "status", column = 2, type = "text" },
  { name = "customer", column = 3, type = "text" },
]
ttl = 1

[[kind]]
name = "order_lines"
route = "/order-lines/{code}"
key = "text"
sql = "SELECT order_code, line_no, sku FROM shop_line WHERE order_code = $1 ORDER BY line_no"
fields = [{ name = "code", column = 1, type = "text" }]
reads = [{ table = "shop_line", columns = ["order_code", "line_no", "sku"], keys = ["order_lines:order_code"] }]
max_bytes = 10
[kind.detail]
name = "lines"
present_column = 2
fields = [{ name = "line", column = 2, type = "number" }, { name = "sku", column = 3, type = "text" }]
)";
  auto loaded = run_program({RESTCACHE_LOAD_BIN, "--dsn", dsn, "--documents", file, "--schema-only"});
  CAF_REQUIRE_EQUAL(loaded.status, 0);
  daemon_options o;
  o.documents_file = file;
  startup::install_documents(o);
  in_process_daemon d{dsn, {"--documents.file=" + file, "--lmdb.path=" + dir.path + "/lmdb",
                            "--lmdb.flush-interval=20"}};
  CAF_REQUIRE_EQUAL(get_until(d.port(), "/ready", [](const http_response& r) { return r.status == 200; }).status, 200);
  http_client c{d.port()};
  const std::string path = "/order-status/SO%2F2026%2F000001";
  auto first = c.get(path);
  CAF_CHECK(has(first, R"("status":"paid","customer":"Customer 2")"));
  CAF_CHECK_EQUAL(first.header_or_empty("Cache-Status"), "restcache; fwd=uri-miss; stored");
  CAF_CHECK_EQUAL(c.get(path).header_or_empty("Cache-Status"), "restcache; hit; detail=memory");
  pg::connection{dsn}.exec("UPDATE shop_order SET status = 'returned' WHERE code = 'SO/2026/000001'");
  // Within its ttl the old status may still be answered; after it, never.
  std::this_thread::sleep_for(std::chrono::milliseconds{1100});
  auto after = c.get(path);
  CAF_CHECK(has(after, R"("status":"returned")"));
  CAF_CHECK_EQUAL(after.header_or_empty("Cache-Status"), "restcache; fwd=uri-miss; stored"); // not from LMDB
  CAF_CHECK_GREATER_OR_EQUAL(metric_sum(c.get("/metrics").body, "restcache_cache_expired_total"), 1);

  // Above its cap: answered every time, never kept.
  const std::string lines = "/order-lines/SO%2F2026%2F000001";
  for (int i = 0; i < 2; ++i) {
    auto r = c.get(lines);
    CAF_CHECK(has(r, R"("lines":[{"line":1,)"));
    CAF_CHECK_EQUAL(r.header_or_empty("Cache-Status"), "restcache; fwd=uri-miss");
  }
  CAF_CHECK_EQUAL(metric_sum(c.get("/metrics").body, "restcache_cache_over_cap_total"), 2);
}

CAF_TEST(declarations applied to the database are what every instance serves and a change reaches a restart) {
  auto dsn = shop_database("shop_applied", 20, false);
  auto applied = run_program({RESTCACHE_LOAD_BIN, "--dsn", dsn, "--documents", declarations, "--schema-only"});
  CAF_REQUIRE_EQUAL(applied.status, 0);
  CAF_CHECK(applied.err.find("declarations now applied from " + declarations) != std::string::npos);
  temp_dir dir{"shop-applied"};
  const std::vector<std::string> args{"--db.dsn=" + dsn, "--db.pool-size=2", "--cache.shards=2", "--log.level=warn",
                                      "--lmdb.path=" + dir.path + "/lmdb", "--changelog.drift-interval=200"};
  // No documents.file: the database's declarations, not the demo.
  auto d = std::make_unique<daemon_process>(args);
  CAF_REQUIRE_EQUAL(get_until(d->port(), "/ready", [](const http_response& r) { return r.status == 200; }).status, 200);
  http_client c{d->port()};
  auto order = c.get(first_order);
  CAF_CHECK(has(order, R"("status":"paid","total":)"));
  CAF_CHECK_EQUAL(c.get("/deptemps/1").status, 404);
  CAF_CHECK(c.get("/openapi.json").body.find(R"("/orders/{code}")") != std::string::npos);
  CAF_CHECK_EQUAL(metric(c.get("/metrics").body, "restcache_declarations_differ"), 0);

  // Another file than the applied one: refused at start, saying why.
  auto changed = write_order_with_state(dir);
  const std::vector<std::string> with_file{"--db.dsn=" + dsn, "--log.level=warn", "--documents.file=" + changed};
  std::string refusal;
  try {
    daemon_process other{with_file};
  } catch (const std::exception& e) {
    refusal = e.what();
  }
  CAF_CHECK(refusal.find("documents.file " + changed + " is not what was applied to the database") != std::string::npos);

  // The changed file applied while the instance runs: it says so and keeps
  // serving its own kinds (fresh, ready) until it restarts.
  auto reapplied = run_program({RESTCACHE_LOAD_BIN, "--dsn", dsn, "--documents", changed, "--schema-only"});
  CAF_REQUIRE_EQUAL(reapplied.status, 0);
  CAF_CHECK(reapplied.err.find("running instances serve them once restarted") != std::string::npos);
  CAF_CHECK(wait_until([&] { return metric(c.get("/metrics").body, "restcache_declarations_differ") == 1; },
                       std::chrono::seconds{10}));
  auto ready = c.get("/ready");
  CAF_CHECK_EQUAL(ready.status, 200);
  CAF_CHECK(ready.body.find("the declarations applied to the database changed: a restart serves them")
            != std::string::npos);
  CAF_CHECK(c.get(first_order).body.find(R"("state":)") == std::string::npos);
  pg::connection{dsn}.exec("UPDATE shop_order SET status = 'returned' WHERE code = 'SO/2026/000001'");
  CAF_CHECK(has(get_until(d->port(), first_order,
                          [](const http_response& r) { return r.body.find("returned") != std::string::npos; }),
                R"("status":"returned")"));

  // Restarted: the applied declarations, the old shape gone (LMDB included).
  d->terminate();
  d = std::make_unique<daemon_process>(args);
  CAF_REQUIRE_EQUAL(get_until(d->port(), "/ready", [](const http_response& r) { return r.status == 200; }).status, 200);
  http_client again{d->port()};
  auto reshaped = again.get(first_order);
  CAF_CHECK(has(reshaped, R"("status":"returned","state":"returned")"));
  CAF_CHECK(reshaped.header_or_empty("Cache-Status").find("detail=lmdb") == std::string::npos);
  CAF_CHECK_EQUAL(metric(again.get("/metrics").body, "restcache_declarations_differ"), 0);
}
