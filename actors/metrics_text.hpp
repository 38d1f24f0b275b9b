// SPDX-License-Identifier: Apache-2.0
#pragma once

// Prometheus exposition of the actors' counters: the cache shards, the LMDB
// tier with its batch writer, the notify listener, the database pools, the
// actors' mailboxes and the process.

#include <atomic>
#include <string>
#include <utility>
#include <vector>

#include "actors/batch_writer.hpp"
#include "actors/metrics.hpp"
#include "db/replica_monitor.hpp"

namespace restcache {

namespace lmdb {
class store;
}

/// The cache shards' counters and gauges (one cache_metrics per shard, in
/// shard order): hits by tier, answers by Cache-Status, and per-shard series.
std::string shard_metrics_text(const std::vector<cache_metrics>& shards_metrics);

std::string lmdb_metrics_text(const lmdb::store* store, const batch_metrics& m);
std::string listener_metrics_text(const listener_metrics& m);
/// Every pool's series, each by its labels: {pool="fill"} (cache fills),
/// {pool="replica-N"} (fills from standby N), and a module's pools
/// ({pool="write"}, {pool="list"}).
std::string db_metrics_text(const std::vector<std::pair<std::string, const db_metrics*>>& pools);
/// What the shards' fills asked of the standbys (restcache_replica_fills_*),
/// summed over the shards.
std::string replica_fill_metrics_text(const std::vector<cache_metrics>& shards_metrics);
/// The standbys fills read from, labelled replica="N" (db.replicas order).
std::string replica_metrics_text(const std::vector<replica_health*>& replicas);

/// A long-lived actor's name and the mailbox size it reports of itself.
using mailbox_gauge = std::pair<std::string, const std::atomic<int64_t>*>;
/// restcache_actor_mailbox_messages{actor="..."}.
std::string mailbox_metrics_text(const std::vector<mailbox_gauge>& actors);

/// The conventional process_* metrics (resident memory, CPU, open files, start time) from /proc.
std::string process_metrics_text();

} // namespace restcache
