// SPDX-License-Identifier: Apache-2.0
#define CAF_SUITE rest_api
#include "test/fixtures/daemon_process.hpp"

#include <caf/test/unit_test.hpp>

#include <simdjson.h>
#include <zlib.h>

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "messages/document_encoder.hpp"
#include "demo/data_generator.hpp"
#include "persistence/pg/schema.hpp"
#include "persistence/pg/statements.hpp"
#include "test/fixtures/http_client.hpp"
#include "test/fixtures/private_pg.hpp"
#include "test/fixtures/test_support.hpp"
#include "demo/demo_encoders.hpp"
#include "demo/demo_reads.hpp"

// The whole REST API against the real daemon and a private PostgreSQL: every
// route, every error status, read-your-writes on memory and LMDB, conditional
// requests, and openapi.json checked against the running daemon.
//
// One database and one daemon serve most tests: each test works on its own
// department and employee numbers (listed next to it), so order does not
// matter. Tests that need other options (lmdb mode, a write token, tiny
// pools with a short statement timeout) start their own daemon on the same
// database.

using namespace restcache;
using namespace restcache::test;
using namespace std::chrono_literals;

namespace {

/// More than max_page_limit, so GET /depts shows its cap.
constexpr int64_t demo_depts = 1100;
constexpr int64_t emps_per_dept = 10;

/// empno = (deptno - 1) * 10 + k, k = 1..10; k = 1 manages the others.
constexpr int32_t empno_of(int32_t deptno, int32_t k) {
  return (deptno - 1) * int32_t(emps_per_dept) + k;
}

const std::string& suite_dsn() {
  static const std::string dsn = [] {
    return create_demo_database("restapi", demo_depts, emps_per_dept);
  }();
  return dsn;
}

/// Fails the current test with `what` when `ok` is false (helpers check many
/// things; the text says which request).
void expect(bool ok, const std::string& what) {
  if (ok)
    CAF_CHECK(ok);
  else
    CAF_CHECK_EQUAL(what, "(held)");
}

/// Starts a daemon on the suite database; `extra` options replace the
/// defaults of the same name. Waits (bounded) until it serves from its tiers.
std::unique_ptr<daemon_process> start_daemon(std::vector<std::string> extra = {}) {
  std::vector<std::string> args;
  std::vector<std::string> defaults{"--db.dsn=" + suite_dsn(), "--db.pool-size=2", "--cache.shards=2",
                                    "--log.level=warn", "--lmdb.flush-interval=20",
                                    "--changelog.poll-interval=20"};
  for (auto& d : defaults) {
    auto key = d.substr(0, d.find('=') + 1);
    bool replaced = std::any_of(extra.begin(), extra.end(),
                                [&](const std::string& e) { return e.rfind(key, 0) == 0; });
    if (!replaced)
      args.push_back(d);
  }
  args.insert(args.end(), extra.begin(), extra.end());
  auto d = std::make_unique<daemon_process>(args);
  http_client c{d->port()};
  bool ready = wait_until([&] {
    auto m = c.get("/metrics");
    return m.status == 200 && metric(m.body, "restcache_listener_caught_up") == 1
           && metric(m.body, "restcache_dept_ids") > 0 && c.get("/ready").status == 200;
  });
  if (!ready)
    CAF_FAIL("daemon not ready within 10 s; log:\n" << d->log());
  return d;
}

/// The daemon most tests share (default options).
daemon_process& main_daemon() {
  static std::unique_ptr<daemon_process> d = start_daemon();
  return *d;
}

/// Checks what every response must have: X-Request-Id; Content-Length
/// (matching the body) unless 204 or 304; problem+json with status, title
/// and detail for errors; Retry-After on 503; Allow on 405.
void check_common(const http_response& r, bool head, const std::string& what) {
  expect(r.status != 0, what + ": no response: " + r.error);
  if (r.status == 0)
    return;
  expect(r.has_header("X-Request-Id"), what + ": X-Request-Id missing");
  if (r.status != 204 && r.status != 304) {
    auto cl = r.header("Content-Length");
    expect(cl.has_value(), what + ": Content-Length missing");
    if (cl && !head)
      expect(*cl == std::to_string(r.body.size()), what + ": Content-Length " + *cl + " but a body of "
                                                       + std::to_string(r.body.size()));
  } else {
    expect(r.body.empty(), what + ": a " + std::to_string(r.status) + " with a body");
  }
  if (head)
    expect(r.body.empty(), what + ": HEAD answered with a body");
  if (r.status >= 400) {
    expect(r.header_or_empty("Content-Type") == "application/problem+json",
           what + ": error Content-Type is '" + r.header_or_empty("Content-Type") + "'");
    if (!head) {
      expect(r.body.find("\"status\":" + std::to_string(r.status)) != std::string::npos,
             what + ": problem without its status: " + r.body);
      expect(r.body.find("\"title\":") != std::string::npos, what + ": problem without title: " + r.body);
      expect(r.body.find("\"detail\":") != std::string::npos, what + ": problem without detail: " + r.body);
    }
  }
  if (r.status == 503)
    expect(r.header_or_empty("Retry-After") == "1", what + ": 503 without Retry-After: 1");
  if (r.status == 405)
    expect(r.has_header("Allow"), what + ": 405 without Allow");
}

/// A request on `c` with the checks of check_common.
http_response call(http_client& c, std::string_view method, std::string_view target,
                   const header_list& headers = {}, std::string_view body = {}) {
  auto r = c.request(method, target, headers, body);
  check_common(r, method == "HEAD", std::string{method} + " " + std::string{target});
  return r;
}

const header_list json_type{{"Content-Type", "application/json"}};

header_list with_json(header_list h) {
  h.emplace_back("Content-Type", "application/json");
  return h;
}

/// A whole request, for send_raw (requests read later).
std::string raw_request(std::string_view method, std::string_view target, const header_list& headers = {},
                        std::string_view body = {}) {
  std::string req;
  req.append(method).append(" ").append(target).append(" HTTP/1.1\r\nHost: 127.0.0.1\r\n");
  for (auto& [k, v] : headers)
    req.append(k).append(": ").append(v).append("\r\n");
  if (!body.empty())
    req.append("Content-Length: ").append(std::to_string(body.size())).append("\r\n");
  req.append("\r\n").append(body);
  return req;
}

/// `doc` with the value of its first "field" replaced by `json_value`.
std::string replace_field(std::string doc, std::string_view field, std::string_view json_value) {
  std::string key{'"'};
  key.append(field).append("\":");
  auto at = doc.find(key);
  if (at == std::string::npos)
    CAF_FAIL("no field " << field << " in " << doc);
  auto start = at + key.size();
  auto end = start;
  if (doc[start] == '"') {
    end = start + 1;
    while (end < doc.size() && doc[end] != '"')
      end += doc[end] == '\\' ? 2 : 1;
    ++end;
  } else {
    end = doc.find_first_of(",}]", start);
  }
  std::string out = doc.substr(0, start);
  out.append(json_value).append(doc, end, std::string::npos);
  return out;
}

/// The database's truth, encoded as the daemon encodes it ("" when absent).
struct truth {
  pg::connection sql{suite_dsn()};
  truth() { pg::prepare_statements(sql); }
  std::string deptemps(int32_t id) {
    auto d = demo::fetch_deptemps(sql, id);
    return d ? demo::encode_deptemps(*d) : std::string{};
  }
  std::string dept(int32_t id) {
    auto d = demo::fetch_deptemps(sql, id);
    return d ? demo::encode_dept(d->dept) : std::string{};
  }
  std::string emp(int32_t id) {
    auto e = demo::fetch_emp(sql, id);
    return e ? demo::encode_emp(*e) : std::string{};
  }
};

/// An employee's field inside a deptemps document: nullopt when the field is
/// absent (SQL NULL); -1 when the employee is not there at all.
std::optional<int64_t> emp_field(const std::string& deptemps, int64_t empno, const char* field) {
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (parser.parse(deptemps).get(doc) != simdjson::SUCCESS)
    return -2;
  simdjson::dom::array emps;
  if (doc["emps"].get_array().get(emps) != simdjson::SUCCESS)
    return -1;
  for (auto e : emps) {
    int64_t no = 0;
    if (e["empNo"].get_int64().get(no) != simdjson::SUCCESS || no != empno)
      continue;
    int64_t v = 0;
    if (e[field].get_int64().get(v) != simdjson::SUCCESS)
      return std::nullopt;
    return v;
  }
  return -1;
}

bool lists_emp(const std::string& deptemps, int64_t empno) {
  auto v = emp_field(deptemps, empno, "empNo");
  return v && *v == empno;
}

/// deptNumber of every item of a GET /depts page; empty on a parse error.
std::vector<int64_t> page_ids(const std::string& body) {
  std::vector<int64_t> out;
  simdjson::dom::parser parser;
  simdjson::dom::array arr;
  if (parser.parse(body).get_array().get(arr) != simdjson::SUCCESS)
    return out;
  for (auto e : arr) {
    int64_t id = 0;
    if (e["deptNumber"].get_int64().get(id) == simdjson::SUCCESS)
      out.push_back(id);
  }
  return out;
}

int64_t lock_waiters(pg::connection& watcher) {
  return watcher
    .exec("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
          " AND wait_event_type = 'Lock'")
    .int64(0, 0);
}

/// The Content-Length value, 0 when absent or not a number.
size_t content_length(const http_response& r) {
  auto v = r.header_or_empty("Content-Length");
  if (v.empty() || !std::all_of(v.begin(), v.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return 0;
  return std::stoul(v);
}

/// The bytes a gzip member decompresses to; "" on an error.
std::string gunzip(const std::string& in) {
  z_stream zs{};
  if (inflateInit2(&zs, 15 + 16) != Z_OK)
    return {};
  std::string out(in.size() * 20 + 1024, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  zs.avail_in = static_cast<uInt>(in.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  int rc = inflate(&zs, Z_FINISH);
  inflateEnd(&zs);
  if (rc != Z_STREAM_END)
    return {};
  out.resize(zs.total_out);
  return out;
}

bool is_fresh_request_id(const std::string& s) {
  return s.size() == 15
         && std::all_of(s.begin(), s.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); });
}

} // namespace

// ---- reads ---------------------------------------------------------------------------
// departments 10-14, employees 101, 141

CAF_TEST(GET deptemps answers the cached document with a strong ETag and no-cache) {
  http_client c{main_daemon().port()};
  truth db;
  auto r = call(c, "GET", "/deptemps/10");
  CAF_REQUIRE_EQUAL(r.status, 200);
  CAF_CHECK_EQUAL(r.body, db.deptemps(10));
  CAF_CHECK_EQUAL(r.header_or_empty("Content-Type"), "application/json");
  CAF_CHECK_EQUAL(r.header_or_empty("ETag"), strong_etag(r.body));
  CAF_CHECK(r.header_or_empty("ETag").rfind("W/", 0) == std::string::npos);
  CAF_CHECK_EQUAL(r.header_or_empty("Cache-Control"), "no-cache");
  auto again = call(c, "GET", "/deptemps/10");
  CAF_CHECK_EQUAL(again.body, r.body);
  CAF_CHECK_EQUAL(again.header_or_empty("ETag"), r.header_or_empty("ETag"));
  auto missing = call(c, "GET", "/deptemps/999999");
  CAF_CHECK_EQUAL(missing.status, 404);
  CAF_CHECK(missing.body.find("department 999999 does not exist") != std::string::npos);
}

CAF_TEST(GET depts id answers the department alone) {
  http_client c{main_daemon().port()};
  truth db;
  auto r = call(c, "GET", "/depts/11");
  CAF_REQUIRE_EQUAL(r.status, 200);
  CAF_CHECK_EQUAL(r.body, db.dept(11));
  CAF_CHECK(r.body.find("\"emps\"") == std::string::npos);
  CAF_CHECK_EQUAL(r.header_or_empty("ETag"), strong_etag(r.body));
  CAF_CHECK_EQUAL(r.header_or_empty("Cache-Control"), "no-cache");
  CAF_CHECK_EQUAL(call(c, "GET", "/depts/999999").status, 404);
  CAF_CHECK_EQUAL(call(c, "GET", "/depts/0").status, 400);
}

CAF_TEST(GET depts emps id answers one employee) {
  http_client c{main_daemon().port()};
  truth db;
  auto r = call(c, "GET", "/depts/emps/101");
  CAF_REQUIRE_EQUAL(r.status, 200);
  CAF_CHECK_EQUAL(r.body, db.emp(101));
  CAF_CHECK_EQUAL(r.header_or_empty("ETag"), strong_etag(r.body));
  CAF_CHECK_EQUAL(r.header_or_empty("Cache-Control"), "no-cache");
  auto missing = call(c, "GET", "/depts/emps/99999999");
  CAF_CHECK_EQUAL(missing.status, 404);
  CAF_CHECK(missing.body.find("employee 99999999 does not exist") != std::string::npos);
}

CAF_TEST(GET depts random answers an existing department document) {
  http_client c{main_daemon().port()};
  for (int i = 0; i < 5; ++i) {
    auto r = call(c, "GET", "/depts/random");
    CAF_REQUIRE_EQUAL(r.status, 200);
    auto id = std::stoll(r.body.substr(r.body.find(':') + 1));
    CAF_CHECK_GREATER_OR_EQUAL(id, 1);
    CAF_CHECK(r.has_header("ETag"));
    CAF_CHECK_EQUAL(r.header_or_empty("Cache-Control"), "no-cache");
    // The same document as GET /deptemps/{id}.
    CAF_CHECK_EQUAL(call(c, "GET", "/deptemps/" + std::to_string(id)).body, r.body);
  }
}

CAF_TEST(GET depts pages with after and limit capped at 1000) {
  http_client c{main_daemon().port()};
  auto first = call(c, "GET", "/depts");
  CAF_REQUIRE_EQUAL(first.status, 200);
  CAF_CHECK_EQUAL(first.header_or_empty("Content-Type"), "application/json");
  auto ids = page_ids(first.body);
  CAF_REQUIRE_EQUAL(ids.size(), 100u); // the default limit
  CAF_CHECK(std::is_sorted(ids.begin(), ids.end()));
  auto page = call(c, "GET", "/depts?after=5&limit=3");
  CAF_REQUIRE_EQUAL(page.status, 200);
  CAF_CHECK_EQUAL(page_ids(page.body), (std::vector<int64_t>{6, 7, 8}));
  truth db;
  CAF_CHECK(page.body.find(db.dept(6)) == 1); // items are the department documents
  auto next = call(c, "GET", "/depts?after=8&limit=2");
  CAF_CHECK_EQUAL(page_ids(next.body), (std::vector<int64_t>{9, 10}));
  CAF_CHECK_EQUAL(page_ids(call(c, "GET", "/depts?limit=5000").body).size(), 1000u);
  CAF_CHECK_EQUAL(page_ids(call(c, "GET", "/depts?limit=99999999999").body).size(), 1000u);
  auto end = call(c, "GET", "/depts?after=2147483647");
  CAF_CHECK_EQUAL(end.status, 200);
  CAF_CHECK_EQUAL(end.body, "[]");
  CAF_CHECK_EQUAL(call(c, "GET", "/depts?limit=0").status, 400);
  CAF_CHECK_EQUAL(call(c, "GET", "/depts?after=-1").status, 400);
  CAF_CHECK_EQUAL(call(c, "GET", "/depts?limit=ten").status, 400);
  CAF_CHECK_EQUAL(call(c, "GET", "/depts?sort=name").status, 400);
}

CAF_TEST(health ready and metrics answer) {
  http_client c{main_daemon().port()};
  auto h = call(c, "GET", "/health");
  CAF_CHECK_EQUAL(h.status, 200);
  CAF_CHECK_EQUAL(h.body, R"({"status":"ok"})");
  auto r = call(c, "GET", "/ready");
  CAF_CHECK_EQUAL(r.status, 200);
  CAF_CHECK_EQUAL(r.body, R"({"status":"ready","checks":{"database":"up","listener":"caught up","documents":"cached","lmdb":"open"}})");
  auto m = call(c, "GET", "/metrics");
  CAF_CHECK_EQUAL(m.status, 200);
  CAF_CHECK(m.header_or_empty("Content-Type").rfind("text/plain", 0) == 0);
  CAF_CHECK_GREATER_OR_EQUAL(metric_sum(m.body, "restcache_http_requests_total", "route=\"/ready\""), 1);
}

CAF_TEST(If-None-Match answers 304 with the ETag and no body) {
  http_client c{main_daemon().port()};
  for (std::string target : {"/deptemps/13", "/depts/13", "/depts/emps/131"}) {
    auto r = call(c, "GET", target);
    CAF_REQUIRE_EQUAL(r.status, 200);
    auto etag = r.header_or_empty("ETag");
    for (std::string inm : {etag, "W/" + etag, "\"0000000000000000\", " + etag, std::string{"*"}}) {
      auto nm = call(c, "GET", target, {{"If-None-Match", inm}});
      CAF_CHECK_EQUAL(nm.status, 304);
      CAF_CHECK_EQUAL(nm.header_or_empty("ETag"), etag);
      CAF_CHECK_EQUAL(nm.header_or_empty("Cache-Control"), "no-cache");
      CAF_CHECK(nm.body.empty());
    }
    auto head = call(c, "HEAD", target, {{"If-None-Match", etag}});
    CAF_CHECK_EQUAL(head.status, 304);
    auto other = call(c, "GET", target, {{"If-None-Match", "\"0000000000000000\""}});
    CAF_CHECK_EQUAL(other.status, 200);
    CAF_CHECK_EQUAL(other.body, r.body);
  }
  // The connection is still in step (no stray body after the 304s).
  CAF_CHECK_EQUAL(call(c, "GET", "/health").status, 200);
  CAF_CHECK_EQUAL(c.connects(), 1u);
}

CAF_TEST(HEAD on every GET route answers headers and Content-Length without a body) {
  http_client c{main_daemon().port()};
  struct probe {
    std::string target;
    bool stable; ///< the GET body is the same on the next GET
  };
  for (auto& [target, stable] : std::vector<probe>{{"/deptemps/14", true},
                                                   {"/depts/14", true},
                                                   {"/depts/emps/141", true},
                                                   {"/depts?after=14&limit=3", true},
                                                   {"/depts/random", false},
                                                   {"/health", true},
                                                   {"/ready", true},
                                                   {"/metrics", false}}) {
    auto get = call(c, "GET", target);
    CAF_REQUIRE_EQUAL(get.status, 200);
    auto head = call(c, "HEAD", target);
    CAF_CHECK_EQUAL(head.status, 200);
    CAF_CHECK(head.body.empty());
    CAF_CHECK_EQUAL(head.header_or_empty("Content-Type"), get.header_or_empty("Content-Type"));
    if (stable) {
      CAF_CHECK_EQUAL(head.header_or_empty("Content-Length"), std::to_string(get.body.size()));
      CAF_CHECK_EQUAL(head.header_or_empty("ETag"), get.header_or_empty("ETag"));
    } else {
      CAF_CHECK_GREATER(content_length(head), 0u);
    }
    // Nothing of a body came after the HEAD answer: the next one parses.
    CAF_CHECK_EQUAL(call(c, "GET", "/health").body, R"({"status":"ok"})");
  }
  auto missing = call(c, "HEAD", "/deptemps/999999");
  CAF_CHECK_EQUAL(missing.status, 404);
  CAF_CHECK_GREATER(content_length(missing), 0u);
  CAF_CHECK_EQUAL(call(c, "GET", "/health").status, 200);
  CAF_CHECK_EQUAL(c.connects(), 1u);
}

CAF_TEST(gzip for clients that accept it with its own ETag) {
  // department 16 (employees 151-160)
  http_client c{main_daemon().port()};
  auto plain = call(c, "GET", "/deptemps/16");
  CAF_REQUIRE_EQUAL(plain.status, 200);
  CAF_CHECK(!plain.has_header("Content-Encoding"));
  auto gz = call(c, "GET", "/deptemps/16", {{"Accept-Encoding", "gzip"}});
  CAF_REQUIRE_EQUAL(gz.status, 200);
  CAF_CHECK_EQUAL(gz.header_or_empty("Content-Encoding"), "gzip");
  CAF_CHECK_EQUAL(gz.header_or_empty("Vary"), "Accept-Encoding");
  CAF_CHECK_EQUAL(gunzip(gz.body), plain.body);
  auto etag = plain.header_or_empty("ETag");
  auto gz_etag = gz.header_or_empty("ETag");
  CAF_CHECK_EQUAL(gz_etag, etag.substr(0, etag.size() - 1) + "-gz\"");
  CAF_CHECK_EQUAL(call(c, "GET", "/deptemps/16", {{"Accept-Encoding", "gzip"}, {"If-None-Match", gz_etag}}).status,
                  304);
  CAF_CHECK_EQUAL(call(c, "GET", "/deptemps/16", {{"Accept-Encoding", "gzip;q=0"}}).header_or_empty("ETag"), etag);
  // Pages too; small bodies stay as they are.
  auto page = call(c, "GET", "/depts?limit=50", {{"Accept-Encoding", "gzip"}});
  CAF_CHECK_EQUAL(page.header_or_empty("Content-Encoding"), "gzip");
  CAF_CHECK_EQUAL(page_ids(gunzip(page.body)).size(), 50u);
  CAF_CHECK(!call(c, "GET", "/depts/16", {{"Accept-Encoding", "gzip"}}).has_header("Content-Encoding"));
  // If-Match with the gzip ETag names the same document.
  CAF_CHECK_EQUAL(call(c, "PUT", "/depts/16", with_json({{"If-Match", gz_etag}}), plain.body).status, 204);
}

// ---- errors -----------------------------------------------------------------------------
// departments 44-46 (bodies that never reach the database or are refused)

CAF_TEST(malformed ids queries and bodies answer 400) {
  http_client c{main_daemon().port()};
  for (std::string target : {"/deptemps/12x", "/deptemps/-1", "/deptemps/0", "/deptemps/99999999999999999999",
                             "/depts/abc", "/depts/emps/1.5", "/deptemps/%31"}) {
    auto r = call(c, "GET", target);
    CAF_CHECK_EQUAL(r.status, 400);
  }
  CAF_CHECK_EQUAL(call(c, "DELETE", "/depts/x1").status, 400);
  for (std::string body : {"not json", "[1,2]", R"({"deptNumber":"44"})", R"({"deptNumber":44.0})",
                           R"({"deptNumber":44,"colour":"red"})", R"({"deptNumber":44,"deptNumber":44})"}) {
    auto r = call(c, "PUT", "/depts/44", json_type, body);
    CAF_CHECK_EQUAL(r.status, 400);
  }
  auto emp = call(c, "POST", "/depts/emps", json_type, R"({"empNo":true})");
  CAF_CHECK_EQUAL(emp.status, 400);
  CAF_CHECK(emp.body.find("empNo") != std::string::npos); // the detail names the field
  // The connection survives every 400 above.
  CAF_CHECK_EQUAL(c.connects(), 1u);
}

CAF_TEST(malformed HTTP answers 400 and an oversized header 431) {
  http_client c{main_daemon().port()};
  CAF_REQUIRE(c.send_raw("GET /deptemps/1 HTTP/1.1\r\nHost: t\r\nBad Header Line\r\n\r\n"));
  auto r = c.read_response();
  check_common(r, false, "a header line without a colon");
  CAF_CHECK_EQUAL(r.status, 400);
  CAF_CHECK(r.closes_connection());
  http_client big{main_daemon().port()};
  auto h = call(big, "GET", "/deptemps/1", {{"X-Filler", std::string(9000, 'f')}});
  CAF_CHECK_EQUAL(h.status, 431);
}

CAF_TEST(unknown paths and ids answer 404) {
  http_client c{main_daemon().port()};
  for (std::string target : {"/nope", "/deptemps", "/deptemps/1/x", "/depts/emps/1/x", "/depts/1/emps", "/"}) {
    for (std::string method : {"GET", "PUT", "DELETE"}) {
      auto r = call(c, method, target);
      CAF_CHECK_EQUAL(r.status, 404);
      CAF_CHECK(r.body.find("no resource at this path") != std::string::npos);
    }
  }
  CAF_CHECK_EQUAL(call(c, "GET", "/deptemps/999998").status, 404);
  CAF_CHECK_EQUAL(call(c, "GET", "/depts/emps/99999998").status, 404);
  CAF_CHECK_EQUAL(call(c, "DELETE", "/depts/999998").status, 404);
  CAF_CHECK_EQUAL(call(c, "DELETE", "/depts/emps/99999998").status, 404);
}

CAF_TEST(unsupported methods answer 405 with Allow) {
  http_client c{main_daemon().port()};
  struct probe {
    std::string method, target, allow;
  };
  for (auto& p : std::vector<probe>{{"DELETE", "/deptemps/1", "GET, HEAD"},
                                    {"PUT", "/deptemps/1", "GET, HEAD"},
                                    {"POST", "/depts/1", "GET, HEAD, PUT, DELETE"},
                                    {"PATCH", "/depts/1", "GET, HEAD, PUT, DELETE"},
                                    {"DELETE", "/depts", "GET, HEAD, POST, PUT"},
                                    {"POST", "/depts/random", "GET, HEAD, PUT"},
                                    {"DELETE", "/depts/random", "GET, HEAD, PUT"},
                                    {"GET", "/depts/emps", "POST"},
                                    {"PUT", "/depts/emps", "POST"},
                                    {"POST", "/depts/emps/1", "GET, HEAD, PUT, DELETE"},
                                    {"POST", "/health", "GET, HEAD"},
                                    {"PUT", "/ready", "GET, HEAD"},
                                    {"DELETE", "/metrics", "GET, HEAD"},
                                    {"OPTIONS", "/depts/emps/1", "GET, HEAD, PUT, DELETE"}}) {
    auto r = call(c, p.method, p.target);
    CAF_CHECK_EQUAL(r.status, 405);
    CAF_CHECK_EQUAL(r.header_or_empty("Allow"), p.allow);
  }
  // 405 comes before the id is looked at.
  CAF_CHECK_EQUAL(call(c, "POST", "/depts/abc").status, 405);
}

CAF_TEST(a write body without Content-Length answers 411) {
  http_client c{main_daemon().port()};
  // http_client adds Content-Length only for a non-empty body.
  for (auto [method, target] : std::vector<std::pair<std::string, std::string>>{
         {"PUT", "/depts/44"}, {"PUT", "/depts"}, {"POST", "/depts"}, {"POST", "/depts/emps"},
         {"PUT", "/depts/emps/431"}}) {
    auto r = call(c, method, target, json_type);
    CAF_CHECK_EQUAL(r.status, 411);
  }
  // The same, written by hand: no Content-Length, no Transfer-Encoding.
  http_client raw{main_daemon().port()};
  CAF_REQUIRE(raw.send_raw("PUT /depts/44 HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n\r\n"));
  auto r = raw.read_response();
  check_common(r, false, "raw PUT without Content-Length");
  CAF_CHECK_EQUAL(r.status, 411);
  // Writes without a body do not need one.
  CAF_CHECK_EQUAL(call(c, "DELETE", "/depts/emps/99999997").status, 404);
}

CAF_TEST(a body over the limit answers 413 and closes) {
  http_client c{main_daemon().port()};
  // Default http.body-limit: 2 MiB. Announced larger: refused before any of it is read.
  CAF_REQUIRE(c.send_raw(raw_request("PUT", "/depts/44",
                                     {{"Content-Type", "application/json"}, {"X-Request-Id", "big-body-1"},
                                      {"Content-Length", std::to_string(2 * 1024 * 1024 + 1)}})));
  auto r = c.read_response();
  check_common(r, false, "PUT /depts/44 with 2 MiB + 1");
  CAF_CHECK_EQUAL(r.status, 413);
  CAF_CHECK(r.closes_connection());
  CAF_CHECK_EQUAL(r.header_or_empty("X-Request-Id"), "big-body-1");
  // Under the limit the body is read and judged: a name that long is 422.
  std::string long_name = R"({"deptNumber":44,"deptName":")" + std::string(60'000, 'x') + "\"}";
  CAF_CHECK_EQUAL(call(c, "PUT", "/depts/44", json_type, long_name).status, 422);
  truth db;
  CAF_CHECK(db.dept(44).find("xxxx") == std::string::npos);
}

CAF_TEST(a body that is not application/json answers 415) {
  http_client c{main_daemon().port()};
  std::string body = R"({"deptNumber":44,"deptName":"x"})";
  CAF_CHECK_EQUAL(call(c, "PUT", "/depts/44", {{"Content-Type", "text/plain"}}, body).status, 415);
  CAF_CHECK_EQUAL(call(c, "PUT", "/depts/44", {}, body).status, 415);
  CAF_CHECK_EQUAL(call(c, "POST", "/depts", {{"Content-Type", "application/jsonx"}}, body).status, 415);
  CAF_CHECK_EQUAL(call(c, "POST", "/depts/emps", {{"Content-Type", "application/xml"}}, R"({"empNo":1})").status, 415);
  // Parameters and case do not matter.
  CAF_CHECK_EQUAL(call(c, "PUT", "/depts/999996", {{"Content-Type", "Application/JSON; charset=utf-8"}},
                       R"({"deptName":"x","deptLocation":null,"emps":[]})")
                    .status,
                  404);
}

CAF_TEST(well formed bodies breaking a data rule answer 422) {
  http_client c{main_daemon().port()};
  truth db;
  auto before45 = db.deptemps(45);
  auto before46 = db.deptemps(46);
  // The parser's rules.
  CAF_CHECK_EQUAL(call(c, "PUT", "/depts/45", json_type, R"({"deptNumber":46})").status, 422);
  CAF_CHECK_EQUAL(call(c, "PUT", "/depts", json_type, R"({"deptName":"no number"})").status, 422);
  CAF_CHECK_EQUAL(call(c, "POST", "/depts", json_type, R"({"deptNumber":0})").status, 422);
  CAF_CHECK_EQUAL(call(c, "POST", "/depts/emps", json_type,
                       R"({"empNo":900201,"hiredate":"2023-02-29","deptNumber":45})")
                    .status,
                  422);
  CAF_CHECK_EQUAL(call(c, "POST", "/depts/emps", json_type, R"({"empNo":900201,"mgr":900201,"deptNumber":45})").status,
                  422);
  CAF_CHECK_EQUAL(call(c, "PUT", "/depts/emps/441", json_type, R"({"empNo":442})").status, 422);
  auto dup = call(c, "PUT", "/depts/45", json_type,
                  R"({"deptNumber":45,"emps":[{"empNo":441},{"empNo":441}]})");
  CAF_CHECK_EQUAL(dup.status, 422);
  // The database's rules: a department or manager that does not exist.
  auto no_dept = call(c, "POST", "/depts/emps", json_type, R"({"empNo":900201,"deptNumber":999999})");
  CAF_CHECK_EQUAL(no_dept.status, 422);
  CAF_CHECK(no_dept.body.find("999999") != std::string::npos);
  auto no_mgr = call(c, "PUT", "/depts/emps/455", json_type,
                     replace_field(db.emp(455), "mgr", "99999999"));
  CAF_CHECK_EQUAL(no_mgr.status, 422);
  auto new_dept_bad_mgr = call(c, "POST", "/depts", json_type,
                               R"({"deptNumber":5003,"emps":[{"empNo":900301,"mgr":99999999}]})");
  CAF_CHECK_EQUAL(new_dept_bad_mgr.status, 422);
  // Nothing was written.
  CAF_CHECK_EQUAL(db.deptemps(45), before45);
  CAF_CHECK_EQUAL(db.deptemps(46), before46);
  CAF_CHECK_EQUAL(db.deptemps(5003), "");
  CAF_CHECK_EQUAL(db.emp(900201), "");
}

CAF_TEST(X-Request-Id is echoed when sane and generated otherwise) {
  http_client c{main_daemon().port()};
  auto mine = call(c, "GET", "/deptemps/15", {{"X-Request-Id", "abc-123.X:y_z"}});
  CAF_CHECK_EQUAL(mine.header_or_empty("X-Request-Id"), "abc-123.X:y_z");
  auto err = call(c, "GET", "/deptemps/999999", {{"X-Request-Id", "missing-1"}});
  CAF_CHECK_EQUAL(err.header_or_empty("X-Request-Id"), "missing-1");
  auto bad = call(c, "GET", "/depts/x", {{"X-Request-Id", "bad-1"}});
  CAF_CHECK_EQUAL(bad.header_or_empty("X-Request-Id"), "bad-1");
  auto na = call(c, "DELETE", "/deptemps/15", {{"X-Request-Id", "na-1"}});
  CAF_CHECK_EQUAL(na.header_or_empty("X-Request-Id"), "na-1");
  auto write = call(c, "DELETE", "/depts/emps/99999995", {{"X-Request-Id", "write-1"}});
  CAF_CHECK_EQUAL(write.header_or_empty("X-Request-Id"), "write-1");
  auto a = call(c, "GET", "/deptemps/15");
  auto b = call(c, "GET", "/deptemps/15");
  CAF_CHECK(is_fresh_request_id(a.header_or_empty("X-Request-Id")));
  CAF_CHECK(is_fresh_request_id(b.header_or_empty("X-Request-Id")));
  CAF_CHECK_NOT_EQUAL(a.header_or_empty("X-Request-Id"), b.header_or_empty("X-Request-Id"));
  for (std::string insane : {std::string{"has space"}, std::string{"semi;colon"}, std::string(129, 'a'),
                             std::string{"quote\"d"}}) {
    auto r = call(c, "GET", "/deptemps/15", {{"X-Request-Id", insane}});
    CAF_CHECK_EQUAL(r.status, 200);
    CAF_CHECK(is_fresh_request_id(r.header_or_empty("X-Request-Id")));
  }
  auto longest = std::string(128, 'z');
  CAF_CHECK_EQUAL(call(c, "GET", "/health", {{"X-Request-Id", longest}}).header_or_empty("X-Request-Id"), longest);
}

// ---- writes -----------------------------------------------------------------------------

CAF_TEST(POST depts creates a department with employees and 409 when it exists) {
  // departments 5001, 5002; employees 900101, 900102
  http_client c{main_daemon().port()};
  truth db;
  CAF_CHECK_EQUAL(call(c, "GET", "/deptemps/5001").status, 404); // cached absence must not stick
  CAF_CHECK_EQUAL(call(c, "GET", "/depts/5001").status, 404);
  std::string body = R"({"deptNumber":5001,"deptName":"New 5001","deptLocation":"Oslo","emps":[)"
                     R"({"empNo":900102,"empName":"B","job":"CLERK","mgr":900101,"hiredate":"2021-03-04",)"
                     R"("sal":1000,"comm":10},)"
                     R"({"empNo":900101,"empName":"A","job":"MANAGER","hiredate":"2020-01-02","sal":5000}]})";
  auto r = call(c, "POST", "/depts", {{"Content-Type", "application/json"}, {"X-Request-Id", "create-5001"}}, body);
  CAF_REQUIRE_EQUAL(r.status, 201);
  CAF_CHECK_EQUAL(r.header_or_empty("Location"), "/depts/5001");
  CAF_CHECK_EQUAL(r.header_or_empty("Content-Type"), "application/json");
  CAF_CHECK_EQUAL(r.body, R"({"deptNumber":5001})");
  CAF_CHECK_EQUAL(r.header_or_empty("X-Request-Id"), "create-5001");
  // Read-your-writes: the next GETs see it (also where a 404 was answered).
  auto loc = call(c, "GET", r.header_or_empty("Location"));
  CAF_CHECK_EQUAL(loc.status, 200);
  CAF_CHECK_EQUAL(loc.body, R"({"deptNumber":5001,"deptName":"New 5001","deptLocation":"Oslo"})");
  auto doc = call(c, "GET", "/deptemps/5001");
  CAF_CHECK_EQUAL(doc.status, 200);
  CAF_CHECK_EQUAL(doc.body, db.deptemps(5001));
  CAF_CHECK(doc.body.find("\"empNo\":900101") < doc.body.find("\"empNo\":900102")); // ordered by empNo
  CAF_CHECK_EQUAL(call(c, "GET", "/depts/emps/900102").body, db.emp(900102));
  // Again: 409, nothing changed.
  auto again = call(c, "POST", "/depts", json_type, body);
  CAF_CHECK_EQUAL(again.status, 409);
  CAF_CHECK(again.body.find("5001") != std::string::npos);
  // A new department with an employee number that exists: 409 naming it.
  auto emp_taken = call(c, "POST", "/depts", json_type, R"({"deptNumber":5002,"emps":[{"empNo":900101}]})");
  CAF_CHECK_EQUAL(emp_taken.status, 409);
  CAF_CHECK(emp_taken.body.find("900101") != std::string::npos);
  CAF_CHECK_EQUAL(call(c, "GET", "/deptemps/5002").status, 404);
  CAF_CHECK_EQUAL(call(c, "GET", "/deptemps/5001").body, doc.body);
}

CAF_TEST(PUT depts replaces the department and its employee set) {
  // department 32 (employees 311-320), employee 900401
  http_client c{main_daemon().port()};
  truth db;
  auto old = call(c, "GET", "/deptemps/32");
  CAF_REQUIRE_EQUAL(old.status, 200);
  // Keep 311 and 312, drop 313-320, add 900401.
  std::string body = R"({"deptName":"Shrunk 32","deptLocation":"Tromso","emps":[)" + db.emp(311) + ","
                     + replace_field(db.emp(312), "sal", "4321") + ","
                     + R"({"empNo":900401,"empName":"Newcomer","job":"ANALYST","mgr":311,"hiredate":"2022-06-30"}]})";
  auto r = call(c, "PUT", "/depts/32", json_type, body);
  CAF_REQUIRE_EQUAL(r.status, 204);
  CAF_CHECK(!r.has_header("Location"));
  auto now = call(c, "GET", "/deptemps/32");
  CAF_CHECK_EQUAL(now.body, db.deptemps(32));
  CAF_CHECK(now.body.find("Shrunk 32") != std::string::npos);
  CAF_CHECK(lists_emp(now.body, 311) && lists_emp(now.body, 312) && lists_emp(now.body, 900401));
  CAF_CHECK(!lists_emp(now.body, 313) && !lists_emp(now.body, 320));
  CAF_CHECK_EQUAL(emp_field(now.body, 312, "sal"), std::optional<int64_t>{4321});
  CAF_CHECK_NOT_EQUAL(now.header_or_empty("ETag"), old.header_or_empty("ETag"));
  CAF_CHECK_EQUAL(call(c, "GET", "/depts/emps/313").status, 404);
  CAF_CHECK_EQUAL(call(c, "GET", "/depts/emps/900401").body, db.emp(900401));
  // Missing: 404, with the id in the path or in the body.
  auto missing = call(c, "PUT", "/depts/999999", json_type, R"({"deptName":"ghost","deptLocation":null,"emps":[]})");
  CAF_CHECK_EQUAL(missing.status, 404);
  CAF_CHECK(missing.body.find("999999") != std::string::npos);
  CAF_CHECK_EQUAL(call(c, "PUT", "/depts", json_type, R"({"deptNumber":999999,"deptName":"ghost","deptLocation":null,"emps":[]})").status, 404);
  CAF_CHECK_EQUAL(db.dept(999999), "");
}

CAF_TEST(a partial PUT of a department answers 422 naming the member and changes nothing) {
  http_client c{main_daemon().port()};
  truth db;
  const auto before = db.deptemps(33);
  CAF_REQUIRE(!before.empty());
  for (std::string body : {std::string{"{}"}, std::string{R"({"deptName":"x"})"},
                           std::string{R"({"deptName":"x","deptLocation":"y"})"}}) {
    auto r = call(c, "PUT", "/depts/33", json_type, body);
    CAF_CHECK_EQUAL(r.status, 422);
    CHECK_SAYING(r.body.find("is missing: a PUT replaces the whole department") != std::string::npos, r.body);
  }
  CAF_CHECK_EQUAL(db.deptemps(33), before); // every employee still there
}

CAF_TEST(PUT depts with the id in the body replaces that department) {
  // department 43
  http_client c{main_daemon().port()};
  truth db;
  auto old = call(c, "GET", "/deptemps/43");
  CAF_REQUIRE_EQUAL(old.status, 200);
  auto r = call(c, "PUT", "/depts", json_type, replace_field(old.body, "deptLocation", "\"Bergen\""));
  CAF_REQUIRE_EQUAL(r.status, 204);
  auto now = call(c, "GET", "/deptemps/43");
  CAF_CHECK_EQUAL(now.body, db.deptemps(43));
  CAF_CHECK(now.body.find("\"deptLocation\":\"Bergen\"") != std::string::npos);
  CAF_CHECK_EQUAL(call(c, "GET", "/depts/43").body, db.dept(43));
}

CAF_TEST(PUT depts random rewrites a random department with its own values) {
  http_client c{main_daemon().port()};
  truth db;
  for (int i = 0; i < 3; ++i) {
    auto r = call(c, "PUT", "/depts/random");
    CAF_REQUIRE_EQUAL(r.status, 200);
    CAF_CHECK_EQUAL(r.header_or_empty("Content-Type"), "application/json");
    CAF_REQUIRE(r.body.rfind("{\"deptNumber\":", 0) == 0);
    auto id = std::stoi(r.body.substr(r.body.find(':') + 1));
    auto doc = call(c, "GET", "/deptemps/" + std::to_string(id));
    CAF_CHECK_EQUAL(doc.status, 200);
    CAF_CHECK_EQUAL(doc.body, db.deptemps(id));
  }
}

CAF_TEST(DELETE depts removes its employees and clears mgr references elsewhere) {
  // department 50 (employees 491-500, 491 manages), department 51 (501-510)
  http_client c{main_daemon().port()};
  truth db;
  // 505 of department 51 reports to 491 of department 50.
  auto moved = call(c, "PUT", "/depts/emps/505", json_type, replace_field(db.emp(505), "mgr", "491"));
  CAF_REQUIRE_EQUAL(moved.status, 204);
  auto other = call(c, "GET", "/deptemps/51");
  CAF_REQUIRE_EQUAL(emp_field(other.body, 505, "mgr"), std::optional<int64_t>{491});
  CAF_CHECK_EQUAL(call(c, "GET", "/depts/emps/505").body, db.emp(505));
  // Everything about to go is cached.
  CAF_REQUIRE_EQUAL(call(c, "GET", "/deptemps/50").status, 200);
  CAF_REQUIRE_EQUAL(call(c, "GET", "/depts/50").status, 200);
  CAF_REQUIRE_EQUAL(call(c, "GET", "/depts/emps/491").status, 200);
  CAF_REQUIRE_EQUAL(call(c, "GET", "/depts/emps/495").status, 200);
  auto del = call(c, "DELETE", "/depts/50");
  CAF_REQUIRE_EQUAL(del.status, 204);
  CAF_CHECK(del.body.empty());
  CAF_CHECK_EQUAL(call(c, "GET", "/deptemps/50").status, 404);
  CAF_CHECK_EQUAL(call(c, "GET", "/depts/50").status, 404);
  CAF_CHECK_EQUAL(call(c, "GET", "/depts/emps/491").status, 404);
  CAF_CHECK_EQUAL(call(c, "GET", "/depts/emps/495").status, 404);
  // The other department's document changed: 505 lost its manager.
  auto after = call(c, "GET", "/deptemps/51");
  CAF_CHECK_EQUAL(after.body, db.deptemps(51));
  CAF_CHECK_EQUAL(emp_field(after.body, 505, "mgr"), std::nullopt);
  CAF_CHECK_NOT_EQUAL(after.header_or_empty("ETag"), other.header_or_empty("ETag"));
  auto emp = call(c, "GET", "/depts/emps/505");
  CAF_CHECK_EQUAL(emp.body, db.emp(505));
  CAF_CHECK(emp.body.find("\"mgr\"") == std::string::npos);
  // Gone: a second DELETE is 404.
  CAF_CHECK_EQUAL(call(c, "DELETE", "/depts/50").status, 404);
}

CAF_TEST(employees are created replaced and deleted one at a time) {
  // department 64 (employees 631-640), employee 900001
  http_client c{main_daemon().port()};
  truth db;
  CAF_REQUIRE_EQUAL(call(c, "GET", "/deptemps/64").status, 200); // cached before the writes
  CAF_CHECK_EQUAL(call(c, "GET", "/depts/emps/900001").status, 404);
  std::string body = R"({"empNo":900001,"empName":"New Hire","job":"CLERK","mgr":631,"hiredate":"2024-02-29",)"
                     R"("sal":1500,"deptNumber":64})";
  auto created = call(c, "POST", "/depts/emps", json_type, body);
  CAF_REQUIRE_EQUAL(created.status, 201);
  CAF_CHECK_EQUAL(created.header_or_empty("Location"), "/depts/emps/900001");
  CAF_CHECK_EQUAL(created.body, R"({"empNo":900001})");
  auto got = call(c, "GET", created.header_or_empty("Location"));
  CAF_CHECK_EQUAL(got.status, 200);
  CAF_CHECK_EQUAL(got.body, body);
  CAF_CHECK(lists_emp(call(c, "GET", "/deptemps/64").body, 900001));
  CAF_CHECK_EQUAL(call(c, "POST", "/depts/emps", json_type, body).status, 409);
  CAF_CHECK_EQUAL(call(c, "POST", "/depts/emps", json_type, R"({"empNo":635,"deptNumber":64})").status, 409);
  // PUT without empNo in the body takes the path's.
  auto put = call(c, "PUT", "/depts/emps/900001", json_type,
                  R"({"empName":"New Hire","job":"ANALYST","mgr":631,"hiredate":"2024-02-29",)"
                  R"("sal":1600,"deptNumber":64})");
  CAF_CHECK_EQUAL(put.status, 204);
  auto now = call(c, "GET", "/depts/emps/900001");
  CAF_CHECK_EQUAL(now.body, db.emp(900001));
  CAF_CHECK(now.body.find("\"sal\":1600") != std::string::npos);
  CAF_CHECK_EQUAL(emp_field(call(c, "GET", "/deptemps/64").body, 900001, "sal"), std::optional<int64_t>{1600});
  CAF_CHECK_EQUAL(call(c, "PUT", "/depts/emps/99999999", json_type, R"({"empName":"ghost"})").status, 404);
  auto del = call(c, "DELETE", "/depts/emps/900001");
  CAF_CHECK_EQUAL(del.status, 204);
  CAF_CHECK_EQUAL(call(c, "GET", "/depts/emps/900001").status, 404);
  CAF_CHECK(!lists_emp(call(c, "GET", "/deptemps/64").body, 900001));
  CAF_CHECK_EQUAL(call(c, "GET", "/deptemps/64").body, db.deptemps(64));
  CAF_CHECK_EQUAL(call(c, "DELETE", "/depts/emps/900001").status, 404);
}

CAF_TEST(an employee moved by PUT changes both department documents) {
  // departments 62 (611-620) and 63 (621-630), employee 615
  http_client c{main_daemon().port()};
  truth db;
  auto from = call(c, "GET", "/deptemps/62");
  auto to = call(c, "GET", "/deptemps/63");
  auto emp = call(c, "GET", "/depts/emps/615");
  CAF_REQUIRE(from.status == 200 && to.status == 200 && emp.status == 200);
  CAF_REQUIRE(lists_emp(from.body, 615) && !lists_emp(to.body, 615));
  auto r = call(c, "PUT", "/depts/emps/615", json_type, replace_field(emp.body, "deptNumber", "63"));
  CAF_REQUIRE_EQUAL(r.status, 204);
  auto from2 = call(c, "GET", "/deptemps/62");
  auto to2 = call(c, "GET", "/deptemps/63");
  CAF_CHECK(!lists_emp(from2.body, 615));
  CAF_CHECK(lists_emp(to2.body, 615));
  CAF_CHECK_EQUAL(from2.body, db.deptemps(62));
  CAF_CHECK_EQUAL(to2.body, db.deptemps(63));
  CAF_CHECK_EQUAL(emp_field(to2.body, 615, "deptNumber"), std::optional<int64_t>{63});
  auto emp2 = call(c, "GET", "/depts/emps/615");
  CAF_CHECK_EQUAL(emp2.body, db.emp(615));
  CAF_CHECK(emp2.body.find("\"deptNumber\":63") != std::string::npos);
}

CAF_TEST(read your writes from memory) {
  // department 30 (employees 291-300)
  http_client c{main_daemon().port()};
  truth db;
  auto first = call(c, "GET", "/deptemps/30");
  CAF_REQUIRE_EQUAL(first.status, 200);
  call(c, "GET", "/depts/30");
  call(c, "GET", "/depts/emps/295");
  auto hits = metric_sum(c.get("/metrics").body, "restcache_cache_hits_total", "tier=\"memory\"");
  CAF_REQUIRE_EQUAL(call(c, "GET", "/deptemps/30").body, first.body);
  CAF_REQUIRE_EQUAL(call(c, "GET", "/depts/emps/295").status, 200);
  CAF_CHECK_EQUAL(metric_sum(c.get("/metrics").body, "restcache_cache_hits_total", "tier=\"memory\""), hits + 2); // both from memory
  for (int round = 1; round <= 3; ++round) {
    auto name = "\"Renamed 30 round " + std::to_string(round) + "\"";
    auto cur = call(c, "GET", "/deptemps/30");
    CAF_REQUIRE_EQUAL(call(c, "PUT", "/depts/30", json_type, replace_field(cur.body, "deptName", name)).status, 204);
    // No wait: the answer came after this instance dropped the old documents.
    auto now = call(c, "GET", "/deptemps/30");
    CAF_CHECK(now.body.find(name) != std::string::npos);
    CAF_CHECK_EQUAL(now.body, db.deptemps(30));
    CAF_CHECK(call(c, "GET", "/depts/30").body.find(name) != std::string::npos);
    auto sal = std::to_string(2000 + round);
    CAF_REQUIRE_EQUAL(
      call(c, "PUT", "/depts/emps/295", json_type, replace_field(db.emp(295), "sal", sal)).status, 204);
    CAF_CHECK(call(c, "GET", "/depts/emps/295").body.find("\"sal\":" + sal) != std::string::npos);
    CAF_CHECK_EQUAL(emp_field(call(c, "GET", "/deptemps/30").body, 295, "sal"),
                    std::optional<int64_t>{2000 + round});
  }
}

CAF_TEST(read your writes from the LMDB tier) {
  // department 31 (employees 301-310); a daemon that keeps documents in LMDB only
  auto d = start_daemon({"--cache.mode=lmdb"});
  http_client c{d->port()};
  truth db;
  CAF_REQUIRE_EQUAL(call(c, "GET", "/deptemps/31").status, 200);
  CAF_REQUIRE_EQUAL(call(c, "GET", "/depts/emps/305").status, 200);
  CAF_REQUIRE(wait_until([&] {
    return metric(c.get("/metrics").body, "restcache_batch_records_written_total") >= 2;
  }));
  auto tier_hits = metric_sum(c.get("/metrics").body, "restcache_cache_hits_total", "tier=\"lmdb\"");
  auto cached = call(c, "GET", "/deptemps/31");
  CAF_REQUIRE_EQUAL(call(c, "GET", "/depts/emps/305").status, 200);
  CAF_REQUIRE_EQUAL(metric_sum(c.get("/metrics").body, "restcache_cache_hits_total", "tier=\"lmdb\""), tier_hits + 2);
  auto name = "\"LMDB renamed 31\"";
  CAF_REQUIRE_EQUAL(call(c, "PUT", "/depts/31", json_type, replace_field(cached.body, "deptName", name)).status,
                    204);
  auto now = call(c, "GET", "/deptemps/31");
  CAF_CHECK(now.body.find(name) != std::string::npos);
  CAF_CHECK_EQUAL(now.body, db.deptemps(31));
  CAF_REQUIRE_EQUAL(
    call(c, "PUT", "/depts/emps/305", json_type, replace_field(db.emp(305), "sal", "3131")).status, 204);
  CAF_CHECK(call(c, "GET", "/depts/emps/305").body.find("\"sal\":3131") != std::string::npos);
  // Once the new document is written to LMDB, it is what the tier serves.
  auto want = db.deptemps(31);
  CAF_CHECK(wait_until([&] {
    auto before = metric_sum(c.get("/metrics").body, "restcache_cache_hits_total", "tier=\"lmdb\"");
    auto r = c.get("/deptemps/31");
    return r.body == want && metric_sum(c.get("/metrics").body, "restcache_cache_hits_total", "tier=\"lmdb\"") == before + 1;
  }, 5s));
}

CAF_TEST(If-Match writes succeed on the current ETag and answer 412 on an old one) {
  // department 40, department 42 (employees 411-420), department 52
  http_client c{main_daemon().port()};
  truth db;
  auto v1 = call(c, "GET", "/deptemps/40");
  auto e1 = v1.header_or_empty("ETag");
  auto ok = call(c, "PUT", "/depts/40", with_json({{"If-Match", e1}}),
                 replace_field(v1.body, "deptName", "\"Matched 40\""));
  CAF_REQUIRE_EQUAL(ok.status, 204);
  auto v2 = call(c, "GET", "/deptemps/40");
  auto e2 = v2.header_or_empty("ETag");
  CAF_CHECK_NOT_EQUAL(e2, e1);
  auto stale = call(c, "PUT", "/depts/40", with_json({{"If-Match", e1}}),
                    replace_field(v1.body, "deptName", "\"Lost update 40\""));
  CAF_CHECK_EQUAL(stale.status, 412);
  CAF_CHECK_EQUAL(call(c, "GET", "/deptemps/40").header_or_empty("ETag"), e2); // nothing written
  CAF_CHECK(db.dept(40).find("Lost update") == std::string::npos);
  // A weak tag never matches (strong comparison); a list with the current one does; * does.
  CAF_CHECK_EQUAL(call(c, "PUT", "/depts/40", with_json({{"If-Match", "W/" + e2}}), v2.body).status, 412);
  CAF_CHECK_EQUAL(call(c, "PUT", "/depts/40", with_json({{"If-Match", e1 + ", " + e2}}), v2.body).status, 204);
  CAF_CHECK_EQUAL(call(c, "PUT", "/depts/40", with_json({{"If-Match", "*"}}), v2.body).status, 204);
  // For a department, If-Match is the ETag of its /deptemps document.
  auto alone = call(c, "GET", "/depts/40").header_or_empty("ETag");
  CAF_CHECK_EQUAL(call(c, "PUT", "/depts/40", with_json({{"If-Match", alone}}), v2.body).status, 412);
  // DELETE with an old ETag: 412 and the department stays.
  CAF_CHECK_EQUAL(call(c, "DELETE", "/depts/52", {{"If-Match", "\"0000000000000000\""}}).status, 412);
  CAF_CHECK_EQUAL(call(c, "GET", "/deptemps/52").status, 200);
  // Employees: against the /depts/emps document.
  auto emp1 = call(c, "GET", "/depts/emps/415");
  auto t1 = emp1.header_or_empty("ETag");
  CAF_CHECK_EQUAL(call(c, "PUT", "/depts/emps/415", with_json({{"If-Match", t1}}),
                       replace_field(emp1.body, "sal", "4150"))
                    .status,
                  204);
  CAF_CHECK_EQUAL(call(c, "PUT", "/depts/emps/415", with_json({{"If-Match", t1}}),
                       replace_field(emp1.body, "sal", "1"))
                    .status,
                  412);
  CAF_CHECK(call(c, "GET", "/depts/emps/415").body.find("\"sal\":4150") != std::string::npos);
  CAF_CHECK_EQUAL(call(c, "DELETE", "/depts/emps/416", {{"If-Match", t1}}).status, 412);
  auto t416 = call(c, "GET", "/depts/emps/416").header_or_empty("ETag");
  CAF_CHECK_EQUAL(call(c, "DELETE", "/depts/emps/416", {{"If-Match", t416}}).status, 204);
  CAF_CHECK_EQUAL(call(c, "GET", "/depts/emps/416").status, 404);
}

CAF_TEST(a document PUT back unchanged answers 204 and keeps its ETag) {
  // departments 41 and 48, employee 401
  http_client c{main_daemon().port()};
  auto doc = call(c, "GET", "/deptemps/41");
  CAF_REQUIRE_EQUAL(doc.status, 200);
  CAF_CHECK_EQUAL(call(c, "PUT", "/depts/41", json_type, doc.body).status, 204);
  auto back = call(c, "GET", "/deptemps/41");
  CAF_CHECK_EQUAL(back.body, doc.body);
  CAF_CHECK_EQUAL(back.header_or_empty("ETag"), doc.header_or_empty("ETag"));
  // With If-Match on its own ETag, and through PUT /depts with the id in the body.
  CAF_CHECK_EQUAL(
    call(c, "PUT", "/depts/41", with_json({{"If-Match", doc.header_or_empty("ETag")}}), doc.body).status, 204);
  auto doc48 = call(c, "GET", "/deptemps/48");
  CAF_CHECK_EQUAL(call(c, "PUT", "/depts", json_type, doc48.body).status, 204);
  CAF_CHECK_EQUAL(call(c, "GET", "/deptemps/48").header_or_empty("ETag"), doc48.header_or_empty("ETag"));
  auto emp = call(c, "GET", "/depts/emps/401");
  CAF_CHECK_EQUAL(call(c, "PUT", "/depts/emps/401", json_type, emp.body).status, 204);
  auto emp_back = call(c, "GET", "/depts/emps/401");
  CAF_CHECK_EQUAL(emp_back.body, emp.body);
  CAF_CHECK_EQUAL(emp_back.header_or_empty("ETag"), emp.header_or_empty("ETag"));
}

CAF_TEST(writes need the bearer token when one is set) {
  // department 80 (employees 791-800)
  auto d = start_daemon({"--http.write-token=s3cret-token"});
  http_client c{d->port()};
  auto doc = call(c, "GET", "/deptemps/80"); // reads need no token
  CAF_REQUIRE_EQUAL(doc.status, 200);
  for (header_list auth : {header_list{}, header_list{{"Authorization", "Bearer wrong"}},
                           header_list{{"Authorization", "Bearer s3cret-token2"}},
                           header_list{{"Authorization", "Basic czNjcmV0LXRva2Vu"}},
                           header_list{{"Authorization", "s3cret-token"}}}) {
    auto put = call(c, "PUT", "/depts/80", with_json(auth), doc.body);
    CAF_CHECK_EQUAL(put.status, 401);
    CAF_CHECK(put.header_or_empty("WWW-Authenticate").rfind("Bearer", 0) == 0);
    CAF_CHECK_EQUAL(call(c, "DELETE", "/depts/80", auth).status, 401);
    CAF_CHECK_EQUAL(call(c, "PUT", "/depts/random", auth).status, 401);
    CAF_CHECK_EQUAL(call(c, "POST", "/depts/emps", with_json(auth), R"({"empNo":900501,"deptNumber":80})").status,
                    401);
    // The token is checked before the body.
    CAF_CHECK_EQUAL(call(c, "POST", "/depts", auth).status, 401);
  }
  CAF_CHECK_EQUAL(call(c, "GET", "/deptemps/80").body, doc.body); // nothing written
  header_list good{{"Authorization", "Bearer s3cret-token"}};
  CAF_CHECK_EQUAL(call(c, "PUT", "/depts/80", with_json(good), doc.body).status, 204);
  CAF_CHECK_EQUAL(call(c, "PUT", "/depts/random", good).status, 200);
  CAF_CHECK_EQUAL(call(c, "DELETE", "/depts/emps/99999990", good).status, 404);
  CAF_CHECK_EQUAL(call(c, "POST", "/depts", good).status, 411);
}

// ---- overload and timeouts --------------------------------------------------------------
// One fill connection running one fill at a time, one write connection,
// queues of one, a 2 s statement timeout; the test holds locks so requests
// wait where it wants them.

const std::vector<std::string> tight_options{"--db.pool-size=1", "--db.pipeline-depth=1",
                                             "--db.write-pool-size=1", "--db.queue-size=1",
                                             "--db.query-timeout-ms=2000", "--http.body-limit=2048"};

CAF_TEST(reads answer 503 when the fill queue is full and 504 on a statement timeout) {
  // departments 7, 8, 9 (cold in this daemon)
  auto d = start_daemon(tight_options);
  http_client probe{d->port()};
  pg::connection watcher{suite_dsn()};
  pg::connection locker{suite_dsn()};
  locker.exec("BEGIN");
  locker.exec("LOCK TABLE emp IN ACCESS EXCLUSIVE MODE"); // every fill waits for it
  http_client a{d->port(), 10s};
  http_client b{d->port(), 10s};
  CAF_REQUIRE(a.send_raw(raw_request("GET", "/deptemps/7", {{"X-Request-Id", "timeout-a"}})));
  // a's fill holds the only connection, waiting for the lock.
  CAF_REQUIRE(wait_until([&] { return lock_waiters(watcher) >= 1; }, 5s));
  CAF_REQUIRE(b.send_raw(raw_request("GET", "/deptemps/8")));
  // b's fill is the one allowed to queue.
  CAF_REQUIRE(wait_until([&] { return metric(probe.get("/metrics").body, "restcache_db_borrow_waiting{pool=\"fill\"}") == 1; }, 5s));
  auto full = call(probe, "GET", "/deptemps/9", {{"X-Request-Id", "overload-c"}});
  CAF_CHECK_EQUAL(full.status, 503);
  CAF_CHECK_EQUAL(full.header_or_empty("Retry-After"), "1");
  CAF_CHECK_EQUAL(full.header_or_empty("X-Request-Id"), "overload-c");
  CAF_CHECK_GREATER_OR_EQUAL(metric(probe.get("/metrics").body, "restcache_db_borrow_rejected_total{pool=\"fill\"}"), 1);
  auto ra = a.read_response();
  check_common(ra, false, "GET /deptemps/7 behind a lock");
  CAF_CHECK_EQUAL(ra.status, 504);
  CAF_CHECK_EQUAL(ra.header_or_empty("X-Request-Id"), "timeout-a");
  locker.exec("COMMIT");
  auto rb = b.read_response();
  check_common(rb, false, "GET /deptemps/8 queued");
  CAF_CHECK(rb.status == 200 || rb.status == 504); // 504 only if the lock outlived its statement too
  // With the lock gone everything answers again.
  CAF_CHECK_EQUAL(call(probe, "GET", "/deptemps/7").status, 200);
  CAF_CHECK_EQUAL(call(probe, "GET", "/deptemps/9").status, 200);
  CAF_CHECK_GREATER_OR_EQUAL(metric_sum(probe.get("/metrics").body, "restcache_db_query_timeouts_total"), 1);
}

CAF_TEST(writes answer 504 behind a row lock and 503 when the write queue is full) {
  // department 70
  auto d = start_daemon(tight_options);
  http_client probe{d->port()};
  auto doc = call(probe, "GET", "/deptemps/70");
  CAF_REQUIRE_EQUAL(doc.status, 200);
  pg::connection watcher{suite_dsn()};
  pg::connection locker{suite_dsn()};
  locker.exec("BEGIN");
  locker.exec("SELECT deptno FROM dept WHERE deptno = 70 FOR UPDATE");
  auto put = raw_request("PUT", "/depts/70", with_json({}), doc.body);
  http_client a{d->port(), 10s};
  http_client b{d->port(), 10s};
  http_client c{d->port(), 10s};
  CAF_REQUIRE(a.send_raw(put));
  CAF_REQUIRE(wait_until([&] { return lock_waiters(watcher) >= 1; }, 5s)); // a holds the write connection
  // One of b and c queues, the other finds the queue full.
  CAF_REQUIRE(b.send_raw(put));
  CAF_REQUIRE(c.send_raw(put));
  auto ra = a.read_response();
  check_common(ra, false, "PUT /depts/70 behind a row lock");
  CAF_CHECK_EQUAL(ra.status, 504);
  locker.exec("COMMIT");
  auto rb = b.read_response();
  auto rc = c.read_response();
  check_common(rb, false, "PUT /depts/70 b");
  check_common(rc, false, "PUT /depts/70 c");
  std::multiset<int> seen{rb.status, rc.status};
  CAF_CHECK_EQUAL(seen.count(503), 1u);
  CAF_CHECK_EQUAL(seen.count(204) + seen.count(504), 1u);
  // The database connection serves on.
  CAF_CHECK_EQUAL(call(probe, "PUT", "/depts/70", json_type, doc.body).status, 204);
  CAF_CHECK_EQUAL(call(probe, "GET", "/deptemps/70").body, doc.body);
}

CAF_TEST(http body-limit sets the largest body) {
  // department 71; this daemon's limit is 2048 bytes
  auto d = start_daemon(tight_options);
  http_client c{d->port()};
  auto doc = call(c, "GET", "/deptemps/71");
  CAF_REQUIRE_EQUAL(doc.status, 200);
  CAF_REQUIRE_LESS(doc.body.size(), 2048u);
  CAF_CHECK_EQUAL(call(c, "PUT", "/depts/71", json_type, doc.body).status, 204);
  std::string over = replace_field(doc.body, "deptName", "\"" + std::string(2048, 'n') + "\"");
  auto r = call(c, "PUT", "/depts/71", json_type, over);
  CAF_CHECK_EQUAL(r.status, 413);
  CAF_CHECK(r.body.find("2048") != std::string::npos);
  CAF_CHECK_EQUAL(call(c, "GET", "/deptemps/71").body, doc.body);
}

CAF_TEST(a no-cache storm reaches the database only as the refresh bound allows) {
  auto fills = [](http_client& c) { return metric_sum(c.get("/metrics").body, "restcache_cache_fills_total"); };
  header_list no_cache{{"Cache-Control", "no-cache"}};
  {
    // By default no-cache is ignored: documents are kept fresh by the feed.
    auto d = start_daemon();
    http_client c{d->port()};
    for (int32_t id = 1; id <= 40; ++id)
      CAF_REQUIRE_EQUAL(c.get("/deptemps/" + std::to_string(id)).status, 200);
    auto before = fills(c);
    for (int round = 0; round < 5; ++round)
      for (int32_t id = 1; id <= 40; ++id) {
        auto r = c.get("/deptemps/" + std::to_string(id), no_cache);
        CAF_CHECK_EQUAL(r.header_or_empty("Cache-Status"), "restcache; hit; detail=memory");
      }
    CAF_CHECK_EQUAL(fills(c) - before, 0);
  }
  // Honoured: at most one refresh per key per interval reaches PostgreSQL.
  auto d = start_daemon({"--cache.no-cache=honour", "--cache.refresh-interval-ms=60000"});
  http_client c{d->port()};
  for (int32_t id = 1; id <= 40; ++id)
    CAF_REQUIRE_EQUAL(c.get("/deptemps/" + std::to_string(id)).status, 200);
  auto before = fills(c);
  for (int round = 0; round < 5; ++round)
    for (int32_t id = 1; id <= 40; ++id)
      CAF_CHECK_EQUAL(c.get("/deptemps/" + std::to_string(id), no_cache).status, 200);
  CAF_CHECK_EQUAL(fills(c) - before, 40); // one each, not five
}

CAF_TEST(pages of departments never take the write pool) {
  auto& d = main_daemon();
  http_client c{d.port()};
  auto m = c.get("/metrics").body;
  auto writes_before = metric(m, "restcache_db_queries_total{pool=\"write\"}");
  auto lists_before = metric(m, "restcache_db_queries_total{pool=\"list\"}");
  for (int i = 0; i < 20; ++i)
    CAF_REQUIRE_EQUAL(c.get("/depts?limit=1000&after=" + std::to_string(i * 10)).status, 200);
  m = c.get("/metrics").body;
  CAF_CHECK_EQUAL(metric(m, "restcache_db_queries_total{pool=\"write\"}"), writes_before);
  CAF_CHECK_EQUAL(metric(m, "restcache_db_queries_total{pool=\"list\"}") - lists_before, 20);
}

CAF_TEST(an id has one spelling) {
  auto& d = main_daemon();
  http_client c{d.port()};
  for (auto target : {"/deptemps/077", "/depts/077", "/depts/emps/0761", "/deptemps/00"}) {
    auto r = c.get(target);
    CAF_CHECK_EQUAL(r.status, 400);
    CAF_CHECK(r.body.find("leading zeros") != std::string::npos);
  }
  CAF_CHECK_EQUAL(c.get("/deptemps/77").status, 200);
}

// ---- openapi.json -----------------------------------------------------------------------

namespace {

struct documented_op {
  std::string path;   ///< as in openapi.json, with its key's name ({deptno})
  std::string method; ///< lower case, as in openapi.json
  std::set<std::string> statuses;
  bool has_body = false;
};

std::vector<documented_op> load_openapi() {
  std::vector<documented_op> out;
  simdjson::padded_string json;
  auto path = std::string{RESTCACHE_SOURCE_DIR} + "/openapi.json";
  if (simdjson::padded_string::load(path).get(json) != simdjson::SUCCESS)
    CAF_FAIL("cannot read " << path);
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  if (parser.parse(json).get(root) != simdjson::SUCCESS)
    CAF_FAIL(path << " is not JSON");
  std::string_view version;
  CAF_REQUIRE(root["openapi"].get_string().get(version) == simdjson::SUCCESS);
  CAF_CHECK_EQUAL(std::string{version}, "3.0.3");
  simdjson::dom::object schemas;
  CAF_REQUIRE(root["components"]["schemas"].get_object().get(schemas) == simdjson::SUCCESS);
  for (auto name : {"deptemps", "dept", "emp", "Department", "DepartmentWithEmployees", "Employee", "Problem"}) {
    simdjson::dom::element ignored;
    expect(schemas[name].get(ignored) == simdjson::SUCCESS, std::string{"schema missing: "} + name);
  }
  simdjson::dom::object paths;
  CAF_REQUIRE(root["paths"].get_object().get(paths) == simdjson::SUCCESS);
  for (auto [p, item] : paths) {
    simdjson::dom::object ops;
    CAF_REQUIRE(item.get_object().get(ops) == simdjson::SUCCESS);
    for (auto [m, op] : ops) {
      static const std::set<std::string_view> methods{"get",   "head",    "post",  "put",
                                                      "delete", "patch", "options", "trace"};
      if (!methods.contains(m))
        continue; // parameters, summary, ...
      documented_op d{std::string{p}, std::string{m}, {}, false};
      simdjson::dom::object responses;
      CAF_REQUIRE(op["responses"].get_object().get(responses) == simdjson::SUCCESS);
      for (auto [status, ignored] : responses)
        d.statuses.emplace(status);
      simdjson::dom::element body;
      d.has_body = op["requestBody"].get(body) == simdjson::SUCCESS;
      out.push_back(std::move(d));
    }
  }
  return out;
}

std::string upper(std::string s) {
  for (auto& ch : s)
    ch = char(std::toupper(static_cast<unsigned char>(ch)));
  return s;
}

/// A concrete target for a documented path: existing ids for reads,
/// missing ones for writes (nothing changes).
std::string target_of(const documented_op& op) {
  bool write = op.method != "get" && op.method != "head";
  std::string t = op.path;
  auto at = t.find('{');
  if (at != std::string::npos)
    t.replace(at, t.find('}', at) + 1 - at, write ? "999999" : t.rfind("/depts/emps/", 0) == 0 ? "101" : "10");
  return t;
}

} // namespace

CAF_TEST(every operation in openapi json answers as documented) {
  auto ops = load_openapi();
  CAF_REQUIRE_GREATER(ops.size(), 20u);
  http_client c{main_daemon().port()};
  for (auto& op : ops) {
    auto target = target_of(op);
    auto method = upper(op.method);
    auto what = method + " " + target;
    auto r = op.has_body ? call(c, method, target, json_type, "{}") : call(c, method, target);
    expect(r.status != 405, what + ": 405 for a documented method (Allow: " + r.header_or_empty("Allow") + ")");
    expect(!(r.status == 404 && r.body.find("no resource at this path") != std::string::npos),
           what + ": 404 for a documented path");
    expect(op.statuses.contains(std::to_string(r.status)),
           what + ": answered " + std::to_string(r.status) + ", which is not documented");
  }
}

CAF_TEST(the daemon serves openapi json as committed) {
  http_client c{main_daemon().port()};
  auto r = c.get("/openapi.json");
  CAF_CHECK_EQUAL(r.status, 200);
  CAF_CHECK_EQUAL(r.header_or_empty("Content-Type"), "application/json");
  simdjson::padded_string committed;
  CAF_REQUIRE(simdjson::padded_string::load(std::string{RESTCACHE_SOURCE_DIR} + "/openapi.json").get(committed)
              == simdjson::SUCCESS);
  CAF_CHECK(r.body == std::string_view(committed));
}

CAF_TEST(every route the daemon answers is in openapi json) {
  auto ops = load_openapi();
  std::map<std::string, std::set<std::string>> documented; // path -> METHODS
  for (auto& op : ops)
    documented[op.path].insert(upper(op.method));
  // The routes of http/router.cpp.
  const std::map<std::string, std::set<std::string>> routes{
    {"/deptemps/{deptno}", {"GET", "HEAD"}},
    {"/depts/{deptno}", {"GET", "HEAD", "PUT", "DELETE"}},
    {"/depts", {"GET", "HEAD", "POST", "PUT"}},
    {"/depts/random", {"GET", "HEAD", "PUT"}},
    {"/depts/emps/{empno}", {"GET", "HEAD", "PUT", "DELETE"}},
    {"/depts/emps", {"POST"}},
    {"/health", {"GET", "HEAD"}},
    {"/ready", {"GET", "HEAD"}},
    {"/metrics", {"GET", "HEAD"}},
    {"/openapi.json", {"GET", "HEAD"}},
  };
  CAF_CHECK_EQUAL(documented.size(), routes.size());
  for (auto& [path, methods] : routes) {
    for (auto& m : methods)
      expect(documented[path].contains(m), m + " " + path + " is routed but not documented");
  }
  // And as the running daemon says: the Allow of a 405 on each documented
  // path lists exactly the documented methods.
  http_client c{main_daemon().port()};
  for (auto& [path, methods] : documented) {
    auto r = call(c, "OPTIONS", target_of({path, "get", {}, false}));
    CAF_CHECK_EQUAL(r.status, 405);
    std::set<std::string> allowed;
    auto allow = r.header_or_empty("Allow");
    for (size_t at = 0; at < allow.size();) {
      auto comma = allow.find(',', at);
      auto item = allow.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
      item.erase(0, item.find_first_not_of(' '));
      item.erase(item.find_last_not_of(' ') + 1);
      allowed.insert(item);
      at = comma == std::string::npos ? allow.size() : comma + 1;
    }
    expect(allowed == methods, path + ": Allow is '" + allow + "', openapi.json documents other methods");
  }
  // Paths next to the documented ones are not routes.
  for (std::string target : {"/deptemps", "/depts/emps/1/x", "/depts/1/x", "/emps/1", "/depts/random/1"})
    CAF_CHECK_EQUAL(call(c, "GET", target).status, 404);
}
