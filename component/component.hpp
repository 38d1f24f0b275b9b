// SPDX-License-Identifier: Apache-2.0
#pragma once

// A part of the running daemon that owns, beside its code, how its options
// become its configuration, its spawn, the metrics it writes, its readiness
// checks and its stop. The daemon is an ordered list of them (app/daemon.cpp):
// every prepare(), then the actor system, then every start() in list order;
// stop() in reverse order, and release() once every actor is done.

#include <caf/fwd.hpp>

#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "actors/actors.hpp"
#include "actors/inspector.hpp"
#include "component/status_board.hpp"
#include "config/options.hpp"
#include "http/action_routes.hpp"

namespace restcache {

namespace logging {
class log_setup;
} // namespace logging
struct db_metrics;
class component;

/// What the components share: the options, the actor system, the registries
/// the edge and the inspector read, and what the engine offers the modules
/// above it.
struct daemon_context {
  daemon_context(restcache_config& config, logging::log_setup& log_setup) : cfg(config), logs(log_setup) {}

  restcache_config& cfg;
  logging::log_setup& logs;
  caf::actor_system* system = nullptr; ///< from the first start() on
  status_board board;
  /// Every long-lived actor by the name restcache-inspect and /metrics give
  /// it, with the gauge it stores its mailbox size in.
  std::vector<inspected_actor> long_lived;
  /// Every connection pool's counters by its label ({pool="fill"}): the pool
  /// families are written once, over all of them.
  std::vector<std::pair<std::string, const db_metrics*>> pools;
  /// Applies a change's invalidations (null in cache mode none).
  notify_listener_actor listener;
  /// Fills read from standbys: a module's writes stamp their changes with
  /// the primary's WAL position after the commit.
  bool fills_read_standbys = false;
  /// The installed action routes' handlers, by route id, and the OpenAPI
  /// part that describes them (a module's).
  std::vector<http::action_handler> actions;
  std::string_view openapi_part;

  const daemon_options& options() const { return cfg.opts; }

  /// The list's component of type T (any of them: each exists from the
  /// daemon's construction, its actors from its start()).
  template <class T>
  T& find() const;

  const std::vector<std::unique_ptr<component>>* components = nullptr;
};

class component {
public:
  virtual ~component() = default;
  /// For logs: "fill pools", "listener".
  virtual std::string_view name() const = 0;
  /// Before the actor system exists: checks and files the actors need.
  /// Throws std::runtime_error saying what could not be had.
  virtual void prepare(daemon_context&) {}
  /// Spawns its actors and registers its metrics writer, readiness checks
  /// and long-lived actors. Throws std::runtime_error; stop() is called even
  /// then, so it takes down what was started.
  virtual void start(daemon_context&) = 0;
  /// Takes its actors down, later components' first. Safe when start() did
  /// not finish.
  virtual void stop(daemon_context&) {}
  /// Once every actor is done: what the actors used until their last
  /// message (drivers).
  virtual void release() {}
};

template <class T>
T& daemon_context::find() const {
  if (components != nullptr)
    for (auto& c : *components)
      if (auto* found = dynamic_cast<T*>(c.get()))
        return *found;
  throw std::logic_error("the daemon has no component of the type asked for");
}

} // namespace restcache
