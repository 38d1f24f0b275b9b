// SPDX-License-Identifier: Apache-2.0
#pragma once

// The demo's paths beside its documents: its writes (departments with their
// employees, and employees), its department list and its random department.
// Declared here, run by demo_actions.

#include <cstdint>
#include <string_view>
#include <vector>

#include "http/action_routes.hpp"

namespace restcache::demo {

/// The demo's action routes by id (their places in demo_action_routes()).
enum class demo_route : uint8_t {
  list_depts,          ///< GET /depts?after={id}&limit={n}: a page of departments
  random_dept,         ///< GET /depts/random: a random department's document with its employees
  create_dept,         ///< POST /depts: a department with its employees
  replace_dept,        ///< PUT /depts/{id}
  replace_dept_by_body,///< PUT /depts: the department the body names
  rewrite_random_dept, ///< PUT /depts/random: rewrite a random department with its own values
  delete_dept,         ///< DELETE /depts/{id}
  create_emp,          ///< POST /depts/emps
  replace_emp,         ///< PUT /depts/emps/{id}
  delete_emp,          ///< DELETE /depts/emps/{id}
};
inline constexpr size_t demo_route_count = static_cast<size_t>(demo_route::delete_emp) + 1;

/// The declarations, in demo_route order.
std::vector<http::action_route> demo_action_routes();

/// GET /depts: the page size when none is asked for, and the cap.
inline constexpr int32_t default_page_limit = 100;
inline constexpr int32_t max_page_limit = 1000;

/// What GET /depts asks for.
struct page_query {
  int32_t after = 0;                  ///< departments with a greater number
  int32_t limit = default_page_limit; ///< at most this many (capped)
  std::string_view error;             ///< the 400's detail when malformed (static text)
};

/// Reads after and limit from GET /depts's query string.
page_query parse_page_query(std::string_view query) noexcept;

/// Installs the demo: its kinds as the catalogue, its routes as the action
/// routes.
void install_demo();

/// The demo's part of the OpenAPI document (http::openapi_document): its
/// lists, random pick and writes, with their schemas; compiled in from
/// demo/demo_openapi.json.
extern const char* const demo_openapi;

} // namespace restcache::demo
