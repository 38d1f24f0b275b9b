// SPDX-License-Identifier: Apache-2.0
#pragma once

// Every option the daemon reads, registered with CAF's actor_system_config so
// they come from the config file (--config-file=F, else
// defaults::config_file) and the command line (--http.port=8080, which wins),
// with defaults from config/defaults.hpp. One table (option_spec) drives the
// registration, --help, --dump-config, the options page (docs/configuration.md)
// and the checks of every value.

#include <caf/actor_system_config.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "messages/cache_types.hpp"
#include "messages/ip_address.hpp"

namespace restcache {

/// The options that choose among a few values, as values.
enum class db_driver_kind : uint8_t { threads, async };
enum class lmdb_sync_kind : uint8_t { durable, no_meta_sync, no_sync };
enum class scheduler_kind : uint8_t { io, caf };
/// Who may write, once http.writes and the token are resolved.
enum class write_access : uint8_t { token, open, closed };

/// True for an address that only this machine reaches: 127.0.0.0/8, ::1,
/// "localhost" (an IPv4-mapped ::ffff:127.x too).
bool is_loopback_address(const std::string& address);
/// The shortest write token accepted on an address that is not loopback.
inline constexpr size_t min_network_token_bytes = 16;

struct daemon_options {
  std::string http_address;
  int64_t http_port;
  int64_t http_threads;
  int64_t http_body_limit;
  int64_t http_max_connections;
  int64_t http_max_connections_per_address;
  std::string http_trusted_proxies;
  std::string http_exempt_addresses;
  int64_t http_read_timeout_ms;
  int64_t http_request_timeout_ms;
  int64_t http_body_idle_timeout_ms;
  int64_t http_shutdown_timeout_ms;
  std::string http_write_token;      ///< after validate_and_resolve: from the option, its file or the environment
  std::string http_write_token_file;
  std::string http_writes;           ///< auto | open | closed
  std::string http_allowed_hosts;
  bool http_allow_open_writes_on_network;
  std::string http_metrics;          ///< open | token
  int64_t http_body_budget_bytes;
  std::string db_dsn;
  int64_t db_pool_size;
  int64_t db_queue_size;
  int64_t db_reconnect_grace_ms;
  int64_t db_query_timeout_ms;
  int64_t db_write_pool_size;
  int64_t db_list_pool_size;
  std::string db_driver;
  int64_t db_pipeline_depth;
  std::string db_replicas;         ///< standby DSNs separated by ';' (replica_dsns() splits them)
  int64_t db_replica_pool_size;    ///< 0 = db.pool-size
  int64_t db_replica_max_lag_ms;
  int64_t db_replica_wait_ms;
  bool db_replica_lsn_check;
  std::string documents_file; ///< the declaration file; empty = the demo's kinds and routes
  int64_t cache_shards;
  std::string cache_mode;
  int64_t cache_memory_bytes;
  int64_t cache_fill_timeout_ms;
  bool cache_populate;
  int64_t cache_populate_page;
  int64_t cache_stale_if_error;  ///< seconds, 0 = off
  int64_t cache_negative_ttl;    ///< seconds, 0 = off
  int64_t cache_negative_share;  ///< percent of cache.memory-bytes
  std::string cache_no_cache;    ///< ignore | honour
  int64_t cache_refresh_interval_ms;
  std::string changelog_feed;     ///< auto | wal | triggers
  bool changelog_wal_relay;       ///< follow the WAL relay rather than a slot of its own
  int64_t changelog_slot_create_wait_ms;
  int64_t changelog_retention;
  int64_t changelog_max_pending;
  int64_t changelog_poll_interval_ms;
  int64_t changelog_drift_interval_ms;
  int64_t changelog_warn_bytes;
  std::string lmdb_path;
  int64_t lmdb_max_bytes;
  int64_t lmdb_batch_size;
  int64_t lmdb_flush_interval_ms;
  int64_t lmdb_max_queue;
  std::string lmdb_sync;
  std::string log_level;
  std::string log_format;
  std::string log_file;
  bool log_access;
  std::string log_access_file;
  std::string inspect_socket; ///< empty: no inspector
  std::string runtime_scheduler; ///< io | caf

  // The text options above that name a choice, parsed by
  // validate_and_resolve (after the option table checked the text).
  restcache::cache_mode mode = restcache::cache_mode::tiered;
  db_driver_kind driver = db_driver_kind::async;
  lmdb_sync_kind sync = lmdb_sync_kind::durable;
  scheduler_kind scheduler = scheduler_kind::io;
  /// http.writes resolved: writes need the token / are open / are refused.
  write_access writes = write_access::open;
};

/// One option: where its value lives, its default, and what is allowed.
struct option_spec {
  enum class kind { text, integer, flag };
  std::string group;
  std::string name;
  kind type;
  void* target;                      ///< std::string*, int64_t* or bool*
  std::string default_text;          ///< as --help and --dump-config show it
  std::string help;                  ///< one line for --help; the options page prints it too
  /// Markdown only the options page (docs/configuration.md) prints after the
  /// help: details, figures and links --help has no room for.
  std::string note;
  /// What the default stands for when start-up derives it from the machine
  /// or another option ("one per core"); the page shows it, as it must be the
  /// same on every machine.
  std::string default_means;
  bool in_bytes = false;             ///< integers: a byte size (the page adds KiB, MiB, GiB)
  int64_t min = 0;                   ///< integers: the allowed range
  int64_t max = 0;
  std::vector<std::string> choices;  ///< text: the allowed values (empty: any)
  bool secret = false;               ///< --dump-config masks it

  std::string key() const { return group + "." + name; }
  /// "an integer 1..1000", "one of tiered, memory, lmdb, none", ...
  std::string allowed() const;
  /// The value as --dump-config writes it (a config-file literal).
  std::string current_literal() const;
  /// Checks a value given as text (command line, config file). Returns the
  /// problem ("expected an integer 0..65535"), or nullopt.
  std::optional<std::string> check_text(const std::string& value) const;
  /// Checks the value stored now (after CAF parsed it).
  std::optional<std::string> check_current() const;
};

class restcache_config : public caf::actor_system_config {
public:
  restcache_config();

  daemon_options opts;
  /// The configuration file read (or looked for) and whether it existed.
  std::string config_file_used;
  bool config_file_found = false;

  /// Reads the command line and the configuration file, checks every value
  /// and resolves the automatic ones. Handles --help, --version,
  /// --options-page and --dump-config (prints, returns 0) and refuses bad
  /// input with one line on stderr (returns 2). nullopt: go on and run the
  /// daemon.
  std::optional<int> read_options(int argc, char** argv);

  const std::vector<option_spec>& specs() const noexcept { return specs_; }

  /// After parsing: checks every value and resolves the automatic ones
  /// (0 = derive from the machine). Returns a line naming the first bad
  /// option, its value and what is allowed, or nullopt.
  std::optional<std::string> validate_and_resolve();

  cache_mode resolved_cache_mode() const;
  /// cache.mode is tiered or lmdb.
  bool uses_lmdb() const;
  /// runtime.scheduler=io: the actors run on the HTTP io threads.
  bool uses_io_scheduler() const;
  /// db.replicas split at ';', each trimmed, empty ones left out.
  std::vector<std::string> replica_dsns() const;
  /// http.allowed-hosts split at ',', each trimmed and in lower case.
  std::vector<std::string> allowed_hosts() const;
  /// http.trusted-proxies parsed (validate_and_resolve() has refused a bad one).
  ip_network_list trusted_proxies() const;
  /// http.exempt-addresses parsed (validate_and_resolve() has refused a bad one).
  ip_network_list exempt_addresses() const;

  /// --help: every option with its default and what is allowed.
  std::string help_text() const;
  /// --dump-config: the effective configuration as a config file.
  std::string dump_text() const;
  /// --options-page: docs/configuration.md, every option with its declared
  /// default, what is allowed and what it means, as Markdown. Depends on
  /// nothing of the machine or of the options read.
  std::string options_page() const;

private:
  const option_spec* find_spec(const std::string& key) const;
  /// The write token from the option, its file or the environment; who may
  /// write (http.writes); the refusal of open writes beyond loopback.
  std::optional<std::string> resolve_write_access();

  std::vector<option_spec> specs_;
};

/// Why an option restcache no longer has is gone, and what replaced it, as a
/// sentence for the refusal of a file or command line that names it; nullopt
/// for any other key.
std::optional<std::string> removed_option_note(const std::string& key);

/// The physical memory of the machine in bytes (0 when unknown).
int64_t physical_memory_bytes();

} // namespace restcache
