// SPDX-License-Identifier: Apache-2.0
#pragma once

// Keeps the set of department ids /depts/random picks from.

#include <caf/fwd.hpp>

#include <cstdint>
#include <memory>
#include <vector>

#include "actors/actors.hpp"

namespace restcache::demo {

class demo_actions;

/// What one read of the ids gave.
struct dept_ids_outcome {
  rc_error error = rc_error::none;
  std::shared_ptr<const std::vector<int32_t>> ids; ///< null unless error is none
};

} // namespace restcache::demo

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(restcache::demo::dept_ids_outcome)

namespace restcache::demo {

/// Reads every department id into the demo's actions at start-up and again
/// every 30 s; retries every second while the database is unavailable.
using dept_id_loader_actor = caf::typed_actor<
  /// The ids (or the error), from the read's job.
  caf::reacts_to<ids_atom, dept_ids_outcome>,
  /// Time to read the ids (again).
  caf::reacts_to<retry_atom>,
  /// Describes the loader: ids loaded, loads, last error, a read running.
  caf::replies_to<inspect_atom>::with<actor_report>>;

/// Spawns the loader: it reads on a connection of `pool` (one that runs
/// jobs: a pool of connection threads). The caller stops it at shutdown.
dept_id_loader_actor spawn_dept_id_loader(caf::actor_system& sys, db_pool_actor pool, demo_actions& actions);

} // namespace restcache::demo
