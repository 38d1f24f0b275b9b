// SPDX-License-Identifier: Apache-2.0
#pragma once

// The daemon's http::cache_gateway: routes each lookup to the shard that owns
// its key, runs the action routes' handlers it is given, and renders the
// board's /metrics and /ready. Not an actor: it is called from asio
// threads and only sends messages.

#include <caf/fwd.hpp>

#include <functional>
#include <memory>
#include <vector>

#include "actors/actors.hpp"
#include "db/feed_drift.hpp"
#include "http/cache_gateway.hpp"

namespace restcache {

class status_board;

class cache_front final : public http::cache_gateway {
public:
  /// /metrics and /ready say what `board` gathers from the components.
  cache_front(std::vector<cache_shard_actor> shards, const status_board& board);

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

  const cache_shard_actor& shard_for(const doc_key& key) const;

private:
  const feed_drift* drift_ = nullptr;
  std::vector<cache_shard_actor> shards_;
  const status_board& board_;
  std::vector<http::action_handler> actions_;
};

} // namespace restcache
