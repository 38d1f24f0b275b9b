// SPDX-License-Identifier: Apache-2.0
#pragma once

// The pieces every encoder of a document shares: JSON string literals, the
// strong ETag and the shared document (the kinds' documents are written by
// their plans, messages/document_plan.hpp).

#include <string>
#include <string_view>
#include <vector>

#include "messages/cache_types.hpp"

namespace restcache {

/// Appends s as a JSON string literal (with quotes), escaping as RFC 8259 asks.
void append_json_string(std::string& out, std::string_view s);

/// A strong ETag for the bytes: "\"" + 16 hex digits of a 64-bit hash + "\"".
std::string strong_etag(std::string_view bytes);

/// Encodes and wraps in an immutable shared document, with the table rows
/// it was made from (messages/document_rows.hpp) when its kind knows them.
doc_ptr make_doc(std::string body, std::vector<std::string> rows = {});

} // namespace restcache
