// SPDX-License-Identifier: Apache-2.0
#pragma once

// The real pooled connection: one libpq connection on its own thread. Jobs
// queue to the thread; results go back as messages. Connecting, reconnecting
// with backoff and every blocking libpq call happen on this thread only.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "config/defaults.hpp"
#include "db/db_connection.hpp"
#include "db/db_metrics.hpp"

namespace restcache {

namespace pg {
class connection;
}

struct pg_worker_config {
  std::string dsn;
  std::chrono::milliseconds query_timeout{defaults::db_query_timeout_ms}; ///< server-side statement_timeout
  std::chrono::milliseconds max_backoff{5'000};   ///< cap of the reconnect backoff
  /// pg_async_driver only: statements one connection has unanswered at once
  /// (libpq pipeline mode); 1 runs one at a time.
  size_t pipeline_depth = 1;
  /// A replica pool's connections: a document read first asks how far the
  /// server has replayed the WAL (fetch_outcome::on_standby, replay_lsn).
  bool read_replay_lsn = false;
  /// The session's transactions are read-only (default_transaction_read_only):
  /// a fill runs a statement from a declaration file, which must not write
  /// whatever it says.
  bool read_only = false;
};

class pg_connection_worker final : public db_connection {
public:
  /// Starts the thread, which connects at once. `on_up`/`on_down` are called
  /// on that thread when the connection comes up or breaks; they must only
  /// send messages.
  pg_connection_worker(uint64_t slot, pg_worker_config cfg, db_metrics& metrics,
                       std::function<void(uint64_t)> on_up, std::function<void(uint64_t)> on_down);
  ~pg_connection_worker() override; // stops and joins the thread

  size_t slot() const noexcept override { return slot_; }
  bool up() const noexcept override { return up_.load(std::memory_order_acquire); }
  void fetch_document(doc_key key, std::function<void(fetch_outcome)> done) override;
  void fetch_page(doc_kind kind, std::string after, int32_t limit, bool count,
                  std::function<void(page_outcome)> done) override;
  void execute(std::function<void(pg::connection&)> job, std::function<void(rc_error)> failed) override;

private:
  using job = std::function<void(pg::connection*)>; ///< nullptr: not connected
  void enqueue(job j);
  void run();
  /// Maps a failure to an error code and notes a lost connection.
  rc_error on_failure(const std::exception& e, pg::connection*& conn);

  const uint64_t slot_;
  const pg_worker_config cfg_;
  db_metrics& metrics_;
  std::function<void(uint64_t)> on_up_;
  std::function<void(uint64_t)> on_down_;
  std::atomic<bool> up_{false};
  bool lost_ = false; ///< set by on_failure, read by run (same thread)

  std::mutex mtx_;
  std::condition_variable cv_;
  std::deque<job> jobs_;
  bool stopping_ = false;
  std::thread thread_;
};

} // namespace restcache
