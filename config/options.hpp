#pragma once

// Every option the daemon reads, registered with CAF's actor_system_config so
// they come from the command line (--http.port=8080) or the config file
// (--config-file=F), with defaults from config/defaults.hpp.

#include <caf/actor_system_config.hpp>

#include <cstdint>
#include <optional>
#include <string>

#include "actors/cache_shard.hpp"

namespace restcache {

struct daemon_options {
  std::string http_address;
  int64_t http_port;
  int64_t http_threads;
  int64_t http_body_limit;
  int64_t http_max_connections;
  int64_t http_read_timeout_ms;
  std::string http_write_token;
  std::string db_dsn;
  int64_t db_pool_size;
  int64_t db_queue_size;
  int64_t db_query_timeout_ms;
  int64_t db_write_pool_size;
  std::string db_driver;
  int64_t cache_shards;
  std::string cache_mode;
  int64_t cache_memory_bytes;
  int64_t cache_fill_timeout_ms;
  bool cache_populate;
  int64_t cache_populate_page;
  std::string cache_on_listener_loss;
  int64_t changelog_retention;
  int64_t changelog_max_pending;
  int64_t changelog_mark_interval_ms;
  std::string lmdb_path;
  int64_t lmdb_max_bytes;
  int64_t lmdb_batch_size;
  int64_t lmdb_flush_interval_ms;
  int64_t lmdb_max_queue;
  std::string lmdb_sync;
  std::string log_level;
};

class restcache_config : public caf::actor_system_config {
public:
  restcache_config();

  daemon_options opts;

  /// After parse(): checks every value and resolves the automatic ones
  /// (0 = derive from the machine). Returns a message naming the first bad
  /// option, or nullopt.
  std::optional<std::string> validate_and_resolve();

  cache_mode resolved_cache_mode() const;
  /// cache.mode is tiered or lmdb.
  bool uses_lmdb() const;
};

/// The physical memory of the machine in bytes (0 when unknown).
int64_t physical_memory_bytes();

} // namespace restcache
