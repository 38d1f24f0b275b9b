#pragma once

// Every cached document kind in one table: its name, the change-log entity
// whose changes invalidate it, the statement that reads it, its GET route,
// the plan that writes its document and the tables it reads. The listener,
// the LMDB codec, the inspector, both database drivers (through
// persistence/pg/doc_queries.hpp) and the tests read it; nothing else lists
// the kinds.

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "messages/cache_types.hpp"
#include "messages/document_plan.hpp"
#include "messages/records.hpp"

namespace restcache {

/// The named prepared statement that reads a kind's documents: one
/// parameter, the key ($1); its result is written by the kind's plan.
/// Kinds may share one.
struct kind_statement {
  std::string name;
  std::string sql;
};

/// A table a document is read from: the columns its statement reads and the
/// change-log keys ("<key space>:<column>") the table's trigger must write
/// for its documents to be invalidated. Comma-separated lists; the table as
/// the statement names it (resolved by the session's search_path).
struct table_read {
  std::string_view table;
  std::string_view columns;
  std::string_view keys;
};

struct doc_kind_entry {
  doc_kind kind;
  std::string_view name;   ///< metrics labels, inspector reports, logs
  /// The change_log entity whose changes invalidate it (schema.sql's
  /// triggers write it; its CHECK lists every entity).
  std::string_view entity;
  kind_statement statement;
  std::string_view route;  ///< GET path: route followed by the id
  /// How its statement's result is written as its document.
  document_plan plan;
  /// What its statement reads: the tables whose drift (missing triggers,
  /// changed columns) makes its cached documents unsafe.
  std::span<const table_read> reads;
  /// What one of its documents is about, for problem details ("department
  /// 7 does not exist").
  std::string_view noun;
};

/// A kind as one bit of a set of kinds (the drifted kinds, for one).
constexpr uint64_t kind_bit(doc_kind k) noexcept { return uint64_t{1} << static_cast<unsigned>(k); }
/// Whether the key's kind is in the set.
constexpr bool of_kinds(const doc_key& key, uint64_t kinds) noexcept { return (kind_bit(key.kind) & kinds) != 0; }

/// A table some kind reads, with what all of them need of it.
struct watched_table {
  std::string name;
  std::vector<std::string> columns; ///< every column some kind reads, in first-read order
  std::vector<std::string> keys;    ///< every "<key space>:<column>" some kind needs logged
  uint64_t kinds = 0;               ///< the kinds that read it (kind_bit)
};

/// Every table the catalogue's kinds read, in first-read order.
std::vector<watched_table> watched_tables();

/// The kinds that read any of `tables`.
uint64_t kinds_reading(const std::vector<watched_table>& tables) noexcept;

/// The names of the kinds in a set ("deptemps, emp"), in catalogue order.
std::string kind_names(uint64_t kinds);

/// Every kind, in doc_kind order.
std::span<const doc_kind_entry> doc_catalogue() noexcept;

/// The entry of a kind; nullptr for a value no kind has (a stored byte).
const doc_kind_entry* find_doc_kind(uint8_t kind) noexcept;
const doc_kind_entry& doc_kind_info(doc_kind kind) noexcept;
const doc_kind_entry* find_doc_kind(std::string_view name) noexcept;

/// The kind a change-log row of `entity` is keyed by: the entity's first
/// kind in the table (a department's deptemps document); nullopt for an
/// entity no kind has ("truncate" names every document).
std::optional<doc_kind> change_kind(std::string_view entity) noexcept;

/// Calls f(kind) for every other kind the change of a `kind` document
/// invalidates: the other kinds of its entity (a department's document
/// without employees).
template <class F>
void for_each_fanned_out(doc_kind kind, F&& f) {
  const auto& changed = doc_kind_info(kind);
  for (const auto& e : doc_catalogue())
    if (e.kind != kind && e.entity == changed.entity)
      f(e.kind);
}

} // namespace restcache
