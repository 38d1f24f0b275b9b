#pragma once

// The database half of the document catalogue (messages/doc_catalogue.hpp):
// a kind's document read with its statement and written from the result by
// its plan. Both drivers read documents only through this.

#include <string>

#include "messages/doc_catalogue.hpp"

namespace restcache::pg {

class connection;
class result;

/// The document of `kind` written straight from a result of its statement
/// by its plan (both drivers); empty when the result holds no rows. Throws
/// pg::error when the result has fewer columns than the plan reads.
std::string encode_result(const result& r, const doc_kind_entry& kind);

/// The document `key` names, read with its kind's statement and encoded
/// from the result's text (the threads driver); empty when it does not
/// exist. Throws pg::error.
std::string read_document(connection& c, const doc_key& key);

} // namespace restcache::pg
