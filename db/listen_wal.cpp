// SPDX-License-Identifier: Apache-2.0
// The change listener's WAL feed: the instance's own logical replication
// slot streamed through pgoutput (persistence/pg/wal_stream.hpp), each
// committed transaction's keys into the change_inbox in commit order, with
// its end LSN as the round's mark. The slot is confirmed only as far as the
// tiers hold durably, so after a crash the stream starts again at or before
// what they applied (invalidations are idempotent).

#include <algorithm>
#include <set>

#include <spdlog/spdlog.h>

#include "db/listen_connection.hpp"
#include "messages/wal_lsn.hpp"
#include "persistence/pg/feed_switch.hpp"
#include "persistence/pg/statements.hpp"
#include "persistence/pg/wal_changes.hpp"
#include "persistence/pg/wal_feed.hpp"
#include "persistence/pg/wal_slot.hpp"
#include "persistence/pg/wal_stream.hpp"
#include "persistence/pg/wal_visibility.hpp"
#include "db/wal_watch.hpp"

namespace restcache {

namespace {

using namespace std::chrono_literals;

} // namespace

void listen_connection::wal_session(pg::connection& c, bool& connected_before,
                                    std::optional<time_point>& session_started) {
  using clock = std::chrono::steady_clock;
  metrics_.feed_wal.store(1, std::memory_order_relaxed);
  last_mark_.reset();
  newest_.reset();
  const auto live = pg::read_history(c);
  // The triggers kept the tiers: a slot made now carries them over
  // (carry_from_triggers), whatever an older one of this instance held.
  const bool carry = tiers_feed_ != feed_kind::wal;
  if (!carry)
    let_go_of_trigger_log(c);
  // The identity, and the last transaction the tiers applied against the
  // next xid (below it: an older copy, however far its WAL went since); the
  // slot and its stream say the rest.
  const auto witness = inbox_.applied_witness();
  const uint64_t watermark =
    watermark_reset_ || carry ? 0 : metrics_.watermark.load(std::memory_order_acquire);
  const bool same = carry || same_history(c, live, watermark != 0 && witness ? witness->xid + 1 : 0);
  const uint64_t applied = same ? watermark : 0;
  const auto name = pg::slot_name(live.identity.system_id, cfg_.instance_id);

  pg::wal_stream_options o;
  o.dsn = cfg_.dsn;
  o.slot = name;
  o.publication = pg::feed_publication;
  o.status_interval = std::chrono::milliseconds{std::max<int64_t>(1'000, cfg_.poll_interval.count())};
  bool drop_tiers = false;
  std::string why;
  // The last commit the tiers applied, to be met again in the stream when
  // the slot starts before it: a slot of an older copy restored in place
  // streams other commits there.
  std::optional<log_witness> verify;
  std::string exported; // the new slot's snapshot, when carrying
  if (carry) {
    o.exported = [&](const std::string& name) { exported = pg::exported_snapshot(c, name); };
    if (!cfg_.temporary_slot) {
      auto facts = pg::read_slot(c, name);
      if (facts.exists) {
        // Of an earlier time on the WAL: where it stands means nothing to
        // what the triggers kept since.
        auto judged = pg::judge_slot(facts, 0, live.identity.database_name);
        if (judged.verdict == pg::slot_verdict::active_elsewhere || judged.verdict == pg::slot_verdict::foreign)
          throw std::runtime_error("replication slot " + name + ": " + judged.reason);
        c.exec_params("SELECT pg_drop_replication_slot($1)", {name});
      }
    }
    o.create = cfg_.temporary_slot ? pg::wal_stream_options::create_slot::temporary
                                   : pg::wal_stream_options::create_slot::permanent;
  } else if (cfg_.temporary_slot) {
    // Gone with the last connection: what memory holds was kept by it.
    o.create = pg::wal_stream_options::create_slot::temporary;
    drop_tiers = connected_before;
    why = "this memory-only instance's temporary slot ended with its last connection";
  } else {
    auto facts = pg::read_slot(c, name);
    auto judged = pg::judge_slot(facts, applied, live.identity.database_name);
    switch (judged.verdict) {
      case pg::slot_verdict::usable:
      case pg::slot_verdict::ahead_of_tiers:
      case pg::slot_verdict::tiers_ahead_of_server: break;
      case pg::slot_verdict::active_elsewhere:
      case pg::slot_verdict::foreign:
        throw std::runtime_error("replication slot " + name + ": " + judged.reason);
      case pg::slot_verdict::lost:
      case pg::slot_verdict::ahead_of_server:
        c.exec_params("SELECT pg_drop_replication_slot($1)", {name});
        o.create = pg::wal_stream_options::create_slot::permanent;
        break;
      case pg::slot_verdict::missing: o.create = pg::wal_stream_options::create_slot::permanent; break;
    }
    drop_tiers = judged.drop_tiers();
    why = judged.reason;
    if (!drop_tiers && applied != 0 && witness && facts.confirmed_flush < witness->seq)
      verify = witness;
  }
  o.create_wait = cfg_.slot_create_wait;
  if (finish_ && (drop_tiers || applied == 0 || o.create != pg::wal_stream_options::create_slot::no)) {
    // Switched to the triggers, and this slot cannot carry the tiers to
    // where their log takes over.
    abandon_finish();
  }
  auto stream = open_stream(c, o);
  // After the new slot's consistent point: every change committed since is
  // streamed, what the tiers hold from before is dropped.
  if (drop_tiers && (applied != 0 || connected_before)) {
    spdlog::warn("change listener: WAL feed slot {}: {}: dropping both tiers", name, why);
    bump(metrics_.slot_resets);
    bump(metrics_.tier_drops);
  }
  if (carry) {
    const bool carried = carry_from_triggers(c, exported, "the slot " + name);
    check_drift(c, !carried);
  } else {
    if (drop_tiers || o.create != pg::wal_stream_options::create_slot::no)
      reset_history(live.identity);
    check_drift(c, drop_tiers || applied == 0);
  }
  watermark_reset_ = false;

  auto reader = watch_reader(c, cfg_.watched, identity_at_start_);

  // Caught up once the stream has passed where the WAL was now.
  const uint64_t catch_up_to = pg::insert_lsn(c);
  connected_before = true;
  ++generation_;
  bump(metrics_.connects);
  metrics_.connected.store(1, std::memory_order_release);
  spdlog::info("change listener: streaming the WAL feed's slot {} (session {}, from {}, catching up to {})", name,
               generation_, format_wal_lsn(stream.confirmed() != 0 ? stream.confirmed() : stream.consistent_point()),
               format_wal_lsn(catch_up_to));

  // Met, or passed without it: the history the tiers hold is not the
  // server's; both tiers go before the session catches up.
  auto witness_met = [&](const pg::wal_commit& t) {
    const auto& w = *verify;
    if (t.end_lsn != w.seq || t.xid != static_cast<uint32_t>(w.xid)) {
      spdlog::warn("change listener: the WAL at {} no longer holds transaction {} the tiers applied ({}): an older "
                   "copy of the data was restored; dropping both tiers",
                   format_wal_lsn(w.seq), w.xid,
                   t.end_lsn == w.seq ? "another transaction ends there" : "the stream passed it");
      bump(metrics_.history_resets[static_cast<size_t>(history_rule::went_backwards)]);
      bump(metrics_.tier_drops);
      reset_history(live.identity);
    }
    verify.reset();
  };
  wal_marks marks{catch_up_to};
  auto mark = [&](uint64_t lsn, std::optional<log_witness> witness = std::nullopt) {
    mark_wal(marks, lsn, witness, session_started, "the WAL feed");
  };

  auto next_drift_check = clock::now() + cfg_.drift_interval;
  auto next_ask = clock::now();
  while (!stop_.stopping()) {
    auto now = clock::now();
    if (now >= next_drift_check) {
      check_drift(c, false);
      // Streaming its own slot because the relay could not be followed:
      // back to it once it can (this slot is dropped then).
      if (cfg_.wal_relay && relay_follows_this(c))
        throw std::runtime_error("the WAL relay serves this instance's declarations now: following it");
      next_drift_check = now + cfg_.drift_interval;
    }
    // What came, up to a round's worth; a short wait when nothing did. The
    // commits that follow a first one within changelog.poll-interval go in
    // its round: each round costs a snapshot read, a wake of the actor, its
    // shards' replies and an LMDB commit of deletes, and under synchronous
    // commit the walsender sends every commit on its own. Measured with
    // bench/writecost at 8 and 32 clients on 2 cores: a 2 ms window took
    // 39 and 16 µs of the daemon's CPU a write and an invalidation p99 of
    // 275 and 144 ms, 25 ms took 14 and 7 µs and 43 and 49 ms.
    auto commits = read_round(stream, reader, cfg_.poll_interval, cfg_.replay_limit, [&](const pg::wal_commit& t) {
      if (verify && t.end_lsn >= verify->seq)
        witness_met(t);
      return std::optional<size_t>{t.changes.size()};
    });
    if (!commits.empty()) {
      std::vector<uint32_t> xids;
      for (const auto& t : commits)
        xids.push_back(t.xid);
      auto xmax = pg::wait_visible(c, xids, [this](std::chrono::milliseconds d) { return pause(d); });
      apply_commits(c, commits, marks.caught_up);
      const auto& last = commits.back();
      mark(last.end_lsn, log_witness{pg::full_xid(last.xid, xmax), last.end_lsn, last.commit_us});
    } else if (!reader.in_transaction()) {
      // Idle between transactions: the walsender's position (its keepalive)
      // is applied too, so a quiet publication on a busy server holds no WAL.
      auto end = stream.server_end();
      if (verify && end > verify->seq) {
        pg::wal_commit passed; // passed without it
        passed.end_lsn = end;
        witness_met(passed);
      }
      if (end > marks.last || catalog_moved_) {
        mark(std::max(marks.last, end));
      } else if (now >= next_ask) {
        stream.ask_position();
        next_ask = now + (marks.caught_up ? std::chrono::milliseconds{o.status_interval} : 20ms);
      }
    }
    // Confirmed no further than the tiers hold durably.
    auto held = metrics_.watermark.load(std::memory_order_acquire);
    if (cfg_.durable_watermark)
      held = std::min(held, cfg_.durable_watermark());
    if (held > stream.confirmed() && held <= marks.last)
      stream.confirm(held);
    metrics_.slot_confirmed_lsn.store(stream.confirmed(), std::memory_order_relaxed);
    metrics_.slot_server_lsn.store(stream.server_end(), std::memory_order_relaxed);
    finish_on_wal(marks.last);
    if (PQstatus(c.get()) != CONNECTION_OK)
      throw std::runtime_error("connection status bad");
  }
}

void listen_connection::mark_wal(wal_marks& m, uint64_t lsn, std::optional<log_witness> witness,
                                 std::optional<time_point>& session_started, const char* feed) {
  if (!m.caught_up && lsn >= m.catch_up_to) {
    m.caught_up = true;
    spdlog::info("change listener: {} reached {} (session {})", feed, format_wal_lsn(lsn), generation_);
    up_(generation_, cfg_.stamp_lsn ? m.catch_up_to : 0);
    session_started = std::chrono::steady_clock::now();
  }
  inbox_.add_mark({lsn, m.caught_up ? generation_ : 0, {}, witness, catalog_});
  m.last = lsn;
  catalog_moved_ = false;
}

void listen_connection::apply_commits(pg::connection& c, std::vector<pg::wal_commit>& commits, bool caught_up) {
  change_batch changes;
  row_batch rows;
  size_t truncates = 0;
  uint64_t drop_kinds = 0;
  std::vector<std::string> altered;
  for (auto& t : commits) {
    for (auto& ch : t.changes) {
      if (cfg_.stamp_lsn)
        ch.lsn = t.end_lsn; // a standby that replayed this far sees it
      changes.push_back(ch);
    }
    for (auto& r : t.changed_rows) {
      if (cfg_.stamp_lsn)
        r.lsn = t.end_lsn;
      rows.push_back(std::move(r));
    }
    truncates += t.truncates;
    drop_kinds |= t.drop_kinds;
    altered.insert(altered.end(), t.altered.begin(), t.altered.end());
  }
  bump(metrics_.changes_read, changes.size() + rows.size());
  if (!caught_up) // committed while this instance was away: streamed from its slot, or relayed
    bump(metrics_.replayed, changes.size() + rows.size());
  inbox_.add_all(changes);
  inbox_.add_rows(rows);
  if (truncates > 0) {
    bump(metrics_.truncates, truncates);
    spdlog::info("change listener: a watched table was truncated: dropping both tiers");
    inbox_.request_drop();
  }
  if (drop_kinds != 0) {
    spdlog::warn("change listener: a change did not carry the old value of a key column (its table's kinds "
                 "do not know their rows, or a transaction changed more than {} rows), or named a key that "
                 "cannot be vouched for: dropping {} from both tiers",
                 pg::wal_change_reader::max_rows, kind_names(drop_kinds));
    inbox_.request_drop_kinds(drop_kinds);
  }
  if (!altered.empty())
    check_drift(c, true, altered);
}

} // namespace restcache
