// SPDX-License-Identifier: Apache-2.0
#pragma once

// restcache writes its response JSON itself: field names of the original
// service, a SQL NULL omits its key, no whitespace.

#include <string>
#include <string_view>
#include <vector>

#include "messages/cache_types.hpp"
#include "messages/records.hpp"

namespace restcache {

/// {"deptNumber":..,"deptName":..,"deptLocation":..,"emps":[{"empNo":..,...}]}
std::string encode_deptemps(const dept_with_emps& d);

/// {"deptNumber":..,"deptName":..,"deptLocation":..}: the department alone.
std::string encode_dept(const dept_row& d);

/// [{"deptNumber":..,...},...]: a page of departments alone (GET /depts).
std::string encode_dept_list(const std::vector<dept_row>& depts);

/// {"empNo":..,"empName":..,"job":..,"mgr":..,"hiredate":..,"sal":..,"comm":..,"deptNumber":..}
std::string encode_emp(const emp_row& e);

/// Appends s as a JSON string literal (with quotes), escaping as RFC 8259 asks.
void append_json_string(std::string& out, std::string_view s);

/// A strong ETag for the bytes: "\"" + 16 hex digits of a 64-bit hash + "\"".
std::string strong_etag(std::string_view bytes);

/// Encodes and wraps in an immutable shared document, with the table rows
/// it was made from (messages/document_rows.hpp) when its kind knows them.
doc_ptr make_doc(std::string body, std::vector<std::string> rows = {});

} // namespace restcache
