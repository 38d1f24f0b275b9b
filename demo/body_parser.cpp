// SPDX-License-Identifier: Apache-2.0
#include "demo/body_parser.hpp"

#include <algorithm>
#include <array>
#include <limits>
#include <utility>
#include <vector>

#include <simdjson.h>

namespace restcache::demo {

namespace {

using simdjson::dom::element;
using simdjson::dom::element_type;

constexpr int64_t int32_max = std::numeric_limits<int32_t>::max();

// ---- problems ----------------------------------------------------------------

struct failure {
  rc_error error = rc_error::bad_request;
  std::string detail;
};

/// No value means "fine".
using check = std::optional<failure>;

failure malformed(std::string detail) {
  return {rc_error::bad_request, std::move(detail)};
}

failure unprocessable(std::string detail) {
  return {rc_error::unprocessable, std::move(detail)};
}

/// At most `max_bytes` of client input, cut at a UTF-8 character boundary
/// (simdjson has validated the UTF-8), with "..." when cut.
std::string excerpt(std::string_view s, size_t max_bytes = 48) {
  if (s.size() <= max_bytes)
    return std::string{s};
  size_t n = max_bytes;
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80)
    --n;
  std::string out{s.substr(0, n)};
  out.append("...");
  return out;
}

std::string quoted(std::string_view s) {
  std::string out = "\"";
  out += excerpt(s);
  out += '"';
  return out;
}

std::string_view type_name(element_type t) noexcept {
  switch (t) {
    case element_type::ARRAY: return "an array";
    case element_type::OBJECT: return "an object";
    case element_type::INT64:
    case element_type::UINT64: return "an integer";
    case element_type::DOUBLE: return "a number with a fraction or exponent";
    case element_type::STRING: return "a string";
    case element_type::BOOL: return "a boolean";
    case element_type::NULL_VALUE: return "null";
  }
  return "an unknown JSON value";
}

failure wrong_type(std::string_view name, std::string_view expected, element v) {
  std::string d{name};
  d += " must be ";
  d += expected;
  d += ", got ";
  d += type_name(v.type());
  return malformed(std::move(d));
}

// ---- field values -------------------------------------------------------------

/// An integer field in [min, 2147483647], or null (out stays empty).
check read_int(element v, std::string_view name, int64_t min, std::optional<int32_t>& out) {
  int64_t x = 0;
  switch (v.type()) {
    case element_type::NULL_VALUE: out.reset(); return {};
    case element_type::INT64: x = v.get_int64().value_unsafe(); break;
    case element_type::UINT64: // > INT64_MAX, so out of range
      return unprocessable(std::string{name} + " must be between " + std::to_string(min)
                           + " and 2147483647, got "
                           + std::to_string(v.get_uint64().value_unsafe()));
    default: return wrong_type(name, "an integer or null", v);
  }
  if (x < min || x > int32_max)
    return unprocessable(std::string{name} + " must be between " + std::to_string(min)
                         + " and 2147483647, got " + std::to_string(x));
  out = static_cast<int32_t>(x);
  return {};
}

/// Unicode code points in valid UTF-8: the bytes that do not continue a character.
size_t code_points(std::string_view s) noexcept {
  size_t n = 0;
  for (unsigned char c : s)
    n += (c & 0xC0) != 0x80;
  return n;
}

check read_text(element v, std::string_view name, std::optional<std::string>& out) {
  if (v.type() == element_type::NULL_VALUE) {
    out.reset();
    return {};
  }
  if (v.type() != element_type::STRING)
    return wrong_type(name, "a string or null", v);
  std::string_view s = v.get_string().value_unsafe();
  if (s.find('\0') != std::string_view::npos)
    return unprocessable(std::string{name} + " must not contain U+0000 (\\u0000)");
  // Cheap bound first: a string of at most max_text_chars bytes is short enough.
  if (s.size() > body_limits::max_text_chars) {
    if (size_t n = code_points(s); n > body_limits::max_text_chars)
      return unprocessable(std::string{name} + " is longer than "
                           + std::to_string(body_limits::max_text_chars) + " characters ("
                           + std::to_string(n) + ")");
  }
  out.emplace(s);
  return {};
}

check read_date(element v, std::string_view name, std::optional<std::string>& out) {
  if (v.type() == element_type::NULL_VALUE) {
    out.reset();
    return {};
  }
  if (v.type() != element_type::STRING)
    return wrong_type(name, "a date string (YYYY-MM-DD) or null", v);
  std::string_view s = v.get_string().value_unsafe();
  if (!is_iso_date(s))
    return unprocessable(std::string{name} + " must be a calendar date written YYYY-MM-DD"
                         " (years 0001-9999), got " + quoted(s));
  out.emplace(s);
  return {};
}

// ---- objects ----------------------------------------------------------------------

constexpr std::array<std::string_view, 4> dept_fields = {"deptNumber", "deptName", "deptLocation",
                                                         "emps"};
constexpr std::array<std::string_view, 8> emp_fields = {
  "empNo", "empName", "job", "mgr", "hiredate", "sal", "comm", "deptNumber"};

template <size_t N>
int field_index(const std::array<std::string_view, N>& fields, std::string_view key) noexcept {
  for (size_t i = 0; i < N; ++i)
    if (fields[i] == key)
      return static_cast<int>(i);
  return -1;
}

template <size_t N>
failure unknown_field(std::string_view key, std::string_view where,
                      const std::array<std::string_view, N>& fields) {
  std::string d = "unknown field " + quoted(key) + " in " + std::string{where} + "; allowed: ";
  for (size_t i = 0; i < N; ++i) {
    if (i > 0)
      d += ", ";
    d += fields[i];
  }
  return malformed(std::move(d));
}

failure duplicate_field(std::string_view key, std::string_view where) {
  return malformed("duplicate field " + quoted(key) + " in " + std::string{where});
}

/// An employee object as read, before the checks that need its context.
struct emp_read {
  emp_row row;
  bool deptno_given = false; ///< "deptNumber" present (maybe null)
  size_t index = 0;          ///< position in "emps"
};

/// Reads an employee object. `where` names it in messages ("emps[2]", "the
/// employee"), `prefix` is put before its field names ("emps[2].", "").
check read_emp(element e, std::string_view where, std::string_view prefix, emp_read& out) {
  if (e.type() != element_type::OBJECT)
    return wrong_type(prefix.empty() ? std::string_view{"the body"} : where,
                      prefix.empty() ? "a JSON object (an employee)" : "an object", e);
  simdjson::dom::object obj = e.get_object().value_unsafe();
  unsigned seen = 0;
  std::optional<int32_t> empno;
  std::string name;
  for (auto [key, value] : obj) {
    int i = field_index(emp_fields, key);
    if (i < 0)
      return unknown_field(key, where, emp_fields);
    if (seen & (1u << i))
      return duplicate_field(key, where);
    seen |= 1u << i;
    name.assign(prefix);
    name.append(key);
    check c;
    emp_row& r = out.row;
    switch (i) {
      case 0: c = read_int(value, name, 1, empno); break;
      case 1: c = read_text(value, name, r.ename); break;
      case 2: c = read_text(value, name, r.job); break;
      case 3: c = read_int(value, name, 1, r.mgr); break;
      case 4: c = read_date(value, name, r.hiredate); break;
      case 5: c = read_int(value, name, 0, r.sal); break;
      case 6: c = read_int(value, name, 0, r.comm); break;
      case 7:
        c = read_int(value, name, 1, r.deptno);
        out.deptno_given = true;
        break;
    }
    if (c)
      return c;
  }
  out.row.empno = empno.value_or(0); // 0: absent or null
  return {};
}

/// The employee's own number as a manager.
check check_mgr(const emp_row& r, std::string_view prefix) {
  if (r.mgr && *r.mgr == r.empno)
    return unprocessable(std::string{prefix} + "mgr must not be the employee itself (empNo "
                         + std::to_string(r.empno) + ")");
  return {};
}

/// Fills `id` from the body's value or the path's, or says why it cannot.
check resolve_id(std::optional<int32_t> body_id, std::optional<int32_t> path_id,
                 std::string_view name, int32_t& id) {
  if (path_id && (*path_id <= 0))
    path_id.reset(); // 0 is the router's "no id in the path"
  if (body_id && path_id && *body_id != *path_id)
    return unprocessable(std::string{name} + " " + std::to_string(*body_id)
                         + " in the body differs from " + std::to_string(*path_id)
                         + " in the path");
  if (body_id) {
    id = *body_id;
    return {};
  }
  if (path_id) {
    id = *path_id;
    return {};
  }
  return unprocessable(std::string{name} + " is missing: give it in the body or in the path");
}

/// Parses the body into `root` (must outlive the element): the JSON checks
/// every body shares.
check parse_json(simdjson::dom::parser& parser, std::string_view body, element& root) {
  if (body.size() > body_limits::max_body_bytes)
    return failure{rc_error::too_large, "the request body exceeds the limit of "
                                            + std::to_string(body_limits::max_body_bytes)
                                            + " bytes"};
  if (body.find_first_not_of(" \t\r\n") == std::string_view::npos)
    return malformed("the request body is empty: expected a JSON object");
  if (parser.allocate(body.size(), body_limits::max_depth) != simdjson::SUCCESS)
    return failure{rc_error::internal, "out of memory while parsing the request body"};
  auto err = parser.parse(body.data(), body.size()).get(root);
  switch (err) {
    case simdjson::SUCCESS: return {};
    case simdjson::DEPTH_ERROR:
      return malformed("the JSON nests arrays and objects deeper than "
                       + std::to_string(body_limits::max_depth) + " levels");
    case simdjson::UTF8_ERROR: return malformed("the request body is not valid UTF-8");
    case simdjson::MEMALLOC:
    case simdjson::CAPACITY: return failure{rc_error::internal, "out of memory while parsing the request body"};
    default: return malformed(std::string{"malformed JSON: "} + simdjson::error_message(err));
  }
}

template <class T>
body_result<T> fail(failure f) {
  body_result<T> r;
  r.error = f.error;
  r.detail = std::move(f.detail);
  return r;
}

check read_dept(element root, std::optional<int32_t> path_id, dept_body shape, dept_with_emps& out) {
  if (root.type() != element_type::OBJECT)
    return wrong_type("the body", "a JSON object (a department)", root);
  constexpr std::string_view where = "the department";
  unsigned seen = 0;
  std::optional<int32_t> deptno;
  std::vector<emp_read> emps;
  // Keep the object in a variable: a range-for over get_object().value_unsafe()
  // would iterate a dead temporary.
  simdjson::dom::object obj = root.get_object().value_unsafe();
  for (auto [key, value] : obj) {
    int i = field_index(dept_fields, key);
    if (i < 0)
      return unknown_field(key, where, dept_fields);
    if (seen & (1u << i))
      return duplicate_field(key, where);
    seen |= 1u << i;
    check c;
    switch (i) {
      case 0: c = read_int(value, key, 1, deptno); break;
      case 1: c = read_text(value, key, out.dept.dname); break;
      case 2: c = read_text(value, key, out.dept.loc); break;
      case 3: {
        if (value.type() == element_type::NULL_VALUE)
          break;
        if (value.type() != element_type::ARRAY)
          return wrong_type(key, "an array of employees or null", value);
        simdjson::dom::array arr = value.get_array().value_unsafe();
        size_t n = 0;
        std::string where_emp, prefix;
        for (element e : arr) {
          if (n == body_limits::max_emps)
            return unprocessable("emps holds more than " + std::to_string(body_limits::max_emps)
                                 + " employees");
          where_emp = "emps[" + std::to_string(n) + "]";
          prefix = where_emp + ".";
          emp_read& r = emps.emplace_back();
          r.index = n++;
          if (check ce = read_emp(e, where_emp, prefix, r))
            return ce;
          if (r.row.empno == 0)
            return unprocessable(prefix + "empNo is missing");
          if (check cm = check_mgr(r.row, prefix))
            return cm;
        }
        break;
      }
    }
    if (c)
      return c;
  }
  if (shape == dept_body::whole)
    for (size_t i = 1; i < dept_fields.size(); ++i)
      if ((seen & (1u << i)) == 0)
        return unprocessable(std::string{dept_fields[i]} + " is missing: a PUT replaces the whole department ("
                             + (i == 3 ? "[] for no employees" : "null to set it NULL") + ")");
  if (check c = resolve_id(deptno, path_id, "deptNumber", out.dept.deptno))
    return c;
  const int32_t d = out.dept.deptno;
  for (emp_read& r : emps) {
    std::string prefix = "emps[" + std::to_string(r.index) + "].";
    if (!r.deptno_given)
      r.row.deptno = d;
    else if (!r.row.deptno)
      return unprocessable(prefix + "deptNumber is null but the employee is listed in department "
                           + std::to_string(d) + " (omit it or give " + std::to_string(d) + ")");
    else if (*r.row.deptno != d)
      return unprocessable(prefix + "deptNumber is " + std::to_string(*r.row.deptno)
                           + " but the employee is listed in department " + std::to_string(d));
  }
  std::stable_sort(emps.begin(), emps.end(),
                   [](const emp_read& a, const emp_read& b) { return a.row.empno < b.row.empno; });
  for (size_t i = 1; i < emps.size(); ++i)
    if (emps[i].row.empno == emps[i - 1].row.empno)
      return unprocessable("duplicate empNo " + std::to_string(emps[i].row.empno) + " in emps["
                           + std::to_string(emps[i - 1].index) + "] and emps["
                           + std::to_string(emps[i].index) + "]");
  out.emps.reserve(emps.size());
  for (emp_read& r : emps)
    out.emps.push_back(std::move(r.row));
  return {};
}

} // namespace

bool is_iso_date(std::string_view s) noexcept {
  if (s.size() != 10 || s[4] != '-' || s[7] != '-')
    return false;
  int v[3] = {0, 0, 0};
  constexpr std::pair<size_t, size_t> parts[3] = {{0, 4}, {5, 7}, {8, 10}};
  for (int p = 0; p < 3; ++p) {
    for (size_t i = parts[p].first; i < parts[p].second; ++i) {
      if (s[i] < '0' || s[i] > '9')
        return false;
      v[p] = v[p] * 10 + (s[i] - '0');
    }
  }
  const int y = v[0], m = v[1], d = v[2];
  if (y < 1 || m < 1 || m > 12 || d < 1)
    return false;
  static constexpr int days[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  return d <= days[m - 1] + (m == 2 && leap ? 1 : 0);
}

body_result<dept_with_emps> parse_dept_body(std::string_view body, std::optional<int32_t> path_id,
                                            dept_body shape) {
  simdjson::dom::parser parser{body_limits::max_body_bytes};
  element root;
  if (check c = parse_json(parser, body, root))
    return fail<dept_with_emps>(std::move(*c));
  dept_with_emps d;
  if (check c = read_dept(root, path_id, shape, d))
    return fail<dept_with_emps>(std::move(*c));
  body_result<dept_with_emps> r;
  r.value = std::move(d);
  return r;
}

body_result<emp_row> parse_emp_body(std::string_view body, std::optional<int32_t> path_id) {
  simdjson::dom::parser parser{body_limits::max_body_bytes};
  element root;
  if (check c = parse_json(parser, body, root))
    return fail<emp_row>(std::move(*c));
  emp_read e;
  if (check c = read_emp(root, "the employee", "", e))
    return fail<emp_row>(std::move(*c));
  std::optional<int32_t> body_id;
  if (e.row.empno != 0)
    body_id = e.row.empno;
  if (check c = resolve_id(body_id, path_id, "empNo", e.row.empno))
    return fail<emp_row>(std::move(*c));
  if (check c = check_mgr(e.row, ""))
    return fail<emp_row>(std::move(*c));
  body_result<emp_row> r;
  r.value = std::move(e.row);
  return r;
}

} // namespace restcache::demo
