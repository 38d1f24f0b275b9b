#include "app/startup.hpp"

#include <sys/resource.h>

#include <stdexcept>

#include <spdlog/spdlog.h>

#include "persistence/lmdb/store.hpp"
#include "persistence/pg/connection.hpp"
#include "persistence/pg/schema.hpp"

namespace restcache::startup {

namespace {

lmdb::sync_mode sync_mode_of(lmdb_sync_kind k) {
  switch (k) {
    case lmdb_sync_kind::no_sync: return lmdb::sync_mode::no_sync;
    case lmdb_sync_kind::no_meta_sync: return lmdb::sync_mode::no_meta_sync;
    case lmdb_sync_kind::durable: break;
  }
  return lmdb::sync_mode::durable;
}

} // namespace

void raise_open_file_limit() {
  rlimit lim{};
  if (getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur < lim.rlim_max) {
    lim.rlim_cur = lim.rlim_max;
    setrlimit(RLIMIT_NOFILE, &lim);
  }
}

schema_action check_schema(const std::string& dsn) {
  try {
    pg::connection c{dsn};
    auto version = pg::installed_schema_version(c);
    if (version < pg::schema_version) {
      spdlog::info("database schema version {} < {}: applying schema.sql", version, pg::schema_version);
      pg::ensure_schema(c);
      return schema_action::applied;
    }
    if (version > pg::schema_version) {
      spdlog::warn("database schema version {} is newer than this build's {}", version, pg::schema_version);
      return schema_action::newer;
    }
    return schema_action::current;
  } catch (const std::exception& e) {
    spdlog::warn("database not reachable at start-up ({}); will keep retrying", e.what());
    return schema_action::unreachable;
  }
}

std::shared_ptr<lmdb::store> open_lmdb_tier(const daemon_options& o) {
  std::shared_ptr<lmdb::store> tier;
  try {
    lmdb::env_options lmdb_opts;
    lmdb_opts.path = o.lmdb_path;
    lmdb_opts.max_bytes = static_cast<uint64_t>(o.lmdb_max_bytes);
    lmdb_opts.sync = sync_mode_of(o.sync);
    // Every shard and the writer hold a reader slot; leave room.
    lmdb_opts.max_readers = static_cast<unsigned>(o.cache_shards) + 126;
    tier = std::make_shared<lmdb::store>(lmdb_opts);
  } catch (const std::exception& e) {
    throw std::runtime_error("cannot open the LMDB tier at '" + o.lmdb_path + "' (lmdb.path): " + e.what());
  }
  auto history = tier->history();
  spdlog::info("LMDB tier at {}: {} records, {} MiB in use of {} MiB (lmdb.sync={}), watermark {}, {}",
               o.lmdb_path, tier->count(), tier->bytes() >> 20, o.lmdb_max_bytes >> 20, o.lmdb_sync,
               tier->watermark(), history ? "history of " + describe(*history) : std::string{"no recorded history"});
  if (tier->watermark() == 0 && tier->count() > 0) {
    spdlog::warn("LMDB tier has records but no replay watermark: dropping them");
    tier->clear();
  }
  return tier;
}

} // namespace restcache::startup
