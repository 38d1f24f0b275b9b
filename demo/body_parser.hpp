// SPDX-License-Identifier: Apache-2.0
#pragma once

// Parses and validates the JSON bodies of the write requests (POST/PUT of a
// department with its employees, POST/PUT of one employee). Plain C++ (no CAF,
// no Beast), simdjson DOM underneath.
//
// A body has the shape of the document restcache serves for the resource, so
// a GET document can be PUT back unchanged (encode_deptemps / encode_emp):
//
//   department  {"deptNumber":77,"deptName":"..","deptLocation":"..","emps":[<employee>,...]}
//   employee    {"empNo":761,"empName":"..","job":"..","mgr":760,"hiredate":"1986-04-03",
//                "sal":8005,"comm":300,"deptNumber":77}
//
// Rules (field names are case-sensitive, as in the documents):
// - The body is one JSON object (RFC 8259, UTF-8); anything else is 400. Nesting
//   deeper than body_limits::max_depth is 400, a body over max_body_bytes is 413.
// - A field of the wrong JSON type is 400, naming the field and what it got.
//   Numbers are JSON integers: 77.0 or 7.7e1 is 400 (a number with a fraction or
//   exponent). An integer beyond 64 bits is malformed JSON for simdjson (400).
// - A field not in the allowed list is 400, naming it and the allowed fields;
//   a field given twice in one object is 400.
// - Optional fields absent or null become SQL NULL (an empty optional).
// - ids (deptNumber, empNo, mgr, an employee's deptNumber) are positive int32
//   (1..2147483647); sal and comm are 0..2147483647; outside: 422.
// - Texts (deptName, deptLocation, empName, job) hold at most
//   max_text_chars Unicode code points and no U+0000 (PostgreSQL text cannot
//   store it): 422.
// - hiredate is exactly YYYY-MM-DD (ASCII digits) and a real Gregorian
//   calendar date, years 0001-9999: anything else is 422.
// - deptNumber (department) and empNo (employee) are required, but may come
//   from the path instead (path_id): absent or null in the body takes the path
//   id; both given and different is 422; neither is 422. The empNo of every
//   employee inside a department is required in the body.
// - Inside a department: "emps" absent or null is an empty list; at most
//   max_emps employees (422); an employee's deptNumber absent takes the
//   department's number, null or another number is 422; the same empNo twice
//   is 422 naming both positions. The result's emps are sorted by empNo (the
//   order of dept_with_emps and of the document).
// - mgr equal to the employee's own empNo is 422. (Whether mgr and deptNumber
//   exist is the database's question, not the parser's.)
// The first problem found is reported; its detail quotes at most a few dozen
// characters of client input.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "messages/errors.hpp"
#include "demo/records.hpp"

namespace restcache::demo {

namespace body_limits {
/// Largest body the parser accepts (413 beyond). http.body-limit (default
/// 64 KiB) is normally the smaller limit; this one bounds the parser itself.
inline constexpr size_t max_body_bytes = 16 * 1024 * 1024;
/// Deepest nesting of arrays and objects (a valid department body has 3).
inline constexpr size_t max_depth = 32;
/// Longest deptName, deptLocation, empName or job, in Unicode code points.
inline constexpr size_t max_text_chars = 200;
/// Most employees in one department body.
inline constexpr size_t max_emps = 10'000;
} // namespace body_limits

/// The parsed value, or bad_request (not a body of the right shape),
/// too_large (over body_limits::max_body_bytes) or unprocessable
/// (well-formed, values not acceptable) with a detail for problem+json.
template <class T>
using body_result = outcome<T>;

/// Whether a department body stands for the whole department: a PUT
/// replaces it, so deptName, deptLocation and emps must each be there
/// (null for a NULL column, [] for no employees); a missing one is 422,
/// where it would have set a NULL or deleted every employee unasked.
enum class dept_body : uint8_t { partial_allowed, whole };

/// A department with its employees (POST /depts, PUT /depts/{id}).
/// `path_id` is the department number from the path, if the path has one.
body_result<dept_with_emps> parse_dept_body(std::string_view body,
                                            std::optional<int32_t> path_id = std::nullopt,
                                            dept_body shape = dept_body::partial_allowed);

/// One employee (POST /depts/emps, PUT /depts/emps/{id}).
/// `path_id` is the employee number from the path, if the path has one.
body_result<emp_row> parse_emp_body(std::string_view body,
                                    std::optional<int32_t> path_id = std::nullopt);

/// True for a string of exactly YYYY-MM-DD naming a Gregorian calendar date
/// in the years 0001-9999 (what a hiredate must be).
bool is_iso_date(std::string_view s) noexcept;

} // namespace restcache::demo
