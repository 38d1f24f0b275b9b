// SPDX-License-Identifier: Apache-2.0
#define CAF_SUITE body_parser

#include "demo/body_parser.hpp"

#include <caf/test/unit_test.hpp>

#include <string>
#include <tuple>

#include "http/responses.hpp"
#include "messages/document_encoder.hpp"
#include "test/fixtures/test_support.hpp"
#include "demo/demo_encoders.hpp"

using namespace restcache;

namespace {

/// The HTTP status the edge answers for a parse (0 when it parses): the
/// parser speaks rc_error, http/responses.cpp maps it.
template <class T>
unsigned status_of(const demo::body_result<T>& r) {
  return r.ok() ? 0u : http::http_status_of(r.error);
}


auto tie(const demo::emp_row& e) {
  return std::tie(e.empno, e.ename, e.job, e.mgr, e.hiredate, e.sal, e.comm, e.deptno);
}

bool same(const demo::emp_row& a, const demo::emp_row& b) {
  return tie(a) == tie(b);
}

bool same(const demo::dept_with_emps& a, const demo::dept_with_emps& b) {
  if (a.dept.deptno != b.dept.deptno || a.dept.dname != b.dept.dname || a.dept.loc != b.dept.loc
      || a.emps.size() != b.emps.size())
    return false;
  for (size_t i = 0; i < a.emps.size(); ++i)
    if (!same(a.emps[i], b.emps[i]))
      return false;
  return true;
}

bool contains(const std::string& s, std::string_view part) {
  return s.find(part) != std::string::npos;
}

auto dept(std::string_view body, std::optional<int32_t> path_id = std::nullopt) {
  return demo::parse_dept_body(body, path_id);
}

auto emp(std::string_view body, std::optional<int32_t> path_id = std::nullopt) {
  return demo::parse_emp_body(body, path_id);
}

/// The status of a department body (0 when it parses), logging the detail.
unsigned dept_status(std::string_view body, std::optional<int32_t> path_id = std::nullopt) {
  auto r = dept(body, path_id);
  if (!r.ok())
    CAF_MESSAGE(status_of(r) << " " << r.detail);
  return status_of(r);
}

unsigned emp_status(std::string_view body, std::optional<int32_t> path_id = std::nullopt) {
  auto r = emp(body, path_id);
  if (!r.ok())
    CAF_MESSAGE(status_of(r) << " " << r.detail);
  return status_of(r);
}

/// An employee body with one extra member spliced in after empNo.
std::string emp_with(std::string_view member) {
  return std::string{R"({"empNo":5,)"} + std::string{member} + "}";
}

/// A department body with one employee whose members are `emp_members`.
std::string dept_with_emp(std::string_view emp_members) {
  return std::string{R"({"deptNumber":77,"emps":[{)"} + std::string{emp_members} + "}]}";
}

demo::dept_with_emps sample() {
  demo::dept_with_emps d;
  d.dept = demo::dept_row{77, "RESEARCH \"R&D\" \\ Zo\xc3\xab \xe6\x97\xa5\xe6\x9c\xac", "Z\xc3\xbcrich\n\t\x01"};
  d.emps.push_back(demo::emp_row{760, "KING", "PRESIDENT", std::nullopt, "1981-11-17", 5000, std::nullopt, 77});
  d.emps.push_back(demo::emp_row{761, "Anna Maria \"Toni\" Ruiz", "ANALYST", 760, "1986-04-03", 8005, 300, 77});
  d.emps.push_back(demo::emp_row{762, std::nullopt, std::nullopt, std::nullopt, std::nullopt,
                           std::nullopt, std::nullopt, 77});
  d.emps.push_back(demo::emp_row{2147483647, "", "", 1, "2000-02-29", 0, 0, 77});
  return d;
}

} // namespace

// ---- valid bodies ------------------------------------------------------------------

CAF_TEST(a full department body parses into rows) {
  auto r = dept(R"({"deptNumber":77,"deptName":"RESEARCH","deptLocation":"DALLAS","emps":[)"
                R"({"empNo":761,"empName":"SMITH","job":"CLERK","mgr":760,"hiredate":"1986-04-03","sal":8005,"comm":300,"deptNumber":77},)"
                R"({"empNo":760,"empName":"JONES","job":"MANAGER","hiredate":"1981-04-02","sal":2975,"deptNumber":77}]})");
  CAF_REQUIRE(r.ok());
  CAF_CHECK_EQUAL(status_of(r), 0u);
  CAF_CHECK(r.detail.empty());
  auto& d = *r.value;
  CAF_CHECK_EQUAL(d.dept.deptno, 77);
  CAF_CHECK(d.dept.dname == std::optional<std::string>{"RESEARCH"});
  CAF_CHECK(d.dept.loc == std::optional<std::string>{"DALLAS"});
  CAF_REQUIRE_EQUAL(d.emps.size(), 2u);
  // sorted by empNo
  CAF_CHECK(same(d.emps[0], demo::emp_row{760, "JONES", "MANAGER", std::nullopt, "1981-04-02", 2975,
                                    std::nullopt, 77}));
  CAF_CHECK(same(d.emps[1], demo::emp_row{761, "SMITH", "CLERK", 760, "1986-04-03", 8005, 300, 77}));
}

CAF_TEST(an employee body parses into a row) {
  auto r = emp(R"({"empNo":761,"empName":"SMITH","job":"CLERK","mgr":760,"hiredate":"1986-04-03","sal":8005,"comm":300,"deptNumber":77})");
  CAF_REQUIRE(r.ok());
  CAF_CHECK(same(*r.value, demo::emp_row{761, "SMITH", "CLERK", 760, "1986-04-03", 8005, 300, 77}));
  // JSON whitespace and any member order are fine
  r = emp(" \r\n\t{ \"deptNumber\" : 77 , \"empNo\" : 761 }\n");
  CAF_REQUIRE(r.ok());
  CAF_CHECK(same(*r.value, demo::emp_row{761, std::nullopt, std::nullopt, std::nullopt, std::nullopt,
                                   std::nullopt, std::nullopt, 77}));
}

CAF_TEST(absent and null optional fields become SQL nulls) {
  auto r = emp(R"({"empNo":5,"empName":null,"job":null,"mgr":null,"hiredate":null,"sal":null,"comm":null,"deptNumber":null})");
  CAF_REQUIRE(r.ok());
  CAF_CHECK(same(*r.value, demo::emp_row{5, std::nullopt, std::nullopt, std::nullopt, std::nullopt,
                                   std::nullopt, std::nullopt, std::nullopt}));
  auto d = dept(R"({"deptNumber":7,"deptName":null,"deptLocation":null,"emps":[]})");
  CAF_REQUIRE(d.ok());
  CAF_CHECK(!d.value->dept.dname);
  CAF_CHECK(!d.value->dept.loc);
  CAF_CHECK(d.value->emps.empty());
  // empty strings are values, not nulls
  r = emp(R"({"empNo":5,"empName":"","job":""})");
  CAF_REQUIRE(r.ok());
  CAF_CHECK(r.value->ename == std::optional<std::string>{""});
  CAF_CHECK(r.value->job == std::optional<std::string>{""});
}

CAF_TEST(emps absent or null is an empty list) {
  auto d = dept(R"({"deptNumber":7,"deptName":"X"})");
  CAF_REQUIRE(d.ok());
  CAF_CHECK(d.value->emps.empty());
  d = dept(R"({"deptNumber":7,"emps":null})");
  CAF_REQUIRE(d.ok());
  CAF_CHECK(d.value->emps.empty());
}

CAF_TEST(emps come back sorted by empNo) {
  auto d = dept(R"({"deptNumber":1,"emps":[{"empNo":30},{"empNo":10},{"empNo":20},{"empNo":5}]})");
  CAF_REQUIRE(d.ok());
  CAF_REQUIRE_EQUAL(d.value->emps.size(), 4u);
  CAF_CHECK_EQUAL(d.value->emps[0].empno, 5);
  CAF_CHECK_EQUAL(d.value->emps[1].empno, 10);
  CAF_CHECK_EQUAL(d.value->emps[2].empno, 20);
  CAF_CHECK_EQUAL(d.value->emps[3].empno, 30);
  for (auto& e : d.value->emps)
    CAF_CHECK(e.deptno == std::optional<int32_t>{1});
}

// ---- round trip --------------------------------------------------------------------

CAF_TEST(an encoded department parses back to equal rows) {
  auto d = sample();
  auto doc = demo::encode_deptemps(d);
  auto r = dept(doc);
  CAF_REQUIRE(r.ok());
  CAF_CHECK(same(*r.value, d));
  // PUT /depts/77 of the GET document: the path id agrees
  r = dept(doc, 77);
  CAF_REQUIRE(r.ok());
  CAF_CHECK(same(*r.value, d));
  // and it encodes to the very same bytes
  CAF_CHECK_EQUAL(demo::encode_deptemps(*r.value), doc);
}

CAF_TEST(an encoded department without names or employees parses back) {
  demo::dept_with_emps d;
  d.dept = demo::dept_row{2147483647, std::nullopt, std::nullopt};
  auto r = dept(demo::encode_deptemps(d));
  CAF_REQUIRE(r.ok());
  CAF_CHECK(same(*r.value, d));
}

CAF_TEST(a large encoded department parses back) {
  demo::dept_with_emps d;
  d.dept = demo::dept_row{4242, "OPERATIONS", "BOSTON"};
  for (int32_t i = 0; i < static_cast<int32_t>(demo::body_limits::max_emps); ++i)
    d.emps.push_back(demo::emp_row{1000 + i, "Employee " + std::to_string(i), "CLERK",
                             i > 0 ? std::optional<int32_t>{1000} : std::nullopt, "1999-12-31",
                             1000 + i, i % 3 == 0 ? std::optional<int32_t>{i} : std::nullopt,
                             4242});
  auto doc = demo::encode_deptemps(d);
  auto r = dept(doc, 4242);
  CAF_REQUIRE(r.ok());
  CAF_CHECK(same(*r.value, d));
}

CAF_TEST(every encoded employee parses back to an equal row) {
  for (auto& e : sample().emps) {
    auto doc = demo::encode_emp(e);
    auto r = emp(doc);
    CAF_REQUIRE(r.ok());
    CAF_CHECK(same(*r.value, e));
    r = emp(doc, e.empno);
    CAF_REQUIRE(r.ok());
    CAF_CHECK_EQUAL(demo::encode_emp(*r.value), doc);
  }
  demo::emp_row lone{9, "NOBODY", std::nullopt, std::nullopt, std::nullopt, std::nullopt, std::nullopt,
               std::nullopt};
  auto r = emp(demo::encode_emp(lone));
  CAF_REQUIRE(r.ok());
  CAF_CHECK(same(*r.value, lone));
}

// ---- ids and the path ----------------------------------------------------------------

CAF_TEST(the department number may come from the path) {
  auto r = dept(R"({"deptName":"X","emps":[{"empNo":1},{"empNo":2,"deptNumber":9}]})", 9);
  CAF_REQUIRE(r.ok());
  CAF_CHECK_EQUAL(r.value->dept.deptno, 9);
  CAF_CHECK(r.value->emps[0].deptno == std::optional<int32_t>{9});
  CAF_CHECK(r.value->emps[1].deptno == std::optional<int32_t>{9});
  // null counts as absent
  r = dept(R"({"deptNumber":null})", 9);
  CAF_REQUIRE(r.ok());
  CAF_CHECK_EQUAL(r.value->dept.deptno, 9);
  // the same number in both is fine
  CAF_CHECK_EQUAL(dept_status(R"({"deptNumber":9})", 9), 0u);
}

CAF_TEST(the employee number may come from the path) {
  auto r = emp(R"({"empName":"X"})", 12);
  CAF_REQUIRE(r.ok());
  CAF_CHECK_EQUAL(r.value->empno, 12);
  r = emp(R"({"empNo":null,"empName":"X"})", 12);
  CAF_REQUIRE(r.ok());
  CAF_CHECK_EQUAL(r.value->empno, 12);
  CAF_CHECK_EQUAL(emp_status(R"({"empNo":12})", 12), 0u);
  // 0 is the router for no id in the path
  CAF_CHECK_EQUAL(emp_status(R"({"empNo":12})", 0), 0u);
}

CAF_TEST(an id in the body that differs from the path is 422) {
  auto r = dept(R"({"deptNumber":78})", 77);
  CAF_CHECK_EQUAL(status_of(r), 422u);
  CAF_CHECK(!r.value);
  CAF_CHECK_EQUAL(r.detail, "deptNumber 78 in the body differs from 77 in the path");
  auto e = emp(R"({"empNo":5})", 6);
  CAF_CHECK_EQUAL(status_of(e), 422u);
  CAF_CHECK_EQUAL(e.detail, "empNo 5 in the body differs from 6 in the path");
}

CAF_TEST(a missing id is 422) {
  auto r = dept(R"({"deptName":"X"})");
  CAF_CHECK_EQUAL(status_of(r), 422u);
  CAF_CHECK_EQUAL(r.detail, "deptNumber is missing: give it in the body or in the path");
  CAF_CHECK_EQUAL(dept_status(R"({"deptNumber":null})"), 422u);
  CAF_CHECK_EQUAL(dept_status(R"({})"), 422u);
  auto e = emp(R"({"empName":"X"})");
  CAF_CHECK_EQUAL(status_of(e), 422u);
  CAF_CHECK_EQUAL(e.detail, "empNo is missing: give it in the body or in the path");
  // inside a department every employee needs its own number, path or not
  auto d = dept(R"({"emps":[{"empNo":1},{"empName":"X"}]})", 7);
  CAF_CHECK_EQUAL(status_of(d), 422u);
  CAF_CHECK_EQUAL(d.detail, "emps[1].empNo is missing");
  CAF_CHECK_EQUAL(dept_status(R"({"deptNumber":7,"emps":[{"empNo":null}]})"), 422u);
}

CAF_TEST(ids must be positive int32) {
  for (auto field : {"deptNumber"}) {
    for (auto bad : {"0", "-1", "-0", "2147483648", "9223372036854775807", "18446744073709551615",
                     "-9223372036854775808"}) {
      auto body = std::string{"{\""} + field + "\":" + bad + "}";
      auto r = dept(body);
      CAF_CHECK_EQUAL(status_of(r), 422u);
      CAF_CHECK(contains(r.detail, "deptNumber must be between 1 and 2147483647, got "));
    }
  }
  CAF_CHECK_EQUAL(dept_status(R"({"deptNumber":2147483647})"), 0u);
  CAF_CHECK_EQUAL(dept_status(R"({"deptNumber":1})"), 0u);
  auto r = emp(R"({"empNo":-5})");
  CAF_CHECK_EQUAL(status_of(r), 422u);
  CAF_CHECK_EQUAL(r.detail, "empNo must be between 1 and 2147483647, got -5");
  r = emp(R"({"empNo":5,"mgr":0})");
  CAF_CHECK_EQUAL(status_of(r), 422u);
  CAF_CHECK_EQUAL(r.detail, "mgr must be between 1 and 2147483647, got 0");
  r = emp(R"({"empNo":5,"deptNumber":2147483648})");
  CAF_CHECK_EQUAL(status_of(r), 422u);
  CAF_CHECK_EQUAL(r.detail, "deptNumber must be between 1 and 2147483647, got 2147483648");
  auto d = dept(dept_with_emp(R"("empNo":0)"));
  CAF_CHECK_EQUAL(status_of(d), 422u);
  CAF_CHECK_EQUAL(d.detail, "emps[0].empNo must be between 1 and 2147483647, got 0");
  d = dept(dept_with_emp(R"("empNo":1,"mgr":18446744073709551615)"));
  CAF_CHECK_EQUAL(status_of(d), 422u);
  CAF_CHECK_EQUAL(d.detail, "emps[0].mgr must be between 1 and 2147483647, got 18446744073709551615");
  CAF_CHECK_EQUAL(emp_status(R"({"empNo":2147483647,"mgr":1,"deptNumber":2147483647})"), 0u);
}

CAF_TEST(sal and comm must not be negative) {
  auto r = emp(emp_with(R"("sal":-1)"));
  CAF_CHECK_EQUAL(status_of(r), 422u);
  CAF_CHECK_EQUAL(r.detail, "sal must be between 0 and 2147483647, got -1");
  r = emp(emp_with(R"("comm":-300)"));
  CAF_CHECK_EQUAL(status_of(r), 422u);
  CAF_CHECK_EQUAL(r.detail, "comm must be between 0 and 2147483647, got -300");
  r = emp(emp_with(R"("sal":2147483648)"));
  CAF_CHECK_EQUAL(status_of(r), 422u);
  auto d = dept(dept_with_emp(R"("empNo":1,"comm":-1)"));
  CAF_CHECK_EQUAL(status_of(d), 422u);
  CAF_CHECK_EQUAL(d.detail, "emps[0].comm must be between 0 and 2147483647, got -1");
  r = emp(emp_with(R"("sal":0,"comm":0)"));
  CAF_REQUIRE(r.ok());
  CAF_CHECK(r.value->sal == std::optional<int32_t>{0});
  CAF_CHECK(r.value->comm == std::optional<int32_t>{0});
  CAF_CHECK_EQUAL(emp_status(emp_with(R"("sal":2147483647,"comm":2147483647)")), 0u);
}

// ---- employees inside a department --------------------------------------------------

CAF_TEST(an employee deptNumber must match its department) {
  // absent: the department's
  auto d = dept(dept_with_emp(R"("empNo":1)"));
  CAF_REQUIRE(d.ok());
  CAF_CHECK(d.value->emps[0].deptno == std::optional<int32_t>{77});
  // another department
  d = dept(R"({"deptNumber":77,"emps":[{"empNo":1,"deptNumber":77},{"empNo":2,"deptNumber":78}]})");
  CAF_CHECK_EQUAL(status_of(d), 422u);
  CAF_CHECK_EQUAL(d.detail, "emps[1].deptNumber is 78 but the employee is listed in department 77");
  // the path number counts
  d = dept(R"({"emps":[{"empNo":1,"deptNumber":78}]})", 77);
  CAF_CHECK_EQUAL(status_of(d), 422u);
  // null
  d = dept(dept_with_emp(R"("empNo":1,"deptNumber":null)"));
  CAF_CHECK_EQUAL(status_of(d), 422u);
  CAF_CHECK(contains(d.detail, "emps[0].deptNumber is null but the employee is listed in department 77"));
  // emps before deptNumber in the body work the same
  d = dept(R"({"emps":[{"empNo":1,"deptNumber":78}],"deptNumber":77})");
  CAF_CHECK_EQUAL(status_of(d), 422u);
  d = dept(R"({"emps":[{"empNo":1,"deptNumber":77}],"deptNumber":77})");
  CAF_CHECK(d.ok());
}

CAF_TEST(the same empNo twice in a department is 422) {
  auto d = dept(R"({"deptNumber":7,"emps":[{"empNo":5},{"empNo":6},{"empNo":9},{"empNo":5}]})");
  CAF_CHECK_EQUAL(status_of(d), 422u);
  CAF_CHECK_EQUAL(d.detail, "duplicate empNo 5 in emps[0] and emps[3]");
  d = dept(R"({"deptNumber":7,"emps":[{"empNo":9},{"empNo":9}]})");
  CAF_CHECK_EQUAL(status_of(d), 422u);
  CAF_CHECK_EQUAL(d.detail, "duplicate empNo 9 in emps[0] and emps[1]");
}

CAF_TEST(mgr must not be the employee itself) {
  auto r = emp(R"({"empNo":5,"mgr":5})");
  CAF_CHECK_EQUAL(status_of(r), 422u);
  CAF_CHECK_EQUAL(r.detail, "mgr must not be the employee itself (empNo 5)");
  // empNo from the path
  r = emp(R"({"mgr":5})", 5);
  CAF_CHECK_EQUAL(status_of(r), 422u);
  auto d = dept(R"({"deptNumber":7,"emps":[{"empNo":4,"mgr":5},{"empNo":5,"mgr":5}]})");
  CAF_CHECK_EQUAL(status_of(d), 422u);
  CAF_CHECK_EQUAL(d.detail, "emps[1].mgr must not be the employee itself (empNo 5)");
  // a manager in the same body or elsewhere is fine
  CAF_CHECK_EQUAL(dept_status(R"({"deptNumber":7,"emps":[{"empNo":4,"mgr":5},{"empNo":5,"mgr":4}]})"), 0u);
}

CAF_TEST(at most 10000 employees per department) {
  std::string body = R"({"deptNumber":3,"emps":[)";
  for (size_t i = 1; i <= demo::body_limits::max_emps; ++i) {
    if (i > 1)
      body += ',';
    body += "{\"empNo\":" + std::to_string(i) + "}";
  }
  auto r = dept(body + "]}");
  CAF_REQUIRE(r.ok());
  CAF_CHECK_EQUAL(r.value->emps.size(), demo::body_limits::max_emps);
  r = dept(body + R"(,{"empNo":999999}]})");
  CAF_CHECK_EQUAL(status_of(r), 422u);
  CAF_CHECK_EQUAL(r.detail, "emps holds more than 10000 employees");
}

// ---- texts and dates ----------------------------------------------------------------

CAF_TEST(texts hold at most 200 characters) {
  std::string ascii(200, 'x');
  CAF_CHECK_EQUAL(emp_status(emp_with("\"empName\":\"" + ascii + "\"")), 0u);
  auto r = emp(emp_with("\"empName\":\"" + ascii + "y\""));
  CAF_CHECK_EQUAL(status_of(r), 422u);
  CAF_CHECK_EQUAL(r.detail, "empName is longer than 200 characters (201)");
  // characters, not bytes: 200 three-byte characters are fine
  std::string wide;
  for (int i = 0; i < 200; ++i)
    wide += "\xe6\x97\xa5";
  auto ok = emp(emp_with("\"job\":\"" + wide + "\""));
  CAF_REQUIRE(ok.ok());
  CAF_CHECK_EQUAL(ok.value->job->size(), 600u);
  r = emp(emp_with("\"job\":\"" + wide + "\xc3\xab\""));
  CAF_CHECK_EQUAL(status_of(r), 422u);
  CAF_CHECK_EQUAL(r.detail, "job is longer than 200 characters (201)");
  // escapes count as the character they stand for
  std::string escaped;
  for (int i = 0; i < 200; ++i)
    escaped += "\\u00e9";
  CAF_CHECK_EQUAL(dept_status("{\"deptNumber\":1,\"deptName\":\"" + escaped + "\"}"), 0u);
  auto d = dept("{\"deptNumber\":1,\"deptLocation\":\"" + escaped + "e\"}");
  CAF_CHECK_EQUAL(status_of(d), 422u);
  CAF_CHECK_EQUAL(d.detail, "deptLocation is longer than 200 characters (201)");
  d = dept(dept_with_emp("\"empNo\":1,\"empName\":\"" + ascii + "zz\""));
  CAF_CHECK_EQUAL(status_of(d), 422u);
  CAF_CHECK_EQUAL(d.detail, "emps[0].empName is longer than 200 characters (202)");
}

CAF_TEST(texts must not contain U+0000) {
  auto r = emp(emp_with(R"("empName":"a\u0000b")"));
  CAF_CHECK_EQUAL(status_of(r), 422u);
  CAF_CHECK_EQUAL(r.detail, "empName must not contain U+0000 (\\u0000)");
  CAF_CHECK_EQUAL(dept_status(R"({"deptNumber":1,"deptName":"\u0000"})"), 422u);
  // other control characters are stored as sent
  auto ok = emp(emp_with(R"("job":"a\u0001\n\tb")"));
  CAF_REQUIRE(ok.ok());
  CAF_CHECK_EQUAL(*ok.value->job, std::string("a\x01\n\tb"));
}

CAF_TEST(hiredate must be a calendar date written YYYY-MM-DD) {
  for (auto good : {"1986-04-03", "2000-02-29", "2024-02-29", "0001-01-01", "9999-12-31",
                    "1981-12-31", "1970-01-01"}) {
    auto r = emp(emp_with(std::string{R"("hiredate":")"} + good + "\""));
    CAF_CHECK(r.ok());
    if (r.ok())
      CAF_CHECK_EQUAL(*r.value->hiredate, std::string{good});
  }
  for (auto bad : {"1900-02-29", "2023-02-29", "2021-04-31", "2021-13-01", "2021-00-10",
                   "2021-01-00", "2021-01-32", "0000-01-01", "1986-4-3", "1986-04-3",
                   "86-04-03", "1986/04/03", "1986-04-03T00:00:00", "1986-04-03 ",
                   " 1986-04-03", "+986-04-03", "1986-0a-03", "1986-04-03Z", "19860403", "",
                   "10000-01-01", "1986-\xd9\xa4-03"}) {
    auto r = emp(emp_with(std::string{R"("hiredate":")"} + bad + "\""));
    CAF_CHECK_EQUAL(status_of(r), 422u);
    CAF_CHECK(contains(r.detail, "hiredate must be a calendar date written YYYY-MM-DD"));
  }
  auto r = emp(emp_with(R"("hiredate":"2023-02-29")"));
  CAF_CHECK_EQUAL(r.detail, "hiredate must be a calendar date written YYYY-MM-DD (years 0001-9999),"
                            " got \"2023-02-29\"");
  auto d = dept(dept_with_emp(R"("empNo":1,"hiredate":"1986-02-30")"));
  CAF_CHECK_EQUAL(status_of(d), 422u);
  CAF_CHECK(contains(d.detail, "emps[0].hiredate must be"));
}

CAF_TEST(demo::is_iso_date follows the Gregorian calendar) {
  CAF_CHECK(demo::is_iso_date("2000-02-29"));
  CAF_CHECK(!demo::is_iso_date("2100-02-29"));
  CAF_CHECK(demo::is_iso_date("2400-02-29"));
  CAF_CHECK(demo::is_iso_date("2023-02-28"));
  CAF_CHECK(!demo::is_iso_date("2023-02-29"));
  CAF_CHECK(demo::is_iso_date("2023-06-30"));
  CAF_CHECK(!demo::is_iso_date("2023-06-31"));
  CAF_CHECK(demo::is_iso_date("2023-07-31"));
  CAF_CHECK(!demo::is_iso_date("2023-09-31"));
  CAF_CHECK(!demo::is_iso_date("2023-11-31"));
  CAF_CHECK(demo::is_iso_date("2023-12-31"));
  CAF_CHECK(!demo::is_iso_date("2023-12-31x"));
  CAF_CHECK(!demo::is_iso_date("-023-12-31"));
}

// ---- malformed bodies ----------------------------------------------------------------

CAF_TEST(malformed JSON is 400) {
  const std::string_view bodies[] = {
        R"({"deptNumber":7)", R"({"deptNumber":7}})", R"({"deptNumber":7} {})",
        R"({"deptNumber":7,})", R"({deptNumber:7})", R"({'deptNumber':7})",
        R"({"deptNumber":07})", R"({"deptNumber":0x7})", R"({"deptNumber":+7})",
        R"({"deptNumber":7,"deptName":"a\qb"})", R"({"deptNumber":7,"deptName":"\ud800"})",
        R"({"deptNumber":7,"deptName":"tab	inside"})", R"({"deptNumber":NaN})",
        R"({"deptNumber":99999999999999999999})", R"({"deptNumber":7} // comment)",
        "{\"deptNumber\":7,\"deptName\":\"\xff\"}", "{\"deptNumber\":7,\"deptName\":\"\xc3\"}",
        "\xef\xbb\xbf{\"deptNumber\":7}", std::string_view{"{\"deptNumber\":7\0}", 17}};
  for (std::string_view bad : bodies) {
    auto r = dept(bad);
    CAF_CHECK_EQUAL(status_of(r), 400u);
    CAF_CHECK(!r.detail.empty());
    CAF_CHECK_EQUAL(emp_status(bad), 400u);
  }
  auto r = dept("{\"deptNumber\":7,\"deptName\":\"\xff\"}");
  CAF_CHECK_EQUAL(r.detail, "the request body is not valid UTF-8");
  r = dept(R"({"deptNumber":7)");
  CAF_CHECK(contains(r.detail, "malformed JSON: "));
}

CAF_TEST(an empty body is 400) {
  for (std::string_view empty : {"", " ", "\r\n\t "}) {
    auto r = dept(empty);
    CAF_CHECK_EQUAL(status_of(r), 400u);
    CAF_CHECK_EQUAL(r.detail, "the request body is empty: expected a JSON object");
    CAF_CHECK_EQUAL(emp_status(empty), 400u);
  }
}

CAF_TEST(a body that is not an object is 400) {
  auto r = dept(R"([{"deptNumber":7}])");
  CAF_CHECK_EQUAL(status_of(r), 400u);
  CAF_CHECK_EQUAL(r.detail, "the body must be a JSON object (a department), got an array");
  auto e = emp("\"x\"");
  CAF_CHECK_EQUAL(status_of(e), 400u);
  CAF_CHECK_EQUAL(e.detail, "the body must be a JSON object (an employee), got a string");
  for (std::string_view bad : {"7", "7.5", "null", "true", "false", "[]", "\"{}\""}) {
    CAF_CHECK_EQUAL(dept_status(bad, 7), 400u);
    CAF_CHECK_EQUAL(emp_status(bad, 7), 400u);
  }
}

CAF_TEST(a field of the wrong JSON type is 400 naming the field) {
  auto r = dept(R"({"deptNumber":"77"})");
  CAF_CHECK_EQUAL(status_of(r), 400u);
  CAF_CHECK_EQUAL(r.detail, "deptNumber must be an integer or null, got a string");
  r = dept(R"({"deptNumber":77.0})");
  CAF_CHECK_EQUAL(status_of(r), 400u);
  CAF_CHECK_EQUAL(r.detail,
                  "deptNumber must be an integer or null, got a number with a fraction or exponent");
  CAF_CHECK_EQUAL(dept_status(R"({"deptNumber":7.7e1})"), 400u);
  CAF_CHECK_EQUAL(dept_status(R"({"deptNumber":1e2})"), 400u);
  CAF_CHECK_EQUAL(dept_status(R"({"deptNumber":true})"), 400u);
  r = dept(R"({"deptNumber":7,"deptName":42})");
  CAF_CHECK_EQUAL(status_of(r), 400u);
  CAF_CHECK_EQUAL(r.detail, "deptName must be a string or null, got an integer");
  r = dept(R"({"deptNumber":7,"deptLocation":["X"]})");
  CAF_CHECK_EQUAL(r.detail, "deptLocation must be a string or null, got an array");
  r = dept(R"({"deptNumber":7,"emps":{"empNo":1}})");
  CAF_CHECK_EQUAL(status_of(r), 400u);
  CAF_CHECK_EQUAL(r.detail, "emps must be an array of employees or null, got an object");
  r = dept(R"({"deptNumber":7,"emps":[{"empNo":1},7]})");
  CAF_CHECK_EQUAL(status_of(r), 400u);
  CAF_CHECK_EQUAL(r.detail, "emps[1] must be an object, got an integer");
  CAF_CHECK_EQUAL(dept_status(R"({"deptNumber":7,"emps":[null]})"), 400u);
  r = dept(dept_with_emp(R"("empNo":1,"sal":"8005")"));
  CAF_CHECK_EQUAL(status_of(r), 400u);
  CAF_CHECK_EQUAL(r.detail, "emps[0].sal must be an integer or null, got a string");
  auto e = emp(emp_with(R"("hiredate":19860403)"));
  CAF_CHECK_EQUAL(status_of(e), 400u);
  CAF_CHECK_EQUAL(e.detail, "hiredate must be a date string (YYYY-MM-DD) or null, got an integer");
  e = emp(emp_with(R"("mgr":{})"));
  CAF_CHECK_EQUAL(e.detail, "mgr must be an integer or null, got an object");
  e = emp(emp_with(R"("comm":false)"));
  CAF_CHECK_EQUAL(e.detail, "comm must be an integer or null, got a boolean");
  e = emp(emp_with(R"("job":1.5)"));
  CAF_CHECK_EQUAL(e.detail, "job must be a string or null, got a number with a fraction or exponent");
  e = emp(R"({"empNo":"5"})", 5);
  CAF_CHECK_EQUAL(status_of(e), 400u);
}

CAF_TEST(unknown fields are 400 naming them and the allowed fields) {
  auto r = dept(R"({"deptNumber":7,"employees":[]})");
  CAF_CHECK_EQUAL(status_of(r), 400u);
  CAF_CHECK_EQUAL(r.detail, "unknown field \"employees\" in the department; allowed: "
                            "deptNumber, deptName, deptLocation, emps");
  r = dept(R"({"deptNumber":7,"emps":[{"empNo":1},{"empNo":2},{"empNo":3,"salary":5}]})");
  CAF_CHECK_EQUAL(status_of(r), 400u);
  CAF_CHECK_EQUAL(r.detail, "unknown field \"salary\" in emps[2]; allowed: "
                            "empNo, empName, job, mgr, hiredate, sal, comm, deptNumber");
  auto e = emp(R"({"empNo":1,"EmpName":"X"})");
  CAF_CHECK_EQUAL(status_of(e), 400u);
  CAF_CHECK_EQUAL(e.detail, "unknown field \"EmpName\" in the employee; allowed: "
                            "empNo, empName, job, mgr, hiredate, sal, comm, deptNumber");
  // a department field is not an employee field and the other way round
  CAF_CHECK_EQUAL(emp_status(R"({"empNo":1,"emps":[]})"), 400u);
  CAF_CHECK_EQUAL(dept_status(R"({"deptNumber":1,"empNo":1})"), 400u);
  // unknown even when null, and whatever its value
  CAF_CHECK_EQUAL(dept_status(R"({"deptNumber":1,"extra":null})"), 400u);
  CAF_CHECK_EQUAL(dept_status(R"({"deptNumber":1,"":1})"), 400u);
  // a long name is shortened in the detail, at a character boundary
  std::string key = std::string(47, 'k') + "\xc3\xab" + std::string(100, 'k');
  e = emp("{\"empNo\":1,\"" + key + "\":1}");
  CAF_CHECK_EQUAL(status_of(e), 400u);
  CAF_CHECK(contains(e.detail, "unknown field \"" + std::string(47, 'k') + "...\" in the employee"));
}

CAF_TEST(a field given twice is 400) {
  auto r = dept(R"({"deptNumber":7,"deptName":"A","deptName":"B"})");
  CAF_CHECK_EQUAL(status_of(r), 400u);
  CAF_CHECK_EQUAL(r.detail, "duplicate field \"deptName\" in the department");
  // even with the same value
  CAF_CHECK_EQUAL(dept_status(R"({"deptNumber":7,"deptNumber":7})"), 400u);
  CAF_CHECK_EQUAL(dept_status(R"({"deptNumber":7,"emps":[],"emps":[]})"), 400u);
  r = dept(R"({"deptNumber":7,"emps":[{"empNo":1,"sal":1,"sal":2}]})");
  CAF_CHECK_EQUAL(r.detail, "duplicate field \"sal\" in emps[0]");
  auto e = emp(R"({"empNo":1,"empNo":1})");
  CAF_CHECK_EQUAL(status_of(e), 400u);
  CAF_CHECK_EQUAL(e.detail, "duplicate field \"empNo\" in the employee");
  e = emp(R"({"empNo":1,"mgr":null,"mgr":null})");
  CAF_CHECK_EQUAL(status_of(e), 400u);
}

CAF_TEST(nesting deeper than 32 levels is 400) {
  std::string deep = R"({"deptNumber":7,"deptName":)";
  for (int i = 0; i < 40; ++i)
    deep += '[';
  for (int i = 0; i < 40; ++i)
    deep += ']';
  deep += '}';
  auto r = dept(deep);
  CAF_CHECK_EQUAL(status_of(r), 400u);
  CAF_CHECK_EQUAL(r.detail, "the JSON nests arrays and objects deeper than 32 levels");
  // a shallower wrong value still gets the field message
  r = dept(R"({"deptNumber":7,"deptName":[[[]]]})");
  CAF_CHECK_EQUAL(r.detail, "deptName must be a string or null, got an array");
}

CAF_TEST(a body over the parser limit is 413) {
  std::string body = R"({"deptNumber":7,"deptName":")";
  body.append(demo::body_limits::max_body_bytes, 'x');
  body += "\"}";
  auto r = dept(body);
  CAF_CHECK_EQUAL(status_of(r), 413u);
  CAF_CHECK_EQUAL(r.detail, "the request body exceeds the limit of 16777216 bytes");
  CAF_CHECK_EQUAL(emp_status(body), 413u);
}

CAF_TEST(the first problem in document order is reported) {
  auto r = dept(R"({"deptNumber":-1,"deptName":5})");
  CAF_CHECK_EQUAL(status_of(r), 422u);
  r = dept(R"({"deptName":5,"deptNumber":-1})");
  CAF_CHECK_EQUAL(status_of(r), 400u);
  // field checks come before the checks across fields
  r = dept(R"({"deptNumber":8,"emps":[{"empNo":1,"sal":-1}]})", 7);
  CAF_CHECK_EQUAL(r.detail, "emps[0].sal must be between 0 and 2147483647, got -1");
}

CAF_TEST(a PUT of a department names every member or changes nothing) {
  const auto whole = [](std::string_view body) { return demo::parse_dept_body(body, 7, demo::dept_body::whole); };
  for (auto [body, member] : std::initializer_list<std::pair<std::string_view, std::string_view>>{
         {R"({})", "deptName"},
         {R"({"deptName":"x"})", "deptLocation"},
         {R"({"deptName":"x","deptLocation":"y"})", "emps"},
         {R"({"deptLocation":"y","emps":[]})", "deptName"}}) {
    auto r = whole(body);
    CAF_REQUIRE(!r);
    CAF_CHECK(r.error == rc_error::unprocessable);
    CHECK_SAYING(r.detail.find(std::string{member} + " is missing") == 0, body << ": " << r.detail);
  }
  // Explicit nulls and an empty list say what they mean.
  auto r = whole(R"({"deptName":null,"deptLocation":null,"emps":[]})");
  CAF_REQUIRE(r);
  CAF_CHECK(!r.value->dept.dname);
  CAF_CHECK(r.value->emps.empty());
  // A POST may leave them out, as before.
  CAF_CHECK(demo::parse_dept_body(R"({"deptNumber":7,"deptName":"x"})"));
}

