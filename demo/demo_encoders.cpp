// SPDX-License-Identifier: Apache-2.0
#include "demo/demo_encoders.hpp"

#include "messages/json_sink.hpp"

namespace restcache::demo {

namespace {

using json_sink::encode;
using json_sink::size_sink;
using json_sink::write_sink;

// Values of decoded rows (std::string converts).
template <class Sink>
void put_value(Sink& out, std::string_view v) {
  out.string(v);
}

template <class Sink>
void put_value(Sink& out, int32_t v) {
  out.integer(v);
}

// A member after the first: `key` is `,"name":`. A SQL NULL omits it.
template <class Sink, class T>
void member(Sink& out, std::string_view key, const std::optional<T>& v) {
  if (!v)
    return;
  out.raw(key);
  put_value(out, *v);
}

template <class Sink, class Emp>
void put_emp(Sink& out, const Emp& e) {
  out.raw("{\"empNo\":");
  put_value(out, e.empno);
  member(out, ",\"empName\":", e.ename);
  member(out, ",\"job\":", e.job);
  member(out, ",\"mgr\":", e.mgr);
  member(out, ",\"hiredate\":", e.hiredate);
  member(out, ",\"sal\":", e.sal);
  member(out, ",\"comm\":", e.comm);
  member(out, ",\"deptNumber\":", e.deptno);
  out.ch('}');
}

template <class Sink, class Dept>
void put_dept_members(Sink& out, const Dept& d) {
  out.raw("{\"deptNumber\":");
  put_value(out, d.deptno);
  member(out, ",\"deptName\":", d.dname);
  member(out, ",\"deptLocation\":", d.loc);
}

template <class Sink, class Dept>
void put_dept(Sink& out, const Dept& d) {
  put_dept_members(out, d);
  out.ch('}');
}

template <class Sink, class DeptEmps>
void put_deptemps(Sink& out, const DeptEmps& d) {
  put_dept_members(out, d.dept);
  out.raw(",\"emps\":[");
  for (size_t i = 0; i < d.emps.size(); ++i) {
    if (i > 0)
      out.ch(',');
    put_emp(out, d.emps[i]);
  }
  out.raw("]}");
}

template <class Sink>
void put_dept_list(Sink& out, const std::vector<dept_row>& depts) {
  out.ch('[');
  for (size_t i = 0; i < depts.size(); ++i) {
    if (i > 0)
      out.ch(',');
    put_dept(out, depts[i]);
  }
  out.ch(']');
}

} // namespace

std::string encode_deptemps(const dept_with_emps& d) {
  return encode([&](auto& sink) { put_deptemps(sink, d); });
}

std::string encode_dept(const dept_row& d) {
  return encode([&](auto& sink) { put_dept(sink, d); });
}

std::string encode_dept_list(const std::vector<dept_row>& depts) {
  return encode([&](auto& sink) { put_dept_list(sink, depts); });
}

std::string encode_emp(const emp_row& e) {
  return encode([&](auto& sink) { put_emp(sink, e); });
}

} // namespace restcache::demo
