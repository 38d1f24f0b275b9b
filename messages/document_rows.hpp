// SPDX-License-Identifier: Apache-2.0
#pragma once

// The table rows a document is made from, for the reads that declare them
// (table_read::row_columns): each row's identity as its statement's result
// gives it, spelled as row_key() spells it, once each. The WAL feed under a
// table's default replica identity sends a changed row's identity and not
// its old key columns; these let that change find the documents holding it.

#include <string>
#include <vector>

#include "messages/doc_catalogue.hpp"
#include "messages/document_plan.hpp"

namespace restcache {

/// Whether any of the kind's reads declares its rows.
bool knows_rows(const doc_kind_entry& kind) noexcept;

/// The rows of `cells` (one document's result) the kind's reads declare,
/// sorted, each once; a result row whose identity column is NULL (the
/// outer side of a join that found none) names no row. Empty when the kind
/// declares none.
std::vector<std::string> document_rows(const doc_kind_entry& kind, const text_cells& cells);

} // namespace restcache
