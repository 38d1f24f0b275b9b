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

namespace {

using clock_type = std::chrono::steady_clock;
using namespace std::chrono_literals;
namespace net = boost::asio;

constexpr auto initial_backoff = std::chrono::milliseconds{100};
/// Connecting and preparing must finish within this, else the attempt fails.
constexpr auto connect_deadline = std::chrono::seconds{10};
/// Beyond the server-side statement_timeout: a statement with no answer
/// after query_timeout + this is taken as a dead connection (silent network).
constexpr auto answer_grace = std::chrono::seconds{5};

/// libpq prints notices (e.g. the FATAL of a terminated idle session) to
/// stderr by default; they belong in the log.
void notice_to_log(void* arg, const char* message) {
  auto slot = reinterpret_cast<uintptr_t>(arg);
  spdlog::debug("db connection {}: {}", slot, pg::trimmed_message(message));
}

// -- jobs ----------------------------------------------------------------------

/// One job: one or more statements sent one after another on one connection.
/// Runs on the driver thread only.
class async_job {
public:
  virtual ~async_job() = default;
  /// Counted in db_metrics::queries once, when its first statement is sent.
  bool counted = false;
  /// Sends the next statement; false when libpq refused it.
  virtual bool send(PGconn* c) = 0;
  /// Takes the successful result of the statement sent last. Returns true
  /// when the job needs another statement (send is called again), false
  /// when it has answered. Throws pg::error when the result cannot be decoded.
  virtual bool on_result(pg::result r) = 0;
  /// Answers with an error, unless the job has answered already.
  virtual void fail(rc_error e) = 0;
};

bool send_prepared(PGconn* c, const char* stmt, std::initializer_list<const std::string*> params) {
  const char* values[4] = {};
  int n = 0;
  for (const auto* p : params)
    values[n++] = p->c_str();
  return PQsendQueryPrepared(c, stmt, n, values, nullptr, nullptr, 0) == 1;
}

/// Calls a callback at most once and survives it throwing.
template <class Outcome>
class once_callback {
public:
  explicit once_callback(std::function<void(Outcome)> f) : f_(std::move(f)) {}
  void operator()(Outcome o) {
    if (answered_)
      return;
    answered_ = true;
    try {
      f_(std::move(o));
    } catch (const std::exception& e) {
      spdlog::error("db callback threw: {}", e.what());
    } catch (...) {
      spdlog::error("db callback threw");
    }
  }
private:
  std::function<void(Outcome)> f_;
  bool answered_ = false;
};

class document_job final : public async_job {
public:
  document_job(doc_key key, std::function<void(fetch_outcome)> done)
    : key_(key), id_(std::to_string(key.id)), done_(std::move(done)) {}

  bool send(PGconn* c) override {
    return send_prepared(c, key_.kind == doc_kind::emp ? pg::fetch_emp_statement
                                                       : pg::fetch_deptemps_statement,
                         {&id_});
  }

  bool on_result(pg::result r) override {
    // Encoded here, from the result's own text: the rows are never decoded
    // into strings and integers only to be written out again.
    fetch_outcome out{rc_error::not_found, nullptr, nullptr, nullptr};
    if (key_.kind == doc_kind::emp) {
      if (auto e = pg::emp_text_of(r))
        out.doc = make_doc(encode_emp(*e));
    } else if (auto d = pg::deptemps_text_of(r)) {
      out.doc = make_doc(key_.kind == doc_kind::dept ? encode_dept(d->dept) : encode_deptemps(*d));
    }
    if (out.doc)
      out.error = rc_error::none;
    done_(std::move(out));
    return false;
  }

  void fail(rc_error e) override { done_(fetch_outcome{e, nullptr, nullptr, nullptr}); }

private:
  doc_key key_;
  std::string id_;
  once_callback<fetch_outcome> done_;
};

class batch_job final : public async_job {
public:
  batch_job(int32_t after, int32_t limit, bool count,
            std::function<void(deptemps_batch_outcome)> done)
    : after_(std::to_string(after)), limit_(std::to_string(limit)), counting_(count),
      done_(std::move(done)) {}

  bool send(PGconn* c) override {
    if (counting_)
      return send_prepared(c, pg::count_depts_statement, {});
    return send_prepared(c, pg::fetch_deptemps_batch_statement, {&after_, &limit_});
  }

  bool on_result(pg::result r) override {
    if (counting_) {
      total_ = r.int64(0, 0);
      counting_ = false;
      return true;
    }
    auto page = pg::decode_deptemps_batch(r);
    done_(deptemps_batch_outcome{
      rc_error::none, std::make_shared<const std::vector<dept_with_emps>>(std::move(page)), total_});
    return false;
  }

  void fail(rc_error e) override { done_(deptemps_batch_outcome{e, nullptr, 0}); }

private:
  std::string after_;
  std::string limit_;
  bool counting_;
  int64_t total_ = 0;
  once_callback<deptemps_batch_outcome> done_;
};

/// Keyset pages of dept_ids_page_statement, one statement per page, like
/// pg::fetch_dept_ids: neither libpq nor the server holds all ids at once.
class dept_ids_job final : public async_job {
public:
  explicit dept_ids_job(std::function<void(dept_ids_outcome)> done) : done_(std::move(done)) {}

  bool send(PGconn* c) override {
    after_text_ = std::to_string(after_);
    return send_prepared(c, pg::dept_ids_page_statement, {&after_text_, &limit_});
  }

  bool on_result(pg::result r) override {
    auto n = r.rows();
    for (int i = 0; i < n; ++i)
      ids_.push_back(*r.opt_int32(i, 0));
    if (n >= pg::dept_ids_page_size && !ids_.empty()) {
      after_ = ids_.back();
      return true;
    }
    ids_.shrink_to_fit();
    done_(dept_ids_outcome{rc_error::none,
                           std::make_shared<const std::vector<int32_t>>(std::move(ids_))});
    return false;
  }

  void fail(rc_error e) override { done_(dept_ids_outcome{e, nullptr}); }

private:
  int64_t after_ = int64_t{INT32_MIN} - 1;
  std::string after_text_;
  const std::string limit_ = std::to_string(pg::dept_ids_page_size);
  std::vector<int32_t> ids_;
  once_callback<dept_ids_outcome> done_;
};

} // namespace

// -- shared state ---------------------------------------------------------------

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

PGconn* start_libpq(const std::string& dsn) {
  // As pg::connection: the DSN expands in place of dbname, so it may still
  // override client_encoding or application_name.
  const char* keys[] = {"client_encoding", "fallback_application_name", "dbname", nullptr};
  const char* vals[] = {"UTF8", "restcache", dsn.c_str(), nullptr};
  return PQconnectStartParams(keys, vals, 1);
}

struct pg_async_driver::impl : std::enable_shared_from_this<pg_async_driver::impl> {
  struct command {
    enum class kind { open, job, close } k;
    std::shared_ptr<slot_rec> slot;
    std::unique_ptr<async_job> job;
  };

  impl(pg_worker_config c, db_metrics& m, net::io_context* io) : cfg(std::move(c)), metrics(m), home(io) {
    if (home != nullptr)
      timer.emplace(*home);
    efd = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (efd < 0)
      throw std::runtime_error(std::string{"eventfd: "} + std::strerror(errno));
    setup_sql = pg::session_settings_sql;
    setup_sql += ";SET statement_timeout = " + std::to_string(cfg.query_timeout.count());
    statements = pg::statement_texts();
  }

  ~impl() {
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
  void process(std::deque<command>& cmds);
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

// -- connection handle ------------------------------------------------------------

namespace {

class pg_async_connection final : public db_connection {
public:
  pg_async_connection(std::shared_ptr<pg_async_driver::impl> d, std::shared_ptr<slot_rec> s)
    : d_(std::move(d)), s_(std::move(s)) {}

  ~pg_async_connection() override {
    d_->post(pg_async_driver::impl::command{pg_async_driver::impl::command::kind::close, s_, nullptr});
  }

  size_t slot() const noexcept override { return static_cast<size_t>(s_->slot); }
  bool up() const noexcept override { return s_->up.load(std::memory_order_acquire); }

  void fetch_document(doc_key key, std::function<void(fetch_outcome)> done) override {
    d_->submit(s_, std::make_unique<document_job>(key, std::move(done)));
  }

  void fetch_deptemps_batch(int32_t after, int32_t limit, bool count,
                            std::function<void(deptemps_batch_outcome)> done) override {
    d_->submit(s_, std::make_unique<batch_job>(after, limit, count, std::move(done)));
  }

  void fetch_dept_ids(std::function<void(dept_ids_outcome)> done) override {
    d_->submit(s_, std::make_unique<dept_ids_job>(std::move(done)));
  }

private:
  std::shared_ptr<pg_async_driver::impl> d_;
  std::shared_ptr<slot_rec> s_;
};

} // namespace

// -- driver ---------------------------------------------------------------------

pg_async_driver::pg_async_driver(pg_worker_config cfg, db_metrics& metrics, net::io_context* home)
  : impl_(std::make_shared<impl>(std::move(cfg), metrics, home)) {
  // The thread keeps the state alive by itself, so a detach (see below)
  // never leaves it dangling.
  if (home == nullptr)
    thread_ = std::thread([d = impl_] { d->run(); });
}

pg_async_driver::~pg_async_driver() {
  if (impl_->home != nullptr) {
    impl_->stop_at_home();
    return;
  }
  impl_->request_stop();
  if (thread_.get_id() == std::this_thread::get_id())
    thread_.detach(); // destroyed from a callback: never join oneself
  else if (thread_.joinable())
    thread_.join();
}

db_lease pg_async_driver::make_connection(uint64_t slot, std::function<void(uint64_t)> on_up,
                                          std::function<void(uint64_t)> on_down) {
  auto s = std::make_shared<slot_rec>(slot, std::move(on_up), std::move(on_down));
  impl_->post(impl::command{impl::command::kind::open, s, nullptr});
  return std::make_shared<pg_async_connection>(impl_, std::move(s));
}

std::function<db_lease(uint64_t, std::function<void(uint64_t)>, std::function<void(uint64_t)>)>
pg_async_driver::factory() {
  return [this](uint64_t slot, std::function<void(uint64_t)> on_up,
                std::function<void(uint64_t)> on_down) {
    return make_connection(slot, std::move(on_up), std::move(on_down));
  };
}

void pg_async_driver::impl::run() {
  std::vector<pollfd> fds;
  std::vector<slot_rec*> polled; // fds[i + 1] belongs to polled[i]
  std::deque<command> cmds;
  bool efd_read = false;
  for (;;) {
    std::optional<clock_type::time_point> next_timer;
    run_timers(next_timer);
    // The inbox: one lock per round; an empty inbox arms the wake-up.
    {
      std::lock_guard guard{mtx};
      if (stop_requested)
        break;
      if (efd_read) {
        wake_pending = false;
        efd_read = false;
      }
      cmds.swap(inbox);
      if (cmds.empty())
        sleeping.store(true, std::memory_order_relaxed); // submitters now signal efd
    }
    const bool had_cmds = !cmds.empty();
    if (had_cmds) {
      process(cmds);
      cmds.clear();
    }
    fds.clear();
    polled.clear();
    fds.push_back(pollfd{efd, POLLIN, 0});
    for (auto& sp : slots) {
      auto& s = *sp;
      if (s.conn == nullptr)
        continue;
      int fd = PQsocket(s.conn);
      if (fd < 0)
        continue;
      short events = 0;
      if (s.ph == slot_rec::phase::connecting)
        events = s.connect_poll == PGRES_POLLING_READING ? POLLIN : POLLOUT;
      else
        events = static_cast<short>(POLLIN | (s.want_write ? POLLOUT : 0));
      fds.push_back(pollfd{fd, events, 0});
      polled.push_back(&s);
    }
    int timeout = -1;
    if (had_cmds) {
      timeout = 0; // more may have come meanwhile, unsignalled: look again soon
    } else if (next_timer) {
      auto ms = std::chrono::ceil<std::chrono::milliseconds>(*next_timer - clock_type::now());
      timeout = static_cast<int>(std::clamp<int64_t>(ms.count(), 0, INT_MAX));
    }
    int n = ::poll(fds.data(), fds.size(), timeout);
    sleeping.store(false, std::memory_order_relaxed);
    if (n < 0 && errno != EINTR) {
      spdlog::error("db driver: poll failed: {}", std::strerror(errno));
      std::this_thread::sleep_for(10ms);
      continue;
    }
    if (n < 0)
      continue;
    if (fds[0].revents != 0) {
      uint64_t value = 0;
      while (::read(efd, &value, sizeof value) < 0 && errno == EINTR) {
      }
      efd_read = true; // wake_pending is cleared under the next lock
    }
    for (size_t i = 0; i < polled.size(); ++i) {
      auto revents = fds[i + 1].revents;
      auto& s = *polled[i];
      // Handling an earlier slot runs callbacks, which only post; still,
      // never hand libpq events of a socket it has replaced or closed.
      if (revents != 0 && s.conn != nullptr && PQsocket(s.conn) == fds[i + 1].fd)
        handle_io(s, revents);
    }
    // Drop closed slots (their last reference may be ours).
    std::erase_if(slots, [](const auto& sp) { return sp->ph == slot_rec::phase::closed; });
  }
  shutdown();
}

bool pg_async_driver::impl::run_timers(std::optional<clock_type::time_point>& next) {
  auto now = clock_type::now();
  bool acted = false;
  auto note_timer = [&](clock_type::time_point t) {
    if (!next || t < *next)
      next = t;
  };
  for (size_t i = 0; i < slots.size(); ++i) {
    auto& s = *slots[i];
    if (s.ph == slot_rec::phase::waiting && s.retry_at <= now) {
      start_connect(s);
      acted = true;
    }
    if (s.deadline && *s.deadline <= now) {
      if (s.ph == slot_rec::phase::ready)
        lose(s, "no answer from the server in time");
      else if (s.ph == slot_rec::phase::connecting || s.ph == slot_rec::phase::setup)
        connect_failed(s, "connecting timed out");
      acted = true;
    }
    if (s.ph == slot_rec::phase::waiting)
      note_timer(s.retry_at);
    if (s.deadline)
      note_timer(*s.deadline);
  }
  return acted;
}

void pg_async_driver::impl::process(std::deque<command>& cmds) {
  // Jobs that arrived together leave together: one run per connection.
  std::vector<slot_rec*> touched;
  for (auto& cmd : cmds) {
    auto& s = *cmd.slot;
    switch (cmd.k) {
      case command::kind::open:
        slots.push_back(cmd.slot);
        start_connect(s);
        break;
      case command::kind::job:
        if (s.ph != slot_rec::phase::ready) {
          cmd.job->fail(rc_error::db_unavailable); // fail fast while down
        } else {
          s.queue.push_back(std::move(cmd.job));
          touched.push_back(&s);
        }
        break;
      case command::kind::close:
        close_slot(s);
        break;
    }
  }
  for (auto* s : touched)
    pump(*s);
}

void pg_async_driver::impl::start_connect(slot_rec& s) {
  if (home == nullptr) {
    connect_with(s, start_libpq(cfg.dsn));
    return;
  }
  // Resolving a host name blocks: never on the io thread.
  s.ph = slot_rec::phase::starting;
  {
    std::lock_guard guard{starters_mtx};
    ++starters;
  }
  std::thread{[self = shared_from_this(), sp = s.shared_from_this()] {
    pg_conn_holder held{start_libpq(self->cfg.dsn)};
    net::post(*self->home, [self, sp, held = std::move(held)]() mutable {
      self->connect_started(*sp, held.release());
    });
    std::lock_guard guard{self->starters_mtx};
    if (--self->starters == 0)
      self->starters_done.notify_all();
  }}.detach();
}

void pg_async_driver::impl::connect_started(slot_rec& s, PGconn* c) {
  if (s.ph != slot_rec::phase::starting) { // closed meanwhile
    if (c != nullptr)
      PQfinish(c);
    return;
  }
  connect_with(s, c);
  watch(s);
  after_event();
}

void pg_async_driver::impl::connect_with(slot_rec& s, PGconn* c) {
  s.conn = c;
  if (s.conn == nullptr) {
    connect_failed(s, "out of memory");
    return;
  }
  if (PQstatus(s.conn) == CONNECTION_BAD) {
    connect_failed(s, pg::trimmed_message(PQerrorMessage(s.conn)));
    return;
  }
  PQsetNoticeProcessor(s.conn, notice_to_log, reinterpret_cast<void*>(uintptr_t(s.slot)));
  s.ph = slot_rec::phase::connecting;
  s.connect_poll = PGRES_POLLING_WRITING; // as libpq's docs say to start
  s.deadline = clock_type::now() + connect_deadline;
}

void pg_async_driver::impl::advance_connect(slot_rec& s) {
  // libpq may close this socket and open another (the next address), and a
  // new one may get the old number: watch() registers whatever it has next.
  if (home != nullptr)
    release_socket(s);
  switch (PQconnectPoll(s.conn)) {
    case PGRES_POLLING_FAILED:
      connect_failed(s, pg::trimmed_message(PQerrorMessage(s.conn)));
      return;
    case PGRES_POLLING_OK:
      if (PQsetnonblocking(s.conn, 1) != 0) {
        connect_failed(s, "cannot enter non-blocking mode: " + pg::trimmed_message(PQerrorMessage(s.conn)));
        return;
      }
      s.ph = slot_rec::phase::setup;
      s.setup_step = 0;
      send_setup(s);
      return;
    case PGRES_POLLING_READING:
      s.connect_poll = PGRES_POLLING_READING;
      return;
    default: // PGRES_POLLING_WRITING (PGRES_POLLING_ACTIVE is unused)
      s.connect_poll = PGRES_POLLING_WRITING;
      return;
  }
}

void pg_async_driver::impl::send_setup(slot_rec& s) {
  // Step 0: session settings and statement_timeout; then one PQsendPrepare
  // per statement (no pipeline mode: one statement in flight at a time).
  int ok = 0;
  if (s.setup_step == 0) {
    ok = PQsendQuery(s.conn, setup_sql.c_str());
  } else {
    const auto& [name, sql] = statements[s.setup_step - 1];
    ok = PQsendPrepare(s.conn, name, sql, 0, nullptr);
  }
  if (ok != 1) {
    connect_failed(s, pg::trimmed_message(PQerrorMessage(s.conn)));
    return;
  }
  s.in_statement = true;
  flush(s);
}

void pg_async_driver::impl::handle_io(slot_rec& s, short revents) {
  if (s.ph == slot_rec::phase::connecting) {
    advance_connect(s);
    return;
  }
  if ((revents & (POLLIN | POLLHUP | POLLERR)) != 0) {
    if (PQconsumeInput(s.conn) != 1) {
      auto why = pg::trimmed_message(PQerrorMessage(s.conn));
      if (s.ph == slot_rec::phase::setup)
        connect_failed(s, why);
      else
        lose(s, why);
      return;
    }
    if (s.want_write)
      flush(s);
    if (s.conn == nullptr)
      return;
    read_results(s);
    if (s.conn == nullptr)
      return;
    if (!s.busy()) {
      // Idle: drop notifications; notice a session the server ended.
      while (PGnotify* n = PQnotifies(s.conn))
        PQfreemem(n);
      if (PQstatus(s.conn) != CONNECTION_OK) {
        auto why = pg::trimmed_message(PQerrorMessage(s.conn));
        if (s.ph == slot_rec::phase::setup)
          connect_failed(s, why);
        else
          lose(s, why.empty() ? "connection closed" : why);
      }
    }
    return;
  }
  if ((revents & POLLOUT) != 0 && s.want_write)
    flush(s);
}

void pg_async_driver::impl::read_results(slot_rec& s) {
  if (s.ph == slot_rec::phase::setup) {
    read_setup_results(s);
    return;
  }
  // Pipeline mode: each statement's results end with a nullptr, each run of
  // statements with its PGRES_PIPELINE_SYNC. Ask only for what was sent: an
  // extra PQgetResult would read as the end of a statement.
  while (s.conn != nullptr && !s.sent.empty() && PQisBusy(s.conn) == 0) {
    PGresult* raw = PQgetResult(s.conn);
    if (!s.sent.front().job) {
      const bool sync = raw != nullptr && PQresultStatus(raw) == PGRES_PIPELINE_SYNC;
      if (raw != nullptr)
        PQclear(raw);
      if (!sync) {
        lose(s, "the pipeline lost its place (no sync point where one was due)");
        return;
      }
      s.sent.pop_front();
      if (s.sent.empty())
        s.deadline.reset();
      continue;
    }
    if (raw == nullptr) {
      complete_statement(s);
      continue;
    }
    keep_result(s, raw);
  }
  if (s.conn != nullptr)
    pump(s);
}

void pg_async_driver::impl::keep_result(slot_rec& s, PGresult* raw) {
  switch (PQresultStatus(raw)) {
    case PGRES_COMMAND_OK:
    case PGRES_TUPLES_OK:
    case PGRES_SINGLE_TUPLE:
    case PGRES_EMPTY_QUERY:
      s.last_ok = pg::result{raw};
      break;
    case PGRES_PIPELINE_ABORTED:
      s.aborted = true;
      PQclear(raw);
      break;
    default:
      if (s.first_error.get() == nullptr)
        s.first_error = pg::result{raw};
      else
        PQclear(raw);
      break;
  }
}

void pg_async_driver::impl::read_setup_results(slot_rec& s) {
  while (s.conn != nullptr && s.in_statement && PQisBusy(s.conn) == 0) {
    PGresult* raw = PQgetResult(s.conn);
    if (raw == nullptr) {
      s.in_statement = false;
      complete_setup_statement(s); // may send the next statement
      continue;
    }
    keep_result(s, raw);
  }
}

namespace {

/// True when a failed result means the session is gone: the server ends it
/// with FATAL/PANIC (e.g. 57P01 from pg_terminate_backend), or SQLSTATE
/// class 08 (connection exception).
bool ends_session(PGconn* c, const PGresult* r) {
  if (PQstatus(c) != CONNECTION_OK)
    return true;
  if (r == nullptr)
    return false;
  if (const char* sev = PQresultErrorField(r, PG_DIAG_SEVERITY_NONLOCALIZED))
    if (std::string_view{sev} == "FATAL" || std::string_view{sev} == "PANIC")
      return true;
  if (const char* st = PQresultErrorField(r, PG_DIAG_SQLSTATE))
    if (std::string_view{st}.substr(0, 2) == "08")
      return true;
  return false;
}

std::string describe(PGconn* c, const PGresult* r) {
  std::string msg;
  if (r != nullptr)
    msg = pg::trimmed_message(PQresultErrorMessage(r));
  if (msg.empty())
    msg = pg::trimmed_message(PQerrorMessage(c));
  if (msg.empty() && r != nullptr)
    msg = PQresStatus(PQresultStatus(r));
  if (r != nullptr)
    if (const char* st = PQresultErrorField(r, PG_DIAG_SQLSTATE)) {
      msg += " (SQLSTATE ";
      msg += st;
      msg += ')';
    }
  return msg;
}

} // namespace

void pg_async_driver::impl::complete_setup_statement(slot_rec& s) {
  s.deadline.reset();
  auto err = std::move(s.first_error);
  auto res = std::move(s.last_ok);
  s.first_error = pg::result{};
  s.last_ok = pg::result{};
  if (err.get() != nullptr || res.get() == nullptr) {
    connect_failed(s, "setting up the session: " + describe(s.conn, err.get()));
    return;
  }
  if (++s.setup_step > statements.size())
    mark_up(s);
  else
    send_setup(s);
}

void pg_async_driver::impl::complete_statement(slot_rec& s) {
  auto item = std::move(s.sent.front());
  s.sent.pop_front();
  --s.statements_sent;
  auto err = std::move(s.first_error);
  auto res = std::move(s.last_ok);
  const bool aborted = std::exchange(s.aborted, false);
  s.first_error = pg::result{};
  s.last_ok = pg::result{};
  auto now = clock_type::now();
  // An answer is progress: the deadline is for the next one.
  if (cfg.query_timeout.count() > 0)
    s.deadline = now + cfg.query_timeout + answer_grace;
  if (aborted && err.get() == nullptr) {
    // Never ran (an earlier statement of its run failed): it goes again.
    s.queue.push_front(std::move(item.job));
    return;
  }
  const bool failed = err.get() != nullptr || res.get() == nullptr;
  if (failed) {
    if (ends_session(s.conn, err.get())) {
      s.queue.push_front(std::move(item.job)); // lose() answers it with the rest
      lose(s, describe(s.conn, err.get()));
      return;
    }
    bump(metrics.query_errors);
    const char* st = err.get() != nullptr ? PQresultErrorField(err.get(), PG_DIAG_SQLSTATE) : nullptr;
    if (st != nullptr && std::string_view{st} == pg::sqlstate_query_canceled) {
      bump(metrics.query_timeouts);
      spdlog::warn("db connection {}: query timed out", s.slot);
      item.job->fail(rc_error::db_timeout);
    } else {
      spdlog::error("db connection {}: query failed: {}", s.slot, describe(s.conn, err.get()));
      item.job->fail(rc_error::internal);
    }
    return;
  }
  // Observed before the result is handed on, so whoever sees the result
  // (a scrape right after the response) sees the observation too.
  metrics.query_duration.observe_us(std::chrono::duration_cast<std::chrono::microseconds>(now - item.at).count());
  bool more = false;
  try {
    more = item.job->on_result(std::move(res));
  } catch (const std::exception& e) {
    bump(metrics.query_errors);
    spdlog::error("db connection {}: cannot decode a result: {}", s.slot, e.what());
    item.job->fail(rc_error::internal);
  }
  if (more) // its next statement (which depends on this result) goes with the next run
    s.queue.push_front(std::move(item.job));
}

void pg_async_driver::impl::pump(slot_rec& s) {
  if (s.ph != slot_rec::phase::ready || s.conn == nullptr)
    return;
  const auto depth = std::max<size_t>(cfg.pipeline_depth, 1);
  const auto now = clock_type::now();
  size_t sent = 0;
  while (!s.queue.empty() && s.statements_sent < depth) {
    auto job = std::move(s.queue.front());
    s.queue.pop_front();
    if (!job->counted) {
      job->counted = true;
      bump(metrics.queries);
    }
    if (!job->send(s.conn)) {
      if (ends_session(s.conn, nullptr)) {
        s.queue.push_front(std::move(job));
        lose(s, pg::trimmed_message(PQerrorMessage(s.conn)));
        return;
      }
      bump(metrics.query_errors);
      spdlog::error("db connection {}: cannot send: {}", s.slot, pg::trimmed_message(PQerrorMessage(s.conn)));
      job->fail(rc_error::internal);
      continue;
    }
    s.sent.push_back(slot_rec::sent_item{std::move(job), now});
    ++s.statements_sent;
    ++sent;
  }
  if (sent == 0)
    return;
  if (PQpipelineSync(s.conn) != 1) {
    lose(s, "cannot end a pipeline run: " + pg::trimmed_message(PQerrorMessage(s.conn)));
    return;
  }
  s.sent.push_back(slot_rec::sent_item{nullptr, now});
  if (!s.deadline && cfg.query_timeout.count() > 0)
    s.deadline = now + cfg.query_timeout + answer_grace;
  flush(s);
}

void pg_async_driver::impl::flush(slot_rec& s) {
  switch (PQflush(s.conn)) {
    case 0:
      s.want_write = false;
      return;
    case 1:
      s.want_write = true;
      return;
    default: {
      auto why = "cannot send: " + pg::trimmed_message(PQerrorMessage(s.conn));
      if (s.ph == slot_rec::phase::setup)
        connect_failed(s, why);
      else
        lose(s, why);
    }
  }
}

void pg_async_driver::impl::mark_up(slot_rec& s) {
  // Every job from here on is pipelined, one or pipeline_depth at a time.
  if (PQenterPipelineMode(s.conn) != 1) {
    connect_failed(s, "cannot enter pipeline mode: " + pg::trimmed_message(PQerrorMessage(s.conn)));
    return;
  }
  s.ph = slot_rec::phase::ready;
  s.deadline.reset();
  s.backoff = initial_backoff;
  bump(metrics.reconnects);
  metrics.connections_up.fetch_add(1, std::memory_order_relaxed);
  s.up.store(true, std::memory_order_release);
  spdlog::debug("db connection {} up", s.slot);
  if (s.on_up)
    s.on_up(s.slot);
}

void pg_async_driver::impl::connect_failed(slot_rec& s, const std::string& why) {
  spdlog::warn("db connection {}: connect failed, retrying in {} ms: {}", s.slot,
               s.backoff.count(), why);
  drop_session(s);
  s.ph = slot_rec::phase::waiting;
  s.retry_at = clock_type::now() + s.backoff;
  s.backoff = std::min(s.backoff * 2, std::max(cfg.max_backoff, initial_backoff));
}

void pg_async_driver::impl::drop_session(slot_rec& s) {
  if (home != nullptr)
    release_socket(s); // before libpq closes it
  if (s.conn != nullptr)
    PQfinish(s.conn);
  s.conn = nullptr;
  s.in_statement = false;
  s.want_write = false;
  s.first_error = pg::result{};
  s.last_ok = pg::result{};
  s.aborted = false;
  s.deadline.reset();
}

void pg_async_driver::impl::fail_queued(slot_rec& s, rc_error e) {
  auto sent = std::move(s.sent);
  auto queued = std::move(s.queue);
  s.sent.clear();
  s.statements_sent = 0;
  s.queue.clear();
  for (auto& item : sent)
    if (item.job)
      item.job->fail(e);
  for (auto& j : queued)
    j->fail(e);
}

void pg_async_driver::impl::lose(slot_rec& s, const std::string& why) {
  spdlog::warn("db connection {} lost: {}", s.slot, why);
  // Down before any `done` runs: a release that races ahead must see it.
  s.up.store(false, std::memory_order_release);
  const bool was_up = s.ph == slot_rec::phase::ready;
  bump(metrics.query_errors, s.statements_sent);
  drop_session(s);
  // Reconnect at once; failed attempts then back off.
  s.ph = slot_rec::phase::waiting;
  s.retry_at = clock_type::now();
  s.backoff = initial_backoff;
  fail_queued(s, rc_error::db_unavailable);
  if (was_up) {
    metrics.connections_up.fetch_sub(1, std::memory_order_relaxed);
    if (s.on_down)
      s.on_down(s.slot);
  }
}

void pg_async_driver::impl::close_slot(slot_rec& s) {
  if (s.ph == slot_rec::phase::closed)
    return;
  const bool was_up = s.ph == slot_rec::phase::ready;
  s.up.store(false, std::memory_order_release);
  drop_session(s);
  s.ph = slot_rec::phase::closed;
  if (was_up)
    metrics.connections_up.fetch_sub(1, std::memory_order_relaxed);
  fail_queued(s, rc_error::db_unavailable); // none expected: the owner let go
}

void pg_async_driver::impl::shutdown() {
  std::deque<command> cmds;
  {
    std::lock_guard guard{mtx};
    stopped = true; // later submissions fail on the caller's thread
    cmds.swap(inbox);
  }
  if (home != nullptr) {
    timer->cancel();
    // Their results are posted here and finished unused (they find their
    // slot closed, or their handler is destroyed with the io_context).
    std::unique_lock guard{starters_mtx};
    starters_done.wait(guard, [this] { return starters == 0; });
  }
  for (auto& cmd : cmds)
    if (cmd.job)
      cmd.job->fail(rc_error::db_unavailable);
  for (auto& sp : slots)
    close_slot(*sp);
  slots.clear();
}

} // namespace restcache

namespace restcache {

// -- on an io thread's driver ------------------------------------------------------

void pg_async_driver::impl::stop_at_home() {
  if (home->get_executor().running_in_this_thread()) {
    shutdown();
    return;
  }
  auto done = std::make_shared<std::promise<void>>();
  auto stopped_there = done->get_future();
  net::post(*home, [self = shared_from_this(), done] {
    self->shutdown();
    done->set_value();
  });
  // An io_context that no longer runs never gets to it: do not hang.
  if (stopped_there.wait_for(10s) != std::future_status::ready)
    spdlog::error("db driver: its io thread did not stop it within 10 s");
}

void pg_async_driver::impl::drain() {
  std::deque<command> cmds;
  {
    std::lock_guard guard{mtx};
    drain_posted = false;
    if (stopped)
      return;
    cmds.swap(inbox);
  }
  std::vector<std::shared_ptr<slot_rec>> touched;
  for (auto& cmd : cmds)
    if (std::find(touched.begin(), touched.end(), cmd.slot) == touched.end())
      touched.push_back(cmd.slot);
  process(cmds);
  for (auto& sp : touched)
    watch(*sp);
  after_event();
}

void pg_async_driver::impl::after_event() {
  std::optional<clock_type::time_point> next;
  if (run_timers(next)) {
    for (auto& sp : slots)
      watch(*sp);
    next.reset();
    run_timers(next); // what watching changed (deadlines armed or cleared)
  }
  std::erase_if(slots, [](const auto& sp) { return sp->ph == slot_rec::phase::closed; });
  arm_timer(next);
}

void pg_async_driver::impl::watch(slot_rec& s) {
  for (;;) {
    int fd = s.conn != nullptr ? PQsocket(s.conn) : -1;
    if (fd != s.sd_fd) {
      release_socket(s);
      if (fd >= 0) {
        boost::system::error_code ec;
        s.sd.emplace(*home);
        s.sd->assign(fd, ec);
        if (ec) {
          s.sd.reset();
          auto why = "cannot watch the socket: " + ec.message();
          if (s.ph == slot_rec::phase::ready)
            lose(s, why);
          else
            connect_failed(s, why);
          continue;
        }
        s.sd_fd = fd;
      }
    }
    if (fd < 0)
      return;
    short want = POLLIN;
    if (s.ph == slot_rec::phase::connecting)
      want = s.connect_poll == PGRES_POLLING_READING ? POLLIN : POLLOUT;
    else if (s.want_write)
      want |= POLLOUT;
    // asio reports a socket becoming ready, not being ready: what is
    // pending already is handled now.
    pollfd p{fd, want, 0};
    if (::poll(&p, 1, 0) > 0 && p.revents != 0) {
      handle_io(s, p.revents);
      continue;
    }
    if ((want & POLLIN) != 0 && !s.read_armed)
      arm_wait(s, true);
    if ((want & POLLOUT) != 0 && !s.write_armed)
      arm_wait(s, false);
    return;
  }
}

void pg_async_driver::impl::arm_wait(slot_rec& s, bool read) {
  (read ? s.read_armed : s.write_armed) = true;
  s.sd->async_wait(read ? net::posix::descriptor_base::wait_read : net::posix::descriptor_base::wait_write,
                   [self = shared_from_this(), sp = s.shared_from_this(), gen = s.sd_gen,
                    read](const boost::system::error_code& ec) {
                     if (sp->sd_gen != gen)
                       return; // released: not this socket's wait any more
                     (read ? sp->read_armed : sp->write_armed) = false;
                     if (ec)
                       return;
                     self->watch(*sp);
                     self->after_event();
                   });
}

void pg_async_driver::impl::release_socket(slot_rec& s) {
  if (s.sd) {
    s.sd->release(); // deregisters and cancels its waits; libpq owns the descriptor
    s.sd.reset();
  }
  s.sd_fd = -1;
  ++s.sd_gen;
  s.read_armed = false;
  s.write_armed = false;
}

void pg_async_driver::impl::arm_timer(std::optional<clock_type::time_point> next) {
  // A timer armed for earlier fires first and re-arms for what is left.
  if (!next || (timer_at && *timer_at <= *next))
    return;
  timer_at = next;
  timer->expires_at(*next);
  timer->async_wait([self = shared_from_this()](const boost::system::error_code& ec) {
    if (ec)
      return; // re-armed or cancelled
    self->timer_at.reset();
    self->after_event();
  });
}

} // namespace restcache
