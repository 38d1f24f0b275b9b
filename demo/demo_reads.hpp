// SPDX-License-Identifier: Apache-2.0
#pragma once

// The demo's typed reads: a department with its employees and an employee,
// by their kinds' statements and decoded by their kinds' plans (demo/demo.toml
// alone names the statements and their columns), the pages of GET /depts and
// the id set behind /depts/random (statements of the demo's own, prepared at
// their first use). Each is blocking, on a connection's own thread; each
// throws pg::error.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "demo/records.hpp"
#include "persistence/pg/connection.hpp"

namespace restcache::demo {

/// The name of the deptemps kind's statement (one parameter: deptno) and of
/// the emp kind's (one: empno), as the installed catalogue has them; for
/// callers that run them asynchronously. Throws pg::error when the demo's
/// kinds are not installed.
const std::string& deptemps_statement();
const std::string& emp_statement();

/// The id set's statement: $1 after (bigint), $2 limit.
extern const char* const dept_ids_page_statement;
/// Rows per page of dept_ids_page_statement as fetch_dept_ids runs it.
inline constexpr int dept_ids_page_size = 100'000;

/// The department and its employees (ordered by empno) in one round trip;
/// nullopt when the department does not exist.
std::optional<dept_with_emps> fetch_deptemps(pg::connection& c, int32_t deptno);
/// Decodes a result of deptemps_statement(); nullopt when no rows.
std::optional<dept_with_emps> decode_deptemps(const pg::result& r);

/// One employee; nullopt when it does not exist.
std::optional<emp_row> fetch_emp(pg::connection& c, int32_t empno);
/// Decodes a result of emp_statement(); nullopt when no rows.
std::optional<emp_row> decode_emp(const pg::result& r);

/// Up to `limit` departments (alone) with deptno > `after`, ascending: one
/// page of GET /depts (keyset pagination).
std::vector<dept_row> fetch_dept_page(pg::connection& c, int32_t after, int32_t limit);

/// Every existing department number, ascending.
std::vector<int32_t> fetch_dept_ids(pg::connection& c);

} // namespace restcache::demo
