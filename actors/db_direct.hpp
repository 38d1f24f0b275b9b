#pragma once

#include <chrono>
#include <functional>

#include "actors/actors.hpp"

namespace restcache {

/// A job for db_connection::execute: runs on the connection's thread and
/// returns what the caller answers with. Throws pg::error on failure.
using direct_job = std::function<direct_outcome(pg::connection&)>;

struct db_direct_state {
  static inline const char* name = "db_direct";
  db_lease lease; ///< held from borrow until the outcome arrives
};

/// Borrows from `pool`, runs `job`, gives the connection back; when the job
/// wrote changes and `listener` is set, has the listener apply them (at most
/// `apply_timeout`); then calls `done` once (on a CAF thread; it must only
/// hand the outcome on) with the outcome and whether the invalidation was
/// applied, and quits.
db_direct_actor::behavior_type
db_direct(db_direct_actor::stateful_pointer<db_direct_state> self, db_pool_actor pool,
          notify_listener_actor listener, direct_job job,
          std::function<void(direct_outcome, bool)> done, std::chrono::milliseconds apply_timeout);

} // namespace restcache
