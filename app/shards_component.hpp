// SPDX-License-Identifier: Apache-2.0
#pragma once

// The memory tier: cache.shards shard actors, each with its share of the
// budget, and the front that routes the edge's lookups to them.

#include <memory>
#include <vector>

#include "actors/actors.hpp"
#include "actors/metrics.hpp"
#include "component/component.hpp"

namespace restcache {

class cache_front;

class shards_component final : public component {
public:
  shards_component();
  ~shards_component() override;

  std::string_view name() const override { return "shards"; }
  void start(daemon_context& ctx) override;
  void stop(daemon_context& ctx) override;

  const std::vector<cache_shard_actor>& shards() const { return shards_; }
  /// One per shard, in shard order (sized by the constructor's options).
  std::vector<cache_metrics>& metrics() { return metrics_; }
  /// What the HTTP edge calls; from start() on.
  cache_front& front() { return *front_; }

private:
  std::vector<cache_metrics> metrics_;
  std::vector<cache_shard_actor> shards_;
  std::unique_ptr<cache_front> front_;
};

} // namespace restcache
