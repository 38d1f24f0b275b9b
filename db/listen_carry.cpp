// SPDX-License-Identifier: Apache-2.0
// The change listener carrying its tiers across a switch from the triggers
// to the WAL (persistence/pg/feed_switch.hpp). The slot (or the relay) it
// follows begins at a snapshot S; the change log holds every change
// committed after the tiers' position P, and through S when no retirement
// of the triggers lies between. So the log is read from P, the stream from
// S, and what the tiers hold stays: a change committed after S comes both
// ways, which an invalidation does not mind.

#include <spdlog/spdlog.h>

#include "db/listen_connection.hpp"
#include "messages/wal_lsn.hpp"
#include "persistence/pg/catalog_drift.hpp"
#include "persistence/pg/change_feed.hpp"
#include "persistence/pg/feed_switch.hpp"

namespace restcache {

bool listen_connection::carry_from_triggers(pg::connection& c, const std::string& snapshot,
                                            const std::string& onto) {
  const auto live = pg::read_history(c);
  const uint64_t watermark = watermark_reset_ ? 0 : metrics_.watermark.load(std::memory_order_acquire);
  auto done = [&](bool carried) {
    // The log is no longer this connection's to hold back.
    let_go_of_trigger_log(c);
    tiers_feed_ = feed_kind::wal;
    return carried;
  };
  if (watermark == 0) {
    reset_history(live.identity);
    return done(false);
  }
  // The trigger feed's own checks of the history the tiers hold (the log's
  // witness entry among them).
  feed_ = feed_kind::triggers;
  const bool same = same_history(c, live, watermark);
  feed_ = feed_kind::wal;
  if (!same)
    return done(false); // dropped, and said why
  auto from = inbox_.applied();
  if (!from || from->xmin != watermark)
    from = feed_position{watermark, watermark, {}};
  std::string why;
  if (snapshot.empty()) {
    why = onto + " began at no snapshot this instance can see";
  } else if (!pg::triggers_logged(c, *from, snapshot)) {
    why = "the triggers were retired after the tiers' position and before " + onto + " began";
  } else {
    auto replay = pg::read_changes_since(c, *from, cfg_.replay_limit, cfg_.replay_digest_from);
    if (!replay.complete) {
      why = "the change log no longer reaches back to watermark " + std::to_string(watermark) + " (pruned below "
            + std::to_string(replay.horizon) + "), or holds more than " + std::to_string(cfg_.replay_limit)
            + " entries since";
    } else {
      std::vector<std::string> altered; // checked by the session's first drift check
      apply_replay(c, replay, altered);
    }
  }
  if (!why.empty()) {
    spdlog::warn("change listener: the database's change feed is the WAL now; the tiers the triggers kept cannot be "
                 "carried onto {}: {}: dropping both tiers",
                 onto, why);
    bump(metrics_.tier_drops);
    reset_history(live.identity);
    return done(false);
  }
  take_catalog_over(c);
  inbox_.request_rebase();
  bump(metrics_.tiers_carried);
  spdlog::info("change listener: carried both tiers from the change log (read from {}) onto {}", to_text(*from), onto);
  return done(true);
}

void listen_connection::finish_on_wal(uint64_t reached) {
  if (!finish_)
    return;
  if (reached >= finish_->lsn) {
    // Everything below the point is in the inbox; what committed visibly to
    // the switch's snapshot wrote below it, the rest is in the log.
    inbox_.request_rebase();
    carried_position_ = finish_->snapshot;
    finish_.reset();
    tiers_feed_ = feed_kind::triggers;
    watermark_reset_ = true; // the watermark read now is the WAL's
    throw feed_switched("the WAL streamed up to where the triggers' log takes over: following the triggers");
  }
  if (std::chrono::steady_clock::now() >= finish_by_) {
    spdlog::warn("change listener: the WAL did not reach {} (where the triggers' log takes over) within 30 s",
                 format_wal_lsn(finish_->lsn));
    abandon_finish();
  }
}

void listen_connection::abandon_finish() {
  spdlog::warn("change listener: following the triggers without the tiers the WAL kept: dropping both tiers");
  finish_.reset();
  bump(metrics_.tier_drops);
  if (history_)
    reset_history(*history_);
  else
    inbox_.request_drop();
  tiers_feed_ = feed_kind::triggers;
  watermark_reset_ = true;
  throw feed_switched("following the triggers");
}

} // namespace restcache
