// SPDX-License-Identifier: Apache-2.0
#pragma once

// The inspector: asks the daemon's long-lived actors to describe themselves
// and answers restcache-inspect (another process, through the daemon's
// inspect socket: app/inspect_socket.hpp).

#include <caf/actor.hpp>
#include <caf/actor_cast.hpp>
#include <caf/fwd.hpp>

#include <chrono>
#include <cstdint>
#include <atomic>
#include <string>
#include <vector>

#include "actors/actors.hpp"

namespace restcache {

/// One long-lived actor the inspector lists. Any actor answering
/// `inspect_atom` with an actor_report will do.
struct inspected_actor {
  std::string name;   ///< shard-0, db-pool, batch-writer, ...
  caf::actor handle;  ///< null: listed as not running
  /// Where the actor stores its mailbox size about every second (optional):
  /// shown when it does not answer (busy in a long LMDB commit, say); the
  /// daemon's /metrics reads the same gauges.
  const std::atomic<int64_t>* mailbox = nullptr;
};

/// Wraps a typed handle for the inspector's list.
template <class Handle>
inspected_actor inspect_entry(std::string name, const Handle& handle,
                              const std::atomic<int64_t>* mailbox = nullptr) {
  return inspected_actor{std::move(name), caf::actor_cast<caf::actor>(handle), mailbox};
}

struct inspector_config {
  /// Listed in this order; the inspector appends itself ("inspector").
  std::vector<inspected_actor> actors;
  /// The cache shards in shard order: `key` asks the owner of each document
  /// (shard_index, as the edge routes lookups).
  std::vector<cache_shard_actor> shards;
  /// How long an actor may take to answer before it is listed as not answering.
  std::chrono::milliseconds timeout{1'000};
};

struct inspector_state {
  static inline const char* name = "inspector";

  inspector_config cfg;
  uint64_t lists = 0; ///< list requests answered
  uint64_t keys = 0;  ///< key requests answered

  /// The inspector's own report (it does not ask itself).
  actor_report report(inspector_actor::pointer self) const;
};

inspector_actor::behavior_type inspector(inspector_actor::stateful_pointer<inspector_state> self,
                                         inspector_config cfg);

/// Spawns the inspector (event-based, like the shards).
inspector_actor spawn_inspector(caf::actor_system& sys, inspector_config cfg);

} // namespace restcache
