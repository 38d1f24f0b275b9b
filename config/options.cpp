// SPDX-License-Identifier: Apache-2.0
#include "config/options.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <thread>

#include "config/defaults.hpp"
#include "messages/text.hpp"

namespace restcache {

namespace {

int64_t cores() {
  return std::max<int64_t>(1, std::thread::hardware_concurrency());
}

constexpr int64_t int_max = std::numeric_limits<int64_t>::max();

/// The values of an option that names a choice, in the order --help lists
/// them: the option's allowed texts and the enum they parse into.
template <class Enum>
struct named {
  std::string_view name;
  Enum value;
};

constexpr named<db_driver_kind> db_drivers[] = {{"threads", db_driver_kind::threads}, {"async", db_driver_kind::async}};
constexpr named<cache_mode> cache_modes[] = {
  {"tiered", cache_mode::tiered}, {"memory", cache_mode::memory}, {"lmdb", cache_mode::lmdb}, {"none", cache_mode::none}};
constexpr named<lmdb_sync_kind> lmdb_syncs[] = {
  {"durable", lmdb_sync_kind::durable}, {"no-meta-sync", lmdb_sync_kind::no_meta_sync}, {"no-sync", lmdb_sync_kind::no_sync}};
constexpr named<scheduler_kind> schedulers[] = {{"io", scheduler_kind::io}, {"caf", scheduler_kind::caf}};

template <class Enum, size_t N>
std::vector<std::string> names_of(const named<Enum> (&table)[N]) {
  std::vector<std::string> out;
  for (auto& n : table)
    out.emplace_back(n.name);
  return out;
}

/// The value `text` names; the spec checked the text is one of names_of(table).
template <class Enum, size_t N>
Enum value_of(const named<Enum> (&table)[N], const std::string& text) {
  for (auto& n : table)
    if (text == n.name)
      return n.value;
  return table[0].value;
}

std::optional<int64_t> parse_integer(const std::string& s) {
  if (s.empty())
    return std::nullopt;
  size_t i = s[0] == '-' ? 1 : 0;
  if (i == s.size())
    return std::nullopt;
  int64_t v = 0;
  for (; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9')
      return std::nullopt;
    if (v > (int_max - (s[i] - '0')) / 10)
      return std::nullopt; // overflow
    v = v * 10 + (s[i] - '0');
  }
  return s[0] == '-' ? -v : v;
}

/// Builds the table: each add_* sets the variable to its default and
/// registers it with CAF under group.name.
class spec_builder {
public:
  spec_builder(std::vector<option_spec>& specs, caf::config_option_set& caf_opts, std::string group)
    : specs_(specs), caf_opts_(caf_opts), group_(std::move(group)) {}

  spec_builder& integer(int64_t& var, const char* name, int64_t def, int64_t min, int64_t max,
                        std::string help) {
    var = def;
    add(name, option_spec::kind::integer, &var, std::to_string(def), std::move(help)).min = min;
    specs_.back().max = max;
    caf::actor_system_config::opt_group{caf_opts_, group_.c_str()}.add(var, name, specs_.back().help.c_str());
    return *this;
  }

  spec_builder& text(std::string& var, const char* name, const char* def, std::string help,
                     std::vector<std::string> choices = {}, bool secret = false) {
    var = def;
    auto& s = add(name, option_spec::kind::text, &var, def, std::move(help));
    s.choices = std::move(choices);
    s.secret = secret;
    caf::actor_system_config::opt_group{caf_opts_, group_.c_str()}.add(var, name, s.help.c_str());
    return *this;
  }

  spec_builder& flag(bool& var, const char* name, bool def, std::string help) {
    var = def;
    add(name, option_spec::kind::flag, &var, def ? "true" : "false", std::move(help));
    caf::actor_system_config::opt_group{caf_opts_, group_.c_str()}.add(var, name, specs_.back().help.c_str());
    return *this;
  }

  // These describe the option added last, for the options page only.
  /// A longer note in Markdown, printed after the help.
  spec_builder& note(std::string markdown) {
    specs_.back().note = std::move(markdown);
    return *this;
  }
  /// What the default stands for once start-up resolves it ("one per core").
  spec_builder& default_means(std::string markdown) {
    specs_.back().default_means = std::move(markdown);
    return *this;
  }
  /// The integer is a byte size.
  spec_builder& in_bytes() {
    specs_.back().in_bytes = true;
    return *this;
  }

private:
  option_spec& add(const char* name, option_spec::kind k, void* target, std::string def, std::string help) {
    option_spec s;
    s.group = group_;
    s.name = name;
    s.type = k;
    s.target = target;
    s.default_text = std::move(def);
    s.help = std::move(help);
    specs_.push_back(std::move(s));
    return specs_.back();
  }

  std::vector<option_spec>& specs_;
  caf::config_option_set& caf_opts_;
  std::string group_;
};

} // namespace

int64_t physical_memory_bytes() {
  auto pages = sysconf(_SC_PHYS_PAGES);
  auto page = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? int64_t(pages) * int64_t(page) : 0;
}

std::string option_spec::allowed() const {
  switch (type) {
    case kind::flag:
      return "a flag (--" + key() + " on the command line, true or false in a config file)";
    case kind::integer:
      if (max == int_max)
        return "an integer >= " + std::to_string(min);
      return "an integer " + std::to_string(min) + ".." + std::to_string(max);
    case kind::text:
      return choices.empty() ? "a string" : "one of " + join(choices, ", ");
  }
  return {};
}

std::string option_spec::current_literal() const {
  switch (type) {
    case kind::flag:
      return *static_cast<const bool*>(target) ? "true" : "false";
    case kind::integer:
      return std::to_string(*static_cast<const int64_t*>(target));
    case kind::text: {
      std::string out = "\"";
      for (char c : *static_cast<const std::string*>(target)) {
        if (c == '"' || c == '\\')
          out += '\\';
        out += c;
      }
      return out + "\"";
    }
  }
  return {};
}

std::optional<std::string> option_spec::check_text(const std::string& value) const {
  switch (type) {
    case kind::flag:
      if (value == "true" || value == "false")
        return std::nullopt;
      return "expected " + allowed();
    case kind::integer: {
      auto v = parse_integer(value);
      if (!v || *v < min || *v > max)
        return "expected " + allowed();
      return std::nullopt;
    }
    case kind::text:
      if (!choices.empty() && std::find(choices.begin(), choices.end(), value) == choices.end())
        return "expected " + allowed();
      return std::nullopt;
  }
  return std::nullopt;
}

std::optional<std::string> option_spec::check_current() const {
  switch (type) {
    case kind::flag:
      return std::nullopt;
    case kind::integer: {
      auto v = *static_cast<const int64_t*>(target);
      if (v < min || v > max)
        return "expected " + allowed();
      return std::nullopt;
    }
    case kind::text:
      return check_text(*static_cast<const std::string*>(target));
  }
  return std::nullopt;
}

restcache_config::restcache_config() {
  auto& o = opts;
  using std::string;
  namespace d = defaults;
  // Each option's help is the line --help shows; .note() adds what only the
  // options page (docs/configuration.md, restcached --options-page) prints.
  spec_builder{specs_, custom_options_, "http"}
    .text(o.http_address, "address", d::http_address, "address to listen on")
    .note("An address that is not loopback with writes that need no token refuses to start (see "
          "`http.allow-open-writes-on-network`).")
    .integer(o.http_port, "port", d::http_port, 0, 65535,
             "TCP port to listen on, 0 picks a free one (printed on stdout)")
    .integer(o.http_threads, "threads", d::http_threads, 0, 256,
             "io threads serving HTTP (and, with runtime.scheduler=io, running the actors), "
             "0 = one per core (half the cores with runtime.scheduler=caf)")
    .default_means("one per core; half the cores (at least 1) with `runtime.scheduler=caf`")
    .integer(o.http_body_limit, "body-limit", d::http_body_limit, 1, int_max, "largest request body in bytes")
    .in_bytes()
    .note("A department of 10,000 employees (the most one body may carry) is about 1.5 MB.")
    .text(o.http_write_token, "write-token", d::http_write_token,
          "when set, writes need 'Authorization: Bearer <token>' (401 without it); prefer write-token-file or the "
          "RESTCACHE_WRITE_TOKEN environment variable (the command line shows in ps)", {}, true)
    .note("`--dump-config` masks it. See \"Security\" in [operating.md](operating.md).")
    .text(o.http_write_token_file, "write-token-file", d::http_write_token_file,
          "file holding the write token (a systemd credential, say); surrounding whitespace ignored")
    .note("With neither this nor `http.write-token`, the token is the `RESTCACHE_WRITE_TOKEN` environment "
          "variable when it is set. Both options given are refused at start.")
    .text(o.http_writes, "writes", d::http_writes,
          "auto: writes need the token when one is given, else are open (to http.allowed-hosts); open: no "
          "credentials (refused at start with a token given); closed: every write answers 403",
          {"auto", "open", "closed"})
    .note("See \"Security\" in [operating.md](operating.md); the writes themselves are in [api.md](api.md).")
    .text(o.http_allowed_hosts, "allowed-hosts", d::http_allowed_hosts,
          "with writes open: the Host names (port left out, any case) a write may carry, comma separated, * = any")
    .note("The loopback names of the default keep a web page in a browser on the same machine from writing "
          "through DNS rebinding.")
    .flag(o.http_allow_open_writes_on_network, "allow-open-writes-on-network",
          d::http_allow_open_writes_on_network,
          "start even though http.address is not loopback and writes need no token (refused otherwise, with "
          "one line saying why)")
    .text(o.http_metrics, "metrics", d::http_metrics,
          "open: /metrics answers anyone; token: it needs the write token (/health and /ready stay open)",
          {"open", "token"})
    .note("`token` without a write token is refused at start.")
    .integer(o.http_body_budget_bytes, "body-budget-bytes", d::http_body_budget_bytes, 1, int_max,
             "request body bytes all connections together may hold; beyond it a write gets 503")
    .in_bytes()
    .note("A body counts from when it is read until its write is answered. At least `http.body-limit`, or "
          "start-up is refused.")
    .integer(o.http_max_connections, "max-connections", d::http_max_connections, 1, 1'000'000,
             "open connections beyond which new ones get 503")
    .note("A client that sends no credentials can make a connection hold about 100 KiB, so the daemon holds at "
          "most this many times that plus `http.body-budget-bytes` (with the defaults about 1.05 GiB); lower it "
          "to lower the bound. See \"Security\" in [operating.md](operating.md).")
    .integer(o.http_max_connections_per_address, "max-connections-per-address",
             d::http_max_connections_per_address, 0, 1'000'000,
             "open connections one client address may have; at the cap its connection idle longest (else the "
             "one slowest to send its request) is closed for the new one, 0 = no cap")
    .note("With every one of the address's connections answering, the new one gets 429. An IPv6 client counts "
          "by its /64. Behind a balancer the address is the one its PROXY header names (`http.trusted-proxies`); "
          "a trusted balancer's own connections, and `http.exempt-addresses`, are not capped.")
    .text(o.http_exempt_addresses, "exempt-addresses", d::http_exempt_addresses,
          "addresses or networks (comma separated) limited neither by http.max-connections-per-address nor "
          "by the slow-down of wrong tokens; empty = none")
    .note("By default this host's own: a reverse proxy here that cannot name its clients (nginx's HTTP proxy) "
          "would otherwise put all of them in one address's share, and a load generator here could not open "
          "more than 64 connections. A client on another host is limited; list a remote reverse proxy here "
          "only if it limits its clients itself.")
    .text(o.http_trusted_proxies, "trusted-proxies", d::http_trusted_proxies,
          "balancers (addresses or networks, comma separated) whose connections may begin with a PROXY "
          "protocol v2 header naming the client; empty = none")
    .note("The client it names is the one `http.max-connections-per-address`, the slow-down of wrong tokens "
          "and the access log see. A connection from such an address without the header is the balancer's "
          "own (a health check, a local tool). See \"Behind a balancer\" in [operating.md](operating.md).")
    .integer(o.http_read_timeout_ms, "read-timeout-ms", d::http_read_timeout_ms, 1, int_max,
             "ms a connection may stay idle between requests, and a client may take to read an answer")
    .integer(o.http_request_timeout_ms, "request-timeout-ms", d::http_request_timeout_ms, 1, int_max,
             "ms from a request's first byte by which its header and body must have arrived; trickled bytes "
             "do not extend it")
    .integer(o.http_body_idle_timeout_ms, "body-idle-timeout-ms", d::http_body_idle_timeout_ms, 1, int_max,
             "ms a request body may send nothing before its connection is closed (and its share of "
             "http.body-budget-bytes given back)")
    .integer(o.http_shutdown_timeout_ms, "shutdown-timeout-ms", d::http_shutdown_timeout_ms, 0, 600'000,
             "on SIGTERM/SIGINT, ms requests in flight may take to finish");
  spec_builder{specs_, custom_options_, "db"}
    .text(o.db_dsn, "dsn", d::db_dsn,
          "libpq connection string; PG* environment variables fill in what it leaves out", {}, true)
    .note("Those are `PGHOST`, `PGPORT`, `PGUSER`, `PGPASSWORD`, `PGDATABASE` and the others, and "
          "`~/.pgpass` supplies a password too; empty uses them alone. `--dump-config` masks a password. "
          "For failover give every server with `target_session_attrs=read-write` (see \"Fills from streaming "
          "standbys\" in [operating.md](operating.md)).")
    .integer(o.db_pool_size, "pool-size", d::db_pool_size, 1, 1000,
             "pooled PostgreSQL connections that fill the caches")
    .integer(o.db_queue_size, "queue-size", d::db_queue_size, 1, int_max,
             "fills that may wait for a connection before 503")
    .note("A fill waits when all `db.pool-size` x `db.pipeline-depth` places are taken.")
    .integer(o.db_reconnect_grace_ms, "reconnect-grace-ms", d::db_reconnect_grace_ms, 0, 60'000,
             "ms a pool keeps its borrowers waiting when its last connection went down, before 503; 0 = none")
    .note("Connections reconnect at once: a terminated session or a PostgreSQL restart is a blip the "
          "borrowers wait out (one timer per outage, in the queue of `db.queue-size`), not a burst of 503. "
          "Past it, and until a connection is up again, they are answered at once (`cache.stale-if-error`). "
          "A start with the database down is answered at once. See \"A hiccup is not an outage\" in "
          "[freshness.md](freshness.md).")
    .integer(o.db_query_timeout_ms, "query-timeout-ms", d::db_query_timeout_ms, 1, int_max,
             "server-side statement timeout in ms (a query past it answers 504)")
    .integer(o.db_write_pool_size, "write-pool-size", d::db_write_pool_size, 1, 1000,
             "connections (each on its own thread) for writes, apart from the fill pool")
    .integer(o.db_list_pool_size, "list-pool-size", d::db_list_pool_size, 1, 1000,
             "connections (each on its own thread) for the demo's list pages, apart from the write and fill pools")
    .note("A flood of pages waits for these, never for a write's connections.")
    .text(o.db_driver, "driver", d::db_driver,
          "threads: a thread per connection; async: one thread drives all", names_of(db_drivers))
    .note("The `async` loop drives every fill connection's socket with libpq's asynchronous API on an io "
          "thread (a thread of its own with `runtime.scheduler=caf`); writes always use threads of their own. With `cache.mode=none` under wrk -c64, async served 10-20% "
          "more here and cost about 25% less CPU per query (`restcache-bench-dbhop` compares the hops alone).")
    .integer(o.db_pipeline_depth, "pipeline-depth", d::db_pipeline_depth, 1, 1000,
             "driver async: fills one connection runs at once (libpq pipeline mode)")
    .note("The statements are sent together and answered in order; a fill takes the first connection with "
          "room, so concurrent fills share round trips. With `cache.mode=none`, depth 8 served 1.4-1.5x depth 1 "
          "here (wrk -c8 and -c64).")
    .text(o.db_replicas, "replicas", d::db_replicas,
          "streaming standbys that fills read from: libpq connection strings separated by ';' "
          "(the listener, replays, writes and list pages stay on db.dsn)", {}, true)
    .note("See \"Fills from streaming standbys\" in [operating.md](operating.md). `--dump-config` masks it.")
    .integer(o.db_replica_pool_size, "replica-pool-size", d::db_replica_pool_size, 0, 1000,
             "fill connections per standby, 0 = db.pool-size")
    .default_means("`db.pool-size`")
    .integer(o.db_replica_max_lag_ms, "replica-max-lag-ms", d::db_replica_max_lag_ms, 0, int_max,
             "a standby further behind than this (ms since its last replayed commit) gets no fills")
    .note("Measured while WAL waits to be replayed. A standby that is down gets no fills either.")
    .integer(o.db_replica_wait_ms, "replica-wait-ms", d::db_replica_wait_ms, 0, int_max,
             "ms a fill waits for a standby to replay the key's last change before reading db.dsn")
    .flag(o.db_replica_lsn_check, "replica-lsn-check", d::db_replica_lsn_check,
          "use a standby's document only if it had replayed the key's last change; "
          "off only in tests and benches, to count what a naive standby read serves stale");
  spec_builder{specs_, custom_options_, "documents"}
    .text(o.documents_file, "file", d::documents_file,
          "the declaration file (TOML) of the documents served; empty: those applied to the database, else "
          "the demo's departments and employees")
    .default_means("the declarations applied to the database (restcache-load --documents FILE --schema-only); "
                   "with none, the demo's, with its writes and list routes")
    .note("Read and checked at start: a file that is refused, or that is not the one applied to the database, "
          "stops the daemon with every reason, each with its line. See [declarations.md](declarations.md).");
  spec_builder{specs_, custom_options_, "cache"}
    .integer(o.cache_shards, "shards", d::cache_shards, 0, 4096, "cache shard actors, 0 = one per core")
    .default_means("one per core")
    .text(o.cache_mode, "mode", d::cache_mode,
          "tiered: memory, then LMDB, then PostgreSQL; memory: memory, then PostgreSQL; lmdb: LMDB, then "
          "PostgreSQL; none: every GET goes to PostgreSQL",
          names_of(cache_modes))
    .integer(o.cache_memory_bytes, "memory-bytes", d::cache_memory_bytes, 0, int_max,
             "byte budget of the memory tier (evicted with CLOCK), 0 = a quarter of RAM")
    .in_bytes()
    .default_means("a quarter of the machine's physical memory")
    .integer(o.cache_fill_timeout_ms, "fill-timeout-ms", d::cache_fill_timeout_ms, 1, int_max,
             "a fill not done by then answers 504 to its waiters")
    .flag(o.cache_populate, "populate", d::cache_populate,
          "load every kind that declares a populate plan into the tiers at start-up, up to the budget")
    .note("Once the change listener has caught up, each kind with a `[kind.populate]` plan (the demo's "
          "departments; see docs/declarations.md) is read in key order, in pages of `cache.populate-page` "
          "documents, one kind after the other, into the tiers, with progress in the log, up to 95% of the "
          "memory budget (`cache.mode=lmdb`: every document). Kinds without one are read on their first GET.")
    .integer(o.cache_populate_page, "populate-page", d::cache_populate_page, 1, 100'000,
             "documents per populate query (a populate plan's $2)")
    .integer(o.cache_stale_if_error, "stale-if-error", d::cache_stale_if_error, 0, 86'400 * 365,
             "seconds after the change listener last caught up that a cached document answers a fill "
             "PostgreSQL could not serve, marked stale-if-error; 0 = never")
    .note("The answer carries `Cache-Status: restcache; hit; detail=stale-if-error` and `Age`; a document not "
          "cached answers 503 with `Retry-After`. Five minutes cover a PostgreSQL restart, a crash recovery of a "
          "modest database and a managed failover. See \"When PostgreSQL cannot be reached\" in "
          "[freshness.md](freshness.md).")
    .integer(o.cache_negative_ttl, "negative-ttl", d::cache_negative_ttl, 0, 86'400 * 365,
             "seconds an id found missing is remembered (its INSERT drops it sooner); 0 = never")
    .note("See \"Missing ids\" in [api.md](api.md).")
    .integer(o.cache_negative_share, "negative-share", d::cache_negative_share, 0, 100,
             "percent of cache.memory-bytes that ids remembered missing (200 bytes each, a long text key more) may take")
    .text(o.cache_no_cache, "no-cache", d::cache_no_cache,
          "a client's Cache-Control: no-cache: ignore (every document is kept fresh by the change feed), "
          "or honour (a refresh per key per cache.refresh-interval-ms reaches PostgreSQL)",
          {"ignore", "honour"})
    .note("`ignore` is what nginx's proxy cache and Varnish's built-in rules do: a cache in front of a database "
          "must not let anonymous clients choose the database's load. See \"No-cache from clients\" in [api.md](api.md).")
    .integer(o.cache_refresh_interval_ms, "refresh-interval-ms", d::cache_refresh_interval_ms, 0, int_max,
             "with cache.no-cache=honour, ms during which further refreshes of a key are answered from the tiers; "
             "0 = no limit");
  spec_builder{specs_, custom_options_, "changelog"}
    .text(o.changelog_feed, "feed", d::changelog_feed,
          "how committed changes reach this instance: auto follows the database's feed (restcache-load --feed); "
          "wal or triggers require that one and keep the instance uncached (its log says why) where the database "
          "has the other",
          {"auto", "wal", "triggers"})
    .note("The WAL feed streams one logical replication slot per instance, named from the cluster and an id kept "
          "with the LMDB file (temporary for `cache.mode` `memory`), or one for them all with `changelog.wal-relay`. "
          "See \"The WAL feed\" in "
          "[freshness.md](freshness.md) and [operating.md](operating.md).")
    .flag(o.changelog_wal_relay, "wal-relay", d::changelog_wal_relay,
          "under the WAL feed, one instance of the database (whichever holds the relay's lock) streams one slot "
          "and writes what it decoded to restcache's table wal_relay; this instance reads it from there, and stands "
          "in for the leader when it goes")
    .note("Each slot costs the primary a walsender decoding all of its WAL: from about three instances, the relay "
          "costs the writers less than a slot each (ten: 34 against 221 µs of the primary's CPU a write). A follower "
          "drops a document after the leader's window, its write to `wal_relay` and its notification; the table "
          "keeps rows for `changelog.retention`. Set it alike on every instance of a database. See \"The WAL relay\" in "
          "[operating.md](operating.md).")
    .integer(o.changelog_slot_create_wait_ms, "slot-create-wait", d::changelog_slot_create_wait_ms, 100, 600'000,
             "ms a new slot (the WAL feed's, or the relay's) may wait for the transactions running when it is made "
             "to end; past it the creation is cancelled, the log names them, and the instance stays uncached and "
             "tries again")
    .note("PostgreSQL makes a logical slot consistent only once every transaction that had a transaction id when "
          "it began has ended, in every database of the cluster, prepared ones too: a transaction left prepared holds "
          "it until `COMMIT PREPARED` or `ROLLBACK PREPARED`. The log line names each (`pg_prepared_xacts`' gid, "
          "`pg_stat_activity`'s pid).")
    .integer(o.changelog_retention, "retention", d::changelog_retention, 0, int_max,
             "seconds change-log entries (and the WAL relay's rows) are kept once applied, 0 = never prune")
    .note("An instance down for longer drops its tiers when it comes back. See \"Pruning\" in "
          "[freshness.md](freshness.md) and \"Running several instances\" in [operating.md](operating.md).")
    .integer(o.changelog_max_pending, "max-pending", d::changelog_max_pending, 1, int_max,
             "changed keys coalesced (or replayed) at once while the shards catch up; beyond, both tiers are "
             "dropped")
    .integer(o.changelog_poll_interval_ms, "poll-interval", d::changelog_poll_interval_ms, 5, 10'000,
             "ms between reads of the change log; a committed change is dropped from the tiers within about "
             "this (plus the shards' work)")
    .note("Each instance runs one small statement per interval on the primary, whether anything changed or "
          "not. Under the WAL feed, the commits that follow a first one within this interval are applied as one "
          "round (through the WAL relay, written as one row by its leader; its followers wait for the leader's "
          "notification instead of reading each interval). See \"From a commit to a dropped key\" in [freshness.md](freshness.md).")
    .integer(o.changelog_drift_interval_ms, "drift-interval", d::changelog_drift_interval_ms, 100, 600'000,
             "ms between checks of the watched tables' catalog: restcache's triggers present and enabled ALWAYS, "
             "the columns the documents read unchanged")
    .note("Also checked at every (re)connect. A kind whose tables drifted is answered from PostgreSQL and not "
          "cached until repaired; a change made unseen drops the kinds reading that table from both tiers once. See \"Drift\" in "
          "[freshness.md](freshness.md).")
    .integer(o.changelog_warn_bytes, "warn-bytes", d::changelog_warn_bytes, 0, int_max,
             "bytes of the change log (table and indexes) beyond which the listener warns each minute, 0 = never")
    .in_bytes();
  spec_builder{specs_, custom_options_, "lmdb"}
    .text(o.lmdb_path, "path", d::lmdb_path, "directory of the LMDB tier, created if missing")
    .note("Relative to the working directory; `scripts/run` uses the checkout's `var/lmdb`. Needed with "
          "`cache.mode` `tiered` or `lmdb`.")
    .integer(o.lmdb_max_bytes, "max-bytes", d::lmdb_max_bytes, int64_t{1} << 20, int_max,
             "byte budget of the LMDB file, oldest-written records evicted; about 4 KB per document")
    .in_bytes()
    .note("See [lmdb.md](lmdb.md).")
    .integer(o.lmdb_batch_size, "batch-size", d::lmdb_batch_size, 1, 1'000'000,
             "records per write transaction")
    .integer(o.lmdb_flush_interval_ms, "flush-interval", d::lmdb_flush_interval_ms, 1, int_max,
             "ms a smaller batch waits before it is written")
    .integer(o.lmdb_max_queue, "max-queue", d::lmdb_max_queue, 1, int_max,
             "records queued for writing beyond which new ones are dropped (at least lmdb.batch-size)")
    .note("Dropped records are counted (`restcache_batch_records_dropped_total`).")
    .text(o.lmdb_sync, "sync", d::lmdb_sync, "when LMDB commits reach the disk", names_of(lmdb_syncs))
    .note("`durable`: every commit is synced to disk, a crash loses nothing committed; `no-meta-sync`: the "
          "meta page is not, so an OS crash or power loss may undo the last commits; `no-sync`: nothing is, so "
          "an OS crash or power loss may lose the last commits and may corrupt the file. A crash of the daemon "
          "alone loses nothing with any. See \"Sync and crashes\" in [lmdb.md](lmdb.md).");
  spec_builder{specs_, custom_options_, "log"}
    .text(o.log_level, "level", d::log_level, "least severe level logged",
          {"trace", "debug", "info", "warn", "error", "critical", "off"})
    .text(o.log_format, "format", d::log_format, "text lines, or one JSON object per line",
          {"text", "json"})
    .text(o.log_file, "file", d::log_file, "log file, reopened on SIGHUP (empty: stderr)")
    .flag(o.log_access, "access", d::log_access, "log one line per answered request")
    .text(o.log_access_file, "access-file", d::log_access_file,
          "access log file, reopened on SIGHUP (empty: where the log goes)");
  spec_builder{specs_, custom_options_, "inspect"}
    .text(o.inspect_socket, "socket", d::inspect_socket,
          "Unix socket restcache-inspect reaches the inspector on, mode 0600 (the daemon's user and root); "
          "empty = off")
    .note("No TCP port is opened for it (`inspect.port` was removed). See \"Looking inside\" in "
          "[operating.md](operating.md).");
  spec_builder{specs_, custom_options_, "runtime"}
    .text(o.runtime_scheduler, "scheduler", d::runtime_scheduler,
          "io: the actors run on the HTTP io threads; caf: CAF's own scheduler on threads of its own next to "
          "the HTTP threads",
          names_of(schedulers));
  // With runtime.scheduler=caf: the work-sharing scheduler wakes workers promptly for request/response
  // hops; work stealing backs off with sleeps (toolchain notes).
  set("scheduler.policy", caf::atom("sharing"));
  // One CAF thread next to the asio threads measured best on 2 cores.
  set("scheduler.max-threads", static_cast<size_t>(std::max<int64_t>(1, cores() / 2)));
}

std::optional<std::string> removed_option_note(const std::string& key) {
  if (key == "cache.on-listener-loss")
    return "cache.on-listener-loss was removed: GETs always bypass the tiers while the change listener is "
           "not caught up, and cache.stale-if-error bounds and marks what the serve policy answered";
  if (key == "changelog.mark-interval")
    return "changelog.mark-interval was removed: the listener reads the change log every changelog.poll-interval "
           "ms, and each read is its own watermark mark";
  if (key == "inspect.port")
    return "inspect.port was removed: use inspect.socket (a Unix socket only the daemon's user and root can "
           "reach); the TCP port was served by CAF's middleman, which cannot bound what an unauthenticated "
           "peer makes it allocate";
  return std::nullopt;
}

const option_spec* restcache_config::find_spec(const std::string& key) const {
  for (auto& s : specs_)
    if (s.key() == key)
      return &s;
  return nullptr;
}

std::optional<std::string> restcache_config::validate_and_resolve() {
  auto& o = opts;
  for (auto& s : specs_)
    if (auto problem = s.check_current())
      return "invalid value " + s.current_literal() + " for " + s.key() + ": " + *problem;
  // Each text is one of its spec's choices (checked above).
  o.mode = value_of(cache_modes, o.cache_mode);
  o.driver = value_of(db_drivers, o.db_driver);
  o.sync = value_of(lmdb_syncs, o.lmdb_sync);
  o.scheduler = value_of(schedulers, o.runtime_scheduler);
  if (o.lmdb_path.empty() && uses_lmdb())
    return "invalid value \"\" for lmdb.path: cache.mode=" + o.cache_mode + " needs a directory";
  if (o.lmdb_max_queue < o.lmdb_batch_size)
    return "invalid value " + std::to_string(o.lmdb_max_queue) + " for lmdb.max-queue: expected at least lmdb.batch-size ("
           + std::to_string(o.lmdb_batch_size) + ")";
  if (auto problem = resolve_write_access())
    return problem;
  if (std::string why; !ip_network_list::parse(o.http_trusted_proxies, why))
    return "invalid value \"" + o.http_trusted_proxies + "\" for http.trusted-proxies: " + why;
  if (std::string why; !ip_network_list::parse(o.http_exempt_addresses, why))
    return "invalid value \"" + o.http_exempt_addresses + "\" for http.exempt-addresses: " + why;
  if (o.http_body_budget_bytes < o.http_body_limit)
    return "invalid value " + std::to_string(o.http_body_budget_bytes)
           + " for http.body-budget-bytes: expected at least http.body-limit (" + std::to_string(o.http_body_limit)
           + "), or no write of the largest size could be read";
  auto half = std::max<int64_t>(1, cores() / 2);
  if (o.http_threads == 0)
    o.http_threads = uses_io_scheduler() ? std::max<int64_t>(1, cores()) : half;
  // The io threads are CAF's workers: as many as serve HTTP.
  if (uses_io_scheduler())
    set("scheduler.max-threads", static_cast<size_t>(o.http_threads));
  if (o.cache_shards == 0)
    o.cache_shards = cores();
  if (o.cache_memory_bytes == 0) {
    auto ram = physical_memory_bytes();
    o.cache_memory_bytes = ram > 0 ? ram / 4 : int64_t{1} << 30;
  }
  return std::nullopt;
}

std::optional<std::string> restcache_config::resolve_write_access() {
  auto& o = opts;
  int sources = !o.http_write_token.empty() + !o.http_write_token_file.empty();
  const char* env = std::getenv(defaults::write_token_env);
  if (sources > 1)
    return "http.write-token and http.write-token-file are both given: keep one";
  if (!o.http_write_token_file.empty()) {
    std::ifstream in{o.http_write_token_file};
    if (!in)
      return "cannot read http.write-token-file '" + o.http_write_token_file + "': " + std::strerror(errno);
    std::string text{std::istreambuf_iterator<char>{in}, std::istreambuf_iterator<char>{}};
    o.http_write_token = std::string{trim(text, " \t\r\n")};
    if (o.http_write_token.empty())
      return "http.write-token-file '" + o.http_write_token_file + "' holds no token";
  } else if (o.http_write_token.empty() && env != nullptr) {
    o.http_write_token = std::string{trim(env, " \t\r\n")};
  }
  for (char c : o.http_write_token)
    if (static_cast<unsigned char>(c) <= 0x20 || static_cast<unsigned char>(c) == 0x7f)
      return "the write token holds a space or a control character: it could never be sent in a header";
  const bool has_token = !o.http_write_token.empty();
  if (o.http_writes == "closed")
    o.writes = write_access::closed;
  else if (o.http_writes == "open" && has_token)
    return "http.writes=open, but a write token is given: drop one of them (auto: the token decides)";
  else
    o.writes = has_token ? write_access::token : write_access::open;
  if (o.http_metrics == "token" && !has_token)
    return "http.metrics=token needs a write token (http.write-token-file, RESTCACHE_WRITE_TOKEN or "
           "http.write-token)";
  // Off loopback a token is all that stands between anyone and the
  // database: one short enough to guess is refused (401s are slowed too,
  // but a slow guess still gets there).
  if (has_token && !is_loopback_address(o.http_address) && o.http_write_token.size() < min_network_token_bytes)
    return "refusing to start: http.address " + o.http_address + " is not loopback and the write token is "
           + std::to_string(o.http_write_token.size()) + " bytes; one reachable from the network must be at least "
           + std::to_string(min_network_token_bytes)
           + " (for instance `head -c 24 /dev/urandom | base64` in http.write-token-file)";
  if (o.writes == write_access::open && !is_loopback_address(o.http_address)
      && !o.http_allow_open_writes_on_network)
    return "refusing to start: http.address " + o.http_address
           + " is not loopback and writes need no token, so anyone who reaches it could change the database; "
             "give a token (http.write-token-file or RESTCACHE_WRITE_TOKEN), set http.writes=closed, or pass "
             "--http.allow-open-writes-on-network to accept it";
  return std::nullopt;
}

bool is_loopback_address(const std::string& address) {
  if (address == "localhost")
    return true;
  auto a = ip_address::parse(address); // another host name may resolve to anything
  return a && ip_network_list::loopback().contains(*a);
}

cache_mode restcache_config::resolved_cache_mode() const {
  return opts.mode;
}

bool restcache_config::uses_io_scheduler() const {
  return opts.scheduler == scheduler_kind::io;
}

namespace {

/// `text` split at `separator`, each part trimmed, empty ones left out.
std::vector<std::string> split_list(std::string_view text, char separator) {
  std::vector<std::string> out;
  while (!text.empty()) {
    auto end = text.find(separator);
    auto one = trim(text.substr(0, end));
    if (!one.empty())
      out.emplace_back(one);
    text = end == std::string_view::npos ? std::string_view{} : text.substr(end + 1);
  }
  return out;
}

} // namespace

std::vector<std::string> restcache_config::replica_dsns() const {
  return split_list(opts.db_replicas, ';');
}

ip_network_list restcache_config::trusted_proxies() const {
  std::string why;
  return ip_network_list::parse(opts.http_trusted_proxies, why).value_or(ip_network_list{});
}

ip_network_list restcache_config::exempt_addresses() const {
  std::string why;
  return ip_network_list::parse(opts.http_exempt_addresses, why).value_or(ip_network_list{});
}

std::vector<std::string> restcache_config::allowed_hosts() const {
  auto names = split_list(opts.http_allowed_hosts, ',');
  for (auto& name : names)
    for (auto& c : name)
      c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return names;
}

bool restcache_config::uses_lmdb() const {
  auto mode = resolved_cache_mode();
  return mode == cache_mode::tiered || mode == cache_mode::lmdb;
}

} // namespace restcache
