// SPDX-License-Identifier: Apache-2.0
#pragma once

// The rules the daemon applies before it serves: the schema, the LMDB tier
// it may trust, the process limits. Apart from the daemon so tests can run
// them.

#include <memory>
#include <optional>
#include <string>

#include "actors/tier_status.hpp"
#include "config/options.hpp"
#include "persistence/pg/stored_declarations.hpp"

namespace restcache::lmdb {
class store;
} // namespace restcache::lmdb

namespace restcache::startup {

/// The declarations applied to the database at `dsn` (restcache-load
/// --documents FILE --schema-only), read before the kinds are installed;
/// nullopt when none were, or when the database cannot be reached (logged:
/// a file given is then served unchecked against them).
std::optional<pg::stored_declarations> read_applied_declarations(const std::string& dsn);

/// Installs the kinds to serve, with no action routes: those `applied` to
/// the database when documents.file is not given; documents.file's when it
/// is, which must then be the applied text itself (every instance on a
/// database serves one set of kinds); with neither, the demo (its kinds and
/// its routes). Throws std::runtime_error listing every reason a file is
/// refused, each with its line, or saying how the file and the database's
/// declarations differ.
void install_documents(const daemon_options& o,
                       const std::optional<pg::stored_declarations>& applied = std::nullopt);

/// What install_documents installed.
struct installed_documents {
  bool demo = true;   ///< the demo's kinds, writes, lists and id loader
  std::string digest; ///< pg::declarations_digest of their declarations' text; "" for the demo
  std::string what;   ///< for logs: "the demo's documents", "documents.file PATH", ...
};
/// What the last install_documents installed (the demo before any).
const installed_documents& documents_installed();

/// Whether the daemon serves the demo (its writes, lists and id loader).
inline bool serves_demo() {
  return documents_installed().demo;
}

/// Raises the soft open-file limit to the hard one: 4096 concurrent clients
/// need more descriptors than the usual soft limit.
void raise_open_file_limit();

enum class schema_action {
  older,       ///< no or an older schema: not cached until restcache-load --schema-only installs it
  current,     ///< the schema is this build's
  newer,       ///< the database's schema is newer than this build's: refuse to start
  unreachable, ///< not fatal: the pool keeps reconnecting, /ready says not ready
};

/// Reads the schema version the database has and logs what it found. It
/// never installs anything: DDL on the watched tables is the administrator's
/// explicit command (restcache-load --schema-only); without this build's
/// schema every document is answered from PostgreSQL, uncached.
schema_action check_schema(const std::string& dsn);

/// Checks the installed kinds against the database before they are served
/// (pg::check_kinds: statements prepared and described, the tables their
/// plans read watched). Throws std::runtime_error with every reason when one
/// is refused. A database that cannot be reached leaves them unchecked: it is
/// logged, and false is returned.
bool check_documents(const daemon_options& o);

/// With changelog.feed wal or triggers: throws (the daemon refuses to
/// start) when the database's feed is the other one, naming what the WAL
/// feed lacks there. Nothing when the database cannot be reached (the
/// listener says so then).
void check_feed(const daemon_options& o);

/// Opens the LMDB tier at lmdb.path and says how in `status`. Records
/// without a replay watermark are dropped: they cannot be checked against
/// the change log. Files that are damaged (not LMDB's, another LMDB version,
/// cut short) are deleted and the tier starts empty. When the tier cannot be
/// had at all (a directory that cannot be written or created, a full disk)
/// the error names lmdb.path, `status` is off and the result is null: the
/// daemon serves from memory and PostgreSQL without it, never not at all.
std::shared_ptr<lmdb::store> open_lmdb_tier(const daemon_options& o, tier_status& status);

} // namespace restcache::startup
