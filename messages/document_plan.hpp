// SPDX-License-Identifier: Apache-2.0
#pragma once

// How a kind's document is written from the text of its statement's result:
// which column becomes which JSON member, of what type, and an optional
// array of detail rows (a master's LEFT JOIN: the master's columns repeat on
// every row, a detail's columns are NULL when it has none). One encoder
// serves every kind and both database drivers; the rows are never decoded
// into strings and integers only to be written out again.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace restcache {

/// How a column's text (PostgreSQL's output, DateStyle ISO, UTC) becomes a
/// JSON value.
enum class value_type : uint8_t {
  number,    ///< integers, numeric, floats: the digits as they are; a value JSON has
             ///< no number for (NaN, Infinity) is written as a string
  text,      ///< a JSON string, escaped
  date,      ///< 'YYYY-MM-DD' as a string
  timestamp, ///< ISO 8601 as a string: 'YYYY-MM-DDTHH:MM:SS[.ffffff][+HH:MM]'
  boolean,   ///< t/f as true/false
  json,      ///< json or jsonb text embedded as it is
};

struct field_plan {
  field_plan(std::string name, int column, value_type type);

  std::string name; ///< the JSON member's name
  int column = 0;   ///< its column in the result
  value_type type = value_type::text;
  std::string member; ///< `"name":` as JSON writes it, escaped once here
};

/// The members of one object, in order.
struct object_plan {
  std::vector<field_plan> fields;
};

/// An array member after the master's members: one element per row whose
/// `present_column` is not NULL, in the result's order.
struct detail_plan {
  detail_plan(std::string name, int present_column, object_plan element);

  std::string name;
  int present_column = 0;
  object_plan element;
  std::string member; ///< `"name":`, escaped once here
};

struct document_plan {
  object_plan master; ///< read from the first row
  std::optional<detail_plan> detail;
  /// A NULL value is written as null rather than leaving its member out.
  bool write_nulls = false;
};

/// A query result's cells as text, as libpq hands them out.
class text_cells {
public:
  virtual ~text_cells() = default;
  virtual int rows() const noexcept = 0;
  virtual bool is_null(int row, int column) const noexcept = 0;
  /// The cell's text; nullopt for NULL.
  virtual std::optional<std::string_view> value(int row, int column) const noexcept = 0;
};

/// The document `plan` writes from `cells`; empty when there are no rows
/// (the document does not exist).
std::string encode_document(const document_plan& plan, const text_cells& cells);

/// The type's name in a declaration file ("number", "timestamp", ...).
std::string_view value_type_name(value_type type) noexcept;

/// The largest column index `plan` reads (a statement must return more).
int last_column(const document_plan& plan) noexcept;

} // namespace restcache
