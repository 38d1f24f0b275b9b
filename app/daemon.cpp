// SPDX-License-Identifier: Apache-2.0
#include "app/daemon.hpp"

#include <caf/all.hpp>

#include "app/database_check_component.hpp"
#include "app/fill_pools_component.hpp"
#include "app/http_component.hpp"
#include "app/inspection_component.hpp"
#include "app/listener_component.hpp"
#include "app/lmdb_tier_component.hpp"
#include "app/populator_component.hpp"
#include "app/shards_component.hpp"
#include "app/startup.hpp"
#include "demo/demo_component.hpp"
#include "runtime/io_scheduler.hpp"

namespace restcache {

daemon::daemon(restcache_config& cfg, logging::log_setup& logs) : ctx_(cfg, logs) {
  // Started in this order, stopped in the reverse: each finds the ones it
  // uses (ctx.find) and is stopped before them.
  components_.push_back(std::make_unique<database_check_component>());
  components_.push_back(std::make_unique<lmdb_tier_component>());
  components_.push_back(std::make_unique<fill_pools_component>());
  components_.push_back(std::make_unique<shards_component>());
  components_.push_back(std::make_unique<listener_component>());
  if (startup::serves_demo())
    components_.push_back(std::make_unique<demo::demo_component>());
  components_.push_back(std::make_unique<populator_component>());
  components_.push_back(std::make_unique<inspection_component>());
  components_.push_back(std::make_unique<http_component>());
  ctx_.components = &components_;
}

daemon::~daemon() {
  stop();
}

void daemon::start() {
  for (auto& c : components_)
    c->prepare(ctx_);
  // The io threads are CAF's workers: CAF builds no scheduler of its own
  // when a scheduler module is loaded.
  if (ctx_.cfg.uses_io_scheduler())
    ctx_.cfg.module_factories.push_back(&runtime::io_scheduler::make);
  system_ = std::make_unique<caf::actor_system>(ctx_.cfg);
  ctx_.system = system_.get();
  for (auto& c : components_) {
    ++started_; // stopped even when its start throws: it stops what it started
    c->start(ctx_);
  }
}

uint16_t daemon::http_port() const {
  return ctx_.find<http_component>().port();
}

void daemon::stop() {
  if (stopped_ || !system_)
    return;
  stopped_ = true;
  for (size_t i = started_; i-- > 0;)
    components_[i]->stop(ctx_);
  ctx_.long_lived.clear();
  system_->await_all_actors_done();
  for (size_t i = started_; i-- > 0;)
    components_[i]->release();
  system_.reset();
}

} // namespace restcache
