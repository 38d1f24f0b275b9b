// SPDX-License-Identifier: Apache-2.0
#pragma once

// The replication slot of one instance of the WAL feed: its name, what the
// server says of it, and whether the tiers may go on from it. A slot is
// the instance's place in the WAL; when it is gone, invalidated, or does not
// match what the tiers applied, the changes in between are not known, and
// the tiers must be dropped rather than trusted. Judging is plain C++
// (judge_slot), reading needs a server (read_slot).

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "persistence/pg/connection.hpp"

namespace restcache::pg {

/// "restcache_<cluster's system identifier>_<instance id>": one slot per
/// instance of one cluster, within PostgreSQL's 63 bytes (the instance id,
/// kept with the LMDB file, is cut to fit and made of [a-z0-9_]).
std::string slot_name(uint64_t system_identifier, std::string_view instance_id);

/// What pg_replication_slots says of a slot.
struct slot_facts {
  bool exists = false;
  std::string plugin;     ///< "pgoutput"
  std::string database;   ///< the database it decodes
  bool temporary = false;
  bool active = false;
  int64_t active_pid = 0;
  std::string wal_status; ///< reserved, extended, unreserved, lost
  uint64_t confirmed_flush = 0;
  uint64_t server_lsn = 0; ///< the server's WAL insert position, read with it
};

/// Reads `name`'s facts in one statement. Throws pg::error.
slot_facts read_slot(connection& c, const std::string& name);

/// One restcache slot of the database, as every instance reports it: a
/// slot whose instance is gone (stopped, or retired with its LMDB file)
/// holds WAL on the server until it is dropped.
struct slot_census_row {
  std::string name;
  bool active = false;      ///< streamed now
  bool temporary = false;
  std::string wal_status;   ///< reserved, extended, unreserved, lost
  int64_t retained_bytes = 0; ///< the WAL the server keeps for it (from its restart_lsn)
  int64_t unconfirmed_bytes = 0; ///< the server's WAL position past its confirmed one
};

/// The database's restcache slots ("restcache_" logical pgoutput slots),
/// by name. Throws pg::error.
std::vector<slot_census_row> restcache_slots(connection& c);

/// Drops the database's restcache slots that no process streams (their
/// instances are gone); returns their names. Throws pg::error.
std::vector<std::string> drop_idle_restcache_slots(connection& c);

/// Drops the slot `name` once its walsender has let it go (it ends a
/// moment after its connection closes): tried again every 100 ms for up to
/// 5 s, `pause` waiting (false: stopping, and the last error goes on).
void drop_released_slot(connection& c, const std::string& name,
                        const std::function<bool(std::chrono::milliseconds)>& pause);

/// The transactions a slot's creation waits for, for the log: every
/// prepared transaction of the cluster (its gid, when and by whom), and
/// every session with a transaction id (pid, application, since when).
/// Throws pg::error.
std::string slot_creation_blockers(connection& c);

enum class slot_verdict : uint8_t {
  usable,           ///< stream from it
  missing,          ///< none: create one; what the tiers hold cannot be vouched for
  lost,             ///< invalidated (max_slot_wal_keep_size): drop it, create one, drop the tiers
  ahead_of_server,  ///< confirmed past the server's WAL: an older copy of the data was restored
  ahead_of_tiers,   ///< confirmed past what the tiers applied: changes between were never applied
  /// The tiers applied past the server's WAL: what they hold came from WAL
  /// the server no longer has (an older copy restored, with its slot).
  tiers_ahead_of_server,
  active_elsewhere, ///< streamed by another process: refuse to start
  foreign,          ///< another plugin or database under this name: refuse to start
};

struct slot_judgement {
  slot_verdict verdict = slot_verdict::usable;
  std::string reason; ///< for the log: what was found
  /// The tiers cannot be vouched for: drop both once the new slot is consistent.
  bool drop_tiers() const noexcept {
    return verdict == slot_verdict::missing || verdict == slot_verdict::lost
           || verdict == slot_verdict::ahead_of_server || verdict == slot_verdict::ahead_of_tiers
           || verdict == slot_verdict::tiers_ahead_of_server;
  }
};

/// Whether the tiers, which applied everything below `applied` (the LSN
/// watermark kept with them; 0: nothing known), may go on from the slot
/// `f` in `database`, streamed by this process (`own_pid`, 0 when it has
/// no stream yet).
slot_judgement judge_slot(const slot_facts& f, uint64_t applied, std::string_view database, int64_t own_pid = 0);

} // namespace restcache::pg
