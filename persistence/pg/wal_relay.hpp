// SPDX-License-Identifier: Apache-2.0
#pragma once

// The WAL feed's relay (changelog.wal-relay). Every slot costs the primary a
// walsender decoding the whole database's WAL: ten instances with a slot each
// cost the writers more than the triggers did (docs/benchmarks.md). With the
// relay, one instance of a database leads: it holds an advisory lock on its
// connection, streams the database's one relay slot, and writes each window
// of commits it decoded (their keys, rows and drops, as a slot of its own
// would have given them) as one row of wal_relay, in commit order. Every
// instance that follows the relay, the leader's own listener too, reads
// that table by LSN. The lock makes the leader the table's only writer, so
// a row never commits behind one with a later LSN; when the leader dies its
// session ends, the lock is free, and another instance takes the slot over
// where it was confirmed (commits already relayed are skipped).
//
// The slot is confirmed only as far as the table holds committed rows (or,
// idle, as far as the stream went): its confirmed position says "everything
// the kinds read up to here is in wal_relay", without a write. A follower
// reads the slot's position first and the table after, in a later
// snapshot, so every row below that position is seen.
//
// What a follower cannot replay from the table (rows pruned past its
// position, a slot made anew after a failover) is below the head's
// pruned_below: it drops its tiers instead. The head also names the
// declarations the leader decodes for (relay_fingerprint): a follower
// serving others streams a slot of its own instead.

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "messages/doc_catalogue.hpp"
#include "persistence/pg/connection.hpp"
#include "persistence/pg/wal_changes.hpp"

namespace restcache::pg {

/// The relay's advisory lock, held by the leader's session ('restcach' + 2).
inline constexpr int64_t relay_lock_key = 7310593858020254570;
/// The channel the leader notifies with each window it writes: a follower
/// waits on it rather than reading the table every poll interval.
inline constexpr const char* relay_channel = "restcache_relay";
/// The relay slot's instance part: slot_name(system id, relay_slot_id).
inline constexpr std::string_view relay_slot_id = "relay";

/// What the relayed commits mean: the watched tables with their key
/// columns, names, kinds and row kinds, and the kinds in catalogue order
/// (the kinds are relayed as bits). Plain.
std::string relay_fingerprint(const std::vector<watched_table>& watched);

/// A window of commits as one: the keys and rows of all of them once each,
/// their drops and TRUNCATEs, the last one's end and xid (`last_xid`, its
/// 64-bit one), and the first one's commit time. What a follower does with
/// it is what it would do with each (a change applied with a later end is
/// only the more careful: a fill between them is not kept), and the
/// latency it measures is from the window's first commit. Plain.
wal_commit coalesce_window(std::vector<wal_commit>& commits);

/// A window of commits as wal_relay keeps it, and back: each commit's end,
/// full xid, commit time, keys (as logged), rows, drops, TRUNCATEs and
/// altered tables, as length-prefixed text (any key or row text survives).
std::string encode_relay_commits(const std::vector<wal_commit>& commits, const std::vector<uint64_t>& full_xids);
struct relay_commits {
  std::vector<wal_commit> commits; ///< changes, rows and drops as wal_change_reader gives them
  std::vector<uint64_t> full_xids; ///< each commit's 64-bit xid
};
/// Throws std::runtime_error for text that is not an encoding.
relay_commits decode_relay_commits(std::string_view text);

/// Whether the database has the relay's tables (restcache-load of a build
/// with the relay installed the schema).
bool relay_installed(connection& c);

/// The relay's head: who leads, for which declarations, and how far.
struct relay_state {
  bool led = false;           ///< a leader has claimed the head once
  std::string fingerprint;    ///< relay_fingerprint of the leader's declarations
  std::string leader;         ///< the leader's instance id
  uint64_t relayed_to = 0;    ///< the newest window's end, or the horizon
  uint64_t pruned_below = 0;  ///< commits ending at or below it may be gone
  uint64_t start_lsn = 0;     ///< where the relay last started again (0: not known)
  /// The snapshot the slot made at that start exported (empty when none
  /// was made then): what committed visibly to it lies below start_lsn.
  std::string start_snapshot;
};
relay_state read_relay_state(connection& c);

/// The leader's, once its stream is open: names it and its declarations
/// in the head; with `restart_from`, nothing up to there is relayed any
/// more (a slot made anew, or a table that does not match it): every
/// window goes and the horizon is set there, recorded as the start with
/// the snapshot the slot made there exported (when it was made then).
void claim_relay(connection& c, std::string_view fingerprint, std::string_view leader,
                 std::optional<uint64_t> restart_from, std::optional<std::string> start_snapshot = std::nullopt);
/// The leader's: one window (its first and last commits' ends, encoded),
/// notifying relay_channel at its commit.
void write_relay(connection& c, uint64_t first_lsn, uint64_t end_lsn, const std::string& commits);
/// The leader's: deletes windows relayed longer than `retention` ago
/// (never the newest), raising the horizon past them; how many went.
int64_t prune_relay(connection& c, std::chrono::seconds retention);

/// One read of a follower: the relay slot's position (`slot`; none read
/// when empty), then what the table holds after `after` (up to
/// max_windows, ascending), in a later snapshot.
struct relay_page {
  uint64_t confirmed = 0;     ///< the relay slot's confirmed position (0: no slot)
  uint64_t server_lsn = 0;    ///< the server's WAL insert position, read with it (0: not read)
  relay_state state;
  std::vector<std::pair<uint64_t, std::string>> windows; ///< (end, encoded commits)
  bool full = false;          ///< max_windows came: more may follow
};
relay_page read_relay(connection& c, const std::string& slot, uint64_t after, int max_windows);

/// The full xid of the relayed commit ending at `end_lsn`; nullopt when
/// no window ends there (none reaches there, or one made of several
/// commits passes it).
std::optional<uint64_t> relayed_xid_at(connection& c, uint64_t end_lsn);

} // namespace restcache::pg
