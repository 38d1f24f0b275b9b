// SPDX-License-Identifier: Apache-2.0
#pragma once

// The demo's documents written from its typed rows (a write's answer, the
// pages of GET /depts): the same bytes its kinds' plans write from a result
// (field names of the original service, a SQL NULL omits its key, no
// whitespace).

#include <string>
#include <vector>

#include "demo/records.hpp"

namespace restcache::demo {

/// {"deptNumber":..,"deptName":..,"deptLocation":..,"emps":[{"empNo":..,...}]}
std::string encode_deptemps(const dept_with_emps& d);

/// {"deptNumber":..,"deptName":..,"deptLocation":..}: the department alone.
std::string encode_dept(const dept_row& d);

/// [{"deptNumber":..,...},...]: a page of departments alone (GET /depts).
std::string encode_dept_list(const std::vector<dept_row>& depts);

/// {"empNo":..,"empName":..,"job":..,"mgr":..,"hiredate":..,"sal":..,"comm":..,"deptNumber":..}
std::string encode_emp(const emp_row& e);

} // namespace restcache::demo
