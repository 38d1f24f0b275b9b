#include "persistence/pg/doc_queries.hpp"

#include <array>

#include "persistence/pg/connection.hpp"
#include "persistence/pg/statements.hpp"

namespace restcache::pg {

namespace {

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
  {row_shape::department, &fetch_deptemps_statement, &encode_department},
  {row_shape::employee, &fetch_emp_statement, &encode_employee},
}};

} // namespace

const row_query& row_query_of(row_shape shape) noexcept {
  return queries[static_cast<size_t>(shape) < queries.size() ? static_cast<size_t>(shape) : 0];
}

std::string read_document(connection& c, const doc_key& key) {
  const auto& q = row_query_of(key.kind);
  ensure_prepared(c, *q.statement);
  return q.encode_result(c.exec_prepared(*q.statement, {std::to_string(key.id)}), doc_kind_info(key.kind));
}

} // namespace restcache::pg
