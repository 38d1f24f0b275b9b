// SPDX-License-Identifier: Apache-2.0
#pragma once

// The change feed's listener: reads what changed in PostgreSQL (triggers'
// log or the WAL) and drops it from both tiers. Its status exists from
// construction: the shards read it (until it has caught up, GETs go to
// PostgreSQL) and they are spawned before it.

#include "actors/actors.hpp"
#include "actors/listener_status.hpp"
#include "component/component.hpp"
#include "db/db_metrics.hpp"

namespace restcache {

class listener_component final : public component {
public:
  std::string_view name() const override { return "listener"; }
  void start(daemon_context& ctx) override;
  void stop(daemon_context& ctx) override;

  listener_metrics& metrics() { return metrics_; }
  listener_status& status() { return status_; }

private:
  void register_status(daemon_context& ctx);

  listener_metrics metrics_;
  /// Until the listener has caught up, GETs go to PostgreSQL: the tiers may
  /// hold documents changed while we were away, or of another database
  /// altogether (the listener checks which history the LMDB file holds
  /// before anything in it is served).
  listener_status status_;
  notify_listener_actor listener_;
};

} // namespace restcache
