// SPDX-License-Identifier: Apache-2.0
#pragma once

// What the demo's action routes do (demo_routes.hpp): its writes on the write
// pool, its department pages on the list pool, and /depts/random from the
// set of department ids the id loader keeps. Not an actor: its handlers are
// called on io threads and only spawn a job or read the id set.

#include <caf/fwd.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "actors/actors.hpp"
#include "demo/demo_jobs.hpp"
#include "http/action_routes.hpp"

namespace restcache::demo {

/// Where the demo's actions run.
struct demo_wiring {
  caf::actor_system* sys = nullptr;
  db_pool_actor write_pool; ///< the writes
  db_pool_actor list_pool;  ///< GET /depts and the id set, apart from the writes
  /// Applies a write's own invalidations before it answers (null in cache
  /// mode none).
  notify_listener_actor listener;
  std::chrono::milliseconds apply_timeout{5'000};
  /// Fills read from standbys: writes stamp their changes with the primary's
  /// WAL position after the commit (make_write_job).
  bool stamp_lsn = false;
};

/// The demo API's answer to a write's outcome: 201 with the new key and its
/// Location, 200 with the department a random rewrite picked, else 204;
/// `applied`: the write's own invalidation was confirmed in time.
http::action_answer write_answer(write_op op, const write_pool_outcome& outcome, bool applied);

class demo_actions {
public:
  explicit demo_actions(demo_wiring wiring);

  /// The handler of each route of demo_action_routes(), in its order. They
  /// refer to this object: it outlives the server that calls them.
  std::vector<http::action_handler> handlers();

  /// Replaces the id set /depts/random picks from.
  void set_dept_ids(std::shared_ptr<const std::vector<int32_t>> ids);
  size_t dept_id_count() const;
  /// A department picked uniformly from the id set; nullopt while it is empty.
  std::optional<doc_key> random_dept();

  /// The demo's /metrics text (the size of the id set).
  std::string metrics_text() const;

private:
  /// Runs the write on the write pool; its answer as the demo's API gives it.
  http::action_start run_write(write_request req) const;

  demo_wiring wiring_;
  mutable std::mutex ids_mtx_;
  std::shared_ptr<const std::vector<int32_t>> dept_ids_;
  /// Bumped (under ids_mtx_) whenever dept_ids_ changes: /depts/random reads
  /// the set through a copy of its own thread, taken again only when this
  /// moved, so a request costs one atomic load, no lock and no count.
  std::atomic<uint64_t> ids_generation_;
};

} // namespace restcache::demo
