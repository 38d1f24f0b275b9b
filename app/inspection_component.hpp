// SPDX-License-Identifier: Apache-2.0
#pragma once

// What the process and its long-lived actors are doing: the actors'
// mailbox gauges and the process_* series in /metrics, and the inspector
// restcache-inspect asks on its Unix socket (inspect.socket). After every
// component that spawns a long-lived actor.

#include <memory>

#include "actors/actors.hpp"
#include "component/component.hpp"

namespace restcache {

class inspect_socket;

class inspection_component final : public component {
public:
  inspection_component();
  ~inspection_component() override;

  std::string_view name() const override { return "inspection"; }
  void start(daemon_context& ctx) override;
  void stop(daemon_context& ctx) override;

private:
  inspector_actor inspector_;
  std::unique_ptr<inspect_socket> socket_; ///< asks inspector_
};

} // namespace restcache
