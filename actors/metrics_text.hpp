#pragma once

// Prometheus exposition of the counters that live outside the shards: the
// LMDB tier with its batch writer, and the notify listener.

#include <string>

#include "actors/batch_writer.hpp"
#include "actors/metrics.hpp"

namespace restcache {

namespace lmdb {
class store;
}

std::string lmdb_metrics_text(const lmdb::store& store, const batch_metrics& m);
std::string listener_metrics_text(const listener_metrics& m);

} // namespace restcache
