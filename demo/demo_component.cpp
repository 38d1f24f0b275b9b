// SPDX-License-Identifier: Apache-2.0
#include "demo/demo_component.hpp"

#include <caf/all.hpp>

#include "component/pools.hpp"
#include "demo/demo_actions.hpp"
#include "demo/demo_routes.hpp"

namespace restcache::demo {

demo_component::demo_component() = default;
demo_component::~demo_component() = default;

void demo_component::start(daemon_context& ctx) {
  const auto& o = ctx.options();
  // Connection threads of their own, whatever db.driver is: writes and
  // pages are jobs, not document reads.
  write_pool_ = spawn_thread_pool(ctx, o.db_write_pool_size, write_metrics_, "write", "db-write-pool");
  list_pool_ = spawn_thread_pool(ctx, o.db_list_pool_size, list_metrics_, "list", "db-list-pool");
  demo_wiring wiring;
  wiring.sys = ctx.system;
  wiring.write_pool = write_pool_;
  wiring.list_pool = list_pool_;
  wiring.listener = ctx.listener;
  wiring.apply_timeout = std::chrono::milliseconds{o.cache_fill_timeout_ms};
  wiring.stamp_lsn = ctx.fills_read_standbys;
  actions_ = std::make_unique<demo_actions>(std::move(wiring));
  ctx.actions = actions_->handlers();
  ctx.openapi_part = demo_openapi;
  ctx.board.add_metrics_writer([this] { return actions_->metrics_text(); });
  // The ids are read on the list pool: a read of them never waits for a write.
  id_loader_ = spawn_dept_id_loader(*ctx.system, list_pool_, *actions_);
  ctx.long_lived.push_back(inspect_entry("dept-id-loader", id_loader_));
}

void demo_component::stop(daemon_context&) {
  for (auto handle : {caf::actor_cast<caf::actor>(id_loader_), caf::actor_cast<caf::actor>(write_pool_),
                      caf::actor_cast<caf::actor>(list_pool_)})
    if (handle)
      caf::anon_send_exit(handle, caf::exit_reason::user_shutdown);
  id_loader_ = nullptr;
  write_pool_ = nullptr;
  list_pool_ = nullptr;
}

} // namespace restcache::demo
