// SPDX-License-Identifier: Apache-2.0
#pragma once

// The async driver's private parts, shared by its files and included by
// nothing else: db/pg_async_pool.cpp (the connections, sending, results,
// failures), pg_async_jobs.cpp (what each job sends and decodes),
// pg_async_thread_loop.cpp (the driver's own thread) and pg_async_io_loop.cpp
// (an io thread's io_context driving the same state).

#include "db/pg_async_pool.hpp"

#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <spdlog/spdlog.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/steady_timer.hpp>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstring>
#include <condition_variable>
#include <deque>
#include <future>
#include <initializer_list>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "messages/document_encoder.hpp"
#include "persistence/pg/connection.hpp"
#include "persistence/pg/statements.hpp"

namespace restcache {

namespace pg_async {

using clock_type = std::chrono::steady_clock;
using namespace std::chrono_literals;
namespace net = boost::asio;

constexpr auto initial_backoff = std::chrono::milliseconds{100};
/// Connecting and preparing must finish within this, else the attempt fails.
constexpr auto connect_deadline = std::chrono::seconds{10};
/// Beyond the server-side statement_timeout: a statement with no answer
/// after query_timeout + this is taken as a dead connection (silent network).
constexpr auto answer_grace = std::chrono::seconds{5};

/// Routes libpq's notices into the log (PQsetNoticeProcessor).
void notice_to_log(void* arg, const char* message);

/// Whether a session holds each statement of pg::statement_texts() prepared.
/// One its schema could not prepare (a column it reads was gone when the
/// session began) runs as its text meanwhile: it answers the schema's error
/// while that lasts, and once a run succeeds it is prepared again.
enum class statement_state : uint8_t { prepared, unprepared, repreparing };

/// Sends a job's named statements on one session (pipeline mode).
class statement_sender {
public:
  statement_sender(PGconn* c, const std::vector<std::pair<const char*, const char*>>& texts,
                   const std::vector<statement_state>& states)
    : conn_(c), texts_(texts), states_(states) {}
  /// PQsendQueryPrepared, or PQsendQueryParams with its text when the
  /// session has it unprepared; false when libpq refused it.
  bool send(const char* stmt, std::initializer_list<const std::string*> params);
  /// The statement (its index in the texts) the last send ran as text, or -1.
  int sent_as_text() const noexcept { return as_text_; }
  PGconn* conn() const noexcept { return conn_; }
private:
  PGconn* conn_;
  const std::vector<std::pair<const char*, const char*>>& texts_;
  const std::vector<statement_state>& states_;
  int as_text_ = -1;
};

/// One job: one or more statements sent one after another on one connection.
/// Runs on the driver thread only.
class async_job {
public:
  virtual ~async_job() = default;
  /// Counted in db_metrics::queries once, when its first statement is sent.
  bool counted = false;
  /// Sends the next statement; false when libpq refused it.
  virtual bool send(statement_sender& out) = 0;
  /// Takes the successful result of the statement sent last. Returns true
  /// when the job needs another statement (send is called again), false
  /// when it has answered. Throws pg::error when the result cannot be decoded.
  virtual bool on_result(pg::result r) = 0;
  /// Answers with an error, unless the job has answered already.
  virtual void fail(rc_error e) = 0;
};

/// The jobs of db_connection's three calls (pg_async_jobs.cpp).
/// `ask_replay_lsn`: a replica pool's job reads pg_last_wal_replay_lsn in a
/// statement of its own first (fetch_outcome::on_standby, replay_lsn).
std::unique_ptr<async_job> make_document_job(doc_key key, std::function<void(fetch_outcome)> done,
                                             bool ask_replay_lsn);
std::unique_ptr<async_job> make_page_job(doc_kind kind, std::string after, int32_t limit, bool count,
                                         std::function<void(page_outcome)> done);
/// Prepares a statement again; `done(true)` when it is, `done(false)` when
/// the schema still lacks what it reads or the session ended.
std::unique_ptr<async_job> make_prepare_job(const char* name, const char* sql, std::function<void(bool)> done);

/// One connection as the driver sees it. `slot`, callbacks and `up` are set
/// before the driver learns of it; every other field is the driver thread's.
struct slot_rec : std::enable_shared_from_this<slot_rec> {
  /// `starting`: on an io thread's driver, PQconnectStartParams (which may
  /// resolve a host name, blocking) runs on a helper thread.
  enum class phase { waiting, starting, connecting, setup, ready, closed };

  slot_rec(uint64_t s, std::function<void(uint64_t)> u, std::function<void(uint64_t)> d)
    : slot(s), on_up(std::move(u)), on_down(std::move(d)) {}

  const uint64_t slot;
  std::function<void(uint64_t)> on_up;
  std::function<void(uint64_t)> on_down;
  std::atomic<bool> up{false};

  /// What was sent on a ready (pipeline mode) connection, in order: a job's
  /// statement, or the sync point (`job` null) that ends a run of them.
  struct sent_item {
    std::unique_ptr<async_job> job;
    clock_type::time_point at; ///< for db_metrics::query_duration
    int as_text = -1;          ///< statement_sender::sent_as_text
  };

  // -- driver thread only --
  phase ph = phase::waiting;
  PGconn* conn = nullptr;
  PostgresPollingStatusType connect_poll = PGRES_POLLING_WRITING;
  size_t setup_step = 0;
  bool in_statement = false; ///< setup: a statement was sent, its final nullptr not read yet
  bool want_write = false;   ///< PQflush left data in libpq's buffer
  pg::result last_ok;        ///< the last successful result of the statement
  pg::result first_error;    ///< its first failed result
  bool aborted = false;      ///< the statement was skipped: an earlier one of its run failed
  std::deque<sent_item> sent;
  std::vector<statement_state> statement_states; ///< of this session (empty without one), as `statements`
  size_t statements_sent = 0; ///< the job statements in `sent`
  std::deque<std::unique_ptr<async_job>> queue;
  clock_type::time_point retry_at{};
  std::optional<clock_type::time_point> deadline;
  std::chrono::milliseconds backoff = initial_backoff;

  // -- on an io thread's driver: the socket as its io_context watches it --
  std::optional<net::posix::stream_descriptor> sd;
  int sd_fd = -1;
  uint64_t sd_gen = 0; ///< bumped when sd is released: older waits are stale
  bool read_armed = false;
  bool write_armed = false;

  bool busy() const noexcept { return in_statement || !sent.empty(); }
};

/// A PGconn not yet handed to its slot (a helper thread's result).
struct pg_conn_holder {
  PGconn* conn = nullptr;
  explicit pg_conn_holder(PGconn* c) : conn(c) {}
  pg_conn_holder(pg_conn_holder&& o) noexcept : conn(std::exchange(o.conn, nullptr)) {}
  pg_conn_holder(const pg_conn_holder&) = delete;
  pg_conn_holder& operator=(const pg_conn_holder&) = delete;
  pg_conn_holder& operator=(pg_conn_holder&&) = delete;
  ~pg_conn_holder() {
    if (conn != nullptr)
      PQfinish(conn);
  }
  PGconn* release() noexcept { return std::exchange(conn, nullptr); }
};

/// PQconnectStartParams with the DSN (blocking while it resolves a host name).
PGconn* start_libpq(const std::string& dsn);

} // namespace pg_async

using namespace pg_async; // the driver's own names, in its own files only

struct pg_async_driver::impl : std::enable_shared_from_this<pg_async_driver::impl> {
  struct command {
    enum class kind { open, job, close } k;
    std::shared_ptr<slot_rec> slot;
    std::unique_ptr<async_job> job;
  };

  impl(pg_worker_config c, db_metrics& m, net::io_context* io) : cfg(std::move(c)), metrics(m), home(io) {
    if (home != nullptr) {
      timer.emplace(*home);
    } else {
      // The own thread's wake-up; an io thread's driver is woken by a post.
      efd = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
      if (efd < 0)
        throw std::runtime_error(std::string{"eventfd: "} + std::strerror(errno));
    }
    setup_sql = pg::session_settings_sql;
    setup_sql += ";SET statement_timeout = " + std::to_string(cfg.query_timeout.count());
    if (cfg.read_only)
      setup_sql += ";SET default_transaction_read_only = on";
    statements = pg::statement_texts();
  }

  ~impl() {
    if (efd >= 0)
      ::close(efd);
  }

  // -- any thread ---------------------------------------------------------------

  /// Hands a command to the driver; false when the driver has stopped (then
  /// `cmd` is left as it was).
  bool post(command&& cmd) {
    bool wake = false;
    {
      std::lock_guard guard{mtx};
      if (stopped)
        return false;
      inbox.push_back(std::move(cmd));
      if (home != nullptr) {
        // One drain per loop turn: the jobs of one turn leave together.
        wake = !std::exchange(drain_posted, true);
      } else {
        // A driver that is not asleep in poll() looks at the inbox before it
        // sleeps again: no syscall needed.
        wake = sleeping.load(std::memory_order_relaxed) && !wake_pending;
        wake_pending = wake_pending || wake;
      }
    }
    if (wake && home != nullptr)
      net::post(*home, [self = shared_from_this()] { self->drain(); });
    else if (wake)
      signal();
    return true;
  }

  void submit(const std::shared_ptr<slot_rec>& s, std::unique_ptr<async_job> j) {
    command cmd{command::kind::job, s, std::move(j)};
    if (!post(std::move(cmd)))
      cmd.job->fail(rc_error::db_unavailable); // stopped: answer on this thread
  }

  void signal() {
    uint64_t one = 1;
    while (::write(efd, &one, sizeof one) < 0 && errno == EINTR) {
    }
  }

  void request_stop() {
    {
      std::lock_guard guard{mtx};
      stop_requested = true;
      wake_pending = true;
    }
    signal();
  }

  /// On an io thread's driver: shuts down on that thread and waits for it
  /// (or does it at once when called there).
  void stop_at_home();

  // -- driver thread ------------------------------------------------------------

  void run();
  /// Reconnect attempts and deadlines that are due; notes the next one in
  /// `next`. True when one of them acted.
  bool run_timers(std::optional<clock_type::time_point>& next);
  /// Applies the commands; returns the connections given jobs (each once),
  /// which it has pumped.
  std::vector<slot_rec*> process(std::deque<command>& cmds);
  void handle_io(slot_rec& s, short revents);
  void start_connect(slot_rec& s);
  void advance_connect(slot_rec& s);
  void send_setup(slot_rec& s);
  void read_results(slot_rec& s);
  void read_setup_results(slot_rec& s);
  /// Files one result of the statement being read: its success, its first
  /// error, or that the pipeline skipped it.
  void keep_result(slot_rec& s, PGresult* raw);
  void complete_setup_statement(slot_rec& s);
  /// The statement at the front of `sent` has all its results.
  void complete_statement(slot_rec& s);
  /// Queues the preparing of statement `i`, which the session had unprepared.
  void reprepare(slot_rec& s, size_t i);
  /// Sends queued jobs while fewer than cfg.pipeline_depth statements are
  /// unanswered, then one sync point for the run.
  void pump(slot_rec& s);
  void flush(slot_rec& s);
  void mark_up(slot_rec& s);
  void connect_failed(slot_rec& s, const std::string& why);
  /// Closes the slot's libpq session and forgets everything about it.
  void drop_session(slot_rec& s);
  void lose(slot_rec& s, const std::string& why);
  void close_slot(slot_rec& s);
  void fail_queued(slot_rec& s, rc_error e);
  void shutdown();

  // -- on an io thread's driver (home): asio instead of run() ---------------------

  /// The inbox, once per loop turn.
  void drain();
  /// After any event: timers, closed slots, the next timer wake-up.
  void after_event();
  /// Handles what the slot's socket is ready for now, then has asio wake
  /// the loop when it is ready again.
  void watch(slot_rec& s);
  void release_socket(slot_rec& s);
  void arm_wait(slot_rec& s, bool read);
  void arm_timer(std::optional<clock_type::time_point> next);
  /// A helper thread's PQconnectStartParams came back.
  void connect_started(slot_rec& s, PGconn* c);
  void connect_with(slot_rec& s, PGconn* c);

  const pg_worker_config cfg;
  db_metrics& metrics;
  int efd = -1;
  std::string setup_sql;
  std::vector<std::pair<const char*, const char*>> statements;

  std::mutex mtx;
  std::deque<command> inbox; ///< guarded by mtx
  bool wake_pending = false; ///< guarded by mtx: efd was signalled, not yet read
  /// Set under mtx when the driver found the inbox empty and is about to
  /// poll(); cleared when poll() returns (a stale true costs one wake-up).
  std::atomic<bool> sleeping{false};
  bool stop_requested = false; ///< guarded by mtx
  bool stopped = false;        ///< guarded by mtx: commands are refused

  std::vector<std::shared_ptr<slot_rec>> slots; ///< driver thread only

  /// The io_context whose thread drives every connection instead of a
  /// thread of our own; nullptr: run() on the driver thread.
  net::io_context* const home;
  std::optional<net::steady_timer> timer;     ///< home only
  std::optional<clock_type::time_point> timer_at; ///< when `timer` is armed for
  bool drain_posted = false;                  ///< guarded by mtx: a drain() is queued
  /// Helper threads still in PQconnectStartParams (shutdown waits for them).
  size_t starters = 0;
  std::mutex starters_mtx;
  std::condition_variable starters_done;
};

} // namespace restcache
