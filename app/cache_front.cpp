// SPDX-License-Identifier: Apache-2.0
#include "app/cache_front.hpp"

#include <caf/all.hpp>

#include "actors/mailbox_report.hpp"
#include "actors/metrics_text.hpp"

namespace restcache {

cache_front::cache_front(std::vector<cache_shard_actor> shards, std::vector<cache_metrics>& cache,
                         db_metrics& db)
  : shards_(std::move(shards)), cache_metrics_(cache), db_metrics_(db) {
}

const cache_shard_actor& cache_front::shard_for(const doc_key& key) const {
  return shards_[shard_index(key, shards_.size())];
}

void cache_front::lookup(doc_key key, reply_callback cb) {
  caf::anon_send(shard_for(key), get_atom::value, key, std::move(cb));
}

void cache_front::lookup_gzip(doc_key key, reply_callback cb) {
  caf::anon_send(shard_for(key), gzip_atom::value, key, std::move(cb));
}

void cache_front::refill(doc_key key, reply_callback cb) {
  caf::anon_send(shard_for(key), refill_atom::value, key, std::move(cb));
}

void cache_front::set_actions(std::vector<http::action_handler> handlers) {
  actions_ = std::move(handlers);
}

http::action_start cache_front::start_action(uint8_t action, const http::action_call& call) {
  if (action < actions_.size() && actions_[action])
    return actions_[action](call);
  return http::cache_gateway::start_action(action, call);
}

std::vector<http::readiness_check> cache_front::readiness() const {
  std::vector<http::readiness_check> checks;
  bool db_up = db_metrics_.connections_up.load(std::memory_order_relaxed) > 0;
  checks.push_back({"database", db_up, db_up ? "up" : "down"});
  for (auto& check : readiness_checks_)
    checks.push_back(check());
  return checks;
}

std::string cache_front::drift_detail(doc_kind kind) const {
  if (drift_ == nullptr || !drift_->drifted(kind))
    return {};
  return drift_->problems();
}

void cache_front::add_readiness_check(std::function<http::readiness_check()> check) {
  readiness_checks_.push_back(std::move(check));
}

void cache_front::add_metrics_source(std::function<std::string()> source) {
  metrics_sources_.push_back(std::move(source));
}

std::string cache_front::metrics_text() const {
  std::string out = shard_metrics_text(cache_metrics_);
  for (auto& source : metrics_sources_)
    out += source();
  return out;
}

} // namespace restcache
