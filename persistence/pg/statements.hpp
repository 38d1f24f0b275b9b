#pragma once

// Every SQL statement the daemon runs, as named prepared statements.

#include <cstdint>
#include <optional>
#include <vector>

#include "messages/records.hpp"
#include "persistence/pg/connection.hpp"

namespace restcache::pg {

/// Prepares every named statement on a fresh connection (and sets the
/// session settings the codec relies on, e.g. DateStyle ISO).
void prepare_statements(connection& c);

/// The department and its employees (ordered by empno) in one round trip;
/// nullopt when the department does not exist. Throws pg::error.
std::optional<dept_with_emps> fetch_deptemps(connection& c, int32_t deptno);

/// Every existing department number, ascending. Throws pg::error.
std::vector<int32_t> fetch_dept_ids(connection& c);

} // namespace restcache::pg
