#pragma once

// Plain rows as they come out of PostgreSQL. A SQL NULL is an empty optional;
// the document encoder omits its key.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace restcache {

struct emp_row {
  int32_t empno = 0;
  std::optional<std::string> ename;
  std::optional<std::string> job;
  std::optional<int32_t> mgr;
  std::optional<std::string> hiredate; ///< "YYYY-MM-DD"
  std::optional<int32_t> sal;
  std::optional<int32_t> comm;
  std::optional<int32_t> deptno;
};

struct dept_row {
  int32_t deptno = 0;
  std::optional<std::string> dname;
  std::optional<std::string> loc;
};

/// The department-with-employees document's data; emps ordered by empno.
struct dept_with_emps {
  dept_row dept;
  std::vector<emp_row> emps;
};

// The same rows as views into the result that holds them (which must
// outlive them), for a fill that encodes its document where the rows were
// read: no string copied, no integer parsed.

/// An integer column's decimal text as PostgreSQL sent it, checked to be
/// decimal by whoever made it; a document gets these digits as they are.
struct int_text {
  std::string_view digits;
};

struct emp_text {
  int_text empno;
  std::optional<std::string_view> ename;
  std::optional<std::string_view> job;
  std::optional<int_text> mgr;
  std::optional<std::string_view> hiredate;
  std::optional<int_text> sal;
  std::optional<int_text> comm;
  std::optional<int_text> deptno;
};

struct dept_text {
  int_text deptno;
  std::optional<std::string_view> dname;
  std::optional<std::string_view> loc;
};

struct deptemps_text {
  dept_text dept;
  std::vector<emp_text> emps;
};

} // namespace restcache
