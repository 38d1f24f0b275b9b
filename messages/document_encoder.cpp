#include "messages/document_encoder.hpp"

#include <charconv>

namespace restcache {

namespace {

void append_int(std::string& out, int64_t v) {
  char buf[24];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), v);
  out.append(buf, end);
}

// Appends `,"key":` (the comma only when the object already has a member).
void append_key(std::string& out, std::string_view key, bool& first) {
  if (!first)
    out.push_back(',');
  first = false;
  out.push_back('"');
  out.append(key);
  out.append("\":");
}

void field(std::string& out, std::string_view key, const std::optional<std::string>& v, bool& first) {
  if (!v)
    return;
  append_key(out, key, first);
  append_json_string(out, *v);
}

void field(std::string& out, std::string_view key, const std::optional<int32_t>& v, bool& first) {
  if (!v)
    return;
  append_key(out, key, first);
  append_int(out, *v);
}

void append_emp(std::string& out, const emp_row& e) {
  bool first = true;
  out.push_back('{');
  append_key(out, "empNo", first);
  append_int(out, e.empno);
  field(out, "empName", e.ename, first);
  field(out, "job", e.job, first);
  field(out, "mgr", e.mgr, first);
  field(out, "hiredate", e.hiredate, first);
  field(out, "sal", e.sal, first);
  field(out, "comm", e.comm, first);
  field(out, "deptNumber", e.deptno, first);
  out.push_back('}');
}

} // namespace

void append_json_string(std::string& out, std::string_view s) {
  static constexpr char hex[] = "0123456789abcdef";
  out.push_back('"');
  size_t run = 0; // start of the pending run of characters needing no escape
  for (size_t i = 0; i < s.size(); ++i) {
    auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c != '"' && c != '\\')
      continue;
    out.append(s.data() + run, i - run);
    run = i + 1;
    switch (c) {
      case '"': out.append("\\\""); break;
      case '\\': out.append("\\\\"); break;
      case '\n': out.append("\\n"); break;
      case '\r': out.append("\\r"); break;
      case '\t': out.append("\\t"); break;
      case '\b': out.append("\\b"); break;
      case '\f': out.append("\\f"); break;
      default:
        out.append("\\u00");
        out.push_back(hex[c >> 4]);
        out.push_back(hex[c & 0xf]);
    }
  }
  out.append(s.data() + run, s.size() - run);
  out.push_back('"');
}

std::string encode_deptemps(const dept_with_emps& d) {
  std::string out;
  out.reserve(96 + d.emps.size() * 150);
  bool first = true;
  out.push_back('{');
  append_key(out, "deptNumber", first);
  append_int(out, d.dept.deptno);
  field(out, "deptName", d.dept.dname, first);
  field(out, "deptLocation", d.dept.loc, first);
  append_key(out, "emps", first);
  out.push_back('[');
  for (size_t i = 0; i < d.emps.size(); ++i) {
    if (i > 0)
      out.push_back(',');
    append_emp(out, d.emps[i]);
  }
  out.append("]}");
  return out;
}

namespace {

void append_dept(std::string& out, const dept_row& d) {
  bool first = true;
  out.push_back('{');
  append_key(out, "deptNumber", first);
  append_int(out, d.deptno);
  field(out, "deptName", d.dname, first);
  field(out, "deptLocation", d.loc, first);
  out.push_back('}');
}

} // namespace

std::string encode_dept(const dept_row& d) {
  std::string out;
  out.reserve(96);
  append_dept(out, d);
  return out;
}

std::string encode_dept_list(const std::vector<dept_row>& depts) {
  std::string out;
  out.reserve(2 + depts.size() * 80);
  out.push_back('[');
  for (size_t i = 0; i < depts.size(); ++i) {
    if (i > 0)
      out.push_back(',');
    append_dept(out, depts[i]);
  }
  out.push_back(']');
  return out;
}

std::string encode_emp(const emp_row& e) {
  std::string out;
  out.reserve(160);
  append_emp(out, e);
  return out;
}

std::string strong_etag(std::string_view bytes) {
  // FNV-1a 64: stable across instances and builds, cheap for 1.5 KB bodies.
  uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  static constexpr char hex[] = "0123456789abcdef";
  std::string out(18, '"');
  for (int i = 0; i < 16; ++i)
    out[1 + i] = hex[(h >> (60 - 4 * i)) & 0xf];
  return out;
}

doc_ptr make_doc(std::string body) {
  auto doc = std::make_shared<cached_doc>();
  doc->etag = strong_etag(body);
  doc->body = std::move(body);
  return doc;
}

} // namespace restcache
