// SPDX-License-Identifier: Apache-2.0
#pragma once

// The demo's document kinds (the dept and emp tables of schema.sql), declared
// in demo/demo.toml: the daemon's default catalogue. Their ids are their
// places in the file.

#include <vector>

#include "messages/doc_catalogue.hpp"

namespace restcache::demo {

inline constexpr doc_kind deptemps_kind{1}; ///< a department with its employees, keyed by deptno
inline constexpr doc_kind emp_kind{2};      ///< one employee, keyed by empno
inline constexpr doc_kind dept_kind{3};     ///< the department alone (read with deptemps' statement)

/// demo/demo.toml's text, compiled in.
extern const char* const demo_declarations;

/// The demo's kinds, in id order.
std::vector<doc_kind_entry> demo_kinds();

/// Installs demo_kinds() as the catalogue.
void install_demo_catalogue();

} // namespace restcache::demo
