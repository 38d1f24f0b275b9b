// SPDX-License-Identifier: Apache-2.0
#define CAF_SUITE router

#include "http/router.hpp"

#include <caf/test/dsl.hpp>

#include <random>
#include <string>

#include "demo/demo_catalogue.hpp"
#include "demo/demo_routes.hpp"
#include "http/action_routes.hpp"
#include "test/fixtures/catalogue_guard.hpp"
#include "test/fixtures/test_support.hpp"

using namespace restcache;
using namespace restcache::http;

namespace {

std::string str(std::string_view s) {
  return std::string{s};
}

route get(const std::string& target) {
  return parse_route("GET", target);
}

/// Whether the route is the demo's action `d`.
bool is_action(const route& r, demo::demo_route d) {
  return r.kind == route_kind::action && r.action == static_cast<uint8_t>(d);
}

/// Installs action routes for one test and puts the demo's back after it.
struct action_routes_guard {
  explicit action_routes_guard(std::vector<action_route> routes) { install_action_routes(std::move(routes)); }
  ~action_routes_guard() { install_action_routes(demo::demo_action_routes()); }
};

action_route declared(action_method m, std::string path, bool keyed, std::string label) {
  action_route r;
  r.method = m;
  r.path = std::move(path);
  r.keyed = keyed;
  r.label = std::move(label);
  return r;
}

} // namespace

CAF_TEST(deptemps routes carry the id) {
  auto r = get("/deptemps/42");
  CAF_CHECK(r.kind == route_kind::document);
  CAF_CHECK(r.doc == demo::deptemps_kind);
  CAF_CHECK_EQUAL(r.id, 42);
  CAF_CHECK(!r.head);
  CAF_CHECK(r.detail.empty());
  r = get("/deptemps/1");
  CAF_CHECK(r.kind == route_kind::document);
  CAF_CHECK_EQUAL(r.id, 1);
  r = get("/deptemps/2147483647");
  CAF_CHECK(r.kind == route_kind::document);
  CAF_CHECK_EQUAL(r.id, 2147483647);
}

CAF_TEST(an id has one spelling: what is accepted is the decimal form of the id) {
  // A balancer hashing the path (deploy/haproxy.cfg) and the daemon must
  // agree on which document a path names: "077" and "77" cannot both be 77.
  CAF_CHECK(get("/deptemps/077").kind == route_kind::bad_request);
  CAF_CHECK(get("/deptemps/077").detail == to_detail(id_error::leading_zero));
  CAF_CHECK(get("/depts/emps/0761").kind == route_kind::bad_request);
  CAF_CHECK(get("/depts/01").kind == route_kind::bad_request);
  std::mt19937 rng{7};
  const std::string alphabet = "0123456789+- a";
  for (int i = 0; i < 20000; ++i) {
    std::string text;
    for (size_t n = 1 + rng() % 12; n > 0; --n)
      text += alphabet[rng() % (i % 2 == 0 ? 10 : alphabet.size())];
    auto [value, err] = parse_positive_id(text);
    if (err == id_error::none)
      CAF_CHECK_EQUAL(std::to_string(value), text);
  }
}

CAF_TEST(the fixed routes) {
  CAF_CHECK(is_action(get("/depts/random"), demo::demo_route::random_dept));
  CAF_CHECK(get("/health").kind == route_kind::health);
  CAF_CHECK(get("/ready").kind == route_kind::ready);
  CAF_CHECK(get("/metrics").kind == route_kind::metrics);
  CAF_CHECK(get("/openapi.json").kind == route_kind::openapi);
}

CAF_TEST(a query string is ignored) {
  auto r = get("/deptemps/12?fields=all&x=%20");
  CAF_CHECK(r.kind == route_kind::document);
  CAF_CHECK_EQUAL(r.id, 12);
  CAF_CHECK(get("/health?probe=1").kind == route_kind::health);
  CAF_CHECK(is_action(get("/depts/random?"), demo::demo_route::random_dept));
  CAF_CHECK(get("/metrics?name[]=x").kind == route_kind::metrics);
  // an empty id followed by a query is still an empty id
  CAF_CHECK(get("/deptemps/?id=3").kind == route_kind::bad_request);
}

CAF_TEST(absolute form targets are routed by their path) {
  auto r = get("http://localhost:8080/deptemps/5?x");
  CAF_CHECK(r.kind == route_kind::document);
  CAF_CHECK_EQUAL(r.id, 5);
  CAF_CHECK(get("HTTP://example.com/health").kind == route_kind::health);
  CAF_CHECK(get("http://example.com").kind == route_kind::not_found);
  CAF_CHECK(get("http://example.com?q").kind == route_kind::not_found);
}

CAF_TEST(head is allowed wherever get is) {
  for (auto target : {"/deptemps/3", "/depts/random", "/health", "/ready", "/metrics", "/depts/4",
                      "/depts", "/depts/emps/5"}) {
    auto g = parse_route("GET", target);
    auto h = parse_route("HEAD", target);
    CAF_CHECK(g.kind == h.kind);
    CAF_CHECK(h.head);
    CAF_CHECK(!g.head);
    CAF_CHECK_EQUAL(g.id, h.id);
  }
}

CAF_TEST(methods a path does not support are 405 with its allow list) {
  struct expectation {
    const char* target;
    const char* allow;
  };
  for (auto [target, allow] : {expectation{"/deptemps/3", "GET, HEAD"}, {"/health", "GET, HEAD"},
                               {"/ready", "GET, HEAD"}, {"/metrics", "GET, HEAD"},
                               {"/deptemps/abc", "GET, HEAD"}, {"/depts/random", "GET, HEAD, PUT"},
                               {"/depts/3", "GET, HEAD, PUT, DELETE"},
                               {"/depts/emps/3", "GET, HEAD, PUT, DELETE"},
                               {"/depts", "GET, HEAD, POST, PUT"}, {"/depts/emps", "POST"}}) {
    for (auto method : {"POST", "PUT", "DELETE", "PATCH", "OPTIONS", "get", "head", "TRACE", "GET"}) {
      auto r = parse_route(method, target);
      if (std::string_view{allow}.find(method) != std::string_view::npos
          && std::string_view{method} != "get" && std::string_view{method} != "head")
        continue; // supported
      CAF_CHECK(r.kind == route_kind::method_not_allowed);
      CAF_CHECK_EQUAL(str(r.allow), allow);
      CAF_CHECK(!r.detail.empty());
    }
  }
}

CAF_TEST(every method of the demo api routes to its document or its action) {
  using demo::demo_route;
  struct expectation {
    const char* method;
    const char* target;
    route_kind kind;
    int32_t id;
    doc_kind doc = {};
    demo_route action = demo_route::list_depts;
  };
  const auto action = route_kind::action;
  for (auto e : {expectation{"GET", "/depts/7", route_kind::document, 7, demo::dept_kind},
                 {"PUT", "/depts/7", action, 7, {}, demo_route::replace_dept},
                 {"PUT", "/depts", action, 0, {}, demo_route::replace_dept_by_body},
                 {"DELETE", "/depts/7", action, 7, {}, demo_route::delete_dept},
                 {"POST", "/depts", action, 0, {}, demo_route::create_dept},
                 {"GET", "/depts", action, 0, {}, demo_route::list_depts},
                 {"PUT", "/depts/random", action, 0, {}, demo_route::rewrite_random_dept},
                 {"GET", "/depts/emps/9", route_kind::document, 9, demo::emp_kind},
                 {"PUT", "/depts/emps/9", action, 9, {}, demo_route::replace_emp},
                 {"DELETE", "/depts/emps/9", action, 9, {}, demo_route::delete_emp},
                 {"POST", "/depts/emps", action, 0, {}, demo_route::create_emp}}) {
    CAF_MESSAGE(e.method << " " << e.target);
    auto r = parse_route(e.method, e.target);
    CAF_CHECK(r.kind == e.kind);
    CAF_CHECK_EQUAL(r.id, e.id);
    CAF_CHECK(r.doc == e.doc);
    if (e.kind == action) {
      CAF_CHECK_EQUAL(int(r.action), int(e.action));
      CAF_CHECK_EQUAL(action_routes().routes[r.action].writes, std::string_view{e.method} != "GET");
    }
  }
  CAF_CHECK(parse_route("DELETE", "/depts/x").kind == route_kind::bad_request);
  CAF_CHECK(parse_route("PUT", "/depts/0").kind == route_kind::bad_request);
  // Two paths of one label count as one route in /metrics.
  CAF_CHECK_EQUAL(parse_route("PUT", "/depts").action_metric, parse_route("PUT", "/depts/7").action_metric);
  CAF_CHECK_NOT_EQUAL(parse_route("PUT", "/depts").action_metric, parse_route("POST", "/depts").action_metric);
}

CAF_TEST(the department list reads after and limit and caps the limit) {
  auto q = demo::parse_page_query("after=40&limit=5");
  CAF_CHECK(q.error.empty());
  CAF_CHECK_EQUAL(q.after, 40);
  CAF_CHECK_EQUAL(q.limit, 5);
  q = demo::parse_page_query("");
  CAF_CHECK_EQUAL(q.after, 0);
  CAF_CHECK_EQUAL(q.limit, demo::default_page_limit);
  CAF_CHECK_EQUAL(demo::parse_page_query("limit=100000").limit, demo::max_page_limit);
  CAF_CHECK_EQUAL(demo::parse_page_query("limit=99999999999").limit, demo::max_page_limit);
  CAF_CHECK_EQUAL(demo::parse_page_query("after=0").after, 0);
  CAF_CHECK(is_action(get("/depts?after=40&limit=5"), demo::demo_route::list_depts));
  for (auto bad : {"/depts?after=-1", "/depts?limit=0", "/depts?limit=x", "/depts?page=2",
                   "/depts?after="}) {
    auto b = get(bad);
    CAF_CHECK(b.kind == route_kind::bad_request);
    CAF_CHECK(!b.detail.empty());
  }
  // Only the route that reads the query checks it.
  CAF_CHECK(parse_route("POST", "/depts?after=x").kind == route_kind::action);
}

CAF_TEST(action routes of any table: exact paths before prefixes and the longest prefix wins with one Allow per path) {
  action_routes_guard guard{{declared(action_method::post, "/orders", false, "/orders"),
                             declared(action_method::del, "/orders/", true, "/orders/{id}"),
                             declared(action_method::get, "/orders/open", false, "/orders/open"),
                             declared(action_method::put, "/deptemps/", true, "/deptemps/{id}"),
                             declared(action_method::get, "/lists/", true, "/lists/{id}")}};
  CAF_CHECK(parse_route("POST", "/orders").kind == route_kind::action);
  CAF_CHECK_EQUAL(parse_route("POST", "/orders").action, 0);
  auto del = parse_route("DELETE", "/orders/12");
  CAF_CHECK(del.kind == route_kind::action);
  CAF_CHECK_EQUAL(del.action, 1);
  CAF_CHECK_EQUAL(del.id, 12);
  CAF_CHECK_EQUAL(get("/orders/open").action, 2); // exact, not /orders/ with key "open"
  CAF_CHECK(parse_route("DELETE", "/orders/open").kind == route_kind::method_not_allowed);
  CAF_CHECK_EQUAL(str(parse_route("DELETE", "/orders/open").allow), "GET, HEAD");
  CAF_CHECK_EQUAL(str(get("/orders/12").allow), "DELETE"); // no document at /orders/
  CAF_CHECK_EQUAL(str(get("/orders").allow), "POST");
  // A keyed action at a document kind's route: GET is the document's.
  CAF_CHECK(get("/deptemps/5").kind == route_kind::document);
  CAF_CHECK(parse_route("PUT", "/deptemps/5").kind == route_kind::action);
  CAF_CHECK_EQUAL(str(parse_route("POST", "/deptemps/5").allow), "GET, HEAD, PUT");
  CAF_CHECK(parse_route("PUT", "/deptemps/x").kind == route_kind::bad_request);
  // A keyed GET action of its own; HEAD too.
  auto list = parse_route("HEAD", "/lists/3");
  CAF_CHECK(list.kind == route_kind::action);
  CAF_CHECK(list.head);
  CAF_CHECK_EQUAL(list.id, 3);
  CAF_CHECK(get("/lists/3/x").kind == route_kind::not_found);
  // The demo's paths are gone with its table.
  CAF_CHECK(parse_route("PUT", "/depts/7").kind == route_kind::method_not_allowed);
  CAF_CHECK(get("/depts").kind == route_kind::not_found);
  CAF_CHECK(get("/depts/random").kind == route_kind::bad_request); // the dept kind's route, key "random"
}

CAF_TEST(an action table that would break routing is refused) {
  auto refused = [](std::vector<action_route> routes) {
    try {
      install_action_routes(std::move(routes));
    } catch (const std::invalid_argument&) {
      return true;
    }
    install_action_routes(demo::demo_action_routes());
    return false;
  };
  CAF_CHECK(refused({declared(action_method::post, "orders", false, "x")}));
  CAF_CHECK(refused({declared(action_method::post, "/or ders", false, "x")}));
  CAF_CHECK(refused({declared(action_method::post, "/orders%20", false, "x")}));
  CAF_CHECK(refused({declared(action_method::del, "/orders", true, "x")})); // keyed without '/'
  CAF_CHECK(refused({declared(action_method::post, "/a", false, "x"), declared(action_method::post, "/a", false, "y")}));
  std::vector<action_route> many;
  for (int i = 0; i < 17; ++i)
    many.push_back(declared(action_method::post, "/a" + std::to_string(i), false, "/a" + std::to_string(i)));
  CAF_CHECK(refused(many));
  many.pop_back();
  CAF_CHECK(!refused(many));
  CAF_CHECK(is_action(get("/depts"), demo::demo_route::list_depts));
}

CAF_TEST(unknown paths are 404 whatever the method) {
  for (auto target : {"/", "", "*", "/deptemps", "/deptemps/1/2", "/deptemps/1/",
                      "/depts/random/", "/depts/5/", "/depts/emps/1/x", "/Health", "/health/", "/healthz",
                      "/metrics/x", "//deptemps/1", "/deptempsX/1", "deptemps/1"}) {
    auto r = get(target);
    CAF_CHECK(r.kind == route_kind::not_found);
    CAF_CHECK(!r.detail.empty());
    CAF_CHECK(parse_route("DELETE", target).kind == route_kind::not_found);
    CAF_CHECK(parse_route("HEAD", target).head); // a 404 to HEAD has no body either
  }
  CAF_CHECK(parse_route("HEAD", "/deptemps/x").head);
  CAF_CHECK(parse_route("HEAD", "/deptemps/x").kind == route_kind::bad_request);
}

CAF_TEST(bad ids are 400 with a detail naming the problem) {
  struct bad_case {
    const char* target;
    id_error err;
  };
  for (auto [target, err] : {
         bad_case{"/deptemps/", id_error::empty},
         bad_case{"/deptemps/-1", id_error::sign},
         bad_case{"/deptemps/+1", id_error::sign},
         bad_case{"/deptemps/-0", id_error::sign},
         bad_case{"/deptemps/ 1", id_error::space},
         bad_case{"/deptemps/1 ", id_error::space},
         bad_case{"/deptemps/1\t", id_error::space},
         bad_case{"/deptemps/%201", id_error::non_digit},
         bad_case{"/deptemps/%31", id_error::non_digit},
         bad_case{"/deptemps/abc", id_error::non_digit},
         bad_case{"/deptemps/12a", id_error::non_digit},
         bad_case{"/deptemps/1.0", id_error::non_digit},
         bad_case{"/deptemps/1e3", id_error::non_digit},
         bad_case{"/deptemps/0x10", id_error::non_digit},
         bad_case{"/deptemps/\xd9\xa3", id_error::non_digit}, // ARABIC-INDIC DIGIT THREE
         bad_case{"/deptemps/2147483648", id_error::overflow},
         bad_case{"/deptemps/4294967297", id_error::overflow},
         bad_case{"/deptemps/99999999999999999999999999", id_error::overflow},
         bad_case{"/deptemps/0", id_error::zero},
         bad_case{"/deptemps/0000", id_error::leading_zero},
         bad_case{"/deptemps/007", id_error::leading_zero},
         bad_case{"/deptemps/00000000000000000000000000000009", id_error::leading_zero},
       }) {
    CAF_MESSAGE("target " << target);
    auto r = get(target);
    CAF_CHECK(r.kind == route_kind::bad_request);
    CAF_CHECK(r.detail == to_detail(err));
    CAF_CHECK(!r.detail.empty());
    CAF_CHECK_EQUAL(r.id, 0);
  }
}

CAF_TEST(each id problem has its own detail) {
  auto all = {id_error::empty, id_error::sign, id_error::space, id_error::non_digit,
              id_error::overflow, id_error::zero, id_error::leading_zero};
  for (auto a : all)
    for (auto b : all)
      if (a != b)
        CAF_CHECK(to_detail(a) != to_detail(b));
  CAF_CHECK(to_detail(id_error::overflow).find("2147483647") != std::string_view::npos);
  CAF_CHECK(to_detail(id_error::sign).find("sign") != std::string_view::npos);
  CAF_CHECK(to_detail(id_error::space).find("space") != std::string_view::npos);
  CAF_CHECK(to_detail(id_error::empty).find("empty") != std::string_view::npos);
}

CAF_TEST(parse_positive_id boundaries) {
  CAF_CHECK_EQUAL(parse_positive_id("1").value, 1);
  CAF_CHECK(parse_positive_id("1").error == id_error::none);
  CAF_CHECK_EQUAL(parse_positive_id("2147483647").value, 2147483647);
  CAF_CHECK(parse_positive_id("2147483648").error == id_error::overflow);
  CAF_CHECK(parse_positive_id("-2147483648").error == id_error::sign);
  CAF_CHECK(parse_positive_id("").error == id_error::empty);
  CAF_CHECK(parse_positive_id("0").error == id_error::zero);
  CAF_CHECK(parse_positive_id(std::string_view{"1\0", 2}).error == id_error::non_digit);
}

CAF_TEST(route details never point into the target) {
  // The target buffer dies right after routing in the server; details must
  // stay valid.
  std::string target = "/deptemps/xyz";
  auto r = get(target);
  target.assign(target.size(), '#');
  CAF_CHECK(r.kind == route_kind::bad_request);
  CAF_CHECK_EQUAL(str(r.detail), str(to_detail(id_error::non_digit)));
}

CAF_TEST(a kind keyed by text takes its key percent-decoded and checked) {
  restcache::test::catalogue_guard with_tags{restcache::test::demo_and_text_kind()};
  const doc_kind tag{4};
  auto r = get("/tags/a%2Fb%20c%C3%BC?x=1");
  CAF_REQUIRE(r.kind == route_kind::document);
  CAF_CHECK(r.doc == tag);
  CAF_CHECK_EQUAL(str(r.key_text()), "a/b cü");
  CAF_CHECK(key_of(r) == doc_key::of_bytes(tag, "a/b cü"));
  CAF_CHECK(get("/tags/plain").key_text() == "plain");
  CAF_CHECK(get("/tags/%zz").kind == route_kind::bad_request);
  CAF_CHECK(get("/tags/a%2").detail.find("percent-encoding") != std::string_view::npos);
  CAF_CHECK(get("/tags/").detail == to_detail(key_error::empty, key_type::text));
  CAF_CHECK(get("/tags/a%00b").detail == to_detail(key_error::bad_text, key_type::text));
  CAF_CHECK(get("/tags/%FF").detail == to_detail(key_error::bad_text, key_type::text));
  CAF_CHECK(get("/tags/" + std::string(255, 'k')).kind == route_kind::document);
  CAF_CHECK(get("/tags/" + std::string(256, 'k')).detail == to_detail(key_error::too_long, key_type::text));
  CAF_CHECK(get("/tags/" + std::string(300, 'k') + "%zz").detail == to_detail(key_error::too_long, key_type::text));
  CAF_CHECK(get("/tags/a/b").kind == route_kind::not_found);
  auto put = parse_route("PUT", "/tags/x");
  CAF_CHECK(put.kind == route_kind::method_not_allowed);
  CAF_CHECK_EQUAL(str(put.allow), "GET, HEAD");
  // The demo's routes are as they were beside it.
  CAF_CHECK(get("/depts/emps/9").doc == demo::emp_kind);
}

CAF_TEST(a key has one spelling and a path spelling it otherwise is redirected to it) {
  auto kinds = restcache::test::demo_and_text_kind();
  doc_kind_entry ticket;
  ticket.name = "ticket";
  ticket.entity = "ticket";
  ticket.key = key_type::uuid;
  ticket.statement = {"test_fetch_ticket", "SELECT id FROM ticket WHERE id = $1::uuid"};
  ticket.route = "/tickets/";
  ticket.plan = {{{{"id", 0, value_type::text}}}, std::nullopt, false};
  ticket.reads = {{"ticket", "id", "ticket:id", {}}};
  ticket.noun = "ticket";
  kinds.push_back(std::move(ticket));
  restcache::test::catalogue_guard with_kinds{std::move(kinds)};
  auto canonical = [](const route& r) {
    char out[max_key_segment_bytes];
    return std::string{out, canonical_key_segment(r.kind_key, r.key_text(), out)};
  };
  // Unreserved characters as they are, every other byte %XX in upper case.
  for (const char* path : {"/tags/plain", "/tags/a-b.c_d~9", "/tags/a%2Fb%20c%C3%BC", "/tags/a%40b"}) {
    auto r = get(path);
    CAF_REQUIRE(r.kind == route_kind::document);
    CHECK_SAYING(!r.spelled_otherwise, path);
  }
  struct respelled {
    const char* path;
    const char* canonical;
  };
  for (auto [path, want] : {respelled{"/tags/%61bc", "abc"}, respelled{"/tags/a%2fb", "a%2Fb"},
                            respelled{"/tags/a@b", "a%40b"}, respelled{"/tags/%7E%2D", "~-"},
                            respelled{"/tags/a+b", "a%2Bb"}}) {
    auto r = get(path);
    CAF_REQUIRE(r.kind == route_kind::document);
    CHECK_SAYING(r.spelled_otherwise, path);
    CAF_CHECK_EQUAL(canonical(r), want);
    CAF_CHECK_EQUAL(str(r.kind_route), "/tags/");
  }
  // A uuid in lower case with its hyphens; escaped letters or upper case
  // are other spellings of it.
  const std::string id = "1c31e3dd-0a4b-4c5d-8e6f-7a8b9c0d1e2f";
  CAF_CHECK(!get("/tickets/" + id).spelled_otherwise);
  for (std::string path : {"/tickets/1%6331e3dd-0a4b-4c5d-8e6f-7a8b9c0d1e2f",
                           "/tickets/1C31E3DD-0A4B-4C5D-8E6F-7A8B9C0D1E2F"}) {
    auto r = get(path);
    CHECK_SAYING(r.kind == route_kind::document, path << ": " << str(r.detail));
    if (r.kind != route_kind::document)
      continue;
    CHECK_SAYING(r.spelled_otherwise, path);
  }
  auto upper = get("/tickets/1C31E3DD-0A4B-4C5D-8E6F-7A8B9C0D1E2F");
  CAF_CHECK_EQUAL(canonical(upper), id);
  // Integers were one spelling already: another is refused, not redirected.
  CAF_CHECK(get("/deptemps/077").kind == route_kind::bad_request);
  CAF_CHECK(!get("/deptemps/77").spelled_otherwise);
}

