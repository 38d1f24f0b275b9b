// SPDX-License-Identifier: Apache-2.0
#pragma once

// The demo's rows (a department, an employee) as its typed reads, writes
// and body parser use them. A SQL NULL is an empty optional;
// the document encoder omits its key.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace restcache::demo {

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

} // namespace restcache::demo
