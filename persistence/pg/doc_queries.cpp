#include "persistence/pg/doc_queries.hpp"

#include <string>

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

} // namespace

std::string encode_result(const result& r, const doc_kind_entry& kind) {
  if (r.rows() > 0 && r.columns() <= last_column(kind.plan))
    throw error(std::string{kind.name} + ": its statement returned " + std::to_string(r.columns())
                + " columns, its plan reads column " + std::to_string(last_column(kind.plan)));
  return encode_document(kind.plan, result_cells{r});
}

std::string read_document(connection& c, const doc_key& key) {
  const auto& kind = doc_kind_info(key.kind());
  ensure_prepared(c, kind.statement.name.c_str());
  return encode_result(c.exec_prepared(kind.statement.name, {key_spelling(kind.key, key)}), kind);
}

} // namespace restcache::pg
