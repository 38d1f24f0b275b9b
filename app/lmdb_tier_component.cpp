// SPDX-License-Identifier: Apache-2.0
#include "app/lmdb_tier_component.hpp"

#include <caf/all.hpp>
#include <spdlog/spdlog.h>

#include "actors/metrics_text.hpp"
#include "app/startup.hpp"
#include "persistence/lmdb/store.hpp"

namespace restcache {

void lmdb_tier_component::prepare(daemon_context& ctx) {
  if (ctx.cfg.uses_lmdb())
    store_ = startup::open_lmdb_tier(ctx.options(), metrics_.status);
}

void lmdb_tier_component::start(daemon_context& ctx) {
  start_writer(ctx);
  // Listed whatever the mode: the inspector says when it is not running.
  ctx.long_lived.push_back(inspect_entry("batch-writer", writer_, &metrics_.mailbox));
}

void lmdb_tier_component::start_writer(daemon_context& ctx) {
  if (!ctx.cfg.uses_lmdb())
    return;
  // Ready whatever the tier's state: memory and PostgreSQL answer every
  // request correctly without it. /ready says what it is.
  ctx.board.add_readiness_check(readiness_place::tier, [this] {
    auto [state, why] = metrics_.status.get();
    if (state == tier_state::ok && store_ && store_->budget_bytes() < store_->environment().map_size())
      why += "; its disk ran full: budget lowered to " + std::to_string(store_->budget_bytes() >> 10) + " KiB";
    return http::readiness_check{"lmdb", true, state == tier_state::ok ? why : std::string{to_string(state)} + ": " + why};
  });
  ctx.board.add_metrics_writer([this] { return lmdb_metrics_text(store_.get(), metrics_); });
  if (!store_)
    return;
  const auto& o = ctx.options();
  batch_writer_config writer_cfg;
  writer_cfg.batch_size = static_cast<size_t>(o.lmdb_batch_size);
  writer_cfg.flush_interval = std::chrono::milliseconds{o.lmdb_flush_interval_ms};
  writer_cfg.max_queue = static_cast<size_t>(o.lmdb_max_queue);
  writer_ = spawn_batch_writer(*ctx.system, writer_cfg, store_, &metrics_);
}

void lmdb_tier_component::stop(daemon_context& ctx) {
  if (!writer_)
    return;
  caf::scoped_actor self{*ctx.system};
  self->request(writer_, std::chrono::seconds{60}, drain_atom::value)
    .receive([](uint64_t written) { spdlog::info("batch writer drained: {} records written in all", written); },
             [](caf::error& err) { spdlog::error("batch writer did not drain: {}", caf::to_string(err)); });
  self->send_exit(writer_, caf::exit_reason::user_shutdown);
  writer_ = nullptr;
}

} // namespace restcache
