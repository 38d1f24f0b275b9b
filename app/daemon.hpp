// SPDX-License-Identifier: Apache-2.0
#pragma once

// The daemon as an ordered list of components (component/component.hpp):
// start() prepares each, creates the actor system and starts each in list
// order; stop() stops them in reverse. main only reads options, handles
// signals and calls these.

#include <cstdint>
#include <memory>
#include <vector>

#include <caf/fwd.hpp>

#include "component/component.hpp"

namespace restcache {

class daemon {
public:
  /// Both must outlive the daemon.
  daemon(restcache_config& cfg, logging::log_setup& logs);
  ~daemon(); ///< stop()s
  daemon(const daemon&) = delete;
  daemon& operator=(const daemon&) = delete;

  /// Checks the schema, opens the LMDB tier, spawns the actors, serves the
  /// inspector on its Unix socket (inspect.socket) and serves HTTP. Throws
  /// std::runtime_error saying what could not be had; stop() then takes down
  /// what was started.
  void start();
  /// The HTTP port bound (with http.port=0, the one picked).
  uint16_t http_port() const;
  /// Stops serving (requests in flight get http.shutdown-timeout-ms), then
  /// the actors: the batch writer last, after it wrote what the shards sent
  /// it. Safe to call twice.
  void stop();

private:
  // The components and the context outlive the actor system: mailboxes may
  // still hold callbacks that own HTTP sessions until the system is gone.
  daemon_context ctx_;
  std::vector<std::unique_ptr<component>> components_;
  std::unique_ptr<caf::actor_system> system_;
  size_t started_ = 0; ///< components whose start() was called
  bool stopped_ = false;
};

} // namespace restcache
