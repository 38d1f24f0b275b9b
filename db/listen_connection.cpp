// SPDX-License-Identifier: Apache-2.0
#include "db/listen_connection.hpp"

#include <pthread.h>

#include <memory>

#include <spdlog/spdlog.h>

#include "messages/text.hpp"
#include "messages/wal_lsn.hpp"
#include "persistence/pg/catalog_drift.hpp"
#include "persistence/pg/stored_declarations.hpp"
#include "persistence/pg/connection.hpp"
#include "persistence/pg/feed_switch.hpp"
#include "persistence/pg/schema.hpp"
#include "persistence/pg/statements.hpp"
#include "persistence/pg/wal_feed.hpp"
#include "persistence/pg/wal_relay.hpp"
#include "persistence/pg/wal_slot.hpp"

namespace restcache {

namespace {

/// The connection's name in pg_stat_activity: operators (and the freshness
/// checker) find the listener's backend by it.
constexpr const char* application_name = "restcache-listener";

/// Wall-clock microseconds, as the latency histogram's stamps.
int64_t now_us() {
  using namespace std::chrono;
  return duration_cast<microseconds>(system_clock::now().time_since_epoch()).count();
}

/// A lost connection, as opposed to a failed statement.
struct session_lost : std::runtime_error {
  using std::runtime_error::runtime_error;
};

} // namespace

listen_connection::listen_connection(listen_config cfg, change_inbox& inbox, listener_metrics& metrics,
                                     std::function<void(uint64_t, uint64_t)> up, std::function<void()> down)
  : cfg_(std::move(cfg)), inbox_(inbox), metrics_(metrics), up_(std::move(up)), down_(std::move(down)),
    history_(cfg_.history), catalog_(cfg_.catalog), tiers_feed_(cfg_.tiers_feed) {
  if (cfg_.wal_relay) {
    relay_fingerprint_ = pg::relay_fingerprint(cfg_.watched);
    relay_leader_config leader;
    leader.dsn = cfg_.dsn;
    leader.watched = cfg_.watched;
    leader.instance_id = cfg_.instance_id;
    leader.window = cfg_.poll_interval;
    leader.retention = cfg_.retention;
    leader.prune_interval = cfg_.prune_interval;
    leader.check_interval = cfg_.drift_interval;
    leader.max_keys = cfg_.replay_limit;
    leader.slot_create_wait = cfg_.slot_create_wait;
    relay_leader_ = std::make_unique<wal_relay_leader>(std::move(leader), metrics_);
  }
  thread_ = std::thread([this] { run(); });
  // Named, so that top -H and bench/writecost can tell its CPU apart.
  pthread_setname_np(thread_.native_handle(), "rc.listener");
}

listen_connection::~listen_connection() {
  relay_leader_.reset(); // its lead ends with its session
  stop_.stop();
  if (thread_.joinable())
    thread_.join();
}

bool listen_connection::pause(std::chrono::milliseconds d) {
  return stop_.pause(d);
}

void listen_connection::run() {
  auto backoff = std::chrono::milliseconds{50};
  std::optional<std::chrono::steady_clock::time_point> session_started;
  bool connected_before = false;
  while (!stop_.stopping()) {
    try {
      pg::connection c{cfg_.dsn, application_name};
      // Checked at every connect: a newer build may have migrated the schema
      // since this one started. Never caught up, GETs go to PostgreSQL.
      if (auto v = pg::installed_schema_version(c); v > pg::schema_version)
        throw std::runtime_error("the database's restcache schema is version " + std::to_string(v)
                                 + ", newer than this build's " + std::to_string(pg::schema_version)
                                 + ": not reading its change log (upgrade restcached)");
      pg::prepare_feed_session(c);
      holds_trigger_reader_ = false;
      watermark_reset_ = false;
      finish_.reset();
      carried_position_.reset();
      // A reset asked for by a session ended by a switch stands for the
      // next one (the actor may not have applied it yet).
      for (bool next = true; next && !stop_.stopping();) {
        next = false;
        kinds_checked_.reset(); // the statements are checked again on this connection
        metrics_.feed_wal.store(0, std::memory_order_relaxed);
        metrics_.relay_following.store(0, std::memory_order_relaxed);
        try {
          if (choose_feed(c) == feed_kind::wal) {
            if (!cfg_.wal_relay || !relay_session(c, connected_before, session_started))
              wal_session(c, connected_before, session_started);
          } else
            trigger_session(c, connected_before, session_started);
        } catch (const feed_switched& e) {
          // Bypassed until the new feed's session has caught up.
          spdlog::info("change listener: {}", e.what());
          if (metrics_.connected.exchange(0) == 1)
            down_();
          next = true;
        }
      }
    } catch (const std::exception& e) {
      // A session that ran a while was healthy: reconnect at once. One that
      // ends as soon as it starts (the same failure each time) backs off.
      if (session_started && std::chrono::steady_clock::now() - *session_started > std::chrono::seconds{10})
        backoff = std::chrono::milliseconds{50};
      session_started.reset();
      if (metrics_.connected.exchange(0) == 1) {
        spdlog::warn("change listener: connection lost: {}", e.what());
        down_();
      } else if (!stop_.stopping()) {
        spdlog::warn("change listener: cannot connect: {}", e.what());
      }
    }
    if (!pause(backoff))
      break;
    backoff = std::min(backoff * 2, cfg_.max_backoff);
  }
  if (metrics_.connected.exchange(0) == 1)
    down_();
}

feed_kind listen_connection::choose_feed(pg::connection& c) {
  auto feed = pg::recorded_feed(c).value_or(feed_kind::triggers);
  if (cfg_.feed != feed_choice::automatic
      && (cfg_.feed == feed_choice::wal) != (feed == feed_kind::wal))
    throw std::runtime_error(std::string{"changelog.feed is "} + (cfg_.feed == feed_choice::wal ? "wal" : "triggers")
                             + " but the database's change feed is " + to_string(feed)
                             + " (restcache-load --feed chooses it; changelog.feed = auto follows it)");
  const bool held = !watermark_reset_ && metrics_.watermark.load(std::memory_order_acquire) != 0;
  if (feed == feed_kind::wal && tiers_feed_ == feed_kind::triggers && held) {
    // Carried onto the WAL by its session, or dropped there.
  } else if (held && finishing_to_triggers(c, feed)) {
    // The WAL kept the tiers: a WAL session streams up to where the
    // triggers' log takes over, and hands over there (finish_on_wal).
    feed_ = feed_kind::wal;
    return feed_kind::wal;
  } else if (feed != tiers_feed_) {
    // A watermark of one feed is no position in the other's (an xid, an
    // LSN): what the tiers hold cannot be replayed from it.
    if (held) {
      spdlog::warn("change listener: the database's change feed is {} now, the tiers were kept by the {} feed: "
                   "dropping both tiers",
                   to_string(feed), to_string(tiers_feed_));
      bump(metrics_.tier_drops);
      reset_history(pg::read_history(c).identity);
    }
    tiers_feed_ = feed;
  }
  feed_ = feed;
  return feed;
}

void listen_connection::let_go_of_trigger_log(pg::connection& c) {
  if (std::exchange(holds_trigger_reader_, false))
    pg::release_trigger_reader(c);
}

bool listen_connection::finishing_to_triggers(pg::connection& c, feed_kind recorded) {
  if (recorded != feed_kind::triggers || tiers_feed_ != feed_kind::wal || cfg_.feed != feed_choice::automatic)
    return false;
  if (!finish_ && (finish_ = pg::triggers_switch_point(c))) {
    finish_by_ = std::chrono::steady_clock::now() + std::chrono::seconds{30};
    spdlog::info("change listener: the database's change feed is the triggers now: streaming the WAL up to {}, "
                 "where their log takes over",
                 format_wal_lsn(finish_->lsn));
  }
  return finish_.has_value();
}

void listen_connection::trigger_session(pg::connection& c, bool& connected_before,
                                        std::optional<std::chrono::steady_clock::time_point>& session_started) {
  // Registered as a reader of the log for as long as this connection reads
  // it, and until it has moved: a switch to the WAL keeps the triggers
  // until then. Not when pinned to the triggers (it will not move), nor
  // when the triggers are being retired now (taken: its move then finds
  // them gone, and drops the tiers).
  if (!holds_trigger_reader_ && cfg_.feed == feed_choice::automatic)
    holds_trigger_reader_ = pg::hold_trigger_reader(c);
  // The polls start from a snapshot taken before the replay: what
  // committed after it is polled, what before it is replayed (the two
  // may overlap; invalidations are idempotent).
  newest_ = pg::read_position(c, position_).newest;
  last_poll_us_ = now_us();
  last_mark_.reset();
  auto watermark = watermark_reset_ ? 0 : metrics_.watermark.load(std::memory_order_acquire);
  // Tiers the WAL kept up to the switch point: the log from the switch's
  // snapshot is what they lack.
  const auto carried = std::exchange(carried_position_, std::nullopt);
  const auto live = pg::read_history(c);
  const auto lost_from = lost_wal(c); // at every connect: it notes when the server started
  bool same = carried || same_history(c, live, watermark);
  if (same && !carried && lost_from) {
    // The lost commits' xids are handed out again: nothing from the
    // watermark on can be trusted, so the history restarts as after an
    // older copy of the data.
    spdlog::warn("change listener: PostgreSQL restarted and its WAL ends before {}, which this instance saw: "
                 "commits it read were lost (synchronous_commit = off and a crash); dropping both tiers and "
                 "restarting the watermark",
                 format_wal_lsn(*lost_from));
    bump(metrics_.history_resets[static_cast<size_t>(history_rule::went_backwards)]);
    reset_history(live.identity);
    same = false;
  }
  bool tiers_fresh = !same || watermark == 0;
  std::vector<std::string> altered_away; // DDL on watched tables among the replayed entries
  if (carried) {
    auto replay = pg::read_changes_since(c, *carried, cfg_.replay_limit, cfg_.replay_digest_from);
    if (!replay.complete) {
      spdlog::warn("change listener: the change log no longer reaches back to the switch of feed (pruned below {}), "
                   "or holds more than {} entries since: dropping both tiers",
                   replay.horizon, cfg_.replay_limit);
      bump(metrics_.tier_drops);
      reset_history(live.identity);
    } else {
      apply_replay(c, replay, altered_away);
      take_catalog_over(c);
      bump(metrics_.tiers_carried);
      spdlog::info("change listener: carried both tiers from the WAL onto the change log (read from {})",
                   to_text(*carried));
      tiers_fresh = false;
    }
    // This instance's slot, streamed up to the switch point, holds WAL for
    // nobody now.
    if (!cfg_.temporary_slot) {
      auto own = pg::slot_name(live.identity.system_id, cfg_.instance_id);
      if (pg::read_slot(c, own).exists)
        pg::drop_released_slot(c, own, [this](std::chrono::milliseconds d) { return pause(d); });
    }
  } else if (!same) {
    // Dropped; nothing of the old history is worth replaying.
  } else if (watermark == 0) {
    // Nothing applied through a mark yet. At the first start the tiers
    // are empty (the daemon drops an LMDB file without a watermark); after
    // a reconnect, what was cached meanwhile cannot be checked: drop it.
    if (connected_before) {
      bump(metrics_.tier_drops);
      inbox_.request_drop();
    }
  } else {
    // From the position the watermark was taken at when it is known: a
    // transaction left open (or prepared) then costs the replay its own
    // entries, not everything written since it began.
    auto from = inbox_.applied();
    if (!from || from->xmin != watermark)
      from = feed_position{watermark, watermark, {}};
    auto replay = pg::read_changes_since(c, *from, cfg_.replay_limit, cfg_.replay_digest_from);
    if (!replay.complete) {
      spdlog::warn("change listener: the change log no longer reaches back to watermark {} "
                   "(pruned below {}), or holds more than {} entries since: dropping both tiers",
                   watermark, replay.horizon, cfg_.replay_limit);
      bump(metrics_.tier_drops);
      inbox_.request_drop();
    } else {
      apply_replay(c, replay, altered_away);
    }
  }
  // Before the session's first mark (which lets the tiers serve): a kind
  // whose tables drifted while the listener was away is bypassed from
  // the start, and what changed unseen is dropped with the replay.
  check_drift(c, tiers_fresh, altered_away);
  watermark_reset_ = false;
  // Read after the replay: every change committed before this session
  // (replayed or not) lies below it.
  uint64_t lsn_floor = cfg_.stamp_lsn ? pg::insert_lsn(c) : 0;
  connected_before = true;
  ++generation_;
  bump(metrics_.connects);
  metrics_.connected.store(1, std::memory_order_release);
  spdlog::info("change listener: reading the change log (session {}, watermark {})", generation_, watermark);
  up_(generation_, lsn_floor);
  session_started = std::chrono::steady_clock::now();
  session(c);
}

void listen_connection::apply_replay(pg::connection& c, pg::replay_result& replay,
                                     std::vector<std::string>& altered) {
  if (replay.truncated) {
    spdlog::warn("change listener: a watched table was truncated while the listener was away: dropping both tiers");
    bump(metrics_.truncates);
    inbox_.request_drop();
  }
  if (replay.key_spaces != 0)
    drop_key_spaces(replay.key_spaces);
  altered = std::move(replay.altered_tables);
  bump(metrics_.replayed, replay.changes.size());
  add_stamped(c, replay.changes);
}

void listen_connection::take_catalog_over(pg::connection& c) {
  auto now = read_drift(c);
  if (!catalog_.empty() && pg::fingerprint_of_documents(catalog_) == pg::fingerprint_of_documents(now.fingerprint)) {
    catalog_ = now.fingerprint;
    catalog_moved_ = true;
  }
}

bool listen_connection::same_history(pg::connection& c, const live_history& live, uint64_t watermark) {
  auto rule = compare_history(history_, watermark, live);
  if (rule == history_rule::same) {
    // The identity and the next xid can pass for an older copy of the data
    // once enough transactions ran on it: the log must still hold the last
    // entry the tiers applied, or have pruned past it. (The WAL feed meets
    // its witness in the slot's stream instead.)
    auto witness = inbox_.applied_witness();
    if (feed_ != feed_kind::triggers || !witness || watermark == 0
        || pg::check_witness(c, *witness) != pg::witness_state::went_back)
      return true;
    rule = history_rule::went_backwards;
    spdlog::warn("change listener: the change log no longer holds the entry the tiers last applied "
                 "(xid {}, seq {}), nor has it pruned past it: {} was taken back to an older copy; "
                 "dropping both tiers and restarting the watermark",
                 witness->xid, witness->seq, describe(live.identity));
  } else if (rule == history_rule::first_use)
    spdlog::info("change listener: the tiers hold no known history; recording {} (next xid {})",
                 describe(live.identity), live.next_xid);
  else
    spdlog::warn("change listener: {}: the tiers hold {} up to watermark {}, the database is {} with next xid {}; "
                 "dropping both tiers and restarting the watermark",
                 to_string(rule), describe(*history_), watermark, describe(live.identity), live.next_xid);
  bump(metrics_.history_resets[static_cast<size_t>(rule)]);
  reset_history(live.identity);
  return false;
}

std::optional<uint64_t> listen_connection::lost_wal(pg::connection& c) {
  auto now = pg::read_server_start(c);
  const bool restarted = !server_started_.empty() && now.started != server_started_;
  server_started_ = now.started;
  if (!restarted)
    return std::nullopt;
  // A clean shutdown's checkpoint lies past everything written before it;
  // after a crash the last checkpoint lies before the WAL that was lost.
  const auto seen = std::exchange(seen_lsn_, 0);
  if (seen == 0 || now.checkpoint_lsn >= seen)
    return std::nullopt;
  return seen;
}

void listen_connection::reset_history(const history_identity& identity) {
  inbox_.request_reset(identity);
  history_ = identity;
  watermark_reset_ = true;
}

void listen_connection::add_stamped(pg::connection& c, change_batch& changes) {
  if (changes.empty())
    return;
  if (cfg_.stamp_lsn) {
    // Read after the changes were seen, so each committed below it.
    auto lsn = pg::insert_lsn(c);
    for (auto& ch : changes)
      ch.lsn = lsn;
  }
  inbox_.add_all(changes);
  changes.clear();
}

void listen_connection::poll(pg::connection& c) {
  auto sent_us = now_us();
  auto got = pg::poll_changes(c, position_, cfg_.replay_limit, last_poll_us_);
  metrics_.poll_duration.observe_us(now_us() - sent_us);
  seen_lsn_ = std::max(seen_lsn_, got.insert_lsn);
  last_poll_us_ = sent_us;
  if (got.pruned_unread) {
    spdlog::warn("change listener: the change log was pruned up to xid {} while this instance had not read every "
                 "transaction from xid {} on (one older than the retention committed just before a prune): "
                 "dropping both tiers",
                 got.horizon, got.oldest_unread);
    bump(metrics_.tier_drops);
    inbox_.request_drop();
  }
  if (got.overflow) {
    spdlog::warn("change listener: more than {} changed keys since the last read: dropping both tiers",
                 cfg_.replay_limit);
    bump(metrics_.tier_drops);
    inbox_.request_drop();
  } else {
    auto n = got.changes.size();
    add_stamped(c, got.changes);
    bump(metrics_.changes_read, n);
    if (got.truncates > 0) {
      bump(metrics_.truncates, got.truncates);
      spdlog::info("change listener: a watched table was truncated: dropping both tiers");
      inbox_.request_drop();
    }
    if (got.key_spaces != 0)
      drop_key_spaces(got.key_spaces);
    if (!got.altered_tables.empty()) {
      // Logged by the event trigger in the DDL's own transaction, so read
      // like a write: the kinds it broke are bypassed before this round's
      // drop is applied, and nothing filled before the drop is kept.
      check_drift(c, true, got.altered_tables);
    }
  }
  // Everything this snapshot sees was read by this poll or an earlier one
  // (or replayed): once applied, it is where a replay may start. The first
  // mark of a session is what tells the actor it caught up; later ones only
  // when the snapshot moved.
  if (got.newest && (!newest_ || got.newest->xid > newest_->xid))
    newest_ = got.newest;
  if (!last_mark_ || got.snapshot.xmin != last_mark_->xmin || got.snapshot.xmax != last_mark_->xmax
      || catalog_moved_) {
    inbox_.add_mark({got.snapshot.xmin, generation_, got.snapshot, newest_, catalog_});
    last_mark_ = got.snapshot;
    catalog_moved_ = false;
  }
}

void listen_connection::check_declarations(pg::connection& c) {
  if (!cfg_.check_declarations)
    return;
  std::optional<std::string> applied;
  try {
    applied = pg::stored_declarations_digest(c);
  } catch (const pg::error& e) {
    if (e.connection_lost() || PQstatus(c.get()) != CONNECTION_OK)
      throw;
    return; // read at the next check
  }
  // None applied: each instance serves what it was given (the demo, or a
  // file not applied), as before stored declarations.
  const bool differ = applied && *applied != cfg_.declarations_digest;
  metrics_.declarations_differ.store(differ ? 1 : 0, std::memory_order_relaxed);
  if (differ && *applied != declarations_seen_)
    spdlog::warn("change listener: the declarations applied to the database (digest {}) are not those this "
                 "instance serves ({}): it keeps serving its own kinds, kept fresh as before, and serves the "
                 "applied ones once restarted",
                 *applied, cfg_.declarations_digest.empty() ? std::string{"the demo's"} : cfg_.declarations_digest);
  declarations_seen_ = differ ? *applied : std::string{};
}

void listen_connection::count_slots(pg::connection& c) {
  try {
    std::vector<slot_census::slot> slots;
    for (auto& s : pg::restcache_slots(c))
      slots.push_back({std::move(s.name), s.active, std::move(s.wal_status), s.retained_bytes, s.unconfirmed_bytes});
    metrics_.slots.set(std::move(slots));
  } catch (const pg::error& e) {
    if (e.connection_lost() || PQstatus(c.get()) != CONNECTION_OK)
      throw;
    // A role that may not read pg_replication_slots' positions: none shown.
  }
}

void listen_connection::check_drift(pg::connection& c, bool tiers_fresh,
                                    const std::vector<std::string>& altered_tables) {
  bump(metrics_.drift_checks);
  // The database switched feeds (restcache-load --feed, which logs the
  // switch through the old feed so that this check runs at once): this
  // session's feed reports nothing more. Ending it bypasses the tiers until
  // the next session, on the new feed, has carried them across (or dropped
  // them) and caught up; from the WAL to the triggers, this session first
  // streams on up to where their log takes over (finish_on_wal).
  if (auto now = pg::recorded_feed(c); now && *now != feed_) {
    if (!finishing_to_triggers(c, *now))
      throw feed_switched(std::string{"the database's change feed is "} + to_string(*now) + " now, not "
                          + to_string(feed_) + ": following it");
    // The trigger session's first check compares what the documents read
    // with what the tiers were filled under.
    return;
  }
  check_declarations(c);
  count_slots(c);
  // Only the kinds reading what changed: the others' documents stay.
  auto drop = [&](const std::string& what, uint64_t kinds) {
    spdlog::warn("change listener: what the cached documents depend on may have changed unseen ({}): "
                 "dropping {} from both tiers",
                 what, kind_names(kinds));
    bump(metrics_.drift_drops);
    inbox_.request_drop_kinds(kinds);
  };
  const bool altered = !altered_tables.empty();
  uint64_t altered_kinds = 0;
  for (const auto& t : altered_tables)
    altered_kinds |= pg::kinds_of_table(cfg_.watched, t);
  const char* ddl = "a watched table was altered (DDL logged by restcache's event trigger)";
  pg::drift_report rep;
  try {
    rep = read_drift(c);
  } catch (const pg::error& e) {
    if (e.connection_lost() || PQstatus(c.get()) != CONNECTION_OK)
      throw;
    if (altered)
      drop(ddl, altered_kinds);
    // Nothing can be vouched for: every kind is bypassed until a check
    // succeeds, which then compares with the last fingerprint known.
    // The words reach clients (a 503's detail): the SQLSTATE, not the SQL.
    auto problem = "cannot check the watched tables (SQLSTATE " + e.sqlstate()
                   + "; an older restcache schema? `restcache-load --schema-only` installs this build's)";
    if (problem != drift_problems_)
      spdlog::warn("change listener: the drift check failed: {}", e.what());
    set_drift(kinds_reading(cfg_.watched), problem);
    return;
  }
  // DDL logged by the event trigger is checked at once, and drops only what
  // its fingerprint says it may have made old: a comment, an index or a
  // column no document reads keeps the tiers.
  if (rep.fingerprint != catalog_ && (!catalog_.empty() || !tiers_fresh)) {
    drop(catalog_.empty() ? std::string{"the tiers hold no record of the catalog they were filled under"}
                          : join(pg::fingerprint_changes(catalog_, rep.fingerprint), "; "),
         pg::fingerprint_kinds(catalog_, rep.fingerprint, cfg_.watched));
  }
  if (rep.fingerprint != catalog_) {
    catalog_ = rep.fingerprint;
    catalog_moved_ = true;
  }
  // The statements' own refusals, for kinds no table problem bypasses already.
  auto drifted = rep.drifted;
  auto problems = rep.problems();
  for (const auto& r : kinds_checked_->refusals) {
    const auto* kind = find_doc_kind(r.kind);
    if (kind == nullptr || (rep.drifted & kind_bit(kind->kind)) != 0)
      continue;
    drifted |= kind_bit(kind->kind);
    problems += (problems.empty() ? "" : "; ") + r.reason;
  }
  set_drift(drifted, problems);
}

pg::drift_report listen_connection::read_drift(pg::connection& c) {
  auto read = [&] {
    return pg::judge_catalog(pg::read_catalog_facts(c, cfg_.watched, kinds_checked_->dependencies, feed_), cfg_.watched);
  };
  if (!kinds_checked_) { // this session's first check
    check_kind_statements(c);
    auto rep = read();
    kinds_checked_under_ = rep.fingerprint;
    return rep;
  }
  auto rep = read();
  // Something moved since the statements were last checked: a view or a
  // function may read other objects now, or be refused.
  if (rep.fingerprint != kinds_checked_under_) {
    auto before = rep.fingerprint;
    auto had = kinds_checked_->dependencies;
    check_kind_statements(c);
    rep = read();
    // Compared next time with the fingerprint read before the check, so a
    // change between the check and its read is checked again; unless the
    // objects changed, when the two are not comparable.
    kinds_checked_under_ = had == kinds_checked_->dependencies ? before : rep.fingerprint;
  }
  return rep;
}

void listen_connection::drop_key_spaces(uint64_t kinds) {
  spdlog::info("change listener: a changed key compared without case has a letter past ASCII, which the database "
               "may compare as another key: dropping {} from both tiers",
               kind_names(kinds));
  inbox_.request_drop_kinds(kinds);
}

void listen_connection::check_kind_statements(pg::connection& c) {
  kinds_checked_ = pg::check_kinds_and_dependencies(c);
  // Before this session's first mark lets the tiers serve: requests and the
  // log's keys are spelled canonically from then on.
  pg::publish_key_comparisons(*kinds_checked_);
  for (const auto& d : kinds_checked_->dependencies)
    if (!d.known) {
      spdlog::warn("change listener: cannot find what kind {} depends on besides its tables (this role may not "
                   "create a temporary function, or the server is a standby): a view or function it reads "
                   "redefined is seen only through its tables",
                   d.kind);
      break;
    }
}

void listen_connection::set_drift(uint64_t kinds, const std::string& problems) {
  auto added = kinds & ~drifted_;
  auto cleared = drifted_ & ~kinds;
  if (added != 0 || (kinds != 0 && problems != drift_problems_))
    spdlog::warn("change listener: {} bypassed (answered from PostgreSQL, not cached) until repaired: {}. "
                 "Repair restcache's triggers with `restcache-load --schema-only` (with this instance's "
                 "db.dsn); a dropped table or column, restore it",
                 kind_names(kinds), problems);
  if (cleared != 0)
    spdlog::info("change listener: {} cached again: the watched tables are as restcache needs them",
                 kind_names(cleared));
  drifted_ = kinds;
  drift_problems_ = problems;
  metrics_.drift.set(kinds, problems);
}

void listen_connection::measure_log(pg::connection& c) {
  auto size = pg::measure_change_log(c);
  metrics_.changelog_bytes.store(size.bytes, std::memory_order_relaxed);
  metrics_.changelog_oldest_age_s.store(static_cast<int64_t>(size.oldest_age_s), std::memory_order_relaxed);
  if (cfg_.warn_bytes > 0 && size.bytes > cfg_.warn_bytes)
    spdlog::warn("change listener: the change log holds {} MB (changelog.warn-bytes {} MB), its oldest entry is {:.0f} s "
                 "old: instances that stopped leave it to the database's own bound (change_log_horizon.max_age)",
                 size.bytes >> 20, cfg_.warn_bytes >> 20, size.oldest_age_s);
}

void listen_connection::session(pg::connection& c) {
  using clock = std::chrono::steady_clock;
  // Soon after the connect: the first instance to start after others were
  // stopped prunes what they left (once its own watermark is known).
  auto next_prune = clock::now() + cfg_.poll_interval;
  auto next_drift_check = clock::now() + cfg_.drift_interval;
  while (!stop_.stopping()) {
    auto started = clock::now();
    if (started >= next_drift_check) {
      // Before the poll: the drop it may ask for goes into the same round as
      // the poll's mark, which then records the new fingerprint.
      check_drift(c, false);
      next_drift_check = started + cfg_.drift_interval;
    }
    poll(c);
    if (cfg_.retention.count() > 0 && started >= next_prune) {
      // Never past what this instance has applied; other instances that fall
      // behind find the horizon above their watermark and drop their tiers.
      auto below = metrics_.watermark.load(std::memory_order_acquire);
      if (below == 0) {
        next_prune = started + cfg_.poll_interval; // not caught up yet: soon again
      } else {
        int64_t n = 0;
        try {
          n = pg::prune_changes(c, cfg_.retention, below, 100'000);
          if (prune_refused_)
            spdlog::info("change listener: pruning the change log again (this role may now)");
          prune_refused_ = false;
        } catch (const pg::error& e) {
          if (!pg::write_refused(e.sqlstate()) || PQstatus(c.get()) != CONNECTION_OK)
            throw;
          // A role that may read the log but not delete from it: reading
          // (and so freshness) is unaffected, and reconnecting would not help.
          if (!prune_refused_)
            spdlog::error("change listener: this role may not prune the change log ({}): the log grows until an "
                          "instance whose role may (DELETE on change_log, UPDATE on change_log_horizon) prunes it, "
                          "or `SELECT restcache_prune_change_log(...)` runs from cron; tried again every 5 minutes",
                          e.what());
          prune_refused_ = true;
        }
        bump(metrics_.pruned, static_cast<uint64_t>(n));
        if (n > 0)
          spdlog::info("change listener: pruned {} change-log entries older than {} s", n,
                       cfg_.retention.count());
        measure_log(c);
        // A full batch: more is due; refused: much later; else the usual interval.
        next_prune = started + (prune_refused_ ? std::chrono::milliseconds{300'000}
                                : n >= 100'000  ? cfg_.poll_interval
                                                : std::chrono::milliseconds{cfg_.prune_interval});
      }
    }
    if (PQstatus(c.get()) != CONNECTION_OK)
      throw session_lost("connection status bad");
    auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(started + cfg_.poll_interval - clock::now());
    if (!pause(std::max(wait, std::chrono::milliseconds{0})))
      return;
  }
}

} // namespace restcache
