// SPDX-License-Identifier: Apache-2.0
#pragma once

// Before anything is spawned: the database's restcache schema, the kinds
// checked against its planner, and its change feed (app/startup.hpp).

#include "component/component.hpp"

namespace restcache {

class database_check_component final : public component {
public:
  std::string_view name() const override { return "database check"; }
  void prepare(daemon_context& ctx) override;
  void start(daemon_context&) override {}
};

} // namespace restcache
