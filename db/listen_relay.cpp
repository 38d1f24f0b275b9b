// SPDX-License-Identifier: Apache-2.0
// The change listener following the WAL relay (persistence/pg/wal_relay.hpp):
// the windows of commits one leading instance decoded from the database's
// relay slot, read from wal_relay after the session's position, applied as
// a slot of its own would have streamed them. Its position is an LSN, as the
// WAL feed's: an instance moves between its own slot and the relay keeping
// its tiers where the relay reaches back to what they applied.

#include <poll.h>

#include <algorithm>
#include <deque>

#include <spdlog/spdlog.h>

#include "db/listen_connection.hpp"
#include "messages/wal_lsn.hpp"
#include "persistence/pg/statements.hpp"
#include "persistence/pg/wal_feed.hpp"
#include "persistence/pg/wal_relay.hpp"
#include "persistence/pg/wal_slot.hpp"

namespace restcache {

namespace {

using namespace std::chrono_literals;

/// Windows read at once: a follower far behind applies them in rounds.
constexpr int relay_page_windows = 64;

/// A follower whose position has not passed the server's WAL position of
/// this long ago has nobody relaying (every candidate failing to lead, or a
/// leader frozen with its lock held): it ends its session, and is bypassed
/// until the relay catches up. Long enough for a leader to decode a storm.
constexpr std::chrono::seconds relay_stall_limit{10};

} // namespace

bool listen_connection::wait_relay(pg::connection& c, std::chrono::milliseconds d) {
  auto drain = [&] {
    bool any = false;
    while (PGnotify* n = PQnotifies(c.get())) {
      PQfreemem(n);
      any = true;
    }
    return any;
  };
  if (drain()) // came with the last statement's answer
    return true;
  pollfd p[2] = {{stop_.fd(), POLLIN, 0}, {PQsocket(c.get()), POLLIN, 0}};
  ::poll(p, 2, static_cast<int>(d.count()));
  if (stop_.stopping())
    return false;
  if ((p[1].revents & (POLLIN | POLLHUP | POLLERR)) != 0 && PQconsumeInput(c.get()) == 0)
    throw std::runtime_error(std::string{"connection lost: "} + PQerrorMessage(c.get()));
  drain();
  return true;
}

bool listen_connection::relay_follows_this(pg::connection& c) {
  if (!pg::relay_installed(c))
    return false;
  auto state = pg::read_relay_state(c);
  return state.led && state.fingerprint == relay_fingerprint_;
}

bool listen_connection::relay_session(pg::connection& c, bool& connected_before,
                                      std::optional<time_point>& session_started) {
  using clock = std::chrono::steady_clock;
  if (!pg::relay_installed(c)) {
    if (!std::exchange(relay_refusal_said_, true))
      spdlog::warn("change listener: changelog.wal-relay is on but the database has no wal_relay table (restcache-load "
                   "of this build installs it): streaming a slot of this instance's own");
    return false;
  }
  // A leader (this instance's own candidate among them) claims the head
  // within a second or so of the feed becoming the WAL.
  auto state = pg::read_relay_state(c);
  for (auto waited = clock::now(); !state.led; state = pg::read_relay_state(c)) {
    if (clock::now() - waited > 10s && !std::exchange(relay_refusal_said_, true))
      spdlog::warn("change listener: no instance leads the WAL relay yet (see their logs: \"WAL relay\")");
    if (!pause(200ms))
      throw std::runtime_error("stopping");
  }
  if (state.fingerprint != relay_fingerprint_) {
    if (!std::exchange(relay_refusal_said_, true))
      spdlog::warn("change listener: the WAL relay's leader ({}) serves other declarations than this instance: "
                   "streaming a slot of this instance's own until it does not",
                   state.leader);
    return false;
  }
  relay_refusal_said_ = false;
  metrics_.feed_wal.store(1, std::memory_order_relaxed);
  metrics_.relay_following.store(1, std::memory_order_relaxed);
  last_mark_.reset();
  newest_.reset();
  const auto live = pg::read_history(c);
  const auto relay_slot = pg::slot_name(live.identity.system_id, pg::relay_slot_id);
  // The triggers kept the tiers: carried onto the relay from where it
  // last started (carry_from_triggers).
  const bool carry = tiers_feed_ != feed_kind::wal;
  if (!carry)
    let_go_of_trigger_log(c);
  const auto witness = inbox_.applied_witness();
  const uint64_t watermark = watermark_reset_ || carry ? 0 : metrics_.watermark.load(std::memory_order_acquire);
  const bool same = carry || same_history(c, live, watermark != 0 && witness ? witness->xid + 1 : 0);
  const uint64_t applied = same ? watermark : 0;

  // A slot of this instance's own, from before it followed the relay,
  // would hold WAL on the server for nobody.
  if (!cfg_.temporary_slot) {
    auto own = pg::slot_name(live.identity.system_id, cfg_.instance_id);
    if (auto f = pg::read_slot(c, own); f.exists && !f.active) {
      spdlog::info("change listener: following the WAL relay: dropping this instance's own slot {}", own);
      c.exec_params("SELECT pg_drop_replication_slot($1)", {own});
    }
  }

  auto start = pg::read_relay(c, relay_slot, applied, 0);
  // Just after a switch the leader is making the relay's slot: its start
  // is what tiers are carried onto.
  for (auto waited = clock::now(); carry && start.confirmed == 0 && clock::now() - waited < 10s;
       start = pg::read_relay(c, relay_slot, applied, 0))
    if (!pause(200ms))
      throw std::runtime_error("stopping");
  const uint64_t reached = std::max(start.state.relayed_to, start.confirmed);
  uint64_t position = 0;
  if (carry) {
    // Every window since the start is there while nothing was pruned.
    const bool whole = start.confirmed != 0 && !start.state.start_snapshot.empty()
                       && start.state.start_lsn != 0 && start.state.pruned_below <= start.state.start_lsn;
    const bool carried = carry_from_triggers(c, whole ? start.state.start_snapshot : std::string{}, "the WAL relay");
    position = carried ? start.state.start_lsn : reached;
    check_drift(c, !carried);
  } else {
    std::string why;
    if (applied != 0) {
      if (applied < start.state.pruned_below)
        why = "the relay no longer holds what came after the tiers' position " + format_wal_lsn(applied)
              + " (pruned, or started again at " + format_wal_lsn(start.state.pruned_below) + ")";
      else if (applied > reached)
        why = "the tiers applied past what the relay reached (" + format_wal_lsn(reached) + "): an older copy restored";
      else if (witness && witness->seq > start.state.pruned_below)
        if (auto x = pg::relayed_xid_at(c, witness->seq); x && *x != witness->xid)
          why = "the relay holds another transaction where the tiers' last one ended: an older copy restored";
    }
    const bool drop = !why.empty() || (applied == 0 && connected_before);
    if (drop && (applied != 0 || connected_before)) {
      spdlog::warn("change listener: WAL relay: {}: dropping both tiers",
                   why.empty() ? "nothing applied since the last session" : why);
      bump(metrics_.tier_drops);
    }
    if (finish_ && (drop || applied == 0)) {
      // Switched to the triggers, and the relay cannot carry the tiers to
      // where their log takes over.
      abandon_finish();
    }
    if (drop || applied == 0)
      reset_history(live.identity);
    position = drop || applied == 0 ? reached : applied;
    check_drift(c, drop || applied == 0);
  }
  watermark_reset_ = false;

  // Woken by the leader's commits (NOTIFY from its transactions only,
  // never a writer's) rather than reading the table every poll interval.
  c.exec(std::string{"LISTEN "} + pg::relay_channel);
  const uint64_t catch_up_to = pg::insert_lsn(c);
  connected_before = true;
  ++generation_;
  bump(metrics_.connects);
  metrics_.connected.store(1, std::memory_order_release);
  spdlog::info("change listener: following the WAL relay (leader {}; session {}, from {}, catching up to {})",
               start.state.leader, generation_, format_wal_lsn(position), format_wal_lsn(catch_up_to));

  wal_marks marks{catch_up_to};
  auto mark = [&](uint64_t lsn, std::optional<log_witness> witness = std::nullopt) {
    mark_wal(marks, lsn, witness, session_started, "the WAL relay");
  };

  auto next_drift_check = clock::now() + cfg_.drift_interval;
  clock::time_point last_slot_read{};
  // The server's WAL position at each slot read: the front is the newest
  // one at least relay_stall_limit old.
  std::deque<std::pair<clock::time_point, uint64_t>> server_at;
  while (!stop_.stopping()) {
    auto now = clock::now();
    if (now >= next_drift_check) {
      check_drift(c, false);
      next_drift_check = now + cfg_.drift_interval;
    }
    // The slot's position moves a follower when nothing the kinds read is
    // written: read (before the table) while catching up, then each second.
    const bool with_slot = !marks.caught_up || now - last_slot_read >= 1s;
    auto page = pg::read_relay(c, with_slot ? relay_slot : std::string{}, position, relay_page_windows);
    if (with_slot) {
      last_slot_read = now;
      server_at.emplace_back(now, page.server_lsn);
      while (server_at.size() > 1 && now - server_at[1].first >= relay_stall_limit)
        server_at.pop_front();
    }
    if (page.state.fingerprint != relay_fingerprint_)
      throw std::runtime_error("the WAL relay's leader (" + page.state.leader + ") serves other declarations now");
    if (position < page.state.pruned_below) {
      // Started again (a new slot: a failover, or one lost), or pruned
      // past a follower this far behind.
      spdlog::warn("change listener: the WAL relay starts again at {}, past this session's position {}: dropping "
                   "both tiers",
                   format_wal_lsn(page.state.pruned_below), format_wal_lsn(position));
      bump(metrics_.tier_drops);
      bump(metrics_.slot_resets);
      reset_history(pg::read_history(c).identity);
      position = page.state.pruned_below;
      continue;
    }
    std::vector<pg::wal_commit> commits;
    uint64_t last_xid = 0;
    for (const auto& [end, text] : page.windows) {
      auto window = pg::decode_relay_commits(text);
      for (size_t i = 0; i < window.commits.size(); ++i)
        if (window.commits[i].end_lsn > position) {
          last_xid = window.full_xids[i];
          commits.push_back(std::move(window.commits[i]));
        }
      position = std::max(position, end);
    }
    if (!commits.empty()) {
      apply_commits(c, commits, marks.caught_up);
      const auto& last = commits.back();
      mark(position, log_witness{last_xid, last.end_lsn, last.commit_us});
    }
    if (!page.full) {
      // Everything up to the slot's position is in the table, read above.
      position = std::max(position, page.confirmed);
      if (position > marks.last || catalog_moved_)
        mark(position);
    }
    if (with_slot && !server_at.empty() && now - server_at.front().first >= relay_stall_limit
        && position < server_at.front().second)
      throw std::runtime_error("the WAL relay has not passed the server's WAL position of "
                               + std::to_string(relay_stall_limit.count()) + " s ago ("
                               + format_wal_lsn(server_at.front().second) + ", at " + format_wal_lsn(position)
                               + "): no instance relays it (see their logs: \"WAL relay\")");
    metrics_.slot_confirmed_lsn.store(position, std::memory_order_relaxed);
    finish_on_wal(marks.last);
    if (with_slot)
      metrics_.slot_server_lsn.store(page.server_lsn, std::memory_order_relaxed);
    if (PQstatus(c.get()) != CONNECTION_OK)
      throw std::runtime_error("connection status bad");
    // Until the next window's notification; no longer than a second (the
    // slot's position), or a poll interval while catching up.
    if (!page.full && !wait_relay(c, marks.caught_up ? std::chrono::milliseconds{1'000} : cfg_.poll_interval))
      break;
  }
  return true;
}

} // namespace restcache
