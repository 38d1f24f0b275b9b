// SPDX-License-Identifier: Apache-2.0
#define CAF_SUITE http_server
#include <zlib.h>

#include "http/server.hpp"

#include <caf/test/dsl.hpp>

#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "demo/demo_actions.hpp"
#include "demo/demo_catalogue.hpp"
#include "messages/document_encoder.hpp"
#include "test/fixtures/catalogue_guard.hpp"
#include "test/fixtures/http_client.hpp"

using namespace std::chrono_literals;
using namespace restcache;
using namespace restcache::http;
using restcache::test::header_list;
using restcache::test::http_client;
using restcache::test::http_response;

namespace {

// Ids the fake gateway understands:
//   1..99     a document, answered at once on the calling (asio) thread
//   100..199  a document, answered from the gateway's own thread (like CAF)
//   400/404/500/503/504/529  the matching rc_error (529: overloaded)
//   900..999  never answered: the callback is parked (see release_parked)
//   1000      success without a document (a broken gateway)
//   anything else: not_found
class fake_gateway : public cache_gateway {
public:
  fake_gateway() : worker_([this] { work(); }) {
  }

  ~fake_gateway() override {
    {
      std::lock_guard lk{mtx_};
      done_ = true;
    }
    cv_.notify_all();
    worker_.join();
  }

  static doc_ptr doc_for(int32_t id) {
    std::string body = R"({"deptNumber":)" + std::to_string(id) +
                       R"(,"deptName":"Dept \")" + std::to_string(id) +
                       R"(\"","deptLocation":"Here","emps":[)";
    for (int i = 0; i < 8; ++i) {
      if (i > 0)
        body += ',';
      body += R"({"empNo":)" + std::to_string(id * 100 + i) + R"(,"empName":"E)" +
              std::to_string(i) + R"(","job":"CLERK","sal":1000})";
    }
    body += "]}";
    return make_doc(std::move(body));
  }

  void lookup(doc_key key, reply_callback cb) override {
    lookups.fetch_add(1);
    auto id = static_cast<int32_t>(key.id());
    if (id >= 1 && id <= 99) {
      cb(lookup_result{rc_error::none, doc_for(id)});
    } else if (id >= 100 && id <= 199) {
      {
        std::lock_guard lk{mtx_};
        queue_.emplace_back([cb = std::move(cb), id] { cb(lookup_result{rc_error::none, doc_for(id)}); });
      }
      cv_.notify_one();
    } else if (id >= 900 && id <= 999) {
      std::lock_guard lk{mtx_};
      parked_.emplace_back(id, std::move(cb));
    } else if (id == 1000) {
      cb(lookup_result{rc_error::none, nullptr});
    } else {
      rc_error e = rc_error::not_found;
      switch (id) {
        case 400: e = rc_error::bad_request; break;
        case 500: e = rc_error::internal; break;
        case 503: e = rc_error::db_unavailable; break;
        case 504: e = rc_error::db_timeout; break;
        case 529: e = rc_error::overloaded; break;
      }
      cb(lookup_result{e, nullptr});
    }
  }

  std::vector<http::readiness_check> readiness() const override {
    bool ok = is_ready.load();
    return {{"database", ok, ok ? "up" : "down"}, {"listener", true, "caught up"}};
  }

  std::string metrics_text() const override {
    return "# TYPE fake_metric counter\nfake_metric 42\n";
  }

  /// The demo's actions, unwired: what they answer at once is answered
  /// (a body that does not parse, /depts/random from `actions`' ids); work
  /// they would run on the database (a write) succeeds at once, 204.
  http::action_start start_action(uint8_t action, const http::action_call& call) override {
    auto started = demo_handlers.at(action)(call);
    if (started.work) {
      writes.fetch_add(1);
      started.work = [](http::action_callback cb) {
        http::action_answer done;
        done.status = 204;
        cb(std::move(done));
      };
    }
    return started;
  }
  std::atomic<uint64_t> writes{0};
  /// The ids /depts/random draws from.
  void random_ids(std::vector<int32_t> ids) {
    actions.set_dept_ids(std::make_shared<const std::vector<int32_t>>(std::move(ids)));
  }
  demo::demo_actions actions{demo::demo_wiring{}};
  const std::vector<http::action_handler> demo_handlers = actions.handlers();

  size_t parked_count() {
    std::lock_guard lk{mtx_};
    return parked_.size();
  }

  /// Answers every parked lookup with its document, in the order they
  /// came, from this thread.
  size_t release_parked() {
    std::vector<std::pair<int32_t, reply_callback>> cbs;
    {
      std::lock_guard lk{mtx_};
      cbs.swap(parked_);
    }
    for (auto& [id, cb] : cbs)
      cb(lookup_result{rc_error::none, doc_for(id)});
    return cbs.size();
  }

  std::atomic<bool> is_ready{true};
  std::atomic<uint64_t> lookups{0};

private:
  void work() {
    std::unique_lock lk{mtx_};
    for (;;) {
      cv_.wait(lk, [this] { return done_ || !queue_.empty(); });
      if (queue_.empty())
        return; // done_
      auto f = std::move(queue_.front());
      queue_.pop_front();
      lk.unlock();
      f();
      lk.lock();
    }
  }

  std::mutex mtx_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> queue_;
  std::vector<std::pair<int32_t, reply_callback>> parked_;
  bool done_ = false;
  std::thread worker_; // last: starts after the members above exist
};

// By value: caf-test's CHECK macros keep references to their arguments, so a
// member of a temporary would dangle.
std::string body_of(int32_t id) {
  return fake_gateway::doc_for(id)->body;
}

std::string etag_of(int32_t id) {
  return fake_gateway::doc_for(id)->etag;
}

server_options test_options() {
  server_options o;
  o.address = "127.0.0.1";
  o.port = 0;
  o.threads = 2;
  o.body_limit = 1024;
  o.read_timeout = 5s;
  o.lookup_timeout = 300ms;
  o.max_connections = 1000;
  o.drain_timeout = 1s;
  return o;
}

struct fixture {
  fake_gateway gw; // outlives the server
  std::unique_ptr<server> srv;
  uint16_t port = 0;

  fixture() {
    start(test_options());
  }

  void start(server_options o) {
    srv = std::make_unique<server>(std::move(o), gw);
    srv->start();
    srv->run_threads();
    port = srv->bound_port();
  }

  void restart(server_options o) {
    srv.reset();
    start(std::move(o));
  }

  http_client client() {
    return http_client{port, 5s};
  }
};

bool contains(const std::string& haystack, std::string_view needle) {
  return haystack.find(needle) != std::string::npos;
}

/// Checks the shape of a problem+json answer.
void check_problem(const http_response& r, int status, std::string_view detail_part = {}) {
  CAF_CHECK_EQUAL(r.status, status);
  CAF_CHECK_EQUAL(r.header_or_empty("Content-Type"), "application/problem+json");
  CAF_CHECK(contains(r.body, R"({"type":"about:blank","title":")"));
  CAF_CHECK(contains(r.body, R"("status":)" + std::to_string(status) + ","));
  CAF_CHECK(contains(r.body, R"("detail":")"));
  CAF_CHECK_EQUAL(r.header_or_empty("Content-Length"), std::to_string(r.body.size()));
  if (!detail_part.empty() && !contains(r.body, detail_part))
    CAF_FAIL("detail lacks '" << std::string{detail_part} << "': " << r.body);
  if (status == 503 || status == 429)
    CAF_CHECK_EQUAL(r.header_or_empty("Retry-After"), "1");
  else
    CAF_CHECK(!r.has_header("Retry-After"));
}

long ms(std::chrono::steady_clock::duration d) {
  return long(std::chrono::duration_cast<std::chrono::milliseconds>(d).count());
}

template <class Pred>
bool eventually(Pred pred, std::chrono::milliseconds limit = 3s) {
  auto until = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < until) {
    if (pred())
      return true;
    std::this_thread::sleep_for(10ms);
  }
  return pred();
}

} // namespace

CAF_TEST_FIXTURE_SCOPE(http_server_tests, fixture)

CAF_TEST(a document answers 200 with the cached bytes and its headers) {
  auto c = client();
  auto expected = fake_gateway::doc_for(7);
  auto r = c.get("/deptemps/7");
  CAF_REQUIRE_EQUAL(r.status, 200);
  CAF_CHECK_EQUAL(r.error, "");
  CAF_CHECK_EQUAL(r.body, expected->body);
  CAF_CHECK_EQUAL(r.header_or_empty("Content-Type"), "application/json");
  CAF_CHECK_EQUAL(r.header_or_empty("ETag"), expected->etag);
  CAF_CHECK_EQUAL(r.header_or_empty("Cache-Control"), "no-cache");
  CAF_CHECK_EQUAL(r.header_or_empty("Server"), "restcache");
  CAF_CHECK_EQUAL(r.header_or_empty("Content-Length"), std::to_string(expected->body.size()));
  CAF_CHECK(contains(r.header_or_empty("Date"), " GMT"));
  CAF_CHECK(!r.closes_connection());
  // answered from another thread, as the cache shards do
  r = c.get("/deptemps/150?ignored=1");
  CAF_REQUIRE_EQUAL(r.status, 200);
  CAF_CHECK_EQUAL(r.body, body_of(150));
  CAF_CHECK_EQUAL(c.connects(), 1u);
}

CAF_TEST(if none match answers 304 without a body) {
  auto c = client();
  auto etag = etag_of(3);
  auto r = c.get("/deptemps/3");
  CAF_REQUIRE_EQUAL(r.status, 200);
  CAF_REQUIRE_EQUAL(r.header_or_empty("ETag"), etag);
  for (std::string inm : {etag, "W/" + etag, "\"nope\", " + etag, std::string{"*"},
                          "\"a\",W/" + etag + ",\"b\""}) {
    CAF_MESSAGE("If-None-Match: " << inm);
    r = c.get("/deptemps/3", {{"If-None-Match", inm}});
    CAF_CHECK_EQUAL(r.status, 304);
    CAF_CHECK_EQUAL(r.body, "");
    CAF_CHECK_EQUAL(r.header_or_empty("ETag"), etag);
    CAF_CHECK_EQUAL(r.header_or_empty("Cache-Control"), "no-cache");
  }
  // async answer, HEAD, and a stale tag
  r = c.get("/deptemps/103", {{"If-None-Match", etag_of(103)}});
  CAF_CHECK_EQUAL(r.status, 304);
  r = c.request("HEAD", "/deptemps/3", {{"If-None-Match", etag}});
  CAF_CHECK_EQUAL(r.status, 304);
  r = c.get("/deptemps/3", {{"If-None-Match", "\"stale\""}});
  CAF_CHECK_EQUAL(r.status, 200);
  CAF_CHECK_EQUAL(r.body, body_of(3));
  // the tag of another document does not match
  r = c.get("/deptemps/4", {{"If-None-Match", etag}});
  CAF_CHECK_EQUAL(r.status, 200);
  // an error has no representation: * does not turn a 404 into a 304
  r = c.get("/deptemps/404", {{"If-None-Match", "*"}});
  CAF_CHECK_EQUAL(r.status, 404);
  CAF_CHECK_EQUAL(c.connects(), 1u);
  CAF_CHECK_GREATER_OR_EQUAL(srv->metrics().not_modified.load(), 7u);
}

CAF_TEST(a client that accepts gzip gets the document compressed with its own etag) {
  auto c = client();
  auto plain = c.get("/deptemps/3");
  CAF_REQUIRE_EQUAL(plain.status, 200);
  CAF_CHECK_EQUAL(plain.header_or_empty("Vary"), "Accept-Encoding");
  auto r = c.get("/deptemps/3", {{"Accept-Encoding", "br;q=1.0, gzip;q=0.8"}});
  CAF_REQUIRE_EQUAL(r.status, 200);
  CAF_CHECK_EQUAL(r.header_or_empty("Content-Encoding"), "gzip");
  CAF_CHECK_EQUAL(r.header_or_empty("Content-Length"), std::to_string(r.body.size()));
  CAF_CHECK_LESS(r.body.size(), plain.body.size());
  // Inflate it back (zlib: windowBits 15 + 32 detects the gzip header).
  z_stream zs{};
  CAF_REQUIRE_EQUAL(inflateInit2(&zs, 15 + 32), Z_OK);
  std::string out(plain.body.size() + 64, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(r.body.data());
  zs.avail_in = static_cast<uInt>(r.body.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  CAF_CHECK_EQUAL(inflate(&zs, Z_FINISH), Z_STREAM_END);
  out.resize(zs.total_out);
  inflateEnd(&zs);
  CAF_CHECK_EQUAL(out, plain.body);
  auto gz_etag = r.header_or_empty("ETag");
  CAF_CHECK_NOT_EQUAL(gz_etag, plain.header_or_empty("ETag"));
  CAF_CHECK_EQUAL(c.get("/deptemps/3", {{"Accept-Encoding", "gzip"}, {"If-None-Match", gz_etag}}).status, 304);
  // q=0 refuses it; so does identity only.
  CAF_CHECK_EQUAL(c.get("/deptemps/3", {{"Accept-Encoding", "gzip;q=0, *"}}).header_or_empty("Content-Encoding"), "");
  CAF_CHECK_EQUAL(c.get("/deptemps/3", {{"Accept-Encoding", "identity"}}).header_or_empty("Content-Encoding"), "");
  CAF_CHECK_EQUAL(c.get("/deptemps/3", {{"Accept-Encoding", "*"}}).header_or_empty("Content-Encoding"), "gzip");
}

CAF_TEST(every response echoes the request id or makes one) {
  auto c = client();
  auto r = c.get("/deptemps/3", {{"X-Request-Id", "abc-123"}});
  CAF_CHECK_EQUAL(r.header_or_empty("X-Request-Id"), "abc-123");
  auto made = c.get("/nowhere").header_or_empty("X-Request-Id");
  CAF_CHECK_EQUAL(made.size(), 15u);
  auto insane = c.get("/health", {{"X-Request-Id", "no spaces allowed"}}).header_or_empty("X-Request-Id");
  CAF_CHECK_EQUAL(insane.size(), 15u);
  CAF_CHECK_NOT_EQUAL(insane, made);
}

CAF_TEST(head answers the headers of get without the body) {
  auto c = client();
  auto doc = fake_gateway::doc_for(5);
  auto r = c.request("HEAD", "/deptemps/5");
  CAF_REQUIRE_EQUAL(r.status, 200);
  CAF_CHECK_EQUAL(r.body, "");
  CAF_CHECK_EQUAL(r.header_or_empty("Content-Length"), std::to_string(doc->body.size()));
  CAF_CHECK_EQUAL(r.header_or_empty("ETag"), doc->etag);
  CAF_CHECK_EQUAL(r.header_or_empty("Content-Type"), "application/json");
  r = c.request("HEAD", "/health");
  CAF_CHECK_EQUAL(r.status, 200);
  CAF_CHECK_EQUAL(r.header_or_empty("Content-Length"), "15");
  r = c.request("HEAD", "/nowhere");
  CAF_CHECK_EQUAL(r.status, 404);
  CAF_CHECK_EQUAL(r.header_or_empty("Content-Type"), "application/problem+json");
  CAF_CHECK_NOT_EQUAL(r.header_or_empty("Content-Length"), "0");
  // had the server sent any body bytes, this response would not parse
  r = c.get("/deptemps/5");
  CAF_CHECK_EQUAL(r.status, 200);
  CAF_CHECK_EQUAL(r.error, "");
  CAF_CHECK_EQUAL(r.body, doc->body);
  CAF_CHECK_EQUAL(c.connects(), 1u);
}

CAF_TEST(routing errors are problem json) {
  auto c = client();
  check_problem(c.get("/nowhere"), 404, "no resource");
  check_problem(c.get("/deptemps"), 404);
  check_problem(c.get("/deptemps/abc"), 400, "decimal digits");
  check_problem(c.get("/deptemps/-3"), 400, "sign");
  check_problem(c.get("/deptemps/0"), 400, "positive");
  check_problem(c.get("/deptemps/2147483648"), 400, "2147483647");
  check_problem(c.get("/deptemps/%201"), 400);
  auto r = c.request("DELETE", "/deptemps/1");
  check_problem(r, 405);
  CAF_CHECK_EQUAL(r.header_or_empty("Allow"), "GET, HEAD");
  CAF_CHECK_EQUAL(c.connects(), 1u); // none of these closes the connection
  // With a body they are answered from the header, and the body, never
  // read, closes the connection.
  r = c.request("POST", "/health", {}, "{}");
  check_problem(r, 405);
  CAF_CHECK_EQUAL(r.header_or_empty("Allow"), "GET, HEAD");
  CAF_CHECK(r.closes_connection());
  r = c.request("PUT", "/nowhere", {}, "x");
  check_problem(r, 404);
  CAF_CHECK(r.closes_connection());
  CAF_CHECK_EQUAL(gw.lookups.load(), 0u);
}

CAF_TEST(gateway errors map through http_status_of) {
  auto c = client();
  check_problem(c.get("/deptemps/404"), 404, "department 404 does not exist");
  check_problem(c.get("/deptemps/77777"), 404, "department 77777 does not exist");
  check_problem(c.get("/deptemps/400"), 400);
  check_problem(c.get("/deptemps/503"), 503, "database");
  check_problem(c.get("/deptemps/529"), 503, "overloaded");
  check_problem(c.get("/deptemps/504"), 504);
  check_problem(c.get("/deptemps/500"), 500);
  check_problem(c.get("/deptemps/1000"), 500);
  CAF_CHECK_EQUAL(c.connects(), 1u);
}

CAF_TEST(health ready and metrics) {
  auto c = client();
  auto r = c.get("/health");
  CAF_CHECK_EQUAL(r.status, 200);
  CAF_CHECK_EQUAL(r.body, R"({"status":"ok"})");
  CAF_CHECK_EQUAL(r.header_or_empty("Content-Type"), "application/json");
  r = c.get("/ready");
  CAF_CHECK_EQUAL(r.status, 200);
  CAF_CHECK_EQUAL(r.body, R"({"status":"ready","checks":{"database":"up","listener":"caught up"}})");
  gw.is_ready = false;
  r = c.get("/ready");
  check_problem(r, 503, "not ready: database down");
  CAF_CHECK(contains(r.body, R"("checks":{"database":"down","listener":"caught up"}})"));
  gw.is_ready = true;
  CAF_CHECK_EQUAL(c.get("/ready").status, 200);
  r = c.get("/metrics");
  CAF_CHECK_EQUAL(r.status, 200);
  CAF_CHECK_EQUAL(r.header_or_empty("Content-Type"), "text/plain; version=0.0.4");
  CAF_CHECK_EQUAL(r.body, gw.metrics_text());
}

CAF_TEST(random department uses the deptemps lookup) {
  auto c = client();
  check_problem(c.get("/depts/random"), 503, "no department ids");
  gw.random_ids({12});
  auto r = c.get("/depts/random");
  CAF_CHECK_EQUAL(r.status, 200);
  CAF_CHECK_EQUAL(r.body, body_of(12));
  CAF_CHECK_EQUAL(r.header_or_empty("ETag"), etag_of(12));
  gw.random_ids({120}); // async
  r = c.get("/depts/random", {{"If-None-Match", etag_of(120)}});
  CAF_CHECK_EQUAL(r.status, 304);
  gw.random_ids({404});
  check_problem(c.get("/depts/random"), 404);
}

CAF_TEST(keep alive serves many requests on one connection) {
  auto c = client();
  for (int i = 0; i < 300; ++i) {
    int id = 1 + i % 150; // both sync and async answers
    auto r = i % 7 == 3 ? c.request("HEAD", "/deptemps/" + std::to_string(id))
                        : c.get("/deptemps/" + std::to_string(id));
    if (r.status != 200) {
      CAF_FAIL("request " << i << " failed: " << r.status << " " << r.error);
    }
    if (i % 7 != 3 && r.body != body_of(id))
      CAF_FAIL("request " << i << ": wrong body");
  }
  CAF_CHECK_EQUAL(c.connects(), 1u);
  CAF_CHECK_GREATER_OR_EQUAL(srv->metrics().responses(2), 300u);
  CAF_CHECK_EQUAL(srv->metrics().connections_accepted.load(), 1u);
}

CAF_TEST(pipelined requests are answered in order) {
  auto c = client();
  std::string reqs;
  for (int id : {150, 1, 160, 2, 404})
    reqs += "GET /deptemps/" + std::to_string(id) + " HTTP/1.1\r\nHost: x\r\n\r\n";
  reqs += "HEAD /deptemps/3 HTTP/1.1\r\nHost: x\r\n\r\n";
  reqs += "GET /health HTTP/1.1\r\nHost: x\r\n\r\n";
  CAF_REQUIRE(c.send_raw(reqs));
  for (int id : {150, 1, 160, 2}) {
    auto r = c.read_response();
    CAF_CHECK_EQUAL(r.status, 200);
    CAF_CHECK_EQUAL(r.body, body_of(id));
  }
  check_problem(c.read_response(), 404);
  auto r = c.read_response(true);
  CAF_CHECK_EQUAL(r.status, 200);
  CAF_CHECK_EQUAL(r.body, "");
  r = c.read_response();
  CAF_CHECK_EQUAL(r.status, 200);
  CAF_CHECK_EQUAL(r.body, R"({"status":"ok"})");
  // They arrived in one segment: all but the last waited for the others to
  // leave in one write.
  CAF_CHECK_GREATER_OR_EQUAL(srv->metrics().responses_coalesced.load(), 1u);
  CAF_CHECK_LESS_OR_EQUAL(srv->metrics().responses_coalesced.load(), 6u);
}

CAF_TEST(a pipelined request cut in two is answered after the whole one before it) {
  auto c = client();
  // The first request whole, the second one's header cut short: the first
  // answer must not wait for the rest of the second request.
  CAF_REQUIRE(c.send_raw("GET /deptemps/5 HTTP/1.1\r\nHost: x\r\n\r\nGET /deptemps/6 HTTP/1.1\r\nHo"));
  auto r = c.read_response();
  CAF_CHECK_EQUAL(r.status, 200);
  CAF_CHECK_EQUAL(r.body, body_of(5));
  CAF_REQUIRE(c.send_raw("st: x\r\n\r\n"));
  r = c.read_response();
  CAF_CHECK_EQUAL(r.status, 200);
  CAF_CHECK_EQUAL(r.body, body_of(6));
  // A write's body cut in two as well.
  const std::string dept = R"({"deptNumber":7,"deptName":"X","deptLocation":"Y","emps":[]})";
  CAF_REQUIRE(c.send_raw("GET /health HTTP/1.1\r\nHost: localhost\r\n\r\nPUT /depts/7 HTTP/1.1\r\nHost: localhost\r\n"
                         "Content-Type: application/json\r\nContent-Length: " + std::to_string(dept.size())
                         + "\r\n\r\n" + dept.substr(0, 10)));
  r = c.read_response();
  CAF_CHECK_EQUAL(r.body, R"({"status":"ok"})");
  CAF_REQUIRE(c.send_raw(dept.substr(10) + "GET /deptemps/8 HTTP/1.1\r\nHost: x\r\n\r\n"));
  r = c.read_response();
  CAF_CHECK_EQUAL(r.status, 204);
  CAF_CHECK_EQUAL(gw.writes.load(), 1u);
  r = c.read_response();
  CAF_CHECK_EQUAL(r.body, body_of(8));
  CAF_CHECK_EQUAL(c.connects(), 1u);
}

CAF_TEST(a body sent to a route that takes none is refused at its header and never read) {
  // Every client at once announcing the largest body to a GET route and
  // sending all but the last bytes: each is answered 413 from its header,
  // nothing of the bodies is held, and the connections close.
  auto o = test_options();
  o.body_limit = 2 * 1024 * 1024;
  restart(o);
  std::vector<std::unique_ptr<http_client>> clients;
  const std::string part(64 * 1024, 'b');
  for (int i = 0; i < 50; ++i) {
    clients.push_back(std::make_unique<http_client>(port, 5s));
    CAF_REQUIRE(clients.back()->send_raw("GET /deptemps/77 HTTP/1.1\r\nHost: x\r\nContent-Length: 2097152\r\n\r\n"));
    clients.back()->send_raw(part); // may fail once the server has closed
  }
  CAF_CHECK_EQUAL(srv->metrics().body_bytes_held.load(), 0);
  for (auto& c : clients) {
    auto r = c->read_response();
    check_problem(r, 413, "takes no body");
    CAF_CHECK(r.closes_connection());
  }
  CAF_CHECK_EQUAL(gw.lookups.load(), 0u);
  CAF_CHECK(eventually([&] { return srv->metrics().connections_open.load() == 0; }));
  CAF_CHECK_EQUAL(srv->metrics().body_bytes_held.load(), 0);
}

CAF_TEST(write bodies share one byte budget and a write beyond it gets 503) {
  auto o = test_options();
  o.body_budget = 2500;
  restart(o);
  const std::string head = "PUT /depts/7 HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                           "Content-Length: 1000\r\n\r\n";
  http_client a{port, 5s}, b{port, 5s}, c{port, 5s};
  CAF_REQUIRE(a.send_raw(head + "{"));
  CAF_REQUIRE(b.send_raw(head + "{"));
  CAF_CHECK(eventually([&] { return srv->metrics().body_bytes_held.load() == 2000; }));
  CAF_REQUIRE(c.send_raw(head));
  auto r = c.read_response();
  check_problem(r, 503, "request bodies");
  CAF_CHECK(r.closes_connection());
  CAF_CHECK_EQUAL(srv->metrics().body_budget_refusals.load(), 1u);
  // The clients that hold the budget give it back when they go.
  a.close();
  b.close();
  CAF_CHECK(eventually([&] { return srv->metrics().body_bytes_held.load() == 0; }));
  // A chunked body grows against the same budget.
  o.body_limit = 100'000;
  o.body_budget = 100'000;
  restart(o);
  http_client d{port, 5s}, e{port, 5s};
  std::string chunked_head = "PUT /depts/7 HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                             "Transfer-Encoding: chunked\r\n\r\n";
  std::string chunk = "9c40\r\n" + std::string(40'000, ' ') + "\r\n"; // 40,000 bytes
  CAF_REQUIRE(d.send_raw(chunked_head + chunk + chunk));
  CAF_CHECK(eventually([&] { return srv->metrics().body_bytes_held.load() >= 80'000; }));
  CAF_REQUIRE(e.send_raw(chunked_head + chunk));
  r = e.read_response();
  check_problem(r, 503, "request bodies");
  // A write that completes gives its share back once answered.
  CAF_REQUIRE(d.send_raw("0\r\n\r\n"));
  r = d.read_response();
  CAF_CHECK_EQUAL(r.status, 400); // only spaces: not JSON, but read and parsed
  CAF_CHECK(eventually([&] { return srv->metrics().body_bytes_held.load() == 0; }));
}

CAF_TEST(an announced body takes no share until it is sent and an idle one loses its connection) {
  auto o = test_options();
  o.body_limit = 100'000;
  o.body_budget = 10'000;
  o.body_idle_timeout = 300ms;
  restart(o);
  // Eight bodies announced that together exceed the budget, none sent:
  // each may go on (100 Continue), none holds anything.
  std::vector<std::unique_ptr<http_client>> idle;
  for (int i = 0; i < 8; ++i) {
    idle.push_back(std::make_unique<http_client>(port, 5s));
    CAF_REQUIRE(idle.back()->send_raw("PUT /depts/7 HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                                      "Expect: 100-continue\r\nContent-Length: 5000\r\n\r\n"));
    CAF_CHECK_EQUAL(idle.back()->read_response().status, 100);
  }
  CAF_CHECK_EQUAL(srv->metrics().body_bytes_held.load(), 0);
  // A write that sends its body is answered beside them.
  const std::string dept = R"({"deptNumber":7,"deptName":"X","deptLocation":"Y","emps":[]})";
  http_client w{port, 5s};
  CAF_REQUIRE(w.send_raw("PUT /depts/7 HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                         "Content-Length: " + std::to_string(dept.size()) + "\r\n\r\n" + dept));
  CAF_CHECK_EQUAL(w.read_response().status, 204);
  // A body that sends some bytes holds about what it sent, not what it
  // announced; then, silent, it loses its connection and its share.
  http_client part{port, 5s};
  CAF_REQUIRE(part.send_raw("PUT /depts/7 HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                            "Content-Length: 9000\r\n\r\n" + std::string(100, ' ')));
  CAF_CHECK(eventually([&] { return srv->metrics().body_bytes_held.load() > 0; }));
  CAF_CHECK_LESS_OR_EQUAL(srv->metrics().body_bytes_held.load(), 4096);
  for (auto& c : idle)
    CAF_CHECK(c->wait_closed_by_peer(3s));
  CAF_CHECK(part.wait_closed_by_peer(3s));
  CAF_CHECK(eventually([&] { return srv->metrics().body_bytes_held.load() == 0; }));
  CAF_CHECK_EQUAL(gw.writes.load(), 1u);
}

CAF_TEST(a chunk header or trailer that never ends is refused at the header limit) {
  auto o = test_options();
  o.body_limit = 100'000;
  restart(o);
  const std::string head = "PUT /depts/7 HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                           "Transfer-Encoding: chunked\r\n\r\n";
  auto refused = [&](const std::string& tail, int status, std::string_view detail) {
    http_client c{port, 5s};
    CAF_REQUIRE(c.send_raw(head));
    // Sent in pieces, as an attacker trickles it: never a whole line.
    CAF_REQUIRE(c.send_raw(tail));
    for (int i = 0; i < 20 && c.send_raw(std::string(1000, 'a')); ++i)
      std::this_thread::sleep_for(5ms);
    auto r = c.read_response();
    check_problem(r, status, detail);
    CAF_CHECK(r.closes_connection());
  };
  refused("2;x=", 400, "chunk header");
  refused("5\r\nhello\r\n0\r\nX-Trailer: ", 431, "trailer");
  CAF_CHECK_EQUAL(gw.writes.load(), 0u);
  CAF_CHECK(eventually([&] { return srv->metrics().body_bytes_held.load() == 0; }));
}

CAF_TEST(a key spelled otherwise answers 308 to its one spelling and is never looked up) {
  restcache::test::catalogue_guard with_tags{restcache::test::demo_and_text_kind()};
  http_client c{port, 5s};
  auto r = c.get("/tags/%61b@c?x=1");
  CAF_CHECK_EQUAL(r.status, 308);
  CAF_CHECK_EQUAL(r.header_or_empty("Location"), "/tags/ab%40c?x=1");
  CAF_CHECK_EQUAL(r.header_or_empty("Content-Type"), "application/problem+json");
  CAF_CHECK(contains(r.body, R"("title":"Permanent Redirect")"));
  CAF_CHECK_EQUAL(gw.lookups.load(), 0u);
  CAF_CHECK(!r.closes_connection()); // the client follows on the same connection
  r = c.get("/tags/ab%40c");
  CAF_CHECK_EQUAL(r.status, 404); // looked up (the fake gateway has no tags)
  CAF_CHECK_EQUAL(gw.lookups.load(), 1u);
}

CAF_TEST(framing RFC 9112: transfer codings Host and empty lines) {
  auto refused = [&](std::string raw, int status) {
    http_client c{port, 5s};
    CAF_REQUIRE(c.send_raw(raw));
    auto r = c.read_response();
    check_problem(r, status);
    CAF_CHECK(r.closes_connection());
    // Nothing after it is parsed as another request.
    CAF_CHECK(c.wait_closed_by_peer(3s));
  };
  const std::string put = "PUT /depts/7 HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n";
  const std::string smuggled = "5\r\nhello\r\n0\r\n\r\nGET /deptemps/9 HTTP/1.1\r\nHost: x\r\n\r\n";
  refused(put + "Transfer-Encoding: xchunked\r\n\r\n" + smuggled, 400);
  refused(put + "Transfer-Encoding: chunked, identity\r\n\r\n" + smuggled, 400);
  refused(put + "Transfer-Encoding: gzip\r\n\r\n" + smuggled, 400);
  refused(put + "Transfer-Encoding: gzip, chunked\r\n\r\n" + smuggled, 501);
  refused("GET /deptemps/9 HTTP/1.1\r\nTransfer-Encoding: identity\r\nHost: x\r\n\r\n", 400);
  refused("GET /deptemps/9 HTTP/1.1\r\n\r\n", 400);                        // no Host
  refused("GET /deptemps/9 HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400); // two
  CAF_CHECK_EQUAL(gw.lookups.load(), 0u);
  // HTTP/1.0 needs no Host; empty lines before a request line are ignored.
  http_client c{port, 5s};
  CAF_REQUIRE(c.send_raw("\r\nGET /deptemps/9 HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"));
  auto r = c.read_response();
  CAF_CHECK_EQUAL(r.status, 200);
  CAF_REQUIRE(c.send_raw("\r\n\r\nGET /deptemps/8 HTTP/1.1\r\nHost: x\r\n\r\n"));
  r = c.read_response();
  CAF_CHECK_EQUAL(r.status, 200);
  CAF_CHECK_EQUAL(r.body, body_of(8));
}

CAF_TEST(100 Continue comes only once the route and the credentials pass) {
  auto o = test_options();
  o.write_token = "secret";
  restart(o);
  const std::string dept = R"({"deptNumber":7,"deptName":"X","deptLocation":"Y","emps":[]})";
  auto head = [&](std::string auth) {
    return "PUT /depts/7 HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nExpect: 100-continue\r\n" + auth
           + "Content-Length: " + std::to_string(dept.size()) + "\r\n\r\n";
  };
  http_client c{port, 5s};
  CAF_REQUIRE(c.send_raw(head("Authorization: Bearer secret\r\n")));
  auto r = c.read_response();
  CAF_CHECK_EQUAL(r.status, 100);
  CAF_REQUIRE(c.send_raw(dept));
  r = c.read_response();
  CAF_CHECK_EQUAL(r.status, 204);
  // Refused: the final answer instead of 100, and the body is not awaited.
  http_client d{port, 5s};
  CAF_REQUIRE(d.send_raw(head("Authorization: Bearer wrong\r\n")));
  r = d.read_response();
  check_problem(r, 401);
  http_client e{port, 5s};
  CAF_REQUIRE(e.send_raw("GET /deptemps/7 HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n"));
  check_problem(e.read_response(), 413);
  http_client f{port, 5s};
  CAF_REQUIRE(f.send_raw("PUT /depts/7 HTTP/1.1\r\nHost: x\r\nExpect: 200-ok\r\nContent-Length: 5\r\n\r\n"));
  check_problem(f.read_response(), 417);
  CAF_CHECK_EQUAL(gw.writes.load(), 1u);
}

CAF_TEST(open writes take only the allowed Host names) {
  const std::string dept = R"({"deptNumber":7,"deptName":"X","deptLocation":"Y","emps":[]})";
  auto put_with_host = [&](std::string host) {
    http_client c{port, 5s};
    c.send_raw("PUT /depts/7 HTTP/1.1\r\nHost: " + host + "\r\nContent-Type: application/json\r\nContent-Length: "
               + std::to_string(dept.size()) + "\r\n\r\n" + dept);
    return c.read_response();
  };
  CAF_CHECK_EQUAL(put_with_host("localhost:8080").status, 204);
  CAF_CHECK_EQUAL(put_with_host("127.0.0.1").status, 204);
  check_problem(put_with_host("evil.example:8080"), 403, "allowed-hosts"); // DNS rebinding
  http_client c{port, 5s};
  c.send_raw("DELETE /depts/7 HTTP/1.1\r\nHost: evil.example\r\n\r\n");
  check_problem(c.read_response(), 403, "allowed-hosts");
  CAF_CHECK_EQUAL(gw.writes.load(), 2u);
}

CAF_TEST(http 1.0 and connection close) {
  {
    auto c = client();
    CAF_REQUIRE(c.send_raw("GET /deptemps/8 HTTP/1.0\r\n\r\n"));
    auto r = c.read_response();
    CAF_CHECK_EQUAL(r.status, 200);
    CAF_CHECK_EQUAL(r.version_minor, 0);
    CAF_CHECK_EQUAL(r.body, body_of(8));
    CAF_CHECK(r.closes_connection());
  }
  {
    auto c = client();
    CAF_REQUIRE(c.send_raw("GET /deptemps/8 HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"));
    auto r = c.read_response();
    CAF_CHECK_EQUAL(r.status, 200);
    CAF_CHECK_EQUAL(r.version_minor, 0);
    CAF_CHECK_EQUAL(r.header_or_empty("Connection"), "keep-alive");
    CAF_CHECK(!r.closes_connection());
    CAF_REQUIRE(c.send_raw("GET /health HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"));
    r = c.read_response();
    CAF_CHECK_EQUAL(r.status, 200);
    CAF_CHECK_EQUAL(c.connects(), 1u);
  }
  {
    auto c = client();
    auto r = c.get("/deptemps/9", {{"Connection", "close"}});
    CAF_CHECK_EQUAL(r.status, 200);
    CAF_CHECK_EQUAL(r.header_or_empty("Connection"), "close");
    CAF_CHECK(!c.is_open()); // the client closed on Connection: close
  }
  {
    // the server closes (gracefully) after Connection: close
    auto c = client();
    CAF_REQUIRE(c.send_raw("GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"));
    auto r = c.read_response();
    CAF_CHECK_EQUAL(r.status, 200);
    CAF_CHECK(r.closes_connection());
  }
}

CAF_TEST(a body over the limit answers 413 and closes) {
  auto c = client();
  auto r = c.request("POST", "/deptemps/1", {}, std::string(4096, 'x'));
  check_problem(r, 413, "1024 bytes");
  CAF_CHECK(r.closes_connection());
  // a body within the limit is read and the connection stays usable
  auto c2 = client();
  r = c2.request("PUT", "/depts/1", {{"Content-Type", "application/json"}},
                 R"({"deptNumber":1,"deptName":")" + std::string(900, 'x') + R"(","deptLocation":"Y","emps":[]})");
  CAF_CHECK_EQUAL(r.status, 422); // read whole and judged: the name is too long
  CAF_CHECK(!r.closes_connection());
  CAF_CHECK_EQUAL(c2.get("/deptemps/1").status, 200);
  CAF_CHECK_EQUAL(c2.connects(), 1u);
  // chunked bodies are limited too
  auto c3 = client();
  std::string chunked = "PUT /depts/1 HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                        "Transfer-Encoding: chunked\r\n\r\n";
  for (int i = 0; i < 4; ++i)
    chunked += "200\r\n" + std::string(512, 'y') + "\r\n";
  chunked += "0\r\n\r\n";
  CAF_REQUIRE(c3.send_raw(chunked));
  check_problem(c3.read_response(), 413);
}

CAF_TEST(malformed requests answer 400 and close) {
  {
    auto c = client();
    CAF_REQUIRE(c.send_raw("THIS IS NOT HTTP\r\n\r\n"));
    auto r = c.read_response();
    check_problem(r, 400, "malformed");
    CAF_CHECK(r.closes_connection());
  }
  {
    auto c = client();
    CAF_REQUIRE(c.send_raw("GET /health HTTP/1.1\r\nBad Header\r\n\r\n"));
    check_problem(c.read_response(), 400);
  }
  {
    auto c = client();
    auto r = c.get("/health", {{"X-Big", std::string(10000, 'h')}});
    check_problem(r, 431);
  }
  CAF_CHECK_GREATER_OR_EQUAL(srv->metrics().bad_requests.load(), 3u);
}

CAF_TEST(a lookup without answer gets 504 and the late reply is harmless) {
  auto c = client();
  auto t0 = std::chrono::steady_clock::now();
  auto r = c.get("/deptemps/901");
  auto took = std::chrono::steady_clock::now() - t0;
  check_problem(r, 504, "300 ms");
  CAF_CHECK_GREATER_OR_EQUAL(ms(took), 250);
  CAF_CHECK_LESS(ms(took), 3000);
  CAF_CHECK_EQUAL(srv->metrics().lookup_timeouts.load(), 1u);
  CAF_CHECK_EQUAL(gw.parked_count(), 1u);
  // the connection goes on; a late reply arriving now must not be taken as
  // the answer to the next request
  r = c.get("/deptemps/150");
  CAF_CHECK_EQUAL(gw.release_parked(), 1u);
  CAF_CHECK_EQUAL(r.status, 200);
  CAF_CHECK_EQUAL(r.body, body_of(150));
  // a late reply that arrives while the next lookup is pending must not be
  // taken for its answer: 902 times out, 904 parks, then both are answered
  // (902 first), and the response must be 904's document
  check_problem(c.get("/deptemps/902"), 504);
  std::thread replier([this] {
    eventually([this] { return gw.parked_count() == 2; });
    gw.release_parked();
  });
  r = c.get("/deptemps/904");
  replier.join();
  CAF_CHECK_EQUAL(r.status, 200);
  CAF_CHECK_EQUAL(r.body, body_of(904));
  r = c.get("/deptemps/2");
  CAF_CHECK_EQUAL(r.status, 200);
  CAF_CHECK_EQUAL(r.body, body_of(2));
  CAF_CHECK_EQUAL(c.connects(), 1u);
}

CAF_TEST(timeouts keep one timer per connection working) {
  // many lookups on one connection, then one that times out: the lazily
  // re-armed timer must still fire at the right time
  auto c = client();
  for (int i = 0; i < 50; ++i)
    CAF_REQUIRE_EQUAL(c.get("/deptemps/" + std::to_string(100 + i)).status, 200);
  std::this_thread::sleep_for(200ms); // the timer armed by the first lookup is due soon
  auto t0 = std::chrono::steady_clock::now();
  check_problem(c.get("/deptemps/903"), 504);
  auto took = std::chrono::steady_clock::now() - t0;
  CAF_CHECK_GREATER_OR_EQUAL(ms(took), 280);
  CAF_CHECK_LESS(ms(took), 2000);
  gw.release_parked();
}

CAF_TEST(an idle connection is closed after the read timeout) {
  auto o = test_options();
  o.read_timeout = 200ms;
  restart(o);
  auto c = client();
  CAF_REQUIRE(c.connect());
  auto t0 = std::chrono::steady_clock::now();
  CAF_CHECK(c.wait_closed_by_peer(3s));
  CAF_CHECK_LESS(ms(std::chrono::steady_clock::now() - t0), 2000);
  CAF_CHECK(eventually([&] { return srv->metrics().connections_open.load() == 0; }));
}

CAF_TEST(a trickled request is closed at its deadline however often bytes come) {
  auto o = test_options();
  o.read_timeout = 300ms;
  o.request_timeout = 600ms;
  restart(o);
  // One byte every 50 ms, well within the read timeout each time: before,
  // every read moved the deadline and the connection stayed open for ever.
  http_client c{port, 5s};
  CAF_REQUIRE(c.send_raw("GET /deptemps/77 HTTP/1.1\r\nHost: x\r\nX-S: a"));
  auto t0 = std::chrono::steady_clock::now();
  bool closed = false;
  while (std::chrono::steady_clock::now() - t0 < 4s) {
    std::this_thread::sleep_for(50ms);
    if (!c.send_raw("a")) {
      closed = true;
      break;
    }
    if (srv->metrics().request_timeouts.load() > 0 && c.wait_closed_by_peer(10ms)) {
      closed = true;
      break;
    }
  }
  CAF_CHECK(closed);
  CAF_CHECK_LESS(ms(std::chrono::steady_clock::now() - t0), 2000);
  CAF_CHECK_EQUAL(srv->metrics().request_timeouts.load(), 1u);
  // Empty lines do not hold an idle connection open either.
  http_client d{port, 5s};
  CAF_REQUIRE(d.connect());
  t0 = std::chrono::steady_clock::now();
  closed = false;
  while (std::chrono::steady_clock::now() - t0 < 4s) {
    std::this_thread::sleep_for(50ms);
    if (!d.send_raw("\r\n")) {
      closed = true;
      break;
    }
  }
  CAF_CHECK(closed);
  CAF_CHECK_LESS(ms(std::chrono::steady_clock::now() - t0), 2000);
  // A request that keeps up is answered, and the next one has its own deadline.
  http_client e{port, 5s};
  for (int i = 0; i < 3; ++i) {
    std::this_thread::sleep_for(200ms);
    CAF_CHECK_EQUAL(e.get("/deptemps/7").status, 200);
  }
  CAF_CHECK_EQUAL(e.connects(), 1u);
  CAF_CHECK(eventually([&] { return srv->metrics().connections_open.load() <= 1; }));
}

CAF_TEST(connections over max_connections get 503 and are closed) {
  auto o = test_options();
  o.max_connections = 2;
  restart(o);
  auto c1 = client();
  auto c2 = client();
  CAF_REQUIRE_EQUAL(c1.get("/health").status, 200);
  CAF_REQUIRE_EQUAL(c2.get("/health").status, 200);
  {
    auto c3 = client();
    auto r = c3.get("/health");
    check_problem(r, 503, "too many open connections");
    CAF_CHECK(r.closes_connection());
  }
  {
    // a client that sends nothing still gets the answer
    auto c4 = client();
    CAF_REQUIRE(c4.connect());
    auto r = c4.read_response();
    check_problem(r, 503);
  }
  CAF_CHECK_EQUAL(srv->metrics().connections_rejected.load(), 2u);
  CAF_CHECK_EQUAL(srv->metrics().connections_open.load(), 2);
  // the admitted ones still work; once one closes, a new one is admitted
  CAF_CHECK_EQUAL(c1.get("/deptemps/1").status, 200);
  c2.close();
  CAF_CHECK(eventually([&] {
    auto c5 = client();
    return c5.get("/health").status == 200;
  }));
}

CAF_TEST(past the lingering rejections a connection over the limit still gets its 503) {
  auto o = test_options();
  o.max_connections = 1;
  o.max_lingering_rejections = 0; // every rejection answered as it is accepted
  restart(o);
  auto c1 = client();
  CAF_REQUIRE_EQUAL(c1.get("/health").status, 200);
  for (int i = 0; i < 5; ++i) {
    auto c = client();
    auto r = c.get("/health");
    check_problem(r, 503, "too many open connections");
    CAF_CHECK(r.closes_connection());
    CAF_CHECK(r.has_header("X-Request-Id"));
    CAF_CHECK(c.wait_closed_by_peer(3s));
  }
  {
    // a client that sends nothing gets it too
    auto c = client();
    CAF_REQUIRE(c.connect());
    check_problem(c.read_response(), 503);
  }
  CAF_CHECK_EQUAL(srv->metrics().connections_rejected.load(), 6u);
  CAF_CHECK_EQUAL(srv->metrics().connections_open.load(), 1);
  CAF_CHECK_EQUAL(c1.get("/deptemps/1").status, 200);
}

/// A PROXY v2 header for a TCP/IPv4 client `a.b.c.d` (HAProxy's send-proxy-v2).
std::string proxy_v2_from(std::array<uint8_t, 4> client, uint8_t command = 1) {
  std::string h{"\r\n\r\n\0\r\nQUIT\n", 12};
  h.push_back(static_cast<char>(0x20 | command));
  h.push_back('\x11'); // TCP over IPv4
  h.push_back('\0');
  h.push_back('\x0c');
  h.append(reinterpret_cast<const char*>(client.data()), 4);
  h.append("\x7f\0\0\x01\x30\x39\x1f\x90", 8); // destination 127.0.0.1, ports
  return h;
}

CAF_TEST(a client address at its cap sheds its connection idle longest for a new one) {
  auto o = test_options();
  o.exempt_addresses = {}; // loopback clients stand for clients elsewhere
  o.max_connections_per_address = 3;
  restart(o);
  http_client c1{port, 5s}, c2{port, 5s}, c3{port, 5s};
  for (auto* c : {&c1, &c2, &c3}) {
    CAF_REQUIRE_EQUAL(c->get("/health").status, 200);
    std::this_thread::sleep_for(30ms); // idle since distinct instants (a coarse clock)
  }
  http_client c4{port, 5s};
  CAF_CHECK_EQUAL(c4.get("/health").status, 200);
  CAF_CHECK(c1.wait_closed_by_peer(3s)); // idle longest
  CAF_CHECK_EQUAL(srv->metrics().connections_shed.load(), 1u);
  for (auto* c : {&c2, &c3, &c4}) {
    CAF_CHECK_EQUAL(c->get("/health").status, 200);
    CAF_CHECK_EQUAL(c->connects(), 1u);
  }
  // Another client address has its own places: no one is shed for it.
  std::vector<std::unique_ptr<http_client>> elsewhere;
  for (int i = 0; i < 3; ++i) {
    elsewhere.push_back(std::make_unique<http_client>(port, 5s));
    elsewhere.back()->set_source("127.0.0.2");
    CAF_CHECK_EQUAL(elsewhere.back()->get("/health").status, 200);
  }
  for (auto* c : {&c2, &c3, &c4})
    CAF_CHECK_EQUAL(c->get("/health").status, 200);
  for (auto* c : {&c2, &c3, &c4})
    CAF_CHECK_EQUAL(c->connects(), 1u);
  CAF_CHECK_EQUAL(srv->metrics().connections_shed.load(), 1u);
}

CAF_TEST(a stalled sender is shed before a busy connection and an address with every connection busy gets 429) {
  auto o = test_options();
  o.exempt_addresses = {}; // loopback clients stand for clients elsewhere
  o.max_connections_per_address = 2;
  o.lookup_timeout = 4s;
  restart(o);
  http_client stalled{port, 5s}, busy{port, 5s};
  CAF_REQUIRE(stalled.send_raw("GET /health HTTP/1.1\r\nHo"));
  CAF_REQUIRE(busy.send_raw("GET /deptemps/905 HTTP/1.1\r\nHost: x\r\n\r\n")); // its lookup never answers
  CAF_REQUIRE(eventually([&] { return gw.parked_count() == 1; }));
  http_client fresh{port, 5s};
  CAF_CHECK_EQUAL(fresh.get("/health").status, 200);
  CAF_CHECK(stalled.wait_closed_by_peer(3s));
  CAF_REQUIRE(fresh.send_raw("GET /deptemps/906 HTTP/1.1\r\nHost: x\r\n\r\n"));
  CAF_REQUIRE(eventually([&] { return gw.parked_count() == 2; }));
  http_client refused{port, 5s};
  auto r = refused.get("/health");
  check_problem(r, 429, "http.max-connections-per-address");
  CAF_CHECK(r.closes_connection());
  CAF_CHECK_EQUAL(srv->metrics().connections_refused_per_address.load(), 1u);
  CAF_CHECK_EQUAL(srv->metrics().connections_shed.load(), 1u);
  // The busy ones were never cut: their answers come.
  CAF_CHECK_EQUAL(gw.release_parked(), 2u);
  CAF_CHECK_EQUAL(busy.read_response().status, 200);
  CAF_CHECK_EQUAL(fresh.read_response().status, 200);
}

CAF_TEST(a trusted balancer names the client the cap counts and its own connections are not capped) {
  auto o = test_options();
  o.exempt_addresses = {}; // loopback clients stand for clients elsewhere
  std::string why;
  o.trusted_proxies = *ip_network_list::parse("127.0.0.1", why);
  o.max_connections_per_address = 1;
  restart(o);
  http_client a{port, 5s}, b{port, 5s};
  CAF_REQUIRE(a.send_raw(proxy_v2_from({192, 0, 2, 1})));
  CAF_CHECK_EQUAL(a.get("/health").status, 200);
  CAF_REQUIRE(b.send_raw(proxy_v2_from({192, 0, 2, 2})));
  CAF_CHECK_EQUAL(b.get("/health").status, 200);
  CAF_CHECK_EQUAL(a.get("/health").status, 200); // another client: a was not shed
  CAF_CHECK_EQUAL(a.connects(), 1u);
  http_client c{port, 5s};
  CAF_REQUIRE(c.send_raw(proxy_v2_from({192, 0, 2, 1})));
  CAF_CHECK_EQUAL(c.get("/health").status, 200);
  CAF_CHECK(a.wait_closed_by_peer(3s)); // the same client: its idle connection made room
  CAF_CHECK_EQUAL(srv->metrics().connections_proxied.load(), 3u);
  // The balancer's own connections (no header, or LOCAL) are its own and
  // not capped: health checks and local tools.
  std::vector<std::unique_ptr<http_client>> own;
  for (int i = 0; i < 4; ++i) {
    own.push_back(std::make_unique<http_client>(port, 5s));
    if (i == 3)
      CAF_REQUIRE(own.back()->send_raw(proxy_v2_from({0, 0, 0, 0}, 0)));
    CAF_CHECK_EQUAL(own.back()->get("/health").status, 200);
  }
  for (auto& one : own) {
    CAF_CHECK_EQUAL(one->get("/health").status, 200);
    CAF_CHECK_EQUAL(one->connects(), 1u);
  }
  // A header that cannot be taken is refused.
  http_client bad{port, 5s};
  auto version_one = proxy_v2_from({192, 0, 2, 3});
  version_one[12] = '\x11';
  CAF_REQUIRE(bad.send_raw(version_one));
  auto r = bad.read_response();
  check_problem(r, 400, "PROXY protocol");
  CAF_CHECK(r.closes_connection());
  // From a peer not trusted, a header is just bytes that are not HTTP.
  http_client stranger{port, 5s};
  stranger.set_source("127.0.0.2");
  CAF_REQUIRE(stranger.send_raw(proxy_v2_from({192, 0, 2, 1})));
  check_problem(stranger.read_response(), 400);
  CAF_CHECK_EQUAL(srv->metrics().connections_proxied.load(), 3u);
}

CAF_TEST(this hosts own addresses are limited neither in connections nor in wrong tokens) {
  auto o = test_options(); // exempt_addresses: loopback, by default
  o.max_connections_per_address = 1;
  o.write_token = "a-token-of-enough-bytes";
  restart(o);
  std::vector<std::unique_ptr<http_client>> local;
  for (int i = 0; i < 4; ++i) {
    local.push_back(std::make_unique<http_client>(port, 5s));
    CAF_CHECK_EQUAL(local.back()->get("/health").status, 200);
  }
  for (auto& c : local) {
    CAF_CHECK_EQUAL(c->get("/health").status, 200);
    CAF_CHECK_EQUAL(c->connects(), 1u);
  }
  for (int i = 0; i < 15; ++i)
    CAF_CHECK_EQUAL(local[0]->request("DELETE", "/depts/7", {{"Authorization", "Bearer wrong"}}).status, 401);
  CAF_CHECK_EQUAL(srv->metrics().connections_shed.load(), 0u);
  CAF_CHECK_EQUAL(srv->metrics().credentials_throttled.load(), 0u);
}

CAF_TEST(wrong tokens from one address are slowed without slowing another) {
  auto o = test_options();
  o.exempt_addresses = {}; // loopback clients stand for clients elsewhere
  o.write_token = "a-token-of-enough-bytes";
  restart(o);
  const std::string dept = R"({"deptNumber":7,"deptName":"X","deptLocation":"Y","emps":[]})";
  auto put = [&](http_client& c, std::string_view token) {
    header_list h{{"Content-Type", "application/json"}};
    if (!token.empty())
      h.push_back({"Authorization", "Bearer " + std::string{token}});
    return c.request("PUT", "/depts/7", h, dept);
  };
  http_client guesser{port, 5s};
  // No token at all is a client that forgot it, not a guess.
  for (int i = 0; i < 15; ++i)
    CAF_CHECK_EQUAL(put(guesser, "").status, 401);
  for (int i = 0; i < 10; ++i)
    check_problem(put(guesser, "guess-" + std::to_string(i)), 401);
  auto r = put(guesser, "guess-10");
  check_problem(r, 429, "one more may be tried each second");
  // While slowed the token is not even compared: the right one waits too.
  check_problem(put(guesser, o.write_token), 429);
  http_client other{port, 5s};
  other.set_source("127.0.0.2");
  CAF_CHECK_EQUAL(put(other, o.write_token).status, 204);
  CAF_CHECK_EQUAL(srv->metrics().credentials_throttled.load(), 2u);
  CAF_CHECK_EQUAL(gw.writes.load(), 1u);
}

CAF_TEST(stop while a lookup is pending neither hangs nor crashes) {
  auto o = test_options();
  o.lookup_timeout = 10s;
  o.drain_timeout = 300ms;
  restart(o);
  http_response pending_answer;
  auto c = client();
  CAF_REQUIRE(c.connect());
  auto idle = client();
  CAF_REQUIRE_EQUAL(idle.get("/health").status, 200);
  std::thread t([&] { pending_answer = c.get("/deptemps/950"); });
  CAF_REQUIRE(eventually([&] { return gw.parked_count() == 1; }));
  auto t0 = std::chrono::steady_clock::now();
  srv->stop();
  auto took = std::chrono::steady_clock::now() - t0;
  t.join();
  CAF_CHECK_LESS(ms(took), 3000);
  CAF_CHECK_GREATER_OR_EQUAL(ms(took), 250); // it did wait for the response in flight
  check_problem(pending_answer, 503, "shutting down");
  CAF_CHECK(idle.wait_closed_by_peer(1s));
  // the late reply arrives after stop(): harmless
  CAF_CHECK_EQUAL(gw.release_parked(), 1u);
  srv->stop(); // twice is fine
  // new connections are refused now
  auto late = client();
  CAF_CHECK(!late.connect() || late.get("/health").status == 0);
  // and after the server is gone
  srv.reset();
  CAF_CHECK_EQUAL(gw.release_parked(), 0u);
}

CAF_TEST(replies arriving after the server is destroyed are harmless) {
  auto o = test_options();
  o.lookup_timeout = 10s;
  o.drain_timeout = 100ms;
  restart(o);
  std::vector<std::thread> threads;
  std::vector<std::unique_ptr<http_client>> clients;
  for (int i = 0; i < 4; ++i)
    clients.push_back(std::make_unique<http_client>(port, 5s));
  for (int i = 0; i < 4; ++i)
    threads.emplace_back([&, i] { clients[i]->get("/deptemps/" + std::to_string(960 + i)); });
  CAF_REQUIRE(eventually([&] { return gw.parked_count() == 4; }));
  srv.reset(); // ~server stops
  for (auto& t : threads)
    t.join();
  CAF_CHECK_EQUAL(gw.release_parked(), 4u);
}

CAF_TEST(stop finishes a response in flight) {
  auto o = test_options();
  o.lookup_timeout = 10s;
  o.drain_timeout = 3s;
  restart(o);
  http_response answer;
  auto c = client();
  std::thread t([&] { answer = c.get("/deptemps/970"); });
  CAF_REQUIRE(eventually([&] { return gw.parked_count() == 1; }));
  std::thread replier([this] {
    std::this_thread::sleep_for(100ms);
    gw.release_parked();
  });
  auto t0 = std::chrono::steady_clock::now();
  srv->stop();
  auto took = std::chrono::steady_clock::now() - t0;
  t.join();
  replier.join();
  CAF_CHECK_EQUAL(answer.status, 200); // the reply came within drain_timeout
  CAF_CHECK_EQUAL(answer.body, body_of(970));
  CAF_CHECK_EQUAL(answer.header_or_empty("Connection"), "close");
  CAF_CHECK_LESS(ms(took), 2000);
}

CAF_TEST(concurrent clients) {
  constexpr int n_threads = 4;
  constexpr int per_thread = 250;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < n_threads; ++t)
    threads.emplace_back([&, t] {
      http_client c{port, 5s};
      for (int i = 0; i < per_thread; ++i) {
        int id = 1 + (t * 37 + i) % 199;
        auto r = c.get("/deptemps/" + std::to_string(id));
        if (r.status != 200 || r.body != body_of(id))
          failures.fetch_add(1);
      }
    });
  for (auto& th : threads)
    th.join();
  CAF_CHECK_EQUAL(failures.load(), 0);
  CAF_CHECK_GREATER_OR_EQUAL(srv->metrics().responses(2), uint64_t(n_threads * per_thread));
}

CAF_TEST(metrics count requests by route and status) {
  auto c = client();
  c.get("/deptemps/1");
  c.get("/deptemps/1", {{"If-None-Match", "*"}});
  c.get("/nowhere");
  c.get("/deptemps/503");
  auto& m = srv->metrics();
  CAF_CHECK_EQUAL(m.responses(2), 1u);
  CAF_CHECK_EQUAL(m.responses(3), 1u);
  CAF_CHECK_EQUAL(m.responses(4), 1u);
  CAF_CHECK_EQUAL(m.responses(5), 1u);
  CAF_CHECK_EQUAL(m.requests(), 4u);
  CAF_CHECK_EQUAL(m.connections_open.load(), 1);
  std::string text;
  m.append_prometheus(text);
  CAF_CHECK(contains(text, "restcache_http_requests_total{method=\"GET\",route=\"/deptemps/{id}\",status=\"200\"} 1\n"));
  CAF_CHECK(contains(text, "restcache_http_requests_total{method=\"GET\",route=\"/deptemps/{id}\",status=\"304\"} 1\n"));
  CAF_CHECK(contains(text, "restcache_http_requests_total{method=\"GET\",route=\"/deptemps/{id}\",status=\"503\"} 1\n"));
  CAF_CHECK(contains(text, "restcache_http_requests_total{method=\"\",route=\"not_found\",status=\"404\"} 1\n"));
  CAF_CHECK(contains(text, "restcache_http_request_duration_seconds_count{method=\"GET\",route=\"/deptemps/{id}\"} 3\n"));
  CAF_CHECK(contains(text, "restcache_http_request_duration_seconds_bucket{method=\"GET\",route=\"/deptemps/{id}\",le=\"+Inf\"} 3\n"));
  CAF_CHECK(contains(text, "restcache_http_connections_open 1\n"));
}

CAF_TEST(start reports a port in use clearly) {
  auto o = test_options();
  o.port = port; // taken by the fixture's server
  server other{o, gw};
  try {
    other.start();
    CAF_FAIL("start() on a used port did not throw");
  } catch (const std::runtime_error& e) {
    std::string what = e.what();
    CAF_CHECK(contains(what, "bind"));
    CAF_CHECK(contains(what, "127.0.0.1:" + std::to_string(port)));
  }
  o.port = 0;
  o.address = "not an address";
  server bad{o, gw};
  try {
    bad.start();
    CAF_FAIL("start() with a bad address did not throw");
  } catch (const std::runtime_error& e) {
    CAF_CHECK(contains(e.what(), "not an address"));
  }
}

CAF_TEST_FIXTURE_SCOPE_END()
