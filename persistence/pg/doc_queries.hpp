#pragma once

// The database half of the document catalogue (messages/doc_catalogue.hpp):
// per row shape, the named prepared statement that reads it, and the
// kind's document written from its result by the kind's plan. Both drivers
// read documents only through this.

#include <cstdint>
#include <memory>
#include <string>

#include "messages/doc_catalogue.hpp"
#include "messages/records.hpp"

namespace restcache::pg {

class connection;
class result;

struct row_query {
  row_shape shape;
  const char* const* statement; ///< the prepared statement's name; one parameter: the id
};

const row_query& row_query_of(row_shape shape) noexcept;
inline const row_query& row_query_of(doc_kind kind) noexcept {
  return row_query_of(doc_kind_info(kind).rows);
}

/// The document of `kind` written straight from a result of its statement
/// by its plan (both drivers); empty when the result holds no rows. Throws
/// pg::error when the result has fewer columns than the plan reads.
std::string encode_result(const result& r, const doc_kind_entry& kind);

/// The document `key` names, read with its kind's statement and encoded
/// from the result's text (the threads driver); empty when it does not
/// exist. Throws pg::error.
std::string read_document(connection& c, const doc_key& key);

} // namespace restcache::pg
