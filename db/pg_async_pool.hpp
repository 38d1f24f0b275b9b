// SPDX-License-Identifier: Apache-2.0
#pragma once

// The alternative to pg_connection_worker: ONE loop owns every pooled libpq
// connection in non-blocking mode. Either a driver thread of its own drives
// them with poll() over their sockets, plus an eventfd that wakes it for new
// jobs and for stop; or (under the io scheduler) an io thread's io_context
// watches the sockets, so a fill's query and answer cross no other thread.
//
// Each connection made by make_connection is a db_connection whose jobs are
// handed to the driver for that connection's slot. A ready connection is in
// libpq's pipeline mode: up to pipeline_depth statements are unanswered at
// once, the jobs that arrived together sent in one run that ends with one
// sync point (so a failing statement aborts only its own run, whose skipped
// statements are sent again); further jobs queue. Connecting (PQconnectStart /
// PQconnectPoll), the session settings, statement_timeout and the prepared
// statements all happen asynchronously on the same loop, as do reconnects
// with exponential backoff (timers are the poll timeout, or an asio timer).
// A document is encoded from the result's text on the loop's thread; every
// `done`, `on_up` and `on_down` runs there (or, once the driver is stopped,
// on the submitting thread) and must only send messages.
//
// Failures: SQLSTATE 57014 (statement_timeout) -> db_timeout; a broken
// connection -> db_unavailable for the job in flight and every queued one,
// up() turns false before those callbacks run, then on_down(slot) and a
// reconnect; other errors -> internal. Jobs for a connection that is not up
// fail fast with db_unavailable.

#include <cstdint>
#include <functional>
#include <memory>
#include <thread>

#include "db/db_connection.hpp"
#include "db/db_metrics.hpp"
#include "db/pg_connection_worker.hpp" // pg_worker_config

namespace boost::asio {
class io_context;
} // namespace boost::asio

namespace restcache {

class pg_async_driver {
public:
  /// Starts the driver thread (no connections yet). With `home`, no thread:
  /// that io_context (one thread runs it: an io thread of the io scheduler)
  /// watches the sockets, and every job, result and callback runs on its
  /// thread, beside the actors that asked. Only PQconnectStartParams, which
  /// may resolve a host name, runs on a short-lived helper thread. The
  /// driver must then be destroyed while `home` still runs.
  pg_async_driver(pg_worker_config cfg, db_metrics& metrics, boost::asio::io_context* home = nullptr);

  /// Stops the thread: jobs not yet answered get db_unavailable, every
  /// connection is closed (no on_down). Connections still leased keep
  /// working as objects: up() is false and jobs fail fast with
  /// db_unavailable on the calling thread.
  ~pg_async_driver();

  pg_async_driver(const pg_async_driver&) = delete;
  pg_async_driver& operator=(const pg_async_driver&) = delete;

  /// Adds a connection; the driver starts connecting at once and calls
  /// `on_up(slot)` when it is ready, `on_down(slot)` when it breaks after
  /// having been up. Dropping the last reference closes it. Compatible with
  /// connection_factory (actors/db_pool.hpp); thread-safe.
  db_lease make_connection(uint64_t slot, std::function<void(uint64_t)> on_up,
                           std::function<void(uint64_t)> on_down);

  /// A connection_factory bound to this driver (which must outlive its use).
  std::function<db_lease(uint64_t, std::function<void(uint64_t)>, std::function<void(uint64_t)>)>
  factory();

  struct impl; ///< shared with the connections; defined in the .cpp

private:
  std::shared_ptr<impl> impl_;
  std::thread thread_;
};

} // namespace restcache
