// SPDX-License-Identifier: Apache-2.0
#include "db/pg_connection_worker.hpp"

#include <spdlog/spdlog.h>

#include <memory>

#include "db/document_pages.hpp"
#include "messages/document_encoder.hpp"
#include "persistence/pg/connection.hpp"
#include "persistence/pg/doc_queries.hpp"
#include "persistence/pg/statements.hpp"

namespace restcache {

pg_connection_worker::pg_connection_worker(uint64_t slot, pg_worker_config cfg,
                                           db_metrics& metrics,
                                           std::function<void(uint64_t)> on_up,
                                           std::function<void(uint64_t)> on_down)
  : slot_(slot), cfg_(std::move(cfg)), metrics_(metrics), on_up_(std::move(on_up)),
    on_down_(std::move(on_down)) {
  thread_ = std::thread([this] { run(); });
}

pg_connection_worker::~pg_connection_worker() {
  {
    std::lock_guard guard{mtx_};
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.get_id() == std::this_thread::get_id())
    thread_.detach(); // cannot happen by design; never join oneself
  else if (thread_.joinable())
    thread_.join();
}

void pg_connection_worker::enqueue(job j) {
  {
    std::lock_guard guard{mtx_};
    jobs_.push_back(std::move(j));
  }
  cv_.notify_one();
}

rc_error pg_connection_worker::on_failure(const std::exception& e, pg::connection*& conn) {
  bump(metrics_.query_errors);
  auto* pge = dynamic_cast<const pg::error*>(&e);
  if (pge && pge->sqlstate() == pg::sqlstate_query_canceled) {
    bump(metrics_.query_timeouts);
    spdlog::warn("db connection {}: query timed out", slot_);
    return rc_error::db_timeout;
  }
  if (!conn || !conn->ok() || (pge && pge->connection_lost())) {
    spdlog::warn("db connection {} lost: {}", slot_, e.what());
    lost_ = true;
    // Before `done` runs: a release that races ahead must see it down.
    up_.store(false, std::memory_order_release);
    conn = nullptr;
    return rc_error::db_unavailable;
  }
  if (pge && pg::schema_changed(pge->sqlstate())) {
    spdlog::warn("db connection {}: the database's schema no longer matches the statement: {}", slot_, e.what());
    if (pge->sqlstate() == pg::sqlstate_plan_changed) {
      // Its statements are prepared again on a new session.
      lost_ = true;
      up_.store(false, std::memory_order_release);
      conn = nullptr;
    }
    return rc_error::db_schema;
  }
  spdlog::error("db connection {}: query failed: {}", slot_, e.what());
  return rc_error::internal;
}

void pg_connection_worker::execute(std::function<void(pg::connection&)> job,
                                   std::function<void(rc_error)> failed) {
  enqueue([this, job = std::move(job), failed = std::move(failed)](pg::connection* conn) {
    if (!conn) {
      failed(rc_error::db_unavailable);
      return;
    }
    bump(metrics_.queries);
    scoped_duration timed{metrics_.query_duration};
    try {
      job(*conn);
    } catch (const std::exception& e) {
      // A job leaves no transaction open (the demo's writes roll back);
      // if it broke the connection, run() replaces it.
      failed(on_failure(e, conn));
    }
  });
}

void pg_connection_worker::fetch_document(doc_key key, std::function<void(fetch_outcome)> done) {
  enqueue([this, key, done = std::move(done)](pg::connection* conn) {
    if (!conn) {
      done(fetch_outcome{rc_error::db_unavailable, nullptr});
      return;
    }
    bump(metrics_.queries);
    scoped_duration timed{metrics_.query_duration};
    auto read = [&] {
      // A statement of its own before the document's (see pg::replay_lsn).
      std::optional<uint64_t> replayed;
      if (cfg_.read_replay_lsn)
        replayed = pg::replay_lsn(*conn);
      std::vector<std::string> rows;
      auto body = pg::read_document(*conn, key, &rows);
      fetch_outcome out{body.empty() ? rc_error::not_found : rc_error::none,
                        body.empty() ? nullptr : make_doc(std::move(body), std::move(rows))};
      out.on_standby = replayed.has_value();
      out.replay_lsn = replayed.value_or(0);
      timed.observe_now();
      return out;
    };
    try {
      done(read());
    } catch (const pg::error& e) {
      if (e.sqlstate() != pg::sqlstate_plan_changed || !conn->ok()) {
        done(fetch_outcome{on_failure(e, conn), nullptr});
        return;
      }
      // A column its statement reads changed type: every session's prepared
      // statements went stale at once. Prepared again here and read again,
      // rather than a 503 on each connection in turn.
      spdlog::info("db connection {}: statements prepared again ({})", slot_, e.what());
      try {
        conn->prepare_again();
        done(read());
      } catch (const std::exception& again) {
        done(fetch_outcome{on_failure(again, conn), nullptr});
      }
    } catch (const std::exception& e) {
      done(fetch_outcome{on_failure(e, conn), nullptr});
    }
  });
}

void pg_connection_worker::fetch_page(doc_kind kind, std::string after, int32_t limit, bool count,
                                      std::function<void(page_outcome)> done) {
  enqueue([this, kind, after = std::move(after), limit, count, done = std::move(done)](pg::connection* conn) {
    if (!conn) {
      done(page_failure(rc_error::db_unavailable));
      return;
    }
    bump(metrics_.queries);
    scoped_duration timed{metrics_.query_duration};
    try {
      const auto& entry = doc_kind_info(kind);
      int64_t total = count ? pg::count_documents(*conn, entry) : 0;
      auto page = pg::read_page(*conn, entry, after, limit);
      timed.observe_now();
      done(make_page_outcome(std::move(page), total));
    } catch (const std::exception& e) {
      done(page_failure(on_failure(e, conn)));
    }
  });
}

void pg_connection_worker::run() {
  std::unique_ptr<pg::connection> conn;
  auto backoff = std::chrono::milliseconds{100};
  auto open = [&] {
    try {
      auto c = std::make_unique<pg::connection>(cfg_.dsn);
      c->exec("SET statement_timeout = " + std::to_string(cfg_.query_timeout.count()));
      if (cfg_.read_only)
        c->exec("SET default_transaction_read_only = on");
      pg::prepare_statements(*c);
      conn = std::move(c);
    } catch (const std::exception& e) {
      spdlog::warn("db connection {}: connect failed, retrying in {} ms: {}", slot_, backoff.count(), e.what());
    }
  };
  std::unique_lock lock{mtx_};
  while (!stopping_) {
    if (!conn) {
      lock.unlock();
      open();
      lock.lock();
      if (!conn) {
        // Jobs that raced with the loss of the connection fail fast.
        while (!jobs_.empty()) {
          auto j = std::move(jobs_.front());
          jobs_.pop_front();
          lock.unlock();
          j(nullptr);
          lock.lock();
        }
        cv_.wait_for(lock, backoff, [this] { return stopping_; });
        backoff = std::min(backoff * 2, cfg_.max_backoff);
        continue;
      }
      backoff = std::chrono::milliseconds{100};
      bump(metrics_.reconnects);
      metrics_.connections_up.fetch_add(1, std::memory_order_relaxed);
      up_.store(true, std::memory_order_release);
      lock.unlock();
      on_up_(slot_);
      lock.lock();
      continue;
    }
    cv_.wait(lock, [this] { return stopping_ || !jobs_.empty(); });
    if (stopping_)
      break;
    auto j = std::move(jobs_.front());
    jobs_.pop_front();
    lock.unlock();
    lost_ = false;
    if (conn->ended_by_server()) {
      // Ended while idle (a terminated backend, a server restart): found
      // without a round trip, before anything of the job is sent, so the job
      // runs on a new session instead of failing (a write too: nothing of it
      // reached the old one).
      spdlog::info("db connection {}: the server ended the idle session ({}); reconnecting before its next job",
                   slot_, pg::trimmed_message(PQerrorMessage(conn->get())));
      conn.reset();
      open();
      if (conn)
        bump(metrics_.reconnects);
      else {
        up_.store(false, std::memory_order_release);
        metrics_.connections_up.fetch_sub(1, std::memory_order_relaxed);
        on_down_(slot_);
        j(nullptr);
        lock.lock();
        continue;
      }
    }
    auto* raw = conn.get();
    j(raw);
    if (lost_) {
      conn.reset();
      metrics_.connections_up.fetch_sub(1, std::memory_order_relaxed);
      on_down_(slot_);
    }
    lock.lock();
  }
  if (conn) {
    up_.store(false, std::memory_order_release);
    metrics_.connections_up.fetch_sub(1, std::memory_order_relaxed);
  }
}

} // namespace restcache
