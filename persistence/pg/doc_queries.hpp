// SPDX-License-Identifier: Apache-2.0
#pragma once

// The database half of the document catalogue (messages/doc_catalogue.hpp):
// a kind's document read with its statement and written from the result by
// its plan. Both drivers read documents only through this.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "messages/doc_catalogue.hpp"

namespace restcache::pg {

class connection;
class result;

/// The document of `kind` written straight from a result of its statement
/// by its plan (both drivers); empty when the result holds no rows. Throws
/// pg::error when the result has fewer columns than the plan reads.
std::string encode_result(const result& r, const doc_kind_entry& kind);

/// The table rows the kind's reads declare in a result of its statement
/// (messages/document_rows.hpp); empty when it declares none. Throws
/// pg::error when the result has fewer columns than a row column.
std::vector<std::string> result_rows(const result& r, const doc_kind_entry& kind);

/// The document `key` names, read with its kind's statement and encoded
/// from the result's text (the threads driver); empty when it does not
/// exist; its rows into `rows` when given. Throws pg::error.
std::string read_document(connection& c, const doc_key& key, std::vector<std::string>* rows = nullptr);

/// A page of a kind's documents for cache.populate, in key order.
struct document_page {
  std::vector<std::pair<doc_key, std::string>> documents; ///< each key with its document
  std::vector<std::vector<std::string>> rows_of; ///< each document's table rows, as documents are ordered
  std::string last_key; ///< the spelling of the page's last key: the next page reads past it
  int rows = 0;         ///< rows the statement answered; 0: past the last document
};

/// The documents of a result of `kind`'s populate statement: its rows
/// split where the key column changes, each run written by the kind's
/// plan; a key no request could name is passed over. Throws pg::error for
/// too few columns.
document_page encode_page(const result& r, const doc_kind_entry& kind);

/// Up to `limit` documents of `kind` with keys past `after`, in key order
/// (the threads driver). Throws pg::error.
document_page read_page(connection& c, const doc_kind_entry& kind, const std::string& after, int32_t limit);

/// How many documents `kind` has (its populate count statement). Throws pg::error.
int64_t count_documents(connection& c, const doc_kind_entry& kind);

} // namespace restcache::pg
