// SPDX-License-Identifier: Apache-2.0
#include "app/shards_component.hpp"

#include <caf/all.hpp>

#include "actors/cache_shard.hpp"
#include "actors/metrics_text.hpp"
#include "app/cache_front.hpp"
#include "app/fill_pools_component.hpp"
#include "app/listener_component.hpp"
#include "app/lmdb_tier_component.hpp"
#include "messages/prometheus.hpp"
#include "persistence/lmdb/store_reader.hpp"

namespace restcache {

shards_component::shards_component() = default;
shards_component::~shards_component() = default;

namespace {

cache_shard_config shard_config_of(daemon_context& ctx) {
  const auto& o = ctx.options();
  cache_shard_config c{ctx.cfg.resolved_cache_mode(), o.cache_memory_bytes / o.cache_shards,
                       std::chrono::milliseconds{o.cache_fill_timeout_ms}};
  auto& tier = ctx.find<lmdb_tier_component>();
  c.writer = tier.writer();
  if (c.writer) {
    c.writer_metrics = &tier.writer_metrics();
    c.writer_max_pending = o.lmdb_max_queue;
  }
  auto& listener = ctx.find<listener_component>();
  c.listener = &listener.status();
  c.drift = &listener.metrics().drift;
  c.stale_if_error = std::chrono::seconds{o.cache_stale_if_error};
  c.negative_ttl = std::chrono::seconds{o.cache_negative_ttl};
  c.negative_bytes = c.memory_bytes * o.cache_negative_share / 100;
  c.refresh_interval = std::chrono::milliseconds{o.cache_refresh_interval_ms};
  auto& pools = ctx.find<fill_pools_component>();
  c.replicas = pools.replica_pools();
  c.replica_states = pools.replica_states();
  c.replica_lsn_check = o.db_replica_lsn_check;
  c.replica_wait = std::chrono::milliseconds{o.db_replica_wait_ms};
  return c;
}

} // namespace

void shards_component::start(daemon_context& ctx) {
  metrics_ = std::vector<cache_metrics>(static_cast<size_t>(ctx.options().cache_shards));
  auto cfg = shard_config_of(ctx);
  auto& pool = ctx.find<fill_pools_component>().pool();
  auto& tier = ctx.find<lmdb_tier_component>();
  for (auto& m : metrics_) {
    if (tier.store())
      cfg.tier = std::make_shared<lmdb::store_reader>(*tier.store());
    shards_.push_back(ctx.system->spawn(cache_shard, cfg, pool, &m));
    ctx.long_lived.push_back(inspect_entry("shard-" + std::to_string(shards_.size() - 1), shards_.back(),
                                           &m.mailbox));
  }
  front_ = std::make_unique<cache_front>(shards_, ctx.board);
  ctx.board.add_metrics_writer([this] { return shard_metrics_text(metrics_); });
  if (!cfg.replicas.empty())
    ctx.board.add_metrics_writer([this] { return replica_fill_metrics_text(metrics_); });
}

void shards_component::stop(daemon_context& ctx) {
  caf::scoped_actor self{*ctx.system};
  for (auto& s : shards_) {
    self->monitor(s);
    self->send_exit(s, caf::exit_reason::user_shutdown);
  }
  size_t down = 0;
  self->receive_for(down, shards_.size())([](caf::down_msg&) {});
  shards_.clear();
}

} // namespace restcache
