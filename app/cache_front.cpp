// SPDX-License-Identifier: Apache-2.0
#include "app/cache_front.hpp"

#include <caf/all.hpp>

#include "component/status_board.hpp"

namespace restcache {

cache_front::cache_front(std::vector<cache_shard_actor> shards, const status_board& board)
  : shards_(std::move(shards)), board_(board) {
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
  return board_.readiness();
}

std::string cache_front::drift_detail(doc_kind kind) const {
  if (drift_ == nullptr || !drift_->drifted(kind))
    return {};
  return drift_->problems();
}

std::string cache_front::metrics_text() const {
  return board_.metrics_text();
}

} // namespace restcache
