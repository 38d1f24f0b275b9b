// SPDX-License-Identifier: Apache-2.0
// The async driver: its connection handles, what it sends and reads,
// failures and stopping. Connecting is pg_async_connect.cpp; the loops that
// drive it are pg_async_thread_loop.cpp and pg_async_io_loop.cpp.

#include "db/pg_async_driver_impl.hpp"

namespace restcache {

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
    d_->submit(s_, make_document_job(key, std::move(done), d_->cfg.read_replay_lsn));
  }

  void fetch_page(doc_kind kind, std::string after, int32_t limit, bool count,
                  std::function<void(page_outcome)> done) override {
    d_->submit(s_, make_page_job(kind, std::move(after), limit, count, std::move(done)));
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

std::vector<slot_rec*> pg_async_driver::impl::process(std::deque<command>& cmds) {
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
          if (std::find(touched.begin(), touched.end(), &s) == touched.end())
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
  return touched;
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
    const char* st = err.get() != nullptr ? PQresultErrorField(err.get(), PG_DIAG_SQLSTATE) : nullptr;
    if (s.setup_step == 0 || st == nullptr || !pg::schema_changed(st)) {
      connect_failed(s, "setting up the session: " + describe(s.conn, err.get()));
      return;
    }
    // A column it reads is gone: the kinds that read it answer that error,
    // the others are served (statement_state).
    s.statement_states[s.setup_step - 1] = statement_state::unprepared;
    spdlog::warn("db connection {}: {} runs unprepared until the database has what it reads: {}", s.slot,
                 statements[s.setup_step - 1].first, describe(s.conn, err.get()));
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
    } else if (st != nullptr && pg::schema_changed(st)) {
      auto why = describe(s.conn, err.get());
      spdlog::warn("db connection {}: the database's schema no longer matches the statement: {}", s.slot, why);
      if (std::string_view{st} != pg::sqlstate_plan_changed) {
        item.job->fail(rc_error::db_schema);
      } else {
        // Every session's prepared statements went stale at once: all are
        // made again now, rather than each failing its next fills in turn.
        // This job's session is renewed like theirs, so it fails as theirs
        // do, and is tried again on a new one.
        item.job->fail(rc_error::db_unavailable);
        const auto reason = "its prepared statements are prepared again after a column changed type: " + why;
        for (auto& other : slots)
          if (other.get() != &s && other->ph == slot_rec::phase::ready)
            lose(*other, reason);
        lose(s, reason);
      }
    } else {
      spdlog::error("db connection {}: query failed: {}", s.slot, describe(s.conn, err.get()));
      item.job->fail(rc_error::internal);
    }
    return;
  }
  if (item.as_text >= 0 && s.statement_states[item.as_text] == statement_state::unprepared)
    reprepare(s, static_cast<size_t>(item.as_text));
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

void pg_async_driver::impl::reprepare(slot_rec& s, size_t i) {
  // Ran as text and succeeded: what it reads is back.
  s.statement_states[i] = statement_state::repreparing;
  const auto& [name, sql] = statements[i];
  s.queue.push_back(make_prepare_job(name, sql, [&s, i](bool ok) {
    if (i < s.statement_states.size()) // empty once the session ended
      s.statement_states[i] = ok ? statement_state::prepared : statement_state::unprepared;
  }));
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
    statement_sender out{s.conn, statements, s.statement_states};
    if (!job->send(out)) {
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
    s.sent.push_back(slot_rec::sent_item{std::move(job), now, out.sent_as_text()});
    ++s.statements_sent;
    ++sent;
  }
  if (sent == 0)
    return;
  if (PQpipelineSync(s.conn) != 1) {
    lose(s, "cannot end a pipeline run: " + pg::trimmed_message(PQerrorMessage(s.conn)));
    return;
  }
  s.sent.push_back(slot_rec::sent_item{nullptr, now, -1});
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
  s.statement_states.clear();
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
  // Counted down before the session ends: whoever sees it gone on the
  // server sees the gauge down too.
  if (was_up)
    metrics.connections_up.fetch_sub(1, std::memory_order_relaxed);
  drop_session(s);
  s.ph = slot_rec::phase::closed;
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
