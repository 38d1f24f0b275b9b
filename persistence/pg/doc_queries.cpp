// SPDX-License-Identifier: Apache-2.0
#include "persistence/pg/doc_queries.hpp"

#include <algorithm>
#include <string>

#include "messages/document_rows.hpp"
#include "messages/key_comparison.hpp"
#include "persistence/pg/connection.hpp"
#include "persistence/pg/statements.hpp"

namespace restcache::pg {

namespace {

/// A result's cells for the plan encoder.
class result_cells final : public text_cells {
public:
  explicit result_cells(const result& r) : r_(r) {}
  int rows() const noexcept override { return r_.rows(); }
  bool is_null(int row, int column) const noexcept override { return r_.is_null(row, column); }
  std::optional<std::string_view> value(int row, int column) const noexcept override {
    return r_.opt_view(row, column);
  }

private:
  const result& r_;
};

/// Rows [first, first + count) of other cells: one document of a page.
class row_range final : public text_cells {
public:
  row_range(const text_cells& all, int first, int count) : all_(all), first_(first), count_(count) {}
  int rows() const noexcept override { return count_; }
  bool is_null(int row, int column) const noexcept override { return all_.is_null(first_ + row, column); }
  std::optional<std::string_view> value(int row, int column) const noexcept override {
    return all_.value(first_ + row, column);
  }

private:
  const text_cells& all_;
  int first_, count_;
};

} // namespace

std::string encode_result(const result& r, const doc_kind_entry& kind) {
  if (r.rows() > 0 && r.columns() <= last_column(kind.plan))
    throw error(std::string{kind.name} + ": its statement returned " + std::to_string(r.columns())
                + " columns, its plan reads column " + std::to_string(last_column(kind.plan)));
  return encode_document(kind.plan, result_cells{r});
}

namespace {

/// The largest row column the kind's reads declare; -1 when none.
int last_row_column(const doc_kind_entry& kind) noexcept {
  int last = -1;
  for (const auto& r : kind.reads)
    for (int c : r.row_columns)
      last = std::max(last, c);
  return last;
}

void check_row_columns(int columns, const doc_kind_entry& kind) {
  if (auto last = last_row_column(kind); columns <= last)
    throw error(kind.name + ": its statement returned " + std::to_string(columns)
                + " columns, its row_columns name column " + std::to_string(last + 1));
}

} // namespace

std::vector<std::string> result_rows(const result& r, const doc_kind_entry& kind) {
  if (r.rows() == 0 || !knows_rows(kind))
    return {};
  check_row_columns(r.columns(), kind);
  return document_rows(kind, result_cells{r});
}

std::string read_document(connection& c, const doc_key& key, std::vector<std::string>* rows) {
  const auto& kind = doc_kind_info(key.kind());
  ensure_prepared(c, kind.statement.name.c_str());
  auto r = c.exec_prepared(kind.statement.name, {key_spelling(kind.key, key)});
  if (rows != nullptr)
    *rows = result_rows(r, kind);
  return encode_result(r, kind);
}

document_page encode_page(const result& r, const doc_kind_entry& kind) {
  document_page page;
  const int rows = page.rows = r.rows();
  if (rows == 0)
    return page;
  const int key_column = kind.populate.key_column;
  if (r.columns() <= std::max(last_column(kind.plan), key_column))
    throw error(kind.name + ": its populate statement returned " + std::to_string(r.columns())
                + " columns, its plan reads column " + std::to_string(std::max(last_column(kind.plan), key_column)));
  const bool with_rows = knows_rows(kind);
  if (with_rows)
    check_row_columns(r.columns(), kind);
  result_cells cells{r};
  for (int first = 0; first < rows;) {
    auto key_text = r.text(first, key_column);
    int end = first + 1;
    while (end < rows && r.text(end, key_column) == key_text)
      ++end;
    // A key no request can name (0, negative, too long) is passed over:
    // nothing would ever read its document. So is one whose spelling cannot
    // be vouched for as its row's one (key_comparison.hpp).
    doc_key key;
    if (parse_canonical_key(kind.key, kind.kind, key_text, key) == key_error::none && cacheable_key(key)) {
      row_range one{cells, first, end - first};
      page.documents.emplace_back(std::move(key), encode_document(kind.plan, one));
      page.rows_of.push_back(with_rows ? document_rows(kind, one) : std::vector<std::string>{});
    }
    page.last_key = std::string{key_text};
    first = end;
  }
  return page;
}

document_page read_page(connection& c, const doc_kind_entry& kind, const std::string& after, int32_t limit) {
  const auto& s = kind.populate.statement;
  ensure_prepared(c, s.name.c_str());
  return encode_page(c.exec_prepared(s.name, {after, std::to_string(limit)}), kind);
}

int64_t count_documents(connection& c, const doc_kind_entry& kind) {
  const auto& s = kind.populate.count;
  ensure_prepared(c, s.name.c_str());
  return c.exec_prepared(s.name, {}).int64(0, 0);
}

} // namespace restcache::pg
