// SPDX-License-Identifier: Apache-2.0
// The async driver's connecting: libpq's non-blocking connect (started on a
// helper thread under the io scheduler, as resolving a host name blocks),
// the session setup and prepared statements, and the back-off after a
// failed attempt.

#include "db/pg_async_driver_impl.hpp"

namespace restcache {

namespace pg_async {

/// libpq prints notices (e.g. the FATAL of a terminated idle session) to
/// stderr by default; they belong in the log.
void notice_to_log(void* arg, const char* message) {
  auto slot = reinterpret_cast<uintptr_t>(arg);
  spdlog::debug("db connection {}: {}", slot, pg::trimmed_message(message));
}

PGconn* start_libpq(const std::string& dsn) {
  // As pg::connection: the DSN expands in place of dbname, so it may still
  // override client_encoding or application_name.
  const char* keys[] = {"client_encoding", "fallback_application_name", "dbname", nullptr};
  const char* vals[] = {"UTF8", "restcache", dsn.c_str(), nullptr};
  return PQconnectStartParams(keys, vals, 1);
}

} // namespace pg_async

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
      s.statement_states.assign(statements.size(), statement_state::prepared);
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

} // namespace restcache
