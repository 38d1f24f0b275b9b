// SPDX-License-Identifier: Apache-2.0
#define CAF_SUITE catalogue_kind

// A kind the engine has never heard of, added by a catalogue entry alone:
// a table this suite creates, keyed by text whose keys need escaping in a
// path and arrive in the change log as they are. The daemon runs in this
// process with the demo's kinds and that one; nothing else is told of it.
// The table's watched key and triggers come from the catalogue, as
// restcache-load --schema-only writes them (pg::ensure_schema).

#include <caf/test/dsl.hpp>

#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "persistence/pg/connection.hpp"
#include "persistence/pg/schema.hpp"
#include "test/fixtures/catalogue_guard.hpp"
#include "test/fixtures/http_client.hpp"
#include "test/fixtures/in_process_daemon.hpp"
#include "test/fixtures/test_support.hpp"

using namespace restcache;
using namespace restcache::test;

namespace {

// The kind's key: '/', ' ', '%', '"', '\', ':' and a non-ASCII letter.
const std::string odd_key = "a/b c%\"q\\:\xc3\xbc";
const std::string odd_path = "/tags/a%2Fb%20c%25%22q%5C%3A%C3%BC";

const std::string& tag_dsn() {
  static const std::string dsn = [] {
    auto d = create_demo_database("kind", 5, 1);
    pg::connection c{d};
    c.exec("CREATE TABLE tag (name text PRIMARY KEY, note text)");
    c.exec_params("INSERT INTO tag VALUES ($1, 'first'), ('plain', 'second')", {odd_key});
    // The table exists now: the schema's install gives it its triggers (its
    // watched key was added when the demo database was made, under this
    // catalogue, before the table was there).
    CAF_CHECK_EQUAL(pg::ensure_schema(c), pg::schema_version);
    CAF_CHECK_EQUAL(pg::watch_catalogue_keys(c), 0); // nothing missing
    CAF_CHECK_EQUAL(c.exec("SELECT count(*) FROM restcache_watched_key"
                           " WHERE table_name = 'tag' AND key_space = 'tag' AND key_column = 'name'")
                      .int64(0, 0),
                    1);
    CAF_CHECK_EQUAL(
      c.exec("SELECT count(*) FROM pg_trigger WHERE tgrelid = 'tag'::regclass AND tgname = 'restcache_changed'")
        .int64(0, 0),
      1);
    return d;
  }();
  return dsn;
}

/// The daemon over the suite's database.
struct tag_daemon : in_process_daemon {
  explicit tag_daemon(std::vector<std::string> args) : in_process_daemon(tag_dsn(), std::move(args)) {}
};

struct fixture {
  catalogue_guard kinds{demo_and_text_kind()};
  temp_dir lmdb{"catalogue-kind"};
};

} // namespace

CAF_TEST_FIXTURE_SCOPE(catalogue_kind_tests, fixture)

CAF_TEST(a kind keyed by text is served cached invalidated and kept in LMDB) {
  const std::vector<std::string> tiered{"--cache.mode=tiered", "--lmdb.path=" + lmdb.path};
  {
    tag_daemon d{tiered};
    auto ready = get_until(d.port(), "/ready", [](const http_response& r) { return r.status == 200; });
    CAF_REQUIRE_EQUAL(ready.status, 200);
    http_client c{d.port()};
    auto first = c.get(odd_path);
    CAF_CHECK_EQUAL(first.status, 200);
    CAF_CHECK_EQUAL(first.body, R"({"name":"a/b c%\"q\\:ü","note":"first"})");
    CAF_CHECK_EQUAL(first.header_or_empty("Cache-Status"), "restcache; fwd=uri-miss; stored");
    auto again = c.get(odd_path);
    CAF_CHECK_EQUAL(again.header_or_empty("Cache-Status"), "restcache; hit; detail=memory");
    CAF_CHECK_EQUAL(again.body, first.body);
    // Another spelling of the same key is sent to its one spelling.
    auto other = c.get("/tags/a%2fb%20c%25%22q%5c:%c3%bc");
    CAF_CHECK_EQUAL(other.status, 308);
    CAF_CHECK_EQUAL(other.header_or_empty("Location"), odd_path);
    auto missing = c.get("/tags/none%20such");
    CAF_CHECK_EQUAL(missing.status, 404);
    CAF_CHECK(missing.body.find("tag none such does not exist") != std::string::npos);
    CAF_CHECK_EQUAL(c.get("/tags/%zz").status, 400);
    CAF_CHECK_EQUAL(c.get("/tags/a%00").status, 400);

    // A committed change reaches the cached document through the change log.
    pg::connection db{tag_dsn()};
    db.exec_params("UPDATE tag SET note = 'changed' WHERE name = $1", {odd_key});
    auto changed = get_until(d.port(), odd_path, [](const http_response& r) {
      return r.body.find("changed") != std::string::npos;
    });
    CAF_CHECK_EQUAL(changed.body, R"({"name":"a/b c%\"q\\:ü","note":"changed"})");
    CAF_CHECK(changed.header_or_empty("Cache-Status") != "restcache; hit; detail=memory");
    auto metrics = c.get("/metrics");
    CAF_CHECK(metrics.body.find(R"(restcache_http_requests_total{method="GET",route="/tags/{key}",status="200"})")
              != std::string::npos);
    // The change reaches LMDB too before the daemon stops (its writer drains).
    get_until(d.port(), odd_path, [](const http_response& r) {
      return r.header_or_empty("Cache-Status") == "restcache; hit; detail=memory";
    });
  }
  {
    // Restarted: the memory tier is empty, the document comes from LMDB.
    tag_daemon d{tiered};
    auto ready = get_until(d.port(), "/ready", [](const http_response& r) { return r.status == 200; });
    CAF_REQUIRE_EQUAL(ready.status, 200);
    http_client c{d.port()};
    auto stored = c.get(odd_path);
    CAF_CHECK_EQUAL(stored.body, R"({"name":"a/b c%\"q\\:ü","note":"changed"})");
    CAF_CHECK_EQUAL(stored.header_or_empty("Cache-Status"), "restcache; hit; detail=lmdb");
    // And a deletion reaches it.
    pg::connection db{tag_dsn()};
    db.exec_params("DELETE FROM tag WHERE name = $1", {odd_key});
    auto gone = get_until(d.port(), odd_path, [](const http_response& r) { return r.status == 404; });
    CAF_CHECK_EQUAL(gone.status, 404);
  }
}

CAF_TEST_FIXTURE_SCOPE_END()
