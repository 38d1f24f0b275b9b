// SPDX-License-Identifier: Apache-2.0
#pragma once

// What carries an instance's tiers across a switch of feed instead of
// dropping them. From the triggers to the WAL: the switch keeps the row
// triggers until the instances reading the change log have moved (each
// holds trigger_reader_lock_key shared while it reads, and until it has
// moved), then retires them (restcache_retire_triggers). A moving instance
// makes its slot (or finds the relay's) with an exported snapshot S; the
// log holds every change committed after its tiers' position P and visible
// in S when no retirement lies between the two (triggers_logged), and the
// slot streams every change after S. From the WAL to the triggers: the
// installing transaction records where the log takes over (switch_point).
// Blocking libpq calls; restcache-load and the listener run them.

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "messages/feed_position.hpp"
#include "persistence/pg/connection.hpp"

namespace restcache::pg {

/// Held shared by every session reading the change log that will follow
/// the database to the WAL ('restcach' + 3; schema.sql's are + 0 and + 1,
/// the relay's + 2).
inline constexpr int64_t trigger_reader_lock_key = 7310593858020254571;

/// Takes the lock shared for this session (once); false when the
/// retirement holds it (the triggers are going now).
bool hold_trigger_reader(connection& c);
/// Lets it go (the session has moved, or will not).
void release_trigger_reader(connection& c);

/// The sessions holding it now, one line each ("process 123 (restcache-
/// listener, 10.0.0.5)"), for restcache-load to name those that did not move.
std::vector<std::string> trigger_readers(connection& c);

/// The snapshot a slot made on a replication connection exported (its
/// name), as pg_snapshot's text: imported in a transaction of `c`, while
/// that connection has sent nothing since.
std::string exported_snapshot(connection& c, const std::string& name);

/// Whether the triggers logged every change committed after `p` and
/// visible in `s` (a pg_snapshot's text): none retired them in between.
bool triggers_logged(connection& c, const feed_position& p, const std::string& s);

/// Where a switch to the triggers handed over: whatever committed visibly
/// to `snapshot` wrote its watched rows below `lsn`, whatever did not is
/// in the log. nullopt when no switch recorded one (a first install).
struct switch_point {
  feed_position snapshot;
  uint64_t lsn = 0;
};
std::optional<switch_point> triggers_switch_point(connection& c);

/// The switch's second step, in a transaction of its own: waits for the
/// lock (up to the caller's deadline, polling) and retires the triggers.
/// What it did.
struct retirement {
  bool retired = false;              ///< there were triggers, and they are gone
  std::vector<std::string> readers;  ///< still reading when the wait ended (they end bypassed)
};
retirement retire_triggers(connection& c, std::chrono::milliseconds readers_wait);

} // namespace restcache::pg
