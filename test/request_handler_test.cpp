// SPDX-License-Identifier: Apache-2.0
#define CAF_SUITE request_handler

// The request handler and the wire format without sockets: a request head in,
// a reply value (and its serialized header) out.

#include "http/request_handler.hpp"

#include <caf/test/dsl.hpp>

#include <string>
#include <vector>

#include "demo/demo_actions.hpp"
#include "demo/demo_catalogue.hpp"
#include "http/http_metrics.hpp"
#include "http/server.hpp"
#include "http/wire_format.hpp"
#include "messages/document_encoder.hpp"
#include "messages/document_gzip.hpp"

using namespace restcache;
using namespace restcache::http;

namespace {

/// Answers from fixed values; remembers nothing but what the tests set. Its
/// actions are the demo's, unwired: what they answer at once is answered,
/// their work is never run.
class fixed_gateway : public cache_gateway {
public:
  void lookup(doc_key, reply_callback) override {}
  std::vector<readiness_check> readiness() const override { return checks; }
  std::string metrics_text() const override { return "# TYPE x counter\nx 1\n"; }
  action_start start_action(uint8_t action, const action_call& call) override {
    ++actions_started;
    return handlers.at(action)(call);
  }

  std::vector<readiness_check> checks{{"database", true, "up"}, {"listener", true, "caught up"}};
  demo::demo_actions actions{demo::demo_wiring{}};
  std::vector<action_handler> handlers = actions.handlers();
  int actions_started = 0;
};

struct fixture {
  fixture() { opts.write_token = "secret"; }

  request_head get(std::string target, std::string method = "GET") {
    request_head h;
    h.method = std::move(method);
    h.target = std::move(target);
    return h;
  }

  request_head write(std::string method, std::string target, std::string body) {
    request_head h = get(std::move(target), std::move(method));
    h.authorization = "Bearer secret";
    h.has_authorization = true;
    h.content_type = "application/json; charset=utf-8";
    h.has_content_type = true;
    h.body = std::move(body);
    h.body_framed = true;
    return h;
  }

  /// Keeps the request, as a session does: the state points into it until
  /// the reply is made.
  next_step start(request_head h) {
    req = std::move(h);
    out.clear();
    return handler.start(req, true, st, out);
  }

  std::string body() const { return std::string{out.body}; }

  server_options opts;
  fixed_gateway gateway;
  http_metrics metrics;
  request_handler handler{opts, gateway, metrics};
  request_head req;
  request_state st;
  reply out;
};

doc_ptr big_doc() {
  return make_doc(R"({"deptNumber":7,"deptName":")" + std::string(400, 'x') + R"(","deptLocation":"Y","emps":[]})");
}

} // namespace

CAF_TEST_FIXTURE_SCOPE(request_handler_tests, fixture)

CAF_TEST(health is answered at once with its fixed body) {
  CAF_REQUIRE(start(get("/health")) == next_step::reply);
  CAF_CHECK_EQUAL(out.status, 200u);
  CAF_CHECK_EQUAL(out.field("Content-Type"), "application/json");
  CAF_CHECK_EQUAL(out.field("Content-Length"), "15");
  CAF_CHECK_EQUAL(body(), std::string{health_body});
}

CAF_TEST(a document route asks for its key and answers the cached document) {
  CAF_REQUIRE(start(get("/depts/emps/12")) == next_step::lookup);
  CAF_CHECK(st.key.kind() == demo::emp_kind);
  CAF_CHECK_EQUAL(st.key.id(), 12);
  auto doc = make_doc(R"({"empNo":12})");
  CAF_REQUIRE(handler.on_lookup(lookup_result{rc_error::none, doc}, st, out) == next_step::reply);
  CAF_CHECK_EQUAL(out.status, 200u);
  CAF_CHECK(out.form == reply::shape::document);
  CAF_CHECK_EQUAL(body(), doc->body);
  CAF_CHECK(out.doc == doc); // the reply keeps the bytes its body points into
}

CAF_TEST(HEAD has the length of the document and no body) {
  CAF_REQUIRE(start(get("/deptemps/3", "HEAD")) == next_step::lookup);
  handler.on_lookup(lookup_result{rc_error::none, make_doc("{\"deptNumber\":3}")}, st, out);
  CAF_CHECK(out.form == reply::shape::document);
  CAF_CHECK(out.body.empty());
  std::string head;
  serialize_head(head, out, 11, "id1", true);
  CAF_CHECK(head.find("Content-Length: 16\r\n") != std::string::npos);
}

CAF_TEST(If-None-Match with the ETag answers 304 and counts it) {
  auto doc = make_doc("{\"deptNumber\":4}");
  auto h = get("/deptemps/4");
  h.if_none_match = "\"nope\", " + doc->etag;
  h.has_if_none_match = true;
  start(h);
  handler.on_lookup(lookup_result{rc_error::none, doc}, st, out);
  CAF_CHECK_EQUAL(out.status, 304u);
  CAF_CHECK_EQUAL(out.field("ETag"), doc->etag);
  CAF_CHECK(out.body.empty());
  CAF_CHECK_EQUAL(metrics.not_modified.load(), 1u);
}

CAF_TEST(a client accepting gzip gets the compressed variant with its own ETag) {
  auto h = get("/deptemps/7");
  h.accept_encoding = "gzip";
  h.has_accept_encoding = true;
  CAF_REQUIRE(start(h) == next_step::lookup);
  CAF_CHECK(st.gzip);
  auto doc = big_doc();
  handler.on_lookup(lookup_result{rc_error::none, doc}, st, out);
  CAF_CHECK(out.form == reply::shape::fields);
  CAF_CHECK_EQUAL(out.field("Content-Encoding"), "gzip");
  CAF_CHECK_EQUAL(out.field("ETag"), gzip_etag(doc->etag));
  CAF_CHECK_LESS(out.body.size(), doc->body.size());
  CAF_CHECK_EQUAL(out.field("Content-Length"), std::to_string(out.body.size()));
}

CAF_TEST(a missing document names what is missing) {
  start(get("/depts/emps/5"));
  handler.on_lookup(lookup_result{rc_error::not_found, nullptr}, st, out);
  CAF_CHECK_EQUAL(out.status, 404u);
  CAF_CHECK_EQUAL(out.field("Content-Type"), "application/problem+json");
  CAF_CHECK(body().find("employee 5 does not exist") != std::string::npos);
}

CAF_TEST(a lookup without error and without document is an internal error) {
  start(get("/deptemps/5"));
  handler.on_lookup(lookup_result{rc_error::none, nullptr}, st, out);
  CAF_CHECK_EQUAL(out.status, 500u);
}

CAF_TEST(an unavailable database answers 503 with Retry-After and its cause) {
  start(get("/deptemps/5"));
  handler.on_lookup(lookup_result{rc_error::db_unavailable, nullptr}, st, out);
  CAF_CHECK_EQUAL(out.status, 503u);
  CAF_CHECK_EQUAL(out.field("Retry-After"), std::string{retry_after_seconds});
  CAF_CHECK(body().find("the database ended the session of every try") != std::string::npos);
  gateway.checks[0] = {"database", false, "down"};
  start(get("/deptemps/5"));
  handler.on_lookup(lookup_result{rc_error::db_unavailable, nullptr}, st, out);
  CAF_CHECK(body().find("no connection to the database is up") != std::string::npos);
}

CAF_TEST(the random department skips ids deleted meanwhile and gives up after four) {
  gateway.actions.set_dept_ids(std::make_shared<const std::vector<int32_t>>(std::vector<int32_t>{10, 11, 12}));
  CAF_REQUIRE(start(get("/depts/random")) == next_step::lookup);
  auto drawn = [&] { return st.key.kind() == demo::deptemps_kind && st.key.id() >= 10 && st.key.id() <= 12; };
  CAF_CHECK(drawn());
  for (int i = 0; i < 3; ++i) {
    CAF_REQUIRE(handler.on_lookup(lookup_result{rc_error::not_found, nullptr}, st, out) == next_step::lookup);
    CAF_CHECK(drawn());
  }
  CAF_CHECK_EQUAL(gateway.actions_started, 4);
  CAF_CHECK(handler.on_lookup(lookup_result{rc_error::not_found, nullptr}, st, out) == next_step::reply);
  CAF_CHECK_EQUAL(out.status, 404u);
  CAF_CHECK_EQUAL(gateway.actions_started, 4);
}

CAF_TEST(a document an action names is looked up once when it does not ask again) {
  gateway.handlers[0] = [](const action_call&) {
    action_start s;
    s.answer.document = doc_key{demo::emp_kind, 5};
    return s;
  };
  CAF_REQUIRE(start(get("/depts")) == next_step::lookup);
  CAF_CHECK(st.key == (doc_key{demo::emp_kind, 5}));
  CAF_CHECK(handler.on_lookup(lookup_result{rc_error::not_found, nullptr}, st, out) == next_step::reply);
  CAF_CHECK_EQUAL(out.status, 404u);
  CAF_CHECK(body().find("employee 5 does not exist") != std::string::npos);
}

CAF_TEST(the random department before any id is loaded is 503) {
  CAF_REQUIRE(start(get("/depts/random")) == next_step::reply);
  CAF_CHECK_EQUAL(out.status, 503u);
}

CAF_TEST(readiness names the failing checks in both answers) {
  CAF_REQUIRE(start(get("/ready")) == next_step::reply);
  CAF_CHECK_EQUAL(out.status, 200u);
  CAF_CHECK_EQUAL(body(), R"({"status":"ready","checks":{"database":"up","listener":"caught up"}})");
  gateway.checks[1] = {"listener", false, "catching up"};
  start(get("/ready"));
  CAF_CHECK_EQUAL(out.status, 503u);
  CAF_CHECK(body().find("not ready: listener catching up") != std::string::npos);
  CAF_CHECK(body().ends_with(R"(,"checks":{"database":"up","listener":"catching up"}})"));
}

CAF_TEST(an action that reads hands its query to the work and answers its body) {
  std::string query_seen;
  gateway.handlers[0] = [&](const action_call& call) {
    query_seen = std::string{call.query};
    action_start s;
    s.work = [](action_callback) {};
    return s;
  };
  CAF_REQUIRE(start(get("/depts?after=10&limit=3")) == next_step::action);
  CAF_CHECK_EQUAL(query_seen, "after=10&limit=3");
  CAF_CHECK(static_cast<bool>(st.work));
  action_answer page;
  page.body = "[]";
  page.compressible = true;
  CAF_REQUIRE(handler.on_action(page, st, out) == next_step::reply);
  CAF_CHECK_EQUAL(out.status, 200u);
  CAF_CHECK_EQUAL(out.field("Vary"), "Accept-Encoding");
  CAF_CHECK_EQUAL(out.field("Content-Type"), "application/json");
  CAF_CHECK_EQUAL(body(), "[]");
  // A big body is compressed for a client that takes gzip.
  auto h = get("/depts");
  h.accept_encoding = "gzip";
  h.has_accept_encoding = true;
  CAF_REQUIRE(start(h) == next_step::action);
  page.body = std::string(2000, 'x');
  handler.on_action(page, st, out);
  CAF_CHECK_EQUAL(out.field("Content-Encoding"), "gzip");
  CAF_CHECK_LESS(out.body.size(), 2000u);
}

CAF_TEST(a write needs the token) {
  auto h = write("PUT", "/depts/6", R"({"deptNumber":6,"deptName":"X","deptLocation":"Y"})");
  h.authorization = "Bearer wrong";
  CAF_REQUIRE(start(h) == next_step::reply);
  CAF_CHECK_EQUAL(out.status, 401u);
  CAF_CHECK_EQUAL(out.field("WWW-Authenticate"), "Bearer realm=\"restcache\"");
}

CAF_TEST(the bearer scheme is case insensitive and spaces around the token do not count) {
  auto h = write("DELETE", "/depts/6", "");
  for (std::string given : {"bearer secret", "BEARER secret", "Bearer   secret ", "Bearer secret"}) {
    CAF_MESSAGE("Authorization: " << given);
    h.authorization = given;
    CAF_CHECK(start(h) == next_step::action);
  }
  for (std::string given : {"Basic secret", "Bearersecret", "Bearer secrets", "Bearer", "secret"}) {
    CAF_MESSAGE("Authorization: " << given);
    h.authorization = given;
    CAF_REQUIRE(start(h) == next_step::reply);
    CAF_CHECK_EQUAL(out.status, 401u);
  }
}

CAF_TEST(closed writes are refused with or without the token) {
  opts.writes_closed = true;
  CAF_REQUIRE(start(write("DELETE", "/depts/6", "")) == next_step::reply);
  CAF_CHECK_EQUAL(out.status, 403u);
  opts.write_token.clear();
  CAF_REQUIRE(start(write("DELETE", "/depts/6", "")) == next_step::reply);
  CAF_CHECK_EQUAL(out.status, 403u);
}

CAF_TEST(open writes take only the Host names of the allow list) {
  opts.write_token.clear();
  auto with_host = [&](std::string host, unsigned fields = 1) {
    auto h = write("DELETE", "/depts/6", "");
    h.host = std::move(host);
    h.host_fields = fields;
    auto next = start(h);
    return next == next_step::action ? 0u : out.status;
  };
  CAF_CHECK_EQUAL(with_host("localhost"), 0u);
  CAF_CHECK_EQUAL(with_host("LocalHost:8080"), 0u);
  CAF_CHECK_EQUAL(with_host("127.0.0.1:8080"), 0u);
  CAF_CHECK_EQUAL(with_host("[::1]:8080"), 0u);
  CAF_CHECK_EQUAL(with_host("evil.example"), 403u); // DNS rebinding: the page's own name
  CAF_CHECK_EQUAL(with_host("evil.example:8080"), 403u);
  CAF_CHECK_EQUAL(with_host("localhost.evil.example"), 403u);
  CAF_CHECK_EQUAL(with_host("", 0), 403u); // HTTP/1.0 without Host
  opts.allowed_hosts = {"cache.internal"};
  CAF_CHECK_EQUAL(with_host("cache.internal:80"), 0u);
  CAF_CHECK_EQUAL(with_host("localhost"), 403u);
  opts.allowed_hosts = {"*"};
  CAF_CHECK_EQUAL(with_host("evil.example"), 0u);
  // With a token the token decides, whatever the Host.
  opts.write_token = "secret";
  opts.allowed_hosts = {"localhost"};
  CAF_CHECK_EQUAL(with_host("evil.example"), 0u);
}

CAF_TEST(metrics behind the token) {
  opts.metrics_need_token = true;
  CAF_REQUIRE(start(get("/metrics")) == next_step::reply);
  CAF_CHECK_EQUAL(out.status, 401u);
  auto h = get("/metrics");
  h.authorization = "Bearer secret";
  h.has_authorization = true;
  CAF_REQUIRE(start(h) == next_step::reply);
  CAF_CHECK_EQUAL(out.status, 200u);
}

CAF_TEST(a body is admitted only for a write that takes one and passes its checks) {
  auto admit = [&](request_head h, bool announces = true) {
    req = std::move(h);
    out.clear();
    bool ok = handler.admit_body(req, announces, st, out);
    if (!ok)
      CAF_CHECK(!st.keep_alive); // the body is never read: the connection must close
    return ok ? 0u : out.status;
  };
  const std::string dept = R"({"deptNumber":6,"deptName":"X","deptLocation":"Y"})";
  CAF_CHECK_EQUAL(admit(write("PUT", "/depts/6", dept)), 0u);
  CAF_CHECK_EQUAL(admit(write("POST", "/depts/emps", "{}")), 0u);
  CAF_CHECK_EQUAL(admit(get("/deptemps/77")), 413u); // a GET with a body: never read, never kept
  CAF_CHECK_EQUAL(admit(get("/health")), 413u);
  CAF_CHECK_EQUAL(admit(write("DELETE", "/depts/6", "x")), 413u);
  CAF_CHECK_EQUAL(admit(get("/nothing-here", "POST")), 404u);
  CAF_CHECK_EQUAL(admit(get("/deptemps/1", "POST")), 405u);
  CAF_CHECK_EQUAL(admit(get("/deptemps/x", "GET")), 400u);
  auto h = write("PUT", "/depts/6", dept);
  h.authorization = "Bearer wrong";
  CAF_CHECK_EQUAL(admit(h), 401u); // before a byte of the body is read
  h = write("PUT", "/depts/6", dept);
  h.content_type = "text/plain";
  CAF_CHECK_EQUAL(admit(h), 415u);
  h = write("PUT", "/depts/6", dept);
  h.expect = "100-continue";
  h.has_expect = true;
  CAF_CHECK_EQUAL(admit(h), 0u);
  h.expect = "something-else";
  CAF_CHECK_EQUAL(admit(h), 417u);
  auto g = get("/deptemps/7");
  g.expect = "100-continue";
  g.has_expect = true;
  CAF_CHECK_EQUAL(admit(g, false), 0u); // no body: the request is simply answered
}

CAF_TEST(a write body needs framing and JSON and must parse) {
  auto h = write("PUT", "/depts/6", "");
  h.body_framed = false;
  start(h);
  CAF_CHECK_EQUAL(out.status, 411u);
  h = write("PUT", "/depts/6", "x");
  h.content_type = "text/plain";
  start(h);
  CAF_CHECK_EQUAL(out.status, 415u);
  start(write("PUT", "/depts/6", R"({"deptNumber":6,)"));
  CAF_CHECK_EQUAL(out.status, 400u);
  start(write("PUT", "/depts/6", R"({"deptNumber":7,"deptName":"X","deptLocation":"Y"})"));
  CAF_CHECK_EQUAL(out.status / 100, 4u); // the body names another department than the path
}

CAF_TEST(a valid write goes to the gateway and a created one answers 201 with Location) {
  auto h = write("POST", "/depts", R"({"deptNumber":77,"deptName":"X","deptLocation":"Y"})");
  h.if_match = "\"abc\"";
  h.has_if_match = true;
  action_call seen;
  gateway.handlers[2] = [&, demo_handler = gateway.handlers[2]](const action_call& call) {
    seen = call;
    return demo_handler(call);
  };
  CAF_REQUIRE(start(h) == next_step::action);
  CAF_CHECK(seen.if_match.has_value());
  CAF_CHECK_EQUAL(seen.body, req.body);
  write_pool_outcome created;
  created.id = 77;
  created.created = true;
  CAF_REQUIRE(handler.on_action(demo::write_answer(demo::write_op::create_dept, created, true), st, out)
              == next_step::reply);
  CAF_CHECK_EQUAL(out.status, 201u);
  CAF_CHECK_EQUAL(out.field("Location"), "/depts/77");
  CAF_CHECK_EQUAL(body(), R"({"deptNumber":77})");
}

CAF_TEST(a delete answers 204 and a refused write its problem) {
  CAF_REQUIRE(start(write("DELETE", "/depts/emps/9", "")) == next_step::action);
  handler.on_action(demo::write_answer(demo::write_op::delete_emp, write_pool_outcome{}, true), st, out);
  CAF_CHECK_EQUAL(out.status, 204u);
  CAF_CHECK(out.fields.empty());
  out.clear();
  auto refused = write_pool_failure(rc_error::conflict);
  refused.detail = "employee 9 exists";
  handler.on_action(demo::write_answer(demo::write_op::delete_emp, refused, true), st, out);
  CAF_CHECK_EQUAL(out.status, 409u);
  CAF_CHECK(body().find("employee 9 exists") != std::string::npos);
}

CAF_TEST(unknown paths and methods are problems with Allow where it applies) {
  start(get("/nothing-here"));
  CAF_CHECK_EQUAL(out.status, 404u);
  start(get("/deptemps/1", "POST"));
  CAF_CHECK_EQUAL(out.status, 405u);
  CAF_CHECK(!out.field("Allow").empty());
  start(get("/deptemps/abc"));
  CAF_CHECK_EQUAL(out.status, 400u);
}

CAF_TEST(a sane request id is echoed and any other replaced) {
  auto h = get("/health");
  h.request_id = "abc-123:x.y_z";
  h.has_request_id = true;
  start(h);
  CAF_CHECK_EQUAL(st.request_id, "abc-123:x.y_z");
  h.request_id = "bad id";
  start(h);
  CAF_CHECK_EQUAL(st.request_id.size(), 15u);
  CAF_CHECK(st.request_id.find_first_not_of("0123456789abcdef") == std::string::npos);
  std::string other;
  request_handler::fresh_request_id(other);
  CAF_CHECK_NOT_EQUAL(other, st.request_id);
}

CAF_TEST(the wire format writes the fields in order after the fixed ones) {
  reply r;
  r.status = 201;
  r.add("Location", "/depts/5");
  r.add("Content-Length", "2");
  std::string head;
  serialize_head(head, r, 11, "rid", false);
  const std::string date{http_date()};
  CAF_CHECK_EQUAL(head, "HTTP/1.1 201 Created\r\nServer: restcache\r\nDate: " + date
                          + "\r\nX-Request-Id: rid\r\nLocation: /depts/5\r\nContent-Length: 2\r\n"
                            "Connection: close\r\n\r\n");
  serialize_head(head, r, 10, "rid", true);
  CAF_CHECK(head.starts_with("HTTP/1.0 201 Created\r\n"));
  CAF_CHECK(head.ends_with("Connection: keep-alive\r\n\r\n"));
}

CAF_TEST(the wire format writes a document with its ETag and length) {
  reply r;
  r.form = reply::shape::document;
  r.doc = make_doc("{\"deptNumber\":1}");
  r.body = r.doc->body;
  std::string head;
  serialize_head(head, r, 11, "rid", true);
  CAF_CHECK_EQUAL(head, "HTTP/1.1 200 OK\r\nServer: restcache\r\nContent-Type: application/json\r\n"
                        "Cache-Control: no-cache\r\nVary: Accept-Encoding\r\nETag: " + r.doc->etag
                          + "\r\nContent-Length: 16\r\nDate: " + std::string{http_date()}
                          + "\r\nX-Request-Id: rid\r\n\r\n");
}

CAF_TEST(a document answer carries its Cache-Status in the fixed header) {
  start(get("/deptemps/1"));
  handler.on_lookup(lookup_result{rc_error::none, make_doc("{\"deptNumber\":1}"), cache_status::memory}, st, out);
  CAF_REQUIRE(out.form == reply::shape::document);
  std::string head;
  serialize_head(head, out, 11, "rid", true);
  CAF_CHECK_EQUAL(head, "HTTP/1.1 200 OK\r\nServer: restcache\r\nContent-Type: application/json\r\n"
                        "Cache-Control: no-cache\r\nVary: Accept-Encoding\r\n"
                        "Cache-Status: restcache; hit; detail=memory\r\nETag: " + out.doc->etag
                          + "\r\nContent-Length: 16\r\nDate: " + std::string{http_date()}
                          + "\r\nX-Request-Id: rid\r\n\r\n");
  // Every status has its own fixed line.
  for (auto s : {cache_status::lmdb, cache_status::stored, cache_status::collapsed, cache_status::bypass}) {
    start(get("/deptemps/1"));
    handler.on_lookup(lookup_result{rc_error::none, make_doc("{\"deptNumber\":1}"), s}, st, out);
    serialize_head(head, out, 11, "rid", true);
    CAF_CHECK(head.find("\r\nCache-Status: " + std::string{cache_status_field(s)} + "\r\n") != std::string::npos);
  }
}

CAF_TEST(a stale answer carries Age and its Cache-Status and a gzip answer its Cache-Status too) {
  auto doc = big_doc();
  start(get("/deptemps/7"));
  handler.on_lookup(lookup_result{rc_error::none, doc, cache_status::stale_if_error, 42}, st, out);
  CAF_CHECK_EQUAL(out.status, 200u);
  CAF_CHECK(out.form == reply::shape::fields);
  CAF_CHECK_EQUAL(out.field("Cache-Status"), "restcache; hit; detail=stale-if-error");
  CAF_CHECK_EQUAL(out.field("Age"), "42");
  CAF_CHECK_EQUAL(body(), doc->body);
  CAF_CHECK_EQUAL(out.field("Content-Length"), std::to_string(doc->body.size()));
  auto h = get("/deptemps/7");
  h.accept_encoding = "gzip";
  h.has_accept_encoding = true;
  start(h);
  handler.on_lookup(lookup_result{rc_error::none, doc, cache_status::lmdb}, st, out);
  CAF_CHECK_EQUAL(out.field("Content-Encoding"), "gzip");
  CAF_CHECK_EQUAL(out.field("Cache-Status"), "restcache; hit; detail=lmdb");
  CAF_CHECK(out.field("Age").empty());
}

CAF_TEST(a remembered missing id is a 404 that says so and a 503 has no Cache-Status) {
  start(get("/deptemps/5000000"));
  handler.on_lookup(lookup_result{rc_error::not_found, nullptr, cache_status::negative}, st, out);
  CAF_CHECK_EQUAL(out.status, 404u);
  CAF_CHECK_EQUAL(out.field("Cache-Status"), "restcache; hit; detail=negative");
  start(get("/deptemps/5"));
  handler.on_lookup(lookup_result{rc_error::db_unavailable, nullptr}, st, out);
  CAF_CHECK_EQUAL(out.status, 503u);
  CAF_CHECK_EQUAL(out.field("Retry-After"), "1");
  CAF_CHECK(out.field("Cache-Status").empty());
}

CAF_TEST(no-cache is ignored by default) {
  for (std::string cc : {"no-cache", "max-age=0"}) {
    auto h = get("/deptemps/9");
    h.cache_control = cc;
    h.has_cache_control = true;
    CAF_REQUIRE(start(h) == next_step::lookup);
    CAF_CHECK(!st.refill);
  }
  auto h = get("/deptemps/9");
  h.pragma = "no-cache";
  h.has_pragma = true;
  CAF_REQUIRE(start(h) == next_step::lookup);
  CAF_CHECK(!st.refill);
}

CAF_TEST(no-cache in Cache-Control or Pragma asks for a refill when honoured) {
  opts.honour_no_cache = true;
  auto with = [&](std::string cc, std::string pragma) {
    auto h = get("/deptemps/9");
    if (!cc.empty()) {
      h.cache_control = cc;
      h.has_cache_control = true;
    }
    if (!pragma.empty()) {
      h.pragma = pragma;
      h.has_pragma = true;
    }
    CAF_REQUIRE(start(h) == next_step::lookup);
    return st.refill;
  };
  CAF_CHECK(!with("", ""));
  CAF_CHECK(with("no-cache", ""));
  CAF_CHECK(with("max-stale=5, No-Cache", ""));
  CAF_CHECK(with("max-age=0", ""));
  CAF_CHECK(with("max-age=\"0\"", ""));
  CAF_CHECK(!with("max-age=10", ""));
  CAF_CHECK(!with("no-store", ""));
  CAF_CHECK(!with("no-cachex", ""));
  CAF_CHECK(with("", "no-cache"));
  CAF_CHECK(!with("max-age=60", "no-cache")); // Pragma counts only without Cache-Control
}

CAF_TEST(connection lines follow the version defaults) {
  CAF_CHECK(connection_line(11, true).empty());
  CAF_CHECK(connection_line(10, false).empty());
  CAF_CHECK_EQUAL(connection_line(11, false), "Connection: close\r\n");
  CAF_CHECK_EQUAL(connection_line(10, true), "Connection: keep-alive\r\n");
}

CAF_TEST_FIXTURE_SCOPE_END()
