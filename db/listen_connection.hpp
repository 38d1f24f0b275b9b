// SPDX-License-Identifier: Apache-2.0
#pragma once

// The change listener's own PostgreSQL connection, on its own thread: after
// every (re)connect, replay the change log from the applied watermark, then
// read it by snapshot every poll_interval (persistence/pg/change_feed.hpp
// says why nothing is missed). Each poll's keys and its snapshot's xmin (the
// mark) go into the change_inbox as one round, so the watermark rises only
// once everything the poll read is applied. Writers are never involved: no
// NOTIFY, nothing they wait for. State changes are reported through
// callbacks that only send messages.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "config/defaults.hpp"
#include "db/change_inbox.hpp"
#include "db/db_metrics.hpp"
#include "db/stop_signal.hpp"
#include "db/wal_relay_leader.hpp"
#include "db/wal_watch.hpp"
#include "messages/feed_kind.hpp"
#include "messages/doc_catalogue.hpp"
#include "persistence/pg/catalog_drift.hpp"
#include "persistence/pg/change_feed.hpp"
#include "persistence/pg/feed_switch.hpp"
#include "persistence/pg/kind_check.hpp"
#include "persistence/pg/wal_changes.hpp"

namespace restcache {

struct listen_config {
  std::string dsn;
  std::chrono::milliseconds poll_interval{defaults::changelog_poll_interval_ms}; ///< how often the log is read
  std::chrono::milliseconds max_backoff{2'000};   ///< cap of the reconnect backoff
  std::chrono::seconds retention{defaults::changelog_retention}; ///< changelog.retention; 0 = never prune
  std::chrono::seconds prune_interval{60};
  /// changelog.warn-bytes: a log larger than this is warned about each
  /// prune interval (its instances are stopped, or far behind). 0: never.
  int64_t warn_bytes = defaults::changelog_warn_bytes;
  size_t replay_limit = defaults::changelog_max_pending; ///< more entries than this: drop the tiers instead
  size_t replay_digest_from = defaults::changelog_replay_digest_from; ///< replays this large share a digest (schema.sql)
  /// The history the tiers hold at start-up (from the LMDB file); nullopt:
  /// unknown, so the first connect drops both tiers and records the live one.
  std::optional<history_identity> history;
  /// Fills read from standbys: every change read (notified or replayed) is
  /// stamped with the primary's WAL insert position read after it arrived
  /// (key_change::lsn), and every session starts with one (up's lsn_floor).
  bool stamp_lsn = false;
  /// The tables the cached kinds read, checked for drift at every connect
  /// and every drift_interval (persistence/pg/catalog_drift.hpp).
  std::vector<watched_table> watched = watched_tables();
  std::chrono::milliseconds drift_interval{defaults::changelog_drift_interval_ms};
  /// The catalog fingerprint the tiers were filled under (from the LMDB
  /// file; empty: not known, so the first check drops what they hold).
  std::string catalog;
  /// Compare the declarations applied to the database with
  /// `declarations_digest` (those this instance serves, "" for the demo)
  /// at every drift check (persistence/pg/stored_declarations.hpp).
  bool check_declarations = false;
  std::string declarations_digest;
  /// changelog.feed: follow the database's feed, or require one (a
  /// database with the other is refused: never caught up, said in the log).
  feed_choice feed = feed_choice::automatic;
  /// The feed the tiers' watermark was taken from (an LMDB file records
  /// it): one of the other feed is no position in this one's.
  feed_kind tiers_feed = feed_kind::triggers;
  /// The WAL feed's slot: this instance's id (kept with the LMDB file), and
  /// whether the slot is temporary (memory only: gone with its connection,
  /// so a reconnect empties the memory tier).
  std::string instance_id;
  bool temporary_slot = false;
  /// changelog.wal-relay: under the WAL feed, follow the relay one
  /// instance leads (persistence/pg/wal_relay.hpp) instead of streaming a
  /// slot of this instance's own, and stand as a candidate for its lead.
  bool wal_relay = false;
  /// changelog.slot-create-wait: how long a new slot may wait for the
  /// transactions running when it is made (wal_stream_options::create_wait).
  std::chrono::milliseconds slot_create_wait{10'000};
  /// The watermark the tiers hold durably (LMDB committed and synced): the
  /// WAL feed's slot is confirmed no further. Empty: the applied one.
  std::function<uint64_t()> durable_watermark;
};

class listen_connection {
public:
  /// `up(generation, lsn_floor)` when the replay is in the inbox and polls
  /// follow (lsn_floor: the primary's WAL position read after the
  /// replay, 0 unless stamp_lsn); `down()` when the connection broke. Both
  /// called on the thread.
  listen_connection(listen_config cfg, change_inbox& inbox, listener_metrics& metrics,
                    std::function<void(uint64_t, uint64_t)> up, std::function<void()> down);
  ~listen_connection(); // stops and joins the thread

private:
  using time_point = std::chrono::steady_clock::time_point;
  /// The database switched feeds: the next session follows the new one on
  /// the same connection (which may hold the triggers' log for the move).
  struct feed_switched : std::runtime_error {
    using std::runtime_error::runtime_error;
  };
  void run();
  /// The feed this session follows: the database's (restcache_feed), or
  /// throws when changelog.feed requires the other. Tiers the triggers kept
  /// are carried onto the WAL by its session (carry_from_triggers); tiers
  /// of the WAL under the triggers are dropped, the watermark restarted.
  feed_kind choose_feed(pg::connection& c);
  /// A WAL session's first step when the triggers kept the tiers
  /// (listen_carry.cpp): `snapshot` is the one the slot it follows
  /// exported where it begins (`onto` names it in the log; empty: none
  /// known). When the triggers logged everything from the tiers' position
  /// up to it and the log still holds it, replays that into the inbox,
  /// takes the catalog fingerprint over when what the documents read is
  /// unchanged, and restarts the watermark keeping the tiers: true. Else
  /// the tiers are dropped: false. Either way the watermark is the WAL's
  /// from then on, and this connection no longer holds the triggers' log.
  bool carry_from_triggers(pg::connection& c, const std::string& snapshot, const std::string& onto);
  /// A WAL session's, the database having switched to the triggers
  /// (finish_ set): once the session's applied position `reached` has
  /// passed the switch point, restarts the watermark keeping the tiers,
  /// leaves the trigger session the switch's snapshot to read the log from
  /// (carried_position_), and ends the session (feed_switched). Past
  /// finish_by_ without reaching it, the tiers are dropped instead
  /// (abandon_finish).
  void finish_on_wal(uint64_t reached);
  /// Follows the triggers without the tiers: dropped, the watermark
  /// restarted, the session ended (feed_switched).
  [[noreturn]] void abandon_finish();
  /// Applies a replay of the log read at a session's start: its changes
  /// into the inbox, the drops it calls for; the tables DDL altered into
  /// `altered` (for the session's first drift check).
  void apply_replay(pg::connection& c, pg::replay_result& replay, std::vector<std::string>& altered);
  /// Across a switch of feed: takes the catalog fingerprint read now (the
  /// new feed's) for the tiers' when what the documents read is unchanged
  /// (pg::fingerprint_of_documents); else the session's first drift check
  /// drops what changed.
  void take_catalog_over(pg::connection& c);
  /// Whether a session on the WAL, the database recording `recorded`,
  /// streams on to hand its tiers over to the triggers: the database
  /// switched to them, the tiers are the WAL's, this instance follows the
  /// database, and the switch recorded its point (read into finish_ once:
  /// the session then has 30 s to reach it).
  bool finishing_to_triggers(pg::connection& c, feed_kind recorded);
  /// No longer reading the change log: a switch to the WAL need not wait
  /// for this connection (pg::release_trigger_reader).
  void let_go_of_trigger_log(pg::connection& c);
  /// The trigger feed: replay the log from the watermark, then poll it.
  void trigger_session(pg::connection& c, bool& connected_before, std::optional<time_point>& session_started);
  /// The WAL feed (listen_wal.cpp): judge the slot (create it, or drop the
  /// tiers when it cannot be vouched for), stream it, and apply each
  /// committed transaction once every session can see it.
  void wal_session(pg::connection& c, bool& connected_before, std::optional<time_point>& session_started);
  /// The WAL relay (listen_relay.cpp): follow what its leader relays, as
  /// a slot of this instance's own would stream it. False, having done
  /// nothing, when it cannot be followed (no relay table, or its leader
  /// serves other declarations): the session streams its own slot then.
  bool relay_session(pg::connection& c, bool& connected_before, std::optional<time_point>& session_started);
  /// Waits up to `d` for the relay's notification (LISTENed on `c`);
  /// false when stopping. Throws when the connection is lost.
  bool wait_relay(pg::connection& c, std::chrono::milliseconds d);
  /// Whether the relay's leader serves this instance's declarations.
  bool relay_follows_this(pg::connection& c);
  /// Where a WAL session (its own slot, or the relay) stands with its marks.
  struct wal_marks {
    uint64_t catch_up_to = 0; ///< the server's WAL position at connect: caught up once a mark reaches it
    bool caught_up = false;
    uint64_t last = 0;        ///< the last mark put into the inbox
  };
  /// Puts a WAL session's mark into the inbox. Marks of the catch-up carry
  /// no generation (the actor takes none of them for caught up); the first
  /// one at or past catch_up_to comes after up_, as a trigger session's
  /// first mark does.
  void mark_wal(wal_marks& m, uint64_t lsn, std::optional<log_witness> witness,
                std::optional<time_point>& session_started, const char* feed);
  /// Applies decoded commits (in commit order) as one round: their keys
  /// and rows into the inbox (stamped with their ends for standbys), the
  /// drops they call for asked of the inbox, altered tables checked. The
  /// caller marks.
  void apply_commits(pg::connection& c, std::vector<pg::wal_commit>& commits, bool caught_up);
  void session(pg::connection& c);
  /// Measures the change log into the metrics and warns past warn_bytes.
  void measure_log(pg::connection& c);
  /// Compares the history the connection reaches (`live`) with the one the
  /// tiers hold (compare_history; under the trigger feed also the change
  /// log's witness entry); on any difference asks the inbox to drop both
  /// tiers and restart the watermark. True when the tiers may be replayed.
  bool same_history(pg::connection& c, const live_history& live, uint64_t watermark);
  /// The position a poll of this instance saw, when the server restarted
  /// without WAL up to it (its last checkpoint lies before it): what was
  /// read of the lost commits, and their xids, may come back different.
  /// Notes when the server started; call it at every connect.
  std::optional<uint64_t> lost_wal(pg::connection& c);
  /// Asks the inbox to drop both tiers and restart the watermark under
  /// `identity`, which the tiers hold from then on.
  void reset_history(const history_identity& identity);
  /// Reads the database's restcache slots into the metrics (each drift
  /// check).
  void count_slots(pg::connection& c);
  /// Checks the watched tables' catalog: sets the drifted kinds, and asks
  /// the inbox to drop from both tiers the kinds reading what the documents
  /// depend on when it changed since the last check (all of them when it is
  /// not known to match what the tiers hold, unless `tiers_fresh`: they hold
  /// nothing from before this session), and those reading `altered_tables`
  /// (DDL on them in the log).
  void check_drift(pg::connection& c, bool tiers_fresh, const std::vector<std::string>& altered_tables = {});
  /// Reads the digest of the declarations applied to the database and
  /// says (log, metrics) when they are not those this instance serves.
  void check_declarations(pg::connection& c);
  /// Reads and judges the catalog facts of the watched tables and of what
  /// the kinds depend on, checking the kinds' statements again first when
  /// anything moved since they were last checked.
  pg::drift_report read_drift(pg::connection& c);
  /// Runs the planner's check of the kinds' statements (pg::
  /// check_kinds_and_dependencies) on this connection: what they depend on,
  /// whose facts go into the fingerprint, and what refuses them now (a view
  /// redefined to read a table no trigger watches, a key column's type
  /// altered), which bypasses them like a drifted table.
  void check_kind_statements(pg::connection& c);
  /// Drops `kinds` from both tiers for a logged key whose spelling cannot
  /// be vouched for (pg::log_key_kind::key_space).
  void drop_key_spaces(uint64_t kinds);
  /// Publishes the drifted kinds and logs what changed.
  void set_drift(uint64_t kinds, const std::string& problems);
  /// Reads what is new in the log into the inbox, with the poll's mark.
  void poll(pg::connection& c);
  /// Stamps `changes` with the primary's WAL position now (stamp_lsn) and
  /// adds them to the inbox; clears them.
  void add_stamped(pg::connection& c, change_batch& changes);
  /// Sleeps up to `d`, or until stop; false when stopping.
  bool pause(std::chrono::milliseconds d);

  const listen_config cfg_;
  change_inbox& inbox_;
  listener_metrics& metrics_;
  std::function<void(uint64_t, uint64_t)> up_;
  std::function<void()> down_;
  uint64_t generation_ = 0; ///< sessions so far; marks carry theirs
  std::optional<history_identity> history_; ///< what the tiers hold, as of the last connect
  pg::poll_position position_;   ///< where the next poll reads from
  int64_t last_poll_us_ = 0;     ///< when the last poll (or the position) was read
  /// The highest WAL insert position a poll saw, and when the server it
  /// was seen on started: a restart whose WAL ends before it lost commits
  /// this instance may have read (an asynchronous commit, a crash).
  uint64_t seen_lsn_ = 0;
  std::string server_started_;
  std::optional<feed_position> last_mark_; ///< the last mark put into the inbox, this session
  std::optional<log_witness> newest_;      ///< the newest entry seen this session (marks carry it)
  std::string catalog_;       ///< the last catalog fingerprint read (marks carry it); "" before
  bool catalog_moved_ = false; ///< changed since the last mark: the next poll marks even if idle
  /// What the kinds' statements depend on and what refuses them, from the
  /// last check_kind_statements of this session (none yet: not known).
  std::optional<pg::kinds_checked> kinds_checked_;
  /// The fingerprint read just before that check: one that differs has
  /// something moved since, which may have changed what they depend on.
  std::string kinds_checked_under_;
  uint64_t drifted_ = 0;      ///< the kinds bypassed for drift now
  std::string drift_problems_;
  std::string declarations_seen_; ///< the applied digest last warned about
  /// Each watched table's replica identity's columns as the first WAL
  /// session found them (beside the kinds' check at start): the documents
  /// name their rows by these, so a key changed since names no row, and
  /// its kinds are dropped rather than missed ("schema.table" -> columns).
  identities_at_start identity_at_start_;
  /// relay_fingerprint of this instance's declarations (wal_relay only).
  std::string relay_fingerprint_;
  bool relay_refusal_said_ = false; ///< why the relay is not followed, logged once
  /// This instance's candidacy for the relay's lead (wal_relay only).
  std::unique_ptr<wal_relay_leader> relay_leader_;
  /// Pruning refused to this role (permission, read-only): said once, then
  /// tried again only every few minutes, the session kept.
  bool prune_refused_ = false;
  feed_kind feed_ = feed_kind::triggers;  ///< the feed of the current (or last) session
  feed_kind tiers_feed_;                  ///< the feed the watermark is of
  /// Where a WAL session hands over to the triggers after a switch, and
  /// by when it must have (pg::triggers_switch_point).
  std::optional<pg::switch_point> finish_;
  std::chrono::steady_clock::time_point finish_by_{};
  /// The trigger session's first read of the log, for tiers the WAL kept
  /// up to the switch point (finish_on_wal).
  std::optional<feed_position> carried_position_;
  /// This connection holds pg::trigger_reader_lock_key shared: a switch to
  /// the WAL keeps the triggers until it has moved.
  bool holds_trigger_reader_ = false;
  /// A reset of the watermark was asked for this session (the actor
  /// applies it with the next round): the watermark read now is void.
  bool watermark_reset_ = false;
  stop_signal stop_;
  std::thread thread_;
};

} // namespace restcache
