#pragma once

// The database half of the document catalogue (messages/doc_catalogue.hpp):
// per row shape, the named prepared statement that reads it and its
// decoders. Both drivers read documents only through this.

#include <cstdint>
#include <memory>
#include <string>

#include "messages/doc_catalogue.hpp"
#include "messages/records.hpp"

namespace restcache::pg {

class connection;
class result;

/// A shape's rows decoded; the member of its shape is set when rows exist.
struct fetched_rows {
  std::shared_ptr<const dept_with_emps> department;
  std::shared_ptr<const emp_row> employee;
};

struct row_query {
  row_shape shape;
  const char* const* statement; ///< the prepared statement's name; one parameter: the id
  /// Runs the statement for `id` and decodes its rows (the thread driver).
  fetched_rows (*fetch)(connection& c, int32_t id);
  /// The document of `kind` encoded straight from a result of the statement
  /// (the async driver); empty when the result holds no rows.
  std::string (*encode_result)(const result& r, const doc_kind_entry& kind);
};

const row_query& row_query_of(row_shape shape) noexcept;
inline const row_query& row_query_of(doc_kind kind) noexcept {
  return row_query_of(doc_kind_info(kind).rows);
}

} // namespace restcache::pg
