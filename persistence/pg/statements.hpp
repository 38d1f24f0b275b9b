// SPDX-License-Identifier: Apache-2.0
#pragma once

// Every SQL statement the daemon runs, as named prepared statements.

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "persistence/pg/connection.hpp"

namespace restcache::pg {

/// Prepares every named statement on a fresh connection (and sets the
/// session settings the codec relies on, e.g. DateStyle ISO). One that the
/// database's schema cannot prepare (pg::schema_changed: a column it reads
/// is gone) is left out; the calls below prepare it at their first use,
/// failing with the schema's error until it is back. Other errors throw.
void prepare_statements(connection& c);

/// prepare_statements on a session that has not run it yet (its settings
/// are then missing too); nothing on one that has. Outside a transaction:
/// its SETs must not roll back.
void ensure_session(connection& c);

/// Prepares the named statement on `c` unless it is: one that
/// prepare_statements left out is prepared at its first use (failing with
/// the schema's error while it lasts).
void ensure_prepared(connection& c, const char* name);
/// A statement the catalogue does not hold (a module's own), prepared from
/// `sql` at its first use on the session (the session's settings first).
void ensure_prepared(connection& c, const char* name, const char* sql);

/// The session settings prepare_statements applies first (several SET
/// statements in one text, for PQexec or PQsendQuery).
extern const char* const session_settings_sql;

/// (name, SQL) of every statement prepare_statements prepares, in its order;
/// for callers that prepare asynchronously (PQsendPrepare).
std::vector<std::pair<const char*, const char*>> statement_texts();

/// Names of the prepared statements, for callers that run them
/// asynchronously (PQsendQueryPrepared); parameters as noted.
extern const char* const replay_lsn_statement;           ///< none; see replay_lsn
extern const char* const insert_lsn_statement;           ///< none; see insert_lsn

/// The WAL position a standby has replayed (pg_last_wal_replay_lsn), or
/// nullopt on a primary. Read it in a statement of its own before a read
/// that must see everything up to it. Throws pg::error.
std::optional<uint64_t> replay_lsn(connection& c);
/// Decodes a result of replay_lsn_statement the same way.
std::optional<uint64_t> decode_replay_lsn(const result& r);

/// A standby as its monitor sees it (replica_monitor).
struct standby_state {
  bool in_recovery = false; ///< false: a primary
  uint64_t replay_lsn = 0;  ///< 0 on a primary
  int64_t lag_ms = 0;       ///< since the last replayed commit while WAL waits; 0 when none waits
  uint64_t system_id = 0;   ///< pg_control_system().system_identifier: whose copy it is
};
standby_state read_standby_state(connection& c);


/// The primary's current WAL insert position (pg_current_wal_insert_lsn):
/// every commit already seen lies below it. Throws pg::error (also on a
/// standby, where there is none).
uint64_t insert_lsn(connection& c);

} // namespace restcache::pg
