// SPDX-License-Identifier: Apache-2.0
#pragma once

// The installed catalogue's kinds checked against the database they are read
// from, before any is served or watched. The file alone cannot tell whether
// a statement prepares, what its key parameter and its columns are, or which
// tables it really reads: a view, a partition or a function hides them from
// its text, nor what else it depends on. PostgreSQL can: each statement is
// prepared and described (its $1
// must take the kind's key, every field's column must be one its value type
// is written from), and its generic plan (EXPLAIN EXECUTE under
// plan_cache_mode = force_generic_plan, as PostgreSQL 15 has no EXPLAIN
// (GENERIC_PLAN)) names every relation it scans, views expanded. Each must be
// one the kind's reads name, keyed in the kind's own key space: a table whose
// rows do not give the document's key (a dependency more than one hop away)
// would change documents that no logged key names.
//
// What a plan does not show, PostgreSQL records when the statement is the
// body of a function in SQL-standard form (BEGIN ATOMIC): pg_depend then
// names every view, function, operator, type and column it uses. The check
// creates such a function in its own transaction, which it rolls back, and
// follows the views' rules and the functions' own SQL-standard bodies from
// there. The objects found are what the drift check fingerprints for the
// kind (catalog_drift.hpp): a view or function redefined, an enum value
// renamed, a column's type altered. A function whose body PostgreSQL does not
// parse ahead (plpgsql, or SQL as a string) records only that it is called,
// not what it reads: unless IMMUTABLE, or part of an extension, it is refused.
//
// Judging types and reading a plan are plain C++ (fits_key_parameter,
// fits_value, read_plan), tested without a server.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "messages/doc_catalogue.hpp"
#include "messages/key_comparison.hpp"
#include "persistence/pg/connection.hpp"

namespace restcache::pg {

/// A value's type as PostgreSQL has it: its own oid and name, and what it is
/// stored as (a domain's base type, else itself) with that type's category.
struct type_facts {
  uint32_t oid = 0;
  uint32_t base = 0;
  char category = 0; ///< pg_type.typcategory of the base type ('S' strings, 'N' numbers, ...)
  std::string name;  ///< format_type, for messages
  std::string base_name; ///< format_type of the base type ("citext", "public.citext")
};

/// Whether a statement's key parameter of type `t` takes every key of `key`
/// as its canonical text (an int4 key needs $1::int, int8 or numeric).
bool fits_key_parameter(key_type key, const type_facts& t) noexcept;
/// Whether a table's column of type `t` gives keys of `key` as the change
/// log writes them (its text).
bool fits_key_column(key_type key, const type_facts& t) noexcept;
/// Whether an integer parameter or column (a page's size, a count).
bool is_integer_type(const type_facts& t) noexcept;
/// Whether the encoder writes a column of type `t` as `type`: a number from
/// PostgreSQL's numbers, a boolean from boolean, json from json or jsonb, a
/// date or timestamp from its own types or from text the statement formats,
/// text from anything.
bool fits_value(value_type type, const type_facts& t) noexcept;
/// The types fits_value takes for `type`, for messages.
std::string_view value_type_takes(value_type type) noexcept;

/// What a plan reads and does, from EXPLAIN (VERBOSE, FORMAT JSON).
struct plan_reads {
  struct object {
    std::string schema;
    std::string name;
    bool operator==(const object&) const = default;
  };
  std::vector<object> relations; ///< every relation a node scans, once each, in plan order
  std::vector<object> functions; ///< every function a Function Scan reads, once each
  bool writes = false;           ///< a ModifyTable node: INSERT, UPDATE, DELETE or MERGE
};

/// Reads an EXPLAIN (VERBOSE, FORMAT JSON) text. Throws std::invalid_argument
/// when it is not one.
plan_reads read_plan(std::string_view explain_json);

/// Why a kind is refused.
struct kind_refusal {
  std::string reason; ///< "kind 'NAME': ..."
  /// The database lacks what the kind reads (a table, column, function or
  /// privilege), or has it in a form the kind cannot be served from (a key
  /// column whose type no longer gives the key space's keys): the case the
  /// drift check handles while serving, answering the kind uncached until it
  /// is back. Every other refusal is a mistake of the declaration.
  bool missing = false;
  std::string kind; ///< the refused kind's name
};

/// What a kind's statements depend on besides the rows of the tables they
/// read, as catalog objects: "c<oid>" a relation (a view's rules with it),
/// "a<oid>.<attnum>" a column, "p<oid>" a function, "o<oid>" an operator,
/// "t<oid>" a type. Sorted, each once.
struct kind_dependencies {
  std::string kind;
  std::vector<std::string> objects;
  /// False when they could not be found (a session that may not create a
  /// temporary function, or a standby): only the tables' facts vouch for it.
  bool known = false;
  bool operator==(const kind_dependencies&) const = default;
};

/// How a kind's $1 compares its text keys (messages/key_comparison.hpp).
struct kind_key_comparison {
  std::string kind;
  key_comparison comparison;
};

/// How a statement's key parameter of type `t` compares keys: without case
/// for citext, without trailing blanks for char(n), else byte for byte.
key_comparison comparison_of_key_parameter(const type_facts& t) noexcept;

/// A check's refusals and, for every kind without a ttl, what it depends on;
/// for every text kind that prepared, how it compares its keys.
struct kinds_checked {
  std::vector<kind_refusal> refusals;
  std::vector<kind_dependencies> dependencies;
  std::vector<kind_key_comparison> comparisons;
};

/// Publishes the comparisons a check found (set_key_comparison), for the
/// kinds of the installed catalogue.
void publish_key_comparisons(const kinds_checked& checked);

/// Every reason the installed catalogue's kinds cannot be served from the
/// database `c` is connected to, in catalogue order; empty when there is
/// none. Runs in one transaction that it rolls back, with a statement
/// timeout, on statements of its own (deallocated after), and leaves the
/// session as it was. Throws pg::error when the connection fails.
std::vector<kind_refusal> check_kinds(connection& c);
/// The same check, with what each kind depends on (for the drift check).
kinds_checked check_kinds_and_dependencies(connection& c);

} // namespace restcache::pg
