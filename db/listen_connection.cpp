#include "db/listen_connection.hpp"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <unistd.h>

#include <memory>

#include <spdlog/spdlog.h>

#include "persistence/pg/change_feed.hpp"
#include "persistence/pg/connection.hpp"
#include "persistence/pg/schema.hpp"
#include "persistence/pg/statements.hpp"

namespace restcache {

namespace {

/// The connection's name in pg_stat_activity: operators (and the freshness
/// checker) find the listener's backend by it.
constexpr const char* application_name = "restcache-listener";

/// A lost connection, as opposed to a failed statement.
struct session_lost : std::runtime_error {
  using std::runtime_error::runtime_error;
};

} // namespace

listen_connection::listen_connection(listen_config cfg, change_inbox& inbox, listener_metrics& metrics,
                                     std::function<void(uint64_t, uint64_t)> up, std::function<void()> down)
  : cfg_(std::move(cfg)), inbox_(inbox), metrics_(metrics), up_(std::move(up)), down_(std::move(down)),
    history_(cfg_.history) {
  if (pipe2(stop_fds_, O_CLOEXEC | O_NONBLOCK) != 0)
    throw std::runtime_error("listen_connection: pipe failed");
  thread_ = std::thread([this] { run(); });
  // Named, so that top -H and bench/writecost can tell its CPU apart.
  pthread_setname_np(thread_.native_handle(), "rc.listener");
}

listen_connection::~listen_connection() {
  stopping_.store(true, std::memory_order_release);
  char one = 1;
  [[maybe_unused]] auto n = write(stop_fds_[1], &one, 1);
  if (thread_.joinable())
    thread_.join();
  close(stop_fds_[0]);
  close(stop_fds_[1]);
}

bool listen_connection::pause(std::chrono::milliseconds d) {
  pollfd p{stop_fds_[0], POLLIN, 0};
  poll(&p, 1, static_cast<int>(d.count()));
  return !stopping_.load(std::memory_order_acquire);
}

void listen_connection::run() {
  auto backoff = std::chrono::milliseconds{50};
  bool connected_before = false;
  while (!stopping_.load(std::memory_order_acquire)) {
    try {
      pg::connection c{cfg_.dsn, application_name};
      c.exec(std::string{"LISTEN "} + pg::change_channel + "; LISTEN " + pg::mark_channel(c));
      // From here on every commit reaches us as a notification; the replay
      // reads what committed before (overlapping is harmless: invalidations
      // are idempotent).
      auto watermark = metrics_.watermark.load(std::memory_order_acquire);
      if (!same_history(c, watermark)) {
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
        auto replay = pg::read_changes_since(c, watermark, cfg_.replay_limit, cfg_.replay_digest_from);
        if (!replay.complete) {
          spdlog::warn("notify listener: the change log no longer reaches back to watermark {} "
                       "(pruned below {}), or holds more than {} entries since: dropping both tiers",
                       watermark, replay.horizon, cfg_.replay_limit);
          bump(metrics_.tier_drops);
          inbox_.request_drop();
        } else {
          if (replay.truncated) {
            spdlog::warn("notify listener: dept or emp was truncated while the listener was away: "
                         "dropping both tiers");
            bump(metrics_.truncates);
            inbox_.request_drop();
          }
          bump(metrics_.replayed, replay.changes.size());
          add_stamped(c, replay.changes);
        }
      }
      // Read after the replay: every change committed before this session
      // (replayed or not) lies below it.
      uint64_t lsn_floor = cfg_.stamp_lsn ? pg::insert_lsn(c) : 0;
      connected_before = true;
      ++generation_;
      marks_sent_.clear();
      bump(metrics_.connects);
      metrics_.connected.store(1, std::memory_order_release);
      spdlog::info("notify listener: listening (session {}, watermark {})", generation_, watermark);
      up_(generation_, lsn_floor);
      backoff = std::chrono::milliseconds{50};
      session(c);
    } catch (const std::exception& e) {
      if (metrics_.connected.exchange(0) == 1) {
        spdlog::warn("notify listener: connection lost: {}", e.what());
        down_();
      } else if (!stopping_.load(std::memory_order_acquire)) {
        spdlog::warn("notify listener: cannot connect: {}", e.what());
      }
    }
    if (!pause(backoff))
      break;
    backoff = std::min(backoff * 2, cfg_.max_backoff);
  }
  if (metrics_.connected.exchange(0) == 1)
    down_();
}

bool listen_connection::same_history(pg::connection& c, uint64_t watermark) {
  auto live = pg::read_history(c);
  auto rule = compare_history(history_, watermark, live);
  if (rule == history_rule::same)
    return true;
  if (rule == history_rule::first_use)
    spdlog::info("notify listener: the tiers hold no known history; recording {} (next xid {})",
                 describe(live.identity), live.next_xid);
  else
    spdlog::warn("notify listener: {}: the tiers hold {} up to watermark {}, the database is {} with next xid {}; "
                 "dropping both tiers and restarting the watermark",
                 to_string(rule), describe(*history_), watermark, describe(live.identity), live.next_xid);
  bump(metrics_.history_resets[static_cast<size_t>(rule)]);
  inbox_.request_reset(live.identity);
  history_ = live.identity;
  return false;
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

void listen_connection::drain(pg::connection& c) {
  auto* conn = c.get();
  auto own_pid = PQbackendPID(conn);
  // Changes wait here for their WAL position; whatever came after them (a
  // mark, a truncate) reaches the inbox after them, in order. They are
  // counted once they are in the inbox.
  change_batch seen;
  auto pass_on = [&] {
    auto n = seen.size();
    add_stamped(c, seen);
    bump(metrics_.notifications, n);
  };
  while (PGnotify* n = PQnotifies(conn)) {
    // Freed at the end of the iteration: a statement run meanwhile (the WAL
    // position) leaves libpq's notification alone.
    std::unique_ptr<PGnotify, void (*)(void*)> held{n, PQfreemem};
    std::string_view payload{n->extra};
    auto be_pid = n->be_pid;
    if (auto change = pg::parse_change(payload)) {
      seen.push_back(*change);
    } else if (pg::parse_truncate(payload)) {
      bump(metrics_.notifications);
      bump(metrics_.truncates);
      spdlog::info("notify listener: dept or emp was truncated: dropping both tiers");
      pass_on();
      inbox_.request_drop();
    } else if (auto token = pg::parse_mark(payload)) {
      // Only our own marks count; other daemons on the database send theirs.
      if (be_pid == own_pid) {
        if (auto i = marks_sent_.find(*token); i != marks_sent_.end()) {
          pass_on();
          inbox_.add_mark({i->second, generation_});
          marks_sent_.erase(i);
        }
      }
    } else {
      spdlog::warn("notify listener: ignoring malformed notification '{}'", payload);
    }
  }
  pass_on();
}

void listen_connection::measure_log(pg::connection& c) {
  auto size = pg::measure_change_log(c);
  metrics_.changelog_bytes.store(size.bytes, std::memory_order_relaxed);
  metrics_.changelog_oldest_age_s.store(static_cast<int64_t>(size.oldest_age_s), std::memory_order_relaxed);
  if (cfg_.warn_bytes > 0 && size.bytes > cfg_.warn_bytes)
    spdlog::warn("notify listener: the change log holds {} MB (changelog.warn-bytes {} MB), its oldest entry is {:.0f} s "
                 "old: instances that stopped leave it to the database's own bound (change_log_horizon.max_age)",
                 size.bytes >> 20, cfg_.warn_bytes >> 20, size.oldest_age_s);
}

void listen_connection::session(pg::connection& c) {
  using clock = std::chrono::steady_clock;
  auto* conn = c.get();
  auto next_mark = clock::now();
  // Soon after the connect: the first instance to start after others were
  // stopped prunes what they left (once its own watermark is known).
  auto next_prune = clock::now() + cfg_.mark_interval;
  while (!stopping_.load(std::memory_order_acquire)) {
    auto now = clock::now();
    if (now >= next_mark) {
      auto token = next_token_++;
      marks_sent_[token] = pg::send_mark(c, token);
      next_mark = now + cfg_.mark_interval;
    }
    if (cfg_.retention.count() > 0 && now >= next_prune) {
      // Never past what this instance has applied; other instances that fall
      // behind find the horizon above their watermark and drop their tiers.
      auto below = metrics_.watermark.load(std::memory_order_acquire);
      if (below == 0) {
        next_prune = now + cfg_.mark_interval; // not caught up yet: soon again
      } else {
        auto n = pg::prune_changes(c, cfg_.retention, below, 100'000);
        bump(metrics_.pruned, static_cast<uint64_t>(n));
        if (n > 0)
          spdlog::info("notify listener: pruned {} change-log entries older than {} s", n,
                       cfg_.retention.count());
        measure_log(c);
        // A full batch: more is due; else the usual interval.
        next_prune = now + (n >= 100'000 ? cfg_.mark_interval : std::chrono::milliseconds{cfg_.prune_interval});
      }
    }
    drain(c); // what arrived with the statements' results
    pollfd fds[2] = {{PQsocket(conn), POLLIN, 0}, {stop_fds_[0], POLLIN, 0}};
    auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(next_mark - clock::now());
    int rc = poll(fds, 2, static_cast<int>(std::max<int64_t>(0, wait.count())));
    if (rc < 0 && errno != EINTR)
      throw session_lost("poll failed");
    if (fds[0].revents & (POLLIN | POLLERR | POLLHUP)) {
      if (!PQconsumeInput(conn))
        throw session_lost(PQerrorMessage(conn));
      drain(c);
    }
    if (PQstatus(conn) != CONNECTION_OK)
      throw session_lost("connection status bad");
  }
}

} // namespace restcache
