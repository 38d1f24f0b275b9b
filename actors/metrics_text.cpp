// SPDX-License-Identifier: Apache-2.0
#include "actors/metrics_text.hpp"

#include <dirent.h>
#include <sys/resource.h>
#include <unistd.h>

#include <fstream>
#include <iterator>
#include <sstream>

#include "messages/doc_catalogue.hpp"
#include "messages/prometheus.hpp"
#include "persistence/lmdb/store.hpp"

namespace restcache {

namespace {

/// The samples of one series of `h`; `labels` braced, or empty.
void append_samples_of(std::string& out, const char* name, const std::string& labels, const latency_histogram& h) {
  uint64_t counts[latency_histogram::bucket_count];
  for (size_t i = 0; i < latency_histogram::bucket_count; ++i)
    counts[i] = h.buckets[i].load(std::memory_order_relaxed);
  append_histogram_samples(out, name, labels, latency_histogram::bounds, counts,
                                 std::size(latency_histogram::bounds),
                                 double(h.sum_us.load(std::memory_order_relaxed)) / 1e6);
}

/// An unlabelled histogram: header and samples.
void append_histogram_of(std::string& out, const char* name, const char* help, const latency_histogram& h) {
  append_metric_header(out, name, help, "histogram");
  append_samples_of(out, name, {}, h);
}

} // namespace

std::string shard_metrics_text(const std::vector<cache_metrics>& shards_metrics) {
  std::string out;
  auto rd = [](const auto& a) { return static_cast<int64_t>(a.load(std::memory_order_relaxed)); };
  std::vector<std::pair<std::string, const cache_metrics*>> shards;
  for (size_t i = 0; i < shards_metrics.size(); ++i)
    shards.emplace_back("{shard=\"" + std::to_string(i) + "\"}", &shards_metrics[i]);
  auto per_shard = [&](const char* name, const char* type, const char* help, auto field) {
    append_series(out, name, help, type, shards, field);
  };
  using cm = cache_metrics;
  append_metric_header(out, "restcache_cache_hits_total", "Lookups answered from a tier, by shard and tier.",
                       "counter");
  for (size_t i = 0; i < shards_metrics.size(); ++i) {
    auto shard = "{shard=\"" + std::to_string(i) + "\",tier=";
    append_sample(out, "restcache_cache_hits_total", shard + "\"memory\"}", rd(shards_metrics[i].hits));
    append_sample(out, "restcache_cache_hits_total", shard + "\"lmdb\"}", rd(shards_metrics[i].tier_hits));
  }
  append_metric_header(out, "restcache_cache_answers_total",
                       "Lookups answered, by the Cache-Status they carried (docs/api.md: Cache-Status).", "counter");
  for (size_t s = 1; s < cache_status_count; ++s) {
    int64_t sum = 0;
    for (auto& m : shards_metrics)
      sum += s == static_cast<size_t>(cache_status::memory) ? rd(m.hits)
             : s == static_cast<size_t>(cache_status::lmdb) ? rd(m.tier_hits)
                                                            : rd(m.answers[s]);
    append_sample(out, "restcache_cache_answers_total",
                  "{cache_status=\"" + std::string{cache_status_label(static_cast<cache_status>(s))} + "\"}", sum);
  }
  per_shard("restcache_cache_negative_entries", "gauge", "Ids remembered as missing (in the memory budget).",
            &cm::negative_entries);
  per_shard("restcache_cache_memory_misses_total", "counter",
            "Lookups not found in memory (then answered from LMDB or by a fill).", &cm::misses);
  per_shard("restcache_cache_coalesced_total", "counter", "Misses that joined a fill already in flight.",
            &cm::coalesced);
  per_shard("restcache_cache_fills_total", "counter", "Fills started (one database query each).", &cm::fills);
  per_shard("restcache_cache_fill_errors_total", "counter", "Fills that failed or timed out.", &cm::fill_errors);
  per_shard("restcache_cache_fills_discarded_total", "counter",
            "Fills overtaken by an invalidation, not cached.", &cm::fills_discarded);
  per_shard("restcache_cache_evictions_total", "counter", "Entries evicted to stay within the byte budget.",
            &cm::evictions);
  per_shard("restcache_cache_invalidations_total", "counter", "Invalidations applied.", &cm::invalidations);
  per_shard("restcache_cache_populated_total", "counter", "Entries stored by cache.populate.", &cm::populated);
  per_shard("restcache_cache_expired_total", "counter",
            "Documents found past their kind's ttl in memory, read again.", &cm::expired);
  per_shard("restcache_cache_over_cap_total", "counter",
            "Documents larger than their kind's max_bytes: answered, not kept.", &cm::over_cap);
  per_shard("restcache_cache_entries", "gauge", "Documents held in memory.", &cm::entries);
  per_shard("restcache_cache_bytes", "gauge", "Bytes charged against the memory budget.", &cm::bytes);
  return out;
}

std::string lmdb_metrics_text(const lmdb::store* store, const batch_metrics& m) {
  std::string out;
  auto rd = [](const auto& a) { return static_cast<int64_t>(a.load(std::memory_order_relaxed)); };
  append_metric_header(out, "restcache_lmdb_tier_state",
                       "1 for the LMDB tier's state: ok, degraded (commits fail, reads go on), off (not opened).",
                       "gauge");
  auto state = m.status.state();
  for (auto s : {tier_state::ok, tier_state::degraded, tier_state::off})
    append_sample(out, "restcache_lmdb_tier_state", std::string{"{state=\""} + to_string(s) + "\"}",
                  int64_t{s == state});
  auto c = store ? store->counters() : lmdb::store_counters{};
  // A tier LMDB gave up on fails every read: its gauges are left out then.
  int64_t bytes = -1, records = -1;
  if (store) {
    try {
      bytes = static_cast<int64_t>(store->bytes());
      records = static_cast<int64_t>(store->count());
    } catch (const std::exception&) {
    }
  }
  if (bytes >= 0) {
    append_metric(out, "restcache_lmdb_bytes", "Bytes of pages in use in the LMDB file.", "gauge", bytes);
    append_metric(out, "restcache_lmdb_records", "Documents held in the LMDB tier.", "gauge", records);
  }
  append_metric(out, "restcache_lmdb_budget_bytes",
                "The LMDB file's byte budget in force: lmdb.max-bytes, or what the file held when its disk ran full"
                " (until the disk has room again).",
                "gauge", static_cast<int64_t>(store ? store->budget_bytes() : 0));
  append_metric(out, "restcache_lmdb_evicted_total", "Records evicted to stay within lmdb.max-bytes.",
                "counter", static_cast<int64_t>(c.evicted));
  append_metric(out, "restcache_lmdb_garbled_total", "Stored values that failed to decode (not served).",
                "counter", static_cast<int64_t>(c.garbled));
  append_metric(out, "restcache_lmdb_disk_full_total",
                "Commits the file system refused for want of space (ENOSPC, EDQUOT); each lowers the budget.",
                "counter", static_cast<int64_t>(c.disk_full));
  append_metric(out, "restcache_lmdb_map_full_total",
                "Commits that met MDB_MAP_FULL and were retried after evicting more (each keeps more room after).",
                "counter", static_cast<int64_t>(c.map_full_retries));
  append_metric(out, "restcache_lmdb_cleared_total",
                "Times every record was dropped at once: for room when evicting did not make enough, or because"
                " the records could not be vouched for (another database history, a change log that no longer"
                " reaches back to the file's watermark; a new file is stamped with its history this way).",
                "counter", static_cast<int64_t>(c.cleared));
  append_metric(out, "restcache_lmdb_puts_skipped_total",
                "Records a commit skipped because even an empty tier had no room for them.", "counter",
                static_cast<int64_t>(c.dropped_puts));
  append_metric(out, "restcache_lmdb_read_errors_total", "LMDB reads that failed (answered as a miss).",
                "counter", static_cast<int64_t>(c.read_errors));
  append_metric(out, "restcache_batch_flushes_total", "Record transactions committed by the batch writer.",
                "counter", rd(m.flushes));
  append_metric(out, "restcache_batch_records_written_total", "Records written to the LMDB tier.",
                "counter", rd(m.records_written));
  append_metric(out, "restcache_batch_records_dropped_total",
                "Records not written: queue full or a failed transaction.", "counter",
                rd(m.records_dropped));
  append_metric(out, "restcache_batch_records_discarded_total",
                "Queued records discarded by an invalidation of their key.", "counter",
                rd(m.records_discarded));
  append_metric(out, "restcache_batch_deletes_total", "Invalidated keys deleted from the LMDB tier.",
                "counter", rd(m.deletes_written));
  append_metric(out, "restcache_batch_write_errors_total", "Failed LMDB write transactions.", "counter",
                rd(m.write_errors));
  append_metric(out, "restcache_batch_queued", "Records waiting for the next write transaction.", "gauge",
                rd(m.queued));
  append_metric(out, "restcache_batch_mailbox", "Records sent to the batch writer, not yet queued.",
                "gauge", rd(m.in_mailbox));
  append_metric(out, "restcache_batch_last_flush_seconds", "Duration of the last record transaction.",
                "gauge", double(m.last_flush_us.load(std::memory_order_relaxed)) / 1e6);
  append_histogram_of(out, "restcache_batch_flush_duration_seconds",
                      "Record transactions of the batch writer, begin to commit.", m.flush_duration);
  return out;
}

std::string listener_metrics_text(const listener_metrics& m) {
  std::string out;
  auto rd = [](const auto& a) { return static_cast<int64_t>(a.load(std::memory_order_relaxed)); };
  append_metric(out, "restcache_listener_changes_read_total",
                "Changed keys read from the change log by polling (replays not included).", "counter",
                rd(m.changes_read));
  append_metric(out, "restcache_listener_connects_total",
                "Sessions reading the change log established (the first and every reconnect).", "counter",
                rd(m.connects));
  append_metric(out, "restcache_listener_connected", "1 while the session reading the change log is up.", "gauge",
                rd(m.connected));
  append_metric(out, "restcache_listener_caught_up",
                "1 once a watermark mark of the live session is applied.", "gauge", rd(m.caught_up));
  append_metric(out, "restcache_listener_replayed_total",
                "Changes re-applied after a (re)connect: change-log entries, or what the WAL feed's slot "
                "streamed before catching up.",
                "counter", rd(m.replayed));
  append_metric(out, "restcache_listener_tier_drops_total",
                "Both tiers dropped: the log was pruned past the watermark, or a storm overflowed.",
                "counter", rd(m.tier_drops));
  append_metric(out, "restcache_listener_tiers_carried_total",
                "Switches of feed (restcache-load --feed) the tiers were kept across: the old feed read up to where "
                "the new one begins.",
                "counter", rd(m.tiers_carried));
  append_metric(out, "restcache_listener_truncates_total",
                "TRUNCATEs of a watched table seen, live or on replay: both tiers dropped.", "counter",
                rd(m.truncates));
  append_metric_header(out, "restcache_listener_history_resets_total",
                       "(Re)connects that found another history than the tiers held (by the rule that fired): "
                       "both tiers dropped, the watermark restarted.",
                       "counter");
  for (size_t i = 0; i < history_rule_count; ++i) {
    auto rule = static_cast<history_rule>(i);
    if (rule != history_rule::same)
      append_sample(out, "restcache_listener_history_resets_total",
                    std::string{"{rule=\""} + to_string(rule) + "\"}", rd(m.history_resets[i]));
  }
  append_metric(out, "restcache_declarations_differ",
                "1 while the declarations applied to the database are not those this instance serves: a restart "
                "serves them.",
                "gauge", double(m.declarations_differ.load(std::memory_order_relaxed)));
  append_metric(out, "restcache_listener_drift_checks_total",
                "Checks of the watched tables' catalog (restcache's triggers, the columns documents read).",
                "counter", rd(m.drift_checks));
  append_metric(out, "restcache_listener_drift_drops_total",
                "Kinds dropped from both tiers because what they read changed in the catalog unseen "
                "(a trigger altered, a column altered, a table recreated).",
                "counter", rd(m.drift_drops));
  append_metric_header(out, "restcache_documents_drifted",
                       "1 while a kind is answered from PostgreSQL and not cached, because a table it reads "
                       "drifted (the log says what and the repair).",
                       "gauge");
  {
    auto drifted = m.drift.kinds();
    for (const auto& e : doc_catalogue())
      append_sample(out, "restcache_documents_drifted", "{kind=\"" + std::string{e.name} + "\"}",
                    int64_t{(drifted & kind_bit(e.kind)) != 0 ? 1 : 0});
  }
  append_metric(out, "restcache_listener_invalidations_total", "Keys invalidated after coalescing.",
                "counter", rd(m.invalidations));
  append_metric(out, "restcache_listener_already_applied_total",
                "Notifications of changes this instance's own writes had applied already.", "counter",
                rd(m.already_applied));
  append_metric(out, "restcache_listener_pruned_total", "Change-log entries pruned by retention.",
                "counter", rd(m.pruned));
  append_metric(out, "restcache_changelog_bytes",
                "The change log's table and indexes, as last measured (each minute); -1: not yet.", "gauge",
                rd(m.changelog_bytes));
  append_metric(out, "restcache_changelog_oldest_entry_age_seconds",
                "Age of the change log's oldest entry, as last measured; -1: not yet.", "gauge",
                rd(m.changelog_oldest_age_s));
  append_metric(out, "restcache_listener_watermark_xid",
                "Replay watermark: every change of a transaction below it is applied (under the WAL feed: "
                "every change committed before this WAL position, as an integer).", "gauge",
                rd(m.watermark));
  append_metric(out, "restcache_listener_feed_wal",
                "1 while the listener follows the WAL feed (its own logical replication slot), 0 for the "
                "trigger feed.", "gauge", rd(m.feed_wal));
  append_metric(out, "restcache_wal_relay_leading",
                "1 while this instance leads the WAL relay (changelog.wal-relay): it streams the relay slot and "
                "writes what it decodes to wal_relay.", "gauge", rd(m.relay_leading));
  append_metric(out, "restcache_wal_relay_following",
                "1 while the listener reads the WAL relay rather than a slot of its own.", "gauge",
                rd(m.relay_following));
  append_metric(out, "restcache_wal_relay_windows_total",
                "Windows of commits this instance wrote to wal_relay while it led.", "counter", rd(m.relay_windows));
  append_metric(out, "restcache_wal_relay_restarts_total",
                "Times this instance, leading, started the relay again (its slot missing, lost or not matching the "
                "table): its followers dropped both tiers.", "counter", rd(m.relay_restarts));
  append_metric(out, "restcache_listener_slot_resets_total",
                "WAL feed: the instance's slot was missing, invalidated (max_slot_wal_keep_size) or did not match "
                "the tiers (a restored older copy): both tiers dropped, a new slot made.", "counter",
                rd(m.slot_resets));
  append_metric(out, "restcache_listener_slot_confirmed_lsn",
                "WAL feed: the position the slot is confirmed to (what the tiers hold durably); the server keeps "
                "the WAL after it.", "gauge", rd(m.slot_confirmed_lsn));
  append_metric(out, "restcache_listener_slot_lag_bytes",
                "WAL feed: the server's WAL position, when it last said, minus the slot's confirmed position.",
                "gauge", std::max<int64_t>(rd(m.slot_server_lsn) - rd(m.slot_confirmed_lsn), 0));
  // Every restcache slot of the database, this instance's and the others':
  // a slot whose instance is gone holds WAL and shows through the living.
  auto slots = m.slots.get();
  auto per_slot = [&](std::string_view name, std::string_view help, auto value) {
    append_metric_header(out, name, help, "gauge");
    for (const auto& s : slots)
      append_sample(out, name, "{slot=\"" + s.name + "\"}", static_cast<int64_t>(value(s)));
  };
  per_slot("restcache_wal_slot_retained_bytes",
           "Every restcache slot of the database (any instance's): the WAL the server keeps for it, from its "
           "restart position, as last read (each drift check).",
           [](const slot_census::slot& s) { return s.retained_bytes; });
  per_slot("restcache_wal_slot_unconfirmed_bytes",
           "Every restcache slot of the database: the server's WAL position past what the slot confirmed.",
           [](const slot_census::slot& s) { return s.unconfirmed_bytes; });
  per_slot("restcache_wal_slot_active",
           "Every restcache slot of the database: 1 while a process streams it; 0 for a slot whose instance "
           "is stopped or gone (it holds WAL until dropped: restcache-load --drop-idle-slots).",
           [](const slot_census::slot& s) { return s.active ? 1 : 0; });
  per_slot("restcache_wal_slot_lost",
           "Every restcache slot of the database: 1 once the server invalidated it (wal_status lost, "
           "max_slot_wal_keep_size); its instance drops both tiers when it next connects.",
           [](const slot_census::slot& s) { return s.wal_status == "lost" ? 1 : 0; });
  append_metric(out, "restcache_listener_applied_seq", "Highest change sequence applied.", "gauge",
                rd(m.applied_seq));
  append_histogram_of(out, "restcache_invalidation_latency_seconds",
                      "From the change log read before the one that found a change (so from before its commit) to its keys dropped from memory (LMDB is not read for them from then on; see restcache_batch_deletes_total).", m.invalidation_latency);
  append_histogram_of(out, "restcache_listener_poll_seconds",
                      "One read of the change log (snapshot and entries in one statement), sent to decoded: the floor under restcache_invalidation_latency_seconds.", m.poll_duration);
  return out;
}

std::string db_metrics_text(const std::vector<std::pair<std::string, const db_metrics*>>& pools) {
  std::string out;
  auto each = [&](const char* name, const char* type, const char* help, auto field) {
    append_series(out, name, help, type, pools, field);
  };
  each("restcache_db_queries_total", "counter", "Statements (jobs) run on pooled connections.", &db_metrics::queries);
  each("restcache_db_query_errors_total", "counter", "Statements that failed.", &db_metrics::query_errors);
  each("restcache_db_query_timeouts_total", "counter", "Statements cancelled by the query timeout.",
       &db_metrics::query_timeouts);
  each("restcache_db_connects_total", "counter", "Successful (re)connections.", &db_metrics::reconnects);
  each("restcache_db_connections_up", "gauge", "Pooled connections established.", &db_metrics::connections_up);
  each("restcache_db_connections_in_use", "gauge", "Pooled connections lent out now.", &db_metrics::in_use);
  each("restcache_db_borrow_waiting", "gauge", "Borrowers waiting for a connection.", &db_metrics::borrow_waiting);
  each("restcache_db_borrow_rejected_total", "counter", "Borrowers refused because the wait queue was full.",
       &db_metrics::borrow_rejected);
  append_metric_header(out, "restcache_db_query_duration_seconds",
                       "Statements on pooled connections, sent to result decoded.", "histogram");
  for (auto& [labels, m] : pools)
    append_samples_of(out, "restcache_db_query_duration_seconds", labels, m->query_duration);
  return out;
}

std::string replica_fill_metrics_text(const std::vector<cache_metrics>& shards_metrics) {
  auto sum = [&](auto field) {
    int64_t n = 0;
    for (auto& m : shards_metrics)
      n += static_cast<int64_t>((m.*field).load(std::memory_order_relaxed));
    return n;
  };
  std::string out;
  append_metric(out, "restcache_replica_fills_total", "Document reads sent to a standby (retries included).",
                "counter", sum(&cache_metrics::replica_fills));
  append_metric(out, "restcache_replica_fills_behind_total",
                "Standby answers read before the standby had replayed the key's last change: not used.", "counter",
                sum(&cache_metrics::replica_behind));
  append_metric(out, "restcache_replica_fills_to_primary_total",
                "Fills that gave up on the standbys (behind past db.replica-wait-ms, or unreachable) and read db.dsn.",
                "counter", sum(&cache_metrics::replica_to_primary));
  append_metric(out, "restcache_replica_keys_waiting", "Keys whose last change some standby may not have replayed yet.",
                "gauge", sum(&cache_metrics::key_lsns));
  return out;
}

std::string replica_metrics_text(const std::vector<replica_health*>& replicas) {
  std::string out;
  auto each = [&](const char* name, const char* type, const char* help, auto value) {
    append_metric_header(out, name, help, type);
    for (size_t i = 0; i < replicas.size(); ++i)
      append_sample(out, name, "{replica=\"" + std::to_string(i) + "\"}", value(*replicas[i]));
  };
  auto rd = [](const auto& a) { return a.load(std::memory_order_relaxed); };
  each("restcache_replica_up", "gauge", "1 while the standby answers its monitor.",
       [&](const replica_health& h) { return int64_t{rd(h.up)}; });
  each("restcache_replica_usable", "gauge",
       "1 while fills read from the standby (up, a standby of the primary, within db.replica-max-lag-ms).",
       [&](const replica_health& h) { return int64_t{rd(h.usable)}; });
  each("restcache_replica_standby", "gauge",
       "1 while the server is in recovery and of the primary's system identifier; 0: not used (the log says why).",
       [&](const replica_health& h) { return int64_t{rd(h.standby)}; });
  each("restcache_replica_lag_seconds", "gauge",
       "Time since the standby's last replayed commit while received WAL waits to be replayed; 0 when none waits.",
       [&](const replica_health& h) { return double(rd(h.lag_ms)) / 1e3; });
  each("restcache_replica_replay_lsn", "gauge", "The WAL position the standby has replayed, as a number.",
       [&](const replica_health& h) { return static_cast<int64_t>(rd(h.replay_lsn)); });
  return out;
}

std::string mailbox_metrics_text(const std::vector<mailbox_gauge>& actors) {
  std::string out;
  append_metric_header(out, "restcache_actor_mailbox_messages",
                       "Messages waiting in a long-lived actor's mailbox, as the actor last reported (about every second).",
                       "gauge");
  for (auto& [name, gauge] : actors)
    append_sample(out, "restcache_actor_mailbox_messages", "{actor=\"" + name + "\"}",
                  static_cast<int64_t>(gauge->load(std::memory_order_relaxed)));
  return out;
}

std::string process_metrics_text() {
  std::string out;
  const double ticks = double(sysconf(_SC_CLK_TCK));
  const double page = double(sysconf(_SC_PAGESIZE));
  std::ifstream stat_file{"/proc/self/stat"};
  std::string stat((std::istreambuf_iterator<char>(stat_file)), std::istreambuf_iterator<char>());
  // Fields after the command name (which may hold spaces) start at ") ".
  auto close = stat.rfind(") ");
  if (close != std::string::npos) {
    std::istringstream fields{stat.substr(close + 2)};
    std::vector<std::string> f{std::istream_iterator<std::string>{fields}, {}};
    // f[0] is field 3 (state): utime 14, stime 15, starttime 22, rss 24.
    if (f.size() > 22) {
      double cpu = (std::stod(f[11]) + std::stod(f[12])) / ticks;
      append_metric(out, "process_cpu_seconds_total", "User and system CPU time spent.", "counter", cpu);
      double boot = 0;
      std::ifstream stat_all{"/proc/stat"};
      for (std::string line; std::getline(stat_all, line);)
        if (line.rfind("btime ", 0) == 0)
          boot = std::stod(line.substr(6));
      append_metric(out, "process_start_time_seconds", "Start time since the epoch.", "gauge",
                    boot + std::stod(f[19]) / ticks);
      append_metric(out, "process_resident_memory_bytes", "Resident memory size.", "gauge",
                    static_cast<int64_t>(std::stod(f[21]) * page));
    }
  }
  int64_t fds = 0;
  if (DIR* d = opendir("/proc/self/fd")) {
    while (auto* e = readdir(d))
      fds += e->d_name[0] != '.';
    closedir(d);
    --fds; // the directory stream's own
  }
  append_metric(out, "process_open_fds", "Open file descriptors.", "gauge", fds);
  rlimit lim{};
  if (getrlimit(RLIMIT_NOFILE, &lim) == 0)
    append_metric(out, "process_max_fds", "The open-file limit (soft).", "gauge", static_cast<int64_t>(lim.rlim_cur));
  return out;
}

} // namespace restcache
