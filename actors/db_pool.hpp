// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <vector>

#include "config/defaults.hpp"
#include "actors/actors.hpp"
#include "actors/metrics.hpp"

namespace restcache {

/// Makes connection number `slot`. The connection calls `on_up(slot)` when
/// established and `on_down(slot)` when it breaks (from any thread; they send
/// conn_up / conn_down to the pool), and reconnects by itself.
using connection_factory = std::function<db_lease(
  uint64_t slot, std::function<void(uint64_t)> on_up, std::function<void(uint64_t)> on_down)>;

struct db_pool_config {
  size_t pool_size = 4;
  size_t max_waiters = defaults::db_queue_size; ///< borrowers queued while every connection is busy
  /// Borrowers one connection serves at once: 1 for a connection that runs
  /// one job at a time; the pipeline depth for one that pipelines its jobs
  /// (pg_async_driver), so that several fills share a round trip.
  size_t leases_per_connection = 1;
  /// When the last connection goes down (a backend terminated, a server
  /// restart), borrowers wait this long for one to come back, in the wait
  /// queue, before they are refused: connections reconnect at once, so a
  /// blip is not an outage. One timer per outage, none per borrower.
  std::chrono::milliseconds reconnect_grace{defaults::db_reconnect_grace_ms};
};

struct db_pool_state {
  static inline const char* name = "db_pool";

  struct slot_state {
    db_lease conn;
    bool up = false;
    size_t leases = 0; ///< borrowers holding it now
  };

  db_pool_config cfg;
  db_metrics* metrics = nullptr;
  std::vector<slot_state> slots;
  std::deque<caf::typed_response_promise<borrow_result>> waiters;
  /// Outages so far (the last connection down after one was up): the
  /// grace's timer names its own.
  uint64_t outages = 0;
  /// No connection is up, and the last went down less than the reconnect
  /// grace ago: a borrower waits for one. False before any connection was
  /// up (a start with the database down fails fast).
  bool in_reconnect_grace = false;

  size_t connections_up() const noexcept;
  /// Slot `i` is up (as the pool and its driver see it) and can take
  /// another borrower.
  bool has_room(uint64_t i) const noexcept;
  /// The first up connection that can take another borrower; nullopt when
  /// none can. Packing borrowers onto few connections, rather than spreading
  /// them, lets pipelined fills share round trips (cache.mode=none, wrk -c8:
  /// 18-20k req/s packed, 14-15k spread).
  std::optional<uint64_t> pick() const noexcept;
  /// Counts a borrower of slot `i` in / out, keeping db_metrics::in_use
  /// (connections with at least one borrower) current.
  void lend(uint64_t i);
  void give_back(uint64_t i);
  /// What the pool holds (the inspect handler).
  actor_report report(db_pool_actor::pointer self) const;
  /// Slot `i` can take a borrower: lends it to the oldest waiter, if any.
  void make_available(uint64_t i);
  /// Answers every waiter with `e` (no connection left to wait for).
  void fail_waiters(rc_error e);
};

db_pool_actor::behavior_type db_pool(db_pool_actor::stateful_pointer<db_pool_state> self,
                                     db_pool_config cfg, connection_factory factory,
                                     db_metrics* metrics);

} // namespace restcache
