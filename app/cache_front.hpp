// SPDX-License-Identifier: Apache-2.0
#pragma once

// The daemon's http::cache_gateway: routes each lookup to the shard that owns
// its key, runs the action routes' handlers it is given, and renders the
// counters for /metrics. Not an actor: it is called from asio
// threads and only sends messages.

#include <caf/fwd.hpp>

#include <functional>
#include <memory>
#include <vector>

#include "actors/actors.hpp"
#include "actors/metrics.hpp"
#include "db/feed_drift.hpp"
#include "http/cache_gateway.hpp"

namespace restcache {

class cache_front final : public http::cache_gateway {
public:
  /// `cache` holds one cache_metrics per shard, in shard order.
  cache_front(std::vector<cache_shard_actor> shards, std::vector<cache_metrics>& cache,
              db_metrics& db);

  void lookup(doc_key key, reply_callback cb) override;
  void lookup_gzip(doc_key key, reply_callback cb) override;
  void refill(doc_key key, reply_callback cb) override;
  std::vector<http::readiness_check> readiness() const override;
  std::string drift_detail(doc_kind kind) const override;
  std::string metrics_text() const override;
  http::action_start start_action(uint8_t action, const http::action_call& call) override;

  /// The listener's drift state, for db_schema answers (none in cache mode none).
  void set_drift(const feed_drift* drift) { drift_ = drift; }
  /// The handlers of the installed action routes, by route id.
  void set_actions(std::vector<http::action_handler> handlers);

  /// Extra exposition text appended to /metrics (the HTTP server's counters).
  void add_metrics_source(std::function<std::string()> source);
  /// One more condition /ready requires (besides a pooled connection).
  void add_readiness_check(std::function<http::readiness_check()> check);

  const cache_shard_actor& shard_for(const doc_key& key) const;

private:
  const feed_drift* drift_ = nullptr;
  std::vector<cache_shard_actor> shards_;
  std::vector<cache_metrics>& cache_metrics_;
  db_metrics& db_metrics_;
  std::vector<std::function<std::string()>> metrics_sources_;
  std::vector<std::function<http::readiness_check()>> readiness_checks_;
  std::vector<http::action_handler> actions_;
};

} // namespace restcache
