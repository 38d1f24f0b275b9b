// SPDX-License-Identifier: Apache-2.0
#include "app/populator_component.hpp"

#include <caf/all.hpp>

#include <limits>

#include "actors/cache_populator.hpp"
#include "app/fill_pools_component.hpp"
#include "app/listener_component.hpp"
#include "app/lmdb_tier_component.hpp"
#include "app/shards_component.hpp"
#include "messages/doc_catalogue.hpp"

namespace restcache {

void populator_component::start(daemon_context& ctx) {
  const auto& o = ctx.options();
  auto mode = ctx.cfg.resolved_cache_mode();
  if (!o.cache_populate || mode == cache_mode::none)
    return;
  // In lmdb mode nothing is kept in memory: populate the whole table and let
  // the tier's own budget evict (oldest written first).
  auto budget = mode == cache_mode::lmdb ? std::numeric_limits<int64_t>::max() : o.cache_memory_bytes;
  cache_populator_config cfg{static_cast<int32_t>(o.cache_populate_page), budget, {}};
  for (const auto& kind : doc_catalogue())
    if (!kind.populate.statement.name.empty())
      cfg.kinds.push_back(kind.kind);
  cfg.caught_up = &ctx.find<listener_component>().metrics().caught_up;
  auto& tier = ctx.find<lmdb_tier_component>();
  if (tier.writer()) {
    cfg.writer = &tier.writer_metrics();
    cfg.writer_high_water = std::max<int64_t>(o.lmdb_batch_size * 2, o.lmdb_max_queue / 2);
  }
  auto& shards = ctx.find<shards_component>();
  populator_ = caf::actor_cast<caf::actor>(ctx.system->spawn(
    cache_populator, cfg, ctx.find<fill_pools_component>().pool(), shards.shards(), &shards.metrics()));
}

void populator_component::stop(daemon_context&) {
  if (populator_)
    caf::anon_send_exit(populator_, caf::exit_reason::user_shutdown);
  populator_ = nullptr;
}

} // namespace restcache
