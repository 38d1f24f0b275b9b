// SPDX-License-Identifier: Apache-2.0
// libFuzzer target for the request path: the router and the write-body
// parsers, fed arbitrary bytes. Built and run by scripts/fuzz (clang-14,
// -fsanitize=fuzzer,address,undefined), outside the CMake tree.
//
// Input format (what the seeds in fuzz/corpus/ are written in):
//
//   <method> SP <request-target> LF <body...>
//
// The first line is split at its first space (no space: all of it is the
// method and the target is empty); everything after the first LF is the body
// (no LF: an empty body). Every input goes through http::parse_route and then
// through both demo::parse_dept_body and demo::parse_emp_body, once with the path id the
// route found (if any) and once without.
//
// Besides the sanitizers, the target checks (and traps on a violation):
// - no string_view of a route points into the method or target (they are
//   copied to the heap and freed before the route is read: ASan reports a
//   use-after-free otherwise);
// - a body result is either a value (status 0, no detail) or a problem with
//   status 400, 413 or 422 and a short, valid UTF-8 detail;
// - every accepted value obeys the documented rules (positive ids, sorted
//   unique emps in the department, texts within the limit, real dates, ...);
// - round trip: an accepted value encodes (document_encoder) to a document
//   that parses back to the same value, and re-encodes to the same bytes.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>

#include "demo/demo_routes.hpp"
#include "http/action_routes.hpp"
#include "http/router.hpp"
#include "demo/body_parser.hpp"
#include "messages/document_encoder.hpp"
#include "demo/demo_encoders.hpp"

using namespace restcache;

namespace {

[[noreturn]] void fail(const char* what, std::string_view context = {}) {
  std::fprintf(stderr, "request_fuzzer: invariant violated: %s\n  %.*s\n", what,
               static_cast<int>(context.size() > 400 ? 400 : context.size()), context.data());
  std::abort();
}

void require(bool ok, const char* what, std::string_view context = {}) {
  if (!ok)
    fail(what, context);
}

/// Reads every byte, so ASan sees a view into freed memory.
size_t touch(std::string_view s) {
  size_t sum = 0;
  for (char c : s)
    sum += static_cast<unsigned char>(c);
  return sum;
}

bool valid_utf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    auto c = static_cast<unsigned char>(s[i]);
    size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    if (n == 0 || i + n > s.size())
      return false;
    for (size_t k = 1; k < n; ++k)
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80)
        return false;
    i += n;
  }
  return true;
}

size_t code_points(std::string_view s) {
  size_t n = 0;
  for (unsigned char c : s)
    n += (c & 0xC0) != 0x80;
  return n;
}

void check_text(const std::optional<std::string>& t) {
  if (!t)
    return;
  require(code_points(*t) <= demo::body_limits::max_text_chars, "text longer than the limit", *t);
  require(t->find('\0') == std::string::npos, "text with U+0000", *t);
  require(valid_utf8(*t), "text not valid UTF-8", *t);
}

void check_emp(const demo::emp_row& e) {
  require(e.empno > 0, "empno not positive");
  require(!e.mgr || *e.mgr > 0, "mgr not positive");
  require(!e.mgr || *e.mgr != e.empno, "mgr is the employee itself");
  require(!e.deptno || *e.deptno > 0, "deptno not positive");
  require(!e.sal || *e.sal >= 0, "sal negative");
  require(!e.comm || *e.comm >= 0, "comm negative");
  require(!e.hiredate || demo::is_iso_date(*e.hiredate), "hiredate not a date");
  check_text(e.ename);
  check_text(e.job);
}

auto tie(const demo::emp_row& e) {
  return std::tie(e.empno, e.ename, e.job, e.mgr, e.hiredate, e.sal, e.comm, e.deptno);
}

bool same(const demo::dept_with_emps& a, const demo::dept_with_emps& b) {
  if (a.dept.deptno != b.dept.deptno || a.dept.dname != b.dept.dname || a.dept.loc != b.dept.loc
      || a.emps.size() != b.emps.size())
    return false;
  for (size_t i = 0; i < a.emps.size(); ++i)
    if (tie(a.emps[i]) != tie(b.emps[i]))
      return false;
  return true;
}

template <class T>
void check_problem(const demo::body_result<T>& r, std::string_view body) {
  if (r.ok()) {
    require(r.error == rc_error::none && r.detail.empty(), "a value with a problem", body);
    return;
  }
  require(r.error == rc_error::bad_request || r.error == rc_error::too_large || r.error == rc_error::unprocessable,
          "unexpected error", r.detail);
  require(!r.detail.empty(), "a problem without a detail", body);
  require(r.detail.size() < 512, "a detail echoing too much input", r.detail);
  require(valid_utf8(r.detail), "a detail that is not UTF-8", r.detail);
}

void check_dept(std::string_view body, std::optional<int32_t> path_id) {
  auto r = demo::parse_dept_body(body, path_id);
  check_problem(r, body);
  if (!r.ok())
    return;
  const demo::dept_with_emps& d = *r.value;
  require(d.dept.deptno > 0, "deptno not positive", body);
  require(!path_id || d.dept.deptno == *path_id, "deptno differs from the path", body);
  check_text(d.dept.dname);
  check_text(d.dept.loc);
  require(d.emps.size() <= demo::body_limits::max_emps, "too many emps", body);
  for (size_t i = 0; i < d.emps.size(); ++i) {
    check_emp(d.emps[i]);
    require(d.emps[i].deptno == d.dept.deptno, "emp in another department", body);
    require(i == 0 || d.emps[i - 1].empno < d.emps[i].empno, "emps not sorted and unique", body);
  }
  // round trip, with and without the id in the path
  const std::string doc = demo::encode_deptemps(d);
  for (auto id : {std::optional<int32_t>{}, std::optional<int32_t>{d.dept.deptno}}) {
    auto back = demo::parse_dept_body(doc, id);
    require(back.ok(), "an encoded department does not parse back", back.detail);
    require(same(*back.value, d), "an encoded department parses to other rows", doc);
    require(demo::encode_deptemps(*back.value) == doc, "re-encoding differs", doc);
  }
}

void check_emp_body(std::string_view body, std::optional<int32_t> path_id) {
  auto r = demo::parse_emp_body(body, path_id);
  check_problem(r, body);
  if (!r.ok())
    return;
  const demo::emp_row& e = *r.value;
  check_emp(e);
  require(!path_id || e.empno == *path_id, "empno differs from the path", body);
  const std::string doc = demo::encode_emp(e);
  for (auto id : {std::optional<int32_t>{}, std::optional<int32_t>{e.empno}}) {
    auto back = demo::parse_emp_body(doc, id);
    require(back.ok(), "an encoded employee does not parse back", back.detail);
    require(tie(*back.value) == tie(e), "an encoded employee parses to another row", doc);
    require(demo::encode_emp(*back.value) == doc, "re-encoding differs", doc);
  }
}

} // namespace

// Routes are the demo catalogue's, as the daemon's by default.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  restcache::demo::install_demo();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input{reinterpret_cast<const char*>(data), size};
  const size_t lf = input.find('\n');
  const std::string_view line = input.substr(0, lf);
  const std::string_view body = lf == std::string_view::npos ? std::string_view{} : input.substr(lf + 1);
  const size_t sp = line.find(' ');
  const std::string_view method = line.substr(0, sp);
  const std::string_view target = sp == std::string_view::npos ? std::string_view{} : line.substr(sp + 1);

  // The route must not keep views into the request: route from heap copies,
  // free them, then read everything the route holds.
  http::route r;
  {
    auto m = std::make_unique<char[]>(method.size() + 1);
    auto t = std::make_unique<char[]>(target.size() + 1);
    std::copy(method.begin(), method.end(), m.get());
    std::copy(target.begin(), target.end(), t.get());
    r = http::parse_route({m.get(), method.size()}, {t.get(), target.size()});
  }
  volatile size_t sink = touch(r.detail) + touch(r.allow);
  (void)sink;
  require(r.id >= 0, "a negative id in a route", line);
  if (r.kind == http::route_kind::bad_request)
    require(!r.detail.empty(), "a bad_request without a detail", line);
  if (r.kind == http::route_kind::method_not_allowed)
    require(!r.allow.empty() && !r.detail.empty(), "a 405 without Allow or detail", line);
  if (r.kind == http::route_kind::action)
    require(r.action < http::action_routes().routes.size(), "an action route that is not installed", line);

  require(r.id <= std::numeric_limits<int32_t>::max(), "an id past int4 in a route of the demo's", line);
  const std::optional<int32_t> path_id = r.id > 0 ? std::optional<int32_t>{static_cast<int32_t>(r.id)} : std::nullopt;
  check_dept(body, path_id);
  check_emp_body(body, path_id);
  if (path_id) {
    check_dept(body, std::nullopt);
    check_emp_body(body, std::nullopt);
  }
  return 0;
}
