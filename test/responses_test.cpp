// SPDX-License-Identifier: Apache-2.0
#define CAF_SUITE responses

#include "http/responses.hpp"

#include <caf/test/dsl.hpp>

#include "test/fixtures/test_support.hpp"

#include <string>

using namespace restcache;
using namespace restcache::http;

namespace {

std::string str(std::string_view s) {
  return std::string{s};
}

} // namespace

CAF_TEST(rc_error maps to the documented statuses) {
  CAF_CHECK_EQUAL(http_status_of(rc_error::none), 200u);
  CAF_CHECK_EQUAL(http_status_of(rc_error::not_found), 404u);
  CAF_CHECK_EQUAL(http_status_of(rc_error::bad_request), 400u);
  CAF_CHECK_EQUAL(http_status_of(rc_error::db_unavailable), 503u);
  CAF_CHECK_EQUAL(http_status_of(rc_error::db_timeout), 504u);
  CAF_CHECK_EQUAL(http_status_of(rc_error::overloaded), 503u);
  CAF_CHECK_EQUAL(http_status_of(rc_error::internal), 500u);
  CAF_CHECK_EQUAL(http_status_of(static_cast<rc_error>(200)), 500u);
}

CAF_TEST(every error has a detail) {
  for (auto e : {rc_error::not_found, rc_error::bad_request, rc_error::db_unavailable,
                 rc_error::db_timeout, rc_error::overloaded, rc_error::internal})
    CAF_CHECK(!default_detail(e).empty());
}

CAF_TEST(titles are the reason phrases) {
  CAF_CHECK_EQUAL(str(status_title(200)), "OK");
  CAF_CHECK_EQUAL(str(status_title(304)), "Not Modified");
  CAF_CHECK_EQUAL(str(status_title(400)), "Bad Request");
  CAF_CHECK_EQUAL(str(status_title(404)), "Not Found");
  CAF_CHECK_EQUAL(str(status_title(405)), "Method Not Allowed");
  CAF_CHECK_EQUAL(str(status_title(413)), "Content Too Large");
  CAF_CHECK_EQUAL(str(status_title(431)), "Request Header Fields Too Large");
  CAF_CHECK_EQUAL(str(status_title(500)), "Internal Server Error");
  CAF_CHECK_EQUAL(str(status_title(503)), "Service Unavailable");
  CAF_CHECK_EQUAL(str(status_title(504)), "Gateway Timeout");
  CAF_CHECK_EQUAL(str(status_title(403)), "Forbidden");
  CAF_CHECK_EQUAL(str(status_title(417)), "Expectation Failed");
  CAF_CHECK_EQUAL(str(status_title(308)), "Permanent Redirect");
  // Every status a problem is made with has its title, never "Unknown".
  for (unsigned status : {308u, 400u, 401u, 403u, 404u, 405u, 408u, 409u, 411u, 412u, 413u, 414u, 415u, 417u, 422u,
                          428u, 429u, 431u, 500u, 501u, 502u, 503u, 504u, 505u})
    CHECK_SAYING(str(status_title(status)) != "Unknown", status);
}

CAF_TEST(only 503 carries retry after) {
  CAF_CHECK(carries_retry_after(503));
  for (unsigned s : {200u, 304u, 400u, 404u, 405u, 413u, 500u, 504u})
    CAF_CHECK(!carries_retry_after(s));
  CAF_CHECK_EQUAL(str(retry_after_seconds), "1");
}

CAF_TEST(problem json has the RFC 9457 members in a fixed order) {
  CAF_CHECK_EQUAL(problem_json(404, "department 7 does not exist"),
                  R"({"type":"about:blank","title":"Not Found","status":404,)"
                  R"("detail":"department 7 does not exist"})");
  CAF_CHECK_EQUAL(problem_json(503, ""),
                  R"({"type":"about:blank","title":"Service Unavailable","status":503,"detail":""})");
}

CAF_TEST(problem json escapes the detail) {
  CAF_CHECK_EQUAL(problem_json(400, "a \"quoted\" \\ and\nnew line \x01"),
                  R"({"type":"about:blank","title":"Bad Request","status":400,)"
                  R"("detail":"a \"quoted\" \\ and\nnew line \u0001"})");
}

CAF_TEST(append_problem_json appends) {
  std::string out = "prefix";
  append_problem_json(out, 500, "x");
  CAF_CHECK_EQUAL(out, R"(prefix{"type":"about:blank","title":"Internal Server Error","status":500,"detail":"x"})");
}

CAF_TEST(make_problem from rc_error) {
  auto p = make_problem(rc_error::overloaded);
  CAF_CHECK_EQUAL(p.status, 503u);
  CAF_CHECK(p.retry_after);
  CAF_CHECK_EQUAL(p.body, problem_json(503, default_detail(rc_error::overloaded)));
  p = make_problem(rc_error::db_unavailable, "no connection");
  CAF_CHECK_EQUAL(p.status, 503u);
  CAF_CHECK(p.retry_after);
  CAF_CHECK_EQUAL(p.body, problem_json(503, "no connection"));
  p = make_problem(rc_error::db_timeout);
  CAF_CHECK_EQUAL(p.status, 504u);
  CAF_CHECK(!p.retry_after);
  p = make_problem(rc_error::not_found, "gone");
  CAF_CHECK_EQUAL(p.status, 404u);
  CAF_CHECK(!p.retry_after);
  CAF_CHECK_EQUAL(p.body, problem_json(404, "gone"));
  p = make_problem(405, "only GET");
  CAF_CHECK_EQUAL(p.status, 405u);
  CAF_CHECK(!p.retry_after);
}

CAF_TEST(if none match uses the weak comparison) {
  const std::string_view etag = "\"0123456789abcdef\"";
  CAF_CHECK(if_none_match_matches("\"0123456789abcdef\"", etag));
  CAF_CHECK(if_none_match_matches("W/\"0123456789abcdef\"", etag));
  CAF_CHECK(if_none_match_matches("\"0123456789abcdef\"", "W/\"0123456789abcdef\""));
  CAF_CHECK(if_none_match_matches("*", etag));
  CAF_CHECK(if_none_match_matches("  *  ", etag));
  CAF_CHECK(!if_none_match_matches("\"other\"", etag));
  CAF_CHECK(!if_none_match_matches("", etag));
  CAF_CHECK(!if_none_match_matches("0123456789abcdef", etag)); // unquoted is not a match
  CAF_CHECK(!if_none_match_matches("\"0123456789abcdef", etag)); // unterminated
  CAF_CHECK(!if_none_match_matches("\"0123456789abcde\"", etag)); // prefix
  CAF_CHECK(!if_none_match_matches("w/\"0123456789abcdef\"", etag)); // W is case-sensitive
}

CAF_TEST(if none match lists) {
  const std::string_view etag = "\"abc\"";
  CAF_CHECK(if_none_match_matches("\"x\", \"abc\"", etag));
  CAF_CHECK(if_none_match_matches("\"x\",\"abc\"", etag));
  CAF_CHECK(if_none_match_matches("\"x\" ,\t W/\"abc\" , \"y\"", etag));
  CAF_CHECK(if_none_match_matches(",,\"abc\",,", etag));
  CAF_CHECK(if_none_match_matches("\"a,b\", \"abc\"", etag)); // comma inside an etag
  CAF_CHECK(!if_none_match_matches("\"a,b\", \"abd\"", etag));
  CAF_CHECK(if_none_match_matches("garbage, \"abc\"", etag)); // malformed members are skipped
  CAF_CHECK(if_none_match_matches("\"x\", *", etag));
  CAF_CHECK(!if_none_match_matches("*x, \"y\"", etag));
  CAF_CHECK(!if_none_match_matches("\"x\", \"y\"", etag));
}

CAF_TEST(fixed bodies and types) {
  CAF_CHECK_EQUAL(str(health_body), R"({"status":"ok"})");
  CAF_CHECK_EQUAL(str(content_type_problem), "application/problem+json");
  CAF_CHECK_EQUAL(str(content_type_json), "application/json");
  CAF_CHECK_EQUAL(str(content_type_metrics), "text/plain; version=0.0.4");
}
