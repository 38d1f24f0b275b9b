// SPDX-License-Identifier: Apache-2.0
#include "messages/document_rows.hpp"

#include <algorithm>
#include <string_view>

#include "messages/cache_types.hpp"

namespace restcache {

bool knows_rows(const doc_kind_entry& kind) noexcept {
  return std::any_of(kind.reads.begin(), kind.reads.end(), [](const table_read& r) { return !r.row_columns.empty(); });
}

std::vector<std::string> document_rows(const doc_kind_entry& kind, const text_cells& cells) {
  std::vector<std::string> out;
  std::vector<std::string_view> identity;
  for (const auto& read : kind.reads) {
    if (read.row_columns.empty())
      continue;
    for (int row = 0; row < cells.rows(); ++row) {
      identity.clear();
      for (int column : read.row_columns) {
        auto v = cells.value(row, column);
        if (!v)
          break;
        identity.push_back(*v);
      }
      if (identity.size() == read.row_columns.size())
        out.push_back(row_key(read.table, identity));
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

} // namespace restcache
