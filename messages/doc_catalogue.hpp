// SPDX-License-Identifier: Apache-2.0
#pragma once

// Every cached document kind in one table, installed at start-up: its name,
// key type, the change-log key space whose changes invalidate it, the
// statement that reads it, its GET route, the plan that writes its document
// and the tables it reads. The listener, the LMDB tier, the inspector, both
// database drivers (through persistence/pg/doc_queries.hpp) and the tests
// read it; nothing else lists the kinds. The demo's kinds are installed by
// demo/ (the daemon's default); the engine names none of them.

#include <atomic>
#include <chrono>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "messages/cache_types.hpp"
#include "messages/document_plan.hpp"

namespace restcache {

/// The named prepared statement that reads a kind's documents: one
/// parameter, the key ($1); its result is written by the kind's plan.
/// Kinds may share one.
struct kind_statement {
  std::string name;
  std::string sql;
};

/// How cache.populate reads a kind's documents, a page at a time in key
/// order: `statement` takes the last key read ($1, as text; first_key for
/// the first page) and the page size ($2), and answers the rows of whole
/// documents in the layout of the kind's own statement, those of one
/// document together, its key in column `key_column`. `count` (no
/// parameter) says how many documents there are, for progress. A kind
/// without a statement is not populated.
struct populate_plan {
  kind_statement statement;
  kind_statement count;
  int key_column = 0;
  std::string plural; ///< what the documents are, in the progress log ("departments")
};

/// The key a first page reads past: below every key of the type.
std::string_view first_key(key_type type) noexcept;

/// A table a document is read from: the columns its statement reads and the
/// change-log keys ("<key space>:<column>") the table's trigger must write
/// for its documents to be invalidated. Comma-separated lists; the table as
/// the statement names it (resolved by the session's search_path).
struct table_read {
  std::string table;
  std::string columns;
  std::string keys;
  /// The result columns (from 0) that give, for each row of the table a
  /// document is made from, its replica identity (its primary key's
  /// columns, in the table's column order); empty when not declared. A
  /// document then knows its rows (cached_doc::rows), so an UPDATE or
  /// DELETE that names only a row's identity finds it: the WAL feed needs
  /// no REPLICA IDENTITY FULL on the table.
  std::vector<int> row_columns;
};

struct doc_kind_entry {
  /// Its id: its place in the installed catalogue, from 1 (install_catalogue
  /// gives it).
  doc_kind kind{};
  std::string name; ///< metrics labels, inspector reports, logs
  /// The change-log key space whose changes invalidate it (its tables'
  /// triggers write "<space>:<key>"). Kinds of one space share their keys.
  std::string entity;
  key_type key = key_type::int4; ///< its key column's type
  kind_statement statement;
  std::string route; ///< GET path: route followed by the key
  std::string key_name = "key"; ///< the key's name in the route's template ("/orders/{code}"), for documentation
  /// How its statement's result is written as its document.
  document_plan plan;
  /// What its statement reads: the tables whose drift (missing triggers,
  /// changed columns) makes its cached documents unsafe.
  std::vector<table_read> reads;
  /// What one of its documents is about, for problem details ("department
  /// 7 does not exist").
  std::string noun;
  populate_plan populate;
  /// How long a document is kept after it was read, for documents that
  /// change without a logged write (time-dependent data, a table not
  /// watched); 0: until a change drops it. A kind with one is kept in
  /// memory only (cache/kind_limits.hpp says why).
  std::chrono::seconds ttl{0};
  /// The largest document kept, its body's bytes: a larger one is answered
  /// and not kept. 0: no cap but the tiers' budgets.
  int64_t max_bytes = 0;
};

/// A name as metric labels, logs, the change log's key spaces and
/// PostgreSQL's identifiers take it: 1 to 63 of a-z, 0-9 and _, not led by
/// a digit.
bool is_plain_name(std::string_view s) noexcept;

/// A route as paths and metric labels take it: "/" ... "/", of path
/// characters that need no escaping.
bool is_plain_route(std::string_view s) noexcept;

/// The most kinds a catalogue holds (a set of kinds is one 64-bit word).
inline constexpr size_t max_kinds = 63;

/// Makes `kinds` the catalogue, their ids given in order from 1; throws
/// std::invalid_argument for a name or key space other than 1 to 63 of
/// a-z, 0-9 and _, a duplicate name, a route that is not "/.../" of
/// unescaped path characters, more than max_kinds, or kinds of one key
/// space with different key types. Called
/// before any reader starts (the daemon at start-up, a test between
/// actor systems); a catalogue once installed stays readable.
void install_catalogue(std::vector<doc_kind_entry> kinds);

/// A fingerprint of what a kind's cached documents depend on: its name,
/// key type, statement and plan. A stored document of a kind whose
/// fingerprint changed is no longer what the kind would write.
uint64_t kind_fingerprint(const doc_kind_entry& kind);

/// A kind as one bit of a set of kinds (the drifted kinds, for one).
constexpr uint64_t kind_bit(doc_kind k) noexcept { return uint64_t{1} << static_cast<unsigned>(k); }
/// Whether the key's kind is in the set.
inline bool of_kinds(const doc_key& key, uint64_t kinds) noexcept { return (kind_bit(key.kind()) & kinds) != 0; }

/// A table some kind reads, with what all of them need of it.
struct watched_table {
  std::string name;
  std::vector<std::string> columns; ///< every column some kind reads, in first-read order
  std::vector<std::string> keys;    ///< every "<key space>:<column>" some kind needs logged
  uint64_t kinds = 0;               ///< the kinds that read it (kind_bit)
  /// The kinds whose documents know their rows of it (a read with
  /// row_columns): a change naming only a row's identity finds theirs.
  uint64_t row_kinds = 0;
};

/// Every table the catalogue's kinds read, in first-read order.
std::vector<watched_table> watched_tables();

/// The kinds that read any of `tables`.
uint64_t kinds_reading(const std::vector<watched_table>& tables) noexcept;

/// The names of the kinds in a set ("deptemps, emp"), in catalogue order.
std::string kind_names(uint64_t kinds);

namespace detail {
/// The installed catalogue (install_catalogue keeps every one until exit).
extern std::atomic<const std::vector<doc_kind_entry>*> installed_catalogue;
} // namespace detail

/// Every kind, in id order (empty until one is installed). Inline: the
/// router reads it for every request.
inline std::span<const doc_kind_entry> doc_catalogue() noexcept {
  auto* c = detail::installed_catalogue.load(std::memory_order_acquire);
  return c != nullptr ? std::span<const doc_kind_entry>{*c} : std::span<const doc_kind_entry>{};
}

/// The entry of a kind; nullptr for a value no kind has (a stored byte).
const doc_kind_entry* find_doc_kind(uint8_t kind) noexcept;
/// The entry of a kind the catalogue has (a key's kind); for any other
/// value, an entry with no name.
const doc_kind_entry& doc_kind_info(doc_kind kind) noexcept;
const doc_kind_entry* find_doc_kind(std::string_view name) noexcept;

/// "<kind name>:<key spelling>" ("deptemps:7"): a key in reports and logs.
std::string key_label(const doc_key& key);

/// The kind a change-log key of `entity` is keyed by: the entity's first
/// kind in the catalogue (a department's deptemps document); nullopt for an
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
