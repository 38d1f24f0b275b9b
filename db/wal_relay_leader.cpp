// SPDX-License-Identifier: Apache-2.0
#include "db/wal_relay_leader.hpp"

#include <pthread.h>

#include <algorithm>
#include <optional>

#include <spdlog/spdlog.h>

#include "messages/wal_lsn.hpp"
#include "persistence/pg/change_feed.hpp"
#include "persistence/pg/wal_feed.hpp"
#include "persistence/pg/feed_switch.hpp"
#include "persistence/pg/wal_relay.hpp"
#include "persistence/pg/wal_slot.hpp"
#include "persistence/pg/wal_stream.hpp"
#include "persistence/pg/wal_visibility.hpp"

namespace restcache {

using namespace std::chrono_literals;

wal_relay_leader::wal_relay_leader(relay_leader_config cfg, listener_metrics& metrics)
  : cfg_(std::move(cfg)), metrics_(metrics), fingerprint_(pg::relay_fingerprint(cfg_.watched)) {
  thread_ = std::thread([this] { run(); });
  pthread_setname_np(thread_.native_handle(), "rc.relay");
}

wal_relay_leader::~wal_relay_leader() {
  stop_.stop();
  if (thread_.joinable())
    thread_.join();
}

void wal_relay_leader::run() {
  while (!stop_.stopping()) {
    try {
      pg::connection c{cfg_.dsn, "restcache-relay"};
      pg::prepare_feed_session(c);
      // One connection for every try: an idle candidate costs the server a
      // statement a second.
      while (!stop_.stopping() && !lead(c))
        if (!stop_.pause(cfg_.candidate_interval))
          break;
    } catch (const std::exception& e) {
      if (metrics_.relay_leading.exchange(0) == 1)
        spdlog::warn("WAL relay: the lead ended: {}", e.what());
      else if (!stop_.stopping())
        spdlog::debug("WAL relay: {}", e.what());
    }
    if (!stop_.pause(cfg_.candidate_interval))
      break;
  }
  metrics_.relay_leading.store(0);
}

bool wal_relay_leader::lead(pg::connection& c) {
  using clock = std::chrono::steady_clock;
  if (pg::recorded_feed(c).value_or(feed_kind::triggers) != feed_kind::wal)
    return false;
  if (!pg::relay_installed(c)) {
    if (!std::exchange(missing_said_, true))
      spdlog::warn("WAL relay: the database has no wal_relay table (installed by restcache-load of a build with "
                   "the relay): the instances stream slots of their own");
    return false;
  }
  auto locked = c.exec_params("SELECT pg_try_advisory_lock($1::int8)", {std::to_string(pg::relay_lock_key)});
  if (locked.text(0, 0) != "t")
    return false;
  // Held until this session ends. Its own commits need not wait for a
  // synchronous standby (after a failover the relay starts anew anyway),
  // and a leader cut off by the network is let go within half a minute
  // rather than the kernel's two hours.
  c.exec("SET synchronous_commit = local; SET tcp_keepalives_idle = 10; SET tcp_keepalives_interval = 5;"
         " SET tcp_keepalives_count = 3");
  metrics_.relay_leading.store(1);
  const auto live = pg::read_history(c);
  const auto slot = pg::slot_name(live.identity.system_id, pg::relay_slot_id);
  auto state = pg::read_relay_state(c);
  // The windows carry kinds as bits of the leader's catalogue: those of
  // other declarations mean other kinds, so the relay starts again.
  const bool other_declarations = state.led && state.fingerprint != fingerprint_;
  if (other_declarations)
    spdlog::warn("WAL relay: the previous leader ({}) served other declarations: the relay starts again (its "
                 "followers drop both tiers; those serving the previous declarations stream slots of their own)",
                 state.leader);

  pg::wal_stream_options o;
  o.dsn = cfg_.dsn;
  o.slot = slot;
  o.publication = pg::feed_publication;
  o.status_interval = std::chrono::milliseconds{std::max<int64_t>(1'000, cfg_.window.count())};
  auto facts = pg::read_slot(c, slot);
  // Confirmed past the last window is the idle position (everything the
  // kinds read up to it is relayed), no gap.
  auto judged = pg::judge_slot(facts, std::max(state.relayed_to, facts.confirmed_flush), live.identity.database_name);
  switch (judged.verdict) {
    case pg::slot_verdict::usable:
    case pg::slot_verdict::ahead_of_tiers:
    case pg::slot_verdict::tiers_ahead_of_server: break;
    case pg::slot_verdict::active_elsewhere: // the previous leader's stream, not ended yet
    case pg::slot_verdict::foreign:
      throw std::runtime_error("replication slot " + slot + ": " + judged.reason);
    case pg::slot_verdict::lost:
    case pg::slot_verdict::ahead_of_server:
      c.exec_params("SELECT pg_drop_replication_slot($1)", {slot});
      o.create = pg::wal_stream_options::create_slot::permanent;
      break;
    case pg::slot_verdict::missing: o.create = pg::wal_stream_options::create_slot::permanent; break;
  }
  o.create_wait = cfg_.slot_create_wait;
  // What committed visibly to a new slot's snapshot lies below its start:
  // followers whose tiers the triggers kept carry them over from there.
  std::optional<std::string> exported;
  if (o.create != pg::wal_stream_options::create_slot::no)
    o.exported = [&](const std::string& name) { exported = pg::exported_snapshot(c, name); };
  std::optional<pg::wal_stream> streamed{open_stream(c, o)};
  auto& stream = *streamed;
  const uint64_t starts_at =
    o.create != pg::wal_stream_options::create_slot::no ? stream.consistent_point() : facts.confirmed_flush;
  uint64_t relayed = state.relayed_to;
  std::optional<uint64_t> restart;
  if (judged.drop_tiers() || !state.led || other_declarations) {
    // What lies between the table and the slot is not known (or nothing
    // says what the table held): the relay starts again where the slot
    // does, its followers below drop their tiers.
    restart = starts_at;
    if (state.led) {
      spdlog::warn("WAL relay: slot {}: {}: the relay starts again at {}; its followers drop both tiers", slot,
                   other_declarations ? "another leader's declarations" : judged.reason, format_wal_lsn(*restart));
      bump(metrics_.relay_restarts);
    }
    relayed = *restart;
  }
  pg::claim_relay(c, fingerprint_, cfg_.instance_id, restart, exported);
  spdlog::info("WAL relay: leading: streaming the slot {} from {}, relayed up to {}", slot, format_wal_lsn(starts_at),
               format_wal_lsn(relayed));
  auto reader = watch_reader(c, cfg_.watched, identities_, true);

  auto next_check = clock::now() + cfg_.check_interval;
  auto next_prune = clock::now() + cfg_.prune_interval;
  auto next_ask = clock::now();
  // Switched to the triggers: relayed on up to where their log takes over
  // (its followers carry their tiers across there), then a last window
  // ending past it, so that they pass it once the slot is gone.
  std::optional<uint64_t> finish_at;
  auto give_up_at = clock::time_point::max();
  while (!stop_.stopping()) {
    auto now = clock::now();
    if (now >= next_check) {
      if (!finish_at && pg::recorded_feed(c).value_or(feed_kind::triggers) != feed_kind::wal) {
        auto point = pg::triggers_switch_point(c);
        finish_at = point ? point->lsn : 0;
        give_up_at = now + 30s;
      }
      next_check = now + cfg_.check_interval;
    }
    if (finish_at && !reader.in_transaction()
        && (std::max(relayed, stream.confirmed()) >= *finish_at || now >= give_up_at)) {
      const auto end = std::max(relayed, stream.confirmed());
      if (end > relayed)
        pg::write_relay(c, end, end, pg::encode_relay_commits({}, {}));
      break;
    }
    if (cfg_.retention.count() > 0 && now >= next_prune) {
      pg::prune_relay(c, cfg_.retention);
      next_prune = now + cfg_.prune_interval;
    }
    // Relayed by the previous leader: the slot is confirmed only as far as
    // the table held, so the stream may start before its end.
    auto commits = read_round(stream, reader, cfg_.window, cfg_.max_keys, [&](const pg::wal_commit& t) {
      return t.end_lsn > relayed ? std::optional<size_t>{t.log_keys.size() + t.changed_rows.size()} : std::nullopt;
    });
    if (!commits.empty()) {
      std::vector<uint32_t> xids;
      for (const auto& t : commits)
        xids.push_back(t.xid);
      // Relayed only once other sessions see them: a follower dropping a
      // document sooner lets a fill read the old row again.
      auto xmax = pg::wait_visible(c, xids, [this](std::chrono::milliseconds d) { return stop_.pause(d); });
      const auto first_end = commits.front().end_lsn;
      // One commit for the window: each commit's end, xid and time cost
      // the relay's WAL more than its keys do (measured: 1.14 times the
      // writers' own WAL at 32 clients, one row a transaction).
      std::vector<pg::wal_commit> window{pg::coalesce_window(commits)};
      pg::write_relay(c, first_end, window.back().end_lsn,
                      pg::encode_relay_commits(window, {pg::full_xid(window.back().xid, xmax)}));
      relayed = window.back().end_lsn;
      bump(metrics_.relay_windows);
      stream.confirm(relayed);
    } else if (!reader.in_transaction()) {
      // Idle between transactions: everything the stream brought is in the
      // table, so the slot is confirmed as far as the walsender went (its
      // followers' position when nothing is written), without a write.
      auto end = stream.server_end();
      if (end > stream.confirmed() && end >= relayed) {
        stream.confirm(end);
      } else if (now >= next_ask) {
        stream.ask_position();
        next_ask = now + 100ms;
      }
    }
  }
  if (!stop_.stopping()) {
    // Switched to the triggers: nothing reads the slot, which would hold
    // WAL on the server until dropped. Its walsender ends a moment after
    // its connection.
    streamed.reset();
    spdlog::info("WAL relay: the database's feed is the triggers now: dropping the relay slot {}", slot);
    pg::drop_released_slot(c, slot, [this](std::chrono::milliseconds d) { return stop_.pause(d); });
  }
  metrics_.relay_leading.store(0);
  return true;
}

} // namespace restcache
