// SPDX-License-Identifier: Apache-2.0
#pragma once

// The schema of persistence/pg/schema.sql: master–detail tables, the change
// log, the watched keys and the triggers generated from them, and the
// recorded schema version.

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "messages/cache_types.hpp"
#include "persistence/pg/connection.hpp"

namespace restcache::pg {

/// The text of schema.sql, compiled in (see schema_sql.cpp.in).
extern const char* const schema_sql;

/// The version schema.sql records in restcache_schema.
inline constexpr int schema_version = 14;

/// schema.sql's transaction-scoped advisory lock ('restcach' in ASCII): whoever
/// changes restcache's objects or the watched tables' triggers takes it, so
/// appliers at once queue up instead of colliding or deadlocking.
inline constexpr const char* schema_lock_sql = "SELECT pg_advisory_xact_lock(7310593858020254568)";

/// After a failed statement inside an explicit transaction the session is in
/// an aborted transaction block: ends it so the connection stays usable.
void rollback_if_in_transaction(connection& c) noexcept;

/// A watched key: (table, key space, column).
using watch_row = std::array<std::string, 3>;

/// The watched keys the installed catalogue's kinds need (their `reads`).
std::vector<watch_row> catalogue_watch_rows();

/// Adds the watched keys `rows` names ((table, key space, column), in the
/// session's current schema) that are missing, removes those of the same
/// tables whose column is gone (renamed or dropped) and that `rows` no longer
/// names, and when either happened installs the triggers again: one
/// transaction under schema_lock_sql. Returns the rows added. The connection
/// must not be inside a transaction.
int watch_keys(connection& c, const std::vector<watch_row>& rows);

/// Applies schema.sql, then watch_catalogue_keys; idempotent (safe on an
/// existing schema, safe concurrently thanks to an advisory lock). Returns
/// the recorded version.
int ensure_schema(connection& c);

/// Adds a restcache_watched_key row for every key the installed
/// catalogue's kinds need logged (their `reads`: "<key space>:<column>" of
/// a table, in the session's current schema) that is missing, and when any
/// was, installs the triggers again. Rows of no kind are left alone
/// (another instance may serve other kinds). Returns the rows added.
int watch_catalogue_keys(connection& c);

/// The version recorded in the database, or 0 when no schema is present.
int installed_schema_version(connection& c);

/// Removes what restcache installed (the watched tables' triggers, the
/// functions, the change log, its horizon, the watched keys, the recorded
/// version) and keeps dept and emp with their rows. One transaction; safe when nothing is installed.
void uninstall_schema(connection& c);

/// The change log's size: bytes of the table with its indexes, and the age
/// in seconds of its oldest entry (0 when empty).
struct change_log_size {
  int64_t bytes = 0;
  double oldest_age_s = 0;
};
change_log_size measure_change_log(connection& c);

} // namespace restcache::pg
