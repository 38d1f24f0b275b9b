// SPDX-License-Identifier: Apache-2.0
#pragma once

// The demo as a module above the engine: its pools (writes, and the
// department pages and id set apart from them), its action routes and their
// OpenAPI part, and the id loader behind /depts/random. In the daemon's list
// after the listener, whose handle its writes use.

#include <memory>

#include "component/component.hpp"
#include "db/db_metrics.hpp"
#include "demo/dept_id_loader.hpp"

namespace restcache::demo {

class demo_actions;

class demo_component final : public component {
public:
  demo_component();
  ~demo_component() override;

  std::string_view name() const override { return "demo"; }
  void start(daemon_context& ctx) override;
  void stop(daemon_context& ctx) override;

private:
  db_metrics write_metrics_;
  db_metrics list_metrics_;
  db_pool_actor write_pool_;
  /// GET /depts and the id set: open to anyone, so a flood of pages waits
  /// for connections of its own, never for the write pool's.
  db_pool_actor list_pool_;
  /// The front's handlers refer to it: it outlives the server (the daemon
  /// destroys its components after the actor system).
  std::unique_ptr<demo_actions> actions_;
  dept_id_loader_actor id_loader_;
};

} // namespace restcache::demo
