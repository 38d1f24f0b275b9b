#include "persistence/pg/doc_queries.hpp"

#include <array>

#include "persistence/pg/connection.hpp"
#include "persistence/pg/statements.hpp"

namespace restcache::pg {

namespace {

fetched_rows fetch_department(connection& c, int32_t id) {
  fetched_rows out;
  if (auto d = fetch_deptemps(c, id))
    out.department = std::make_shared<const dept_with_emps>(std::move(*d));
  return out;
}

fetched_rows fetch_employee(connection& c, int32_t id) {
  fetched_rows out;
  if (auto e = fetch_emp(c, id))
    out.employee = std::make_shared<const emp_row>(std::move(*e));
  return out;
}

std::string encode_department(const result& r, const doc_kind_entry& kind) {
  auto d = deptemps_text_of(r);
  return d ? kind.encode_text(doc_text_rows{&*d, nullptr}) : std::string{};
}

std::string encode_employee(const result& r, const doc_kind_entry& kind) {
  auto e = emp_text_of(r);
  return e ? kind.encode_text(doc_text_rows{nullptr, &*e}) : std::string{};
}

// In row_shape order.
const std::array<row_query, 2> queries{{
  {row_shape::department, &fetch_deptemps_statement, &fetch_department, &encode_department},
  {row_shape::employee, &fetch_emp_statement, &fetch_employee, &encode_employee},
}};

} // namespace

const row_query& row_query_of(row_shape shape) noexcept {
  return queries[static_cast<size_t>(shape) < queries.size() ? static_cast<size_t>(shape) : 0];
}

} // namespace restcache::pg
