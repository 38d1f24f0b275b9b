// SPDX-License-Identifier: Apache-2.0
#include "app/cache_front.hpp"

#include <caf/all.hpp>

#include "actors/mailbox_report.hpp"
#include "messages/prometheus.hpp"

namespace restcache {

cache_front::cache_front(std::vector<cache_shard_actor> shards, std::vector<cache_metrics>& cache,
                         db_metrics& db)
  : shards_(std::move(shards)), cache_metrics_(cache), db_metrics_(db) {
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
  std::vector<http::readiness_check> checks;
  bool db_up = db_metrics_.connections_up.load(std::memory_order_relaxed) > 0;
  checks.push_back({"database", db_up, db_up ? "up" : "down"});
  for (auto& check : readiness_checks_)
    checks.push_back(check());
  return checks;
}

std::string cache_front::drift_detail(doc_kind kind) const {
  if (drift_ == nullptr || !drift_->drifted(kind))
    return {};
  return drift_->problems();
}

void cache_front::add_readiness_check(std::function<http::readiness_check()> check) {
  readiness_checks_.push_back(std::move(check));
}

void cache_front::add_metrics_source(std::function<std::string()> source) {
  metrics_sources_.push_back(std::move(source));
}

std::string cache_front::metrics_text() const {
  std::string out;
  auto rd = [](const auto& a) { return static_cast<int64_t>(a.load(std::memory_order_relaxed)); };
  std::vector<std::pair<std::string, const cache_metrics*>> shards;
  for (size_t i = 0; i < cache_metrics_.size(); ++i)
    shards.emplace_back("{shard=\"" + std::to_string(i) + "\"}", &cache_metrics_[i]);
  auto per_shard = [&](const char* name, const char* type, const char* help, auto field) {
    append_series(out, name, help, type, shards, field);
  };
  using cm = cache_metrics;
  append_metric_header(out, "restcache_cache_hits_total", "Lookups answered from a tier, by shard and tier.",
                       "counter");
  for (size_t i = 0; i < cache_metrics_.size(); ++i) {
    auto shard = "{shard=\"" + std::to_string(i) + "\",tier=";
    append_sample(out, "restcache_cache_hits_total", shard + "\"memory\"}", rd(cache_metrics_[i].hits));
    append_sample(out, "restcache_cache_hits_total", shard + "\"lmdb\"}", rd(cache_metrics_[i].tier_hits));
  }
  append_metric_header(out, "restcache_cache_answers_total",
                       "Lookups answered, by the Cache-Status they carried (docs/api.md: Cache-Status).", "counter");
  for (size_t s = 1; s < cache_status_count; ++s) {
    int64_t sum = 0;
    for (auto& m : cache_metrics_)
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
  for (auto& source : metrics_sources_)
    out += source();
  return out;
}

} // namespace restcache
