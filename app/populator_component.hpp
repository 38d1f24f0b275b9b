// SPDX-License-Identifier: Apache-2.0
#pragma once

// cache.populate: once the listener has caught up, reads every kind with a
// populate plan page by page into the shards, then quits.

#include <caf/actor.hpp>

#include "component/component.hpp"

namespace restcache {

class populator_component final : public component {
public:
  std::string_view name() const override { return "populator"; }
  void start(daemon_context& ctx) override;
  void stop(daemon_context& ctx) override;

private:
  caf::actor populator_;
};

} // namespace restcache
