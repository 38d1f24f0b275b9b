// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <chrono>
#include <functional>

#include "actors/actors.hpp"

namespace restcache {

/// A job for db_connection::execute: runs on the connection's thread and
/// returns what the caller answers with. Throws pg::error on failure.
using write_pool_task = std::function<write_pool_outcome(pg::connection&)>;

struct write_pool_job_state {
  static inline const char* name = "write_pool_job";
  db_lease lease; ///< held from borrow until the outcome arrives
};

/// Borrows from `pool`, runs `job`, gives the connection back; when the job
/// wrote changes and `listener` is set, has the listener apply them (at most
/// `apply_timeout`); then calls `done` once (on a CAF thread; it must only
/// hand the outcome on) with the outcome and whether the invalidation was
/// applied, and quits.
write_pool_job_actor::behavior_type
write_pool_job(write_pool_job_actor::stateful_pointer<write_pool_job_state> self, db_pool_actor pool,
               notify_listener_actor listener, write_pool_task job,
               std::function<void(write_pool_outcome, bool)> done, std::chrono::milliseconds apply_timeout);

} // namespace restcache
