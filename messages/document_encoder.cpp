// SPDX-License-Identifier: Apache-2.0
#include "messages/document_encoder.hpp"

#include "messages/json_sink.hpp"

// Header-only: the functions are compiled in here, no library to link.
#define XXH_INLINE_ALL
#include <xxhash.h>

namespace restcache {

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

void append_json_string(std::string& out, std::string_view s) {
  size_sink size;
  size.string(s);
  auto at = out.size();
  out.resize(at + size.n);
  write_sink w{out.data() + at};
  w.string(s);
}

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

std::string strong_etag(std::string_view bytes) {
  // XXH3-64: its output is fixed across versions and machines (every
  // instance agrees), and it reads the bytes in blocks: a fill of the
  // bench's 1.3 KB document spends 1.2k instructions on it (FNV-1a: 8.3k).
  const uint64_t h = XXH3_64bits(bytes.data(), bytes.size());
  static constexpr char hex[] = "0123456789abcdef";
  std::string out(18, '"');
  for (int i = 0; i < 16; ++i)
    out[1 + i] = hex[(h >> (60 - 4 * i)) & 0xf];
  return out;
}

doc_ptr make_doc(std::string body, std::vector<std::string> rows) {
  auto doc = std::make_shared<cached_doc>();
  doc->etag = strong_etag(body);
  doc->body = std::move(body);
  doc->rows = std::move(rows);
  return doc;
}

} // namespace restcache
