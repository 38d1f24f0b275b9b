#include "app/cache_front.hpp"

#include <caf/all.hpp>
#include <spdlog/spdlog.h>

#include <random>

#include "actors/write_pool_job.hpp"
#include "actors/mailbox_report.hpp"
#include "actors/write_jobs.hpp"
#include "demo/demo_catalogue.hpp"
#include "messages/prometheus.hpp"

namespace restcache {

namespace {

/// Unique over the process, so a thread's copy of one front's id set is
/// never taken for another's (a front made later at the same address).
uint64_t next_ids_generation() {
  static std::atomic<uint64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

} // namespace

cache_front::cache_front(std::vector<cache_shard_actor> shards, std::vector<cache_metrics>& cache,
                         db_metrics& db)
  : shards_(std::move(shards)), cache_metrics_(cache), db_metrics_(db), ids_generation_(next_ids_generation()) {
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

std::optional<doc_key> cache_front::random_document() {
  // This thread's copy of the set, valid while the generation is unchanged.
  struct cached {
    const cache_front* owner = nullptr;
    uint64_t generation = 0;
    std::shared_ptr<const std::vector<int32_t>> ids;
  };
  thread_local cached mine;
  auto gen = ids_generation_.load(std::memory_order_acquire);
  if (mine.owner != this || mine.generation != gen) {
    std::lock_guard guard{ids_mtx_};
    mine.owner = this;
    mine.generation = ids_generation_.load(std::memory_order_relaxed);
    mine.ids = dept_ids_;
  }
  const auto& ids = mine.ids;
  if (!ids || ids->empty())
    return std::nullopt;
  thread_local std::mt19937_64 rng{std::random_device{}()};
  std::uniform_int_distribution<size_t> pick{0, ids->size() - 1};
  return doc_key{demo::deptemps_kind, (*ids)[pick(rng)]};
}

void cache_front::set_write_path(caf::actor_system& sys, db_pool_actor pool,
                                 notify_listener_actor listener, std::chrono::milliseconds apply_timeout,
                                 bool stamp_lsn) {
  sys_ = &sys;
  write_pool_ = std::move(pool);
  listener_ = std::move(listener);
  apply_timeout_ = apply_timeout;
  stamp_lsn_ = stamp_lsn;
}

void cache_front::set_list_pool(db_pool_actor pool) {
  list_pool_ = std::move(pool);
}

void cache_front::write(write_request req, write_callback cb) {
  if (!sys_) {
    cb(write_result{rc_error::internal, 0, false, "writes are not wired", true});
    return;
  }
  sys_->spawn(write_pool_job, write_pool_, listener_, make_write_job(std::move(req), stamp_lsn_),
              std::function<void(write_pool_outcome, bool)>{[cb = std::move(cb)](write_pool_outcome o, bool applied) {
                cb(to_write_result(o, applied));
              }},
              apply_timeout_);
}

void cache_front::list_depts(int32_t after, int32_t limit, page_callback cb) {
  if (!sys_) {
    cb(page_result{rc_error::internal, {}});
    return;
  }
  sys_->spawn(write_pool_job, list_pool_ ? list_pool_ : write_pool_, notify_listener_actor{}, make_page_job(after, limit),
              std::function<void(write_pool_outcome, bool)>{[cb = std::move(cb)](write_pool_outcome o, bool) {
                cb(page_result{o.error, std::move(o.body)});
              }},
              apply_timeout_);
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

void cache_front::set_dept_ids(std::shared_ptr<const std::vector<int32_t>> ids) {
  std::lock_guard guard{ids_mtx_};
  dept_ids_ = std::move(ids);
  ids_generation_.store(next_ids_generation(), std::memory_order_release);
}

size_t cache_front::dept_id_count() const {
  std::lock_guard guard{ids_mtx_};
  return dept_ids_ ? dept_ids_->size() : 0;
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
  per_shard("restcache_cache_entries", "gauge", "Documents held in memory.", &cm::entries);
  per_shard("restcache_cache_bytes", "gauge", "Bytes charged against the memory budget.", &cm::bytes);
  append_metric(out, "restcache_dept_ids", "Department ids /depts/random picks from.", "gauge",
                static_cast<int64_t>(dept_id_count()));
  for (auto& source : metrics_sources_)
    out += source();
  return out;
}

namespace {

struct dept_id_loader_state {
  static inline const char* name = "dept_id_loader";
  // Not an aggregate: CAF 0.17 would otherwise try to build the state from
  // the actor pointer (C++20 parenthesized aggregate init of `pool`).
  dept_id_loader_state() = default;
  db_pool_actor pool;
  cache_front* front = nullptr;
  db_lease lease;           ///< the borrowed connection while a read runs
  uint64_t loads = 0;       ///< successful reads of the id set
  uint64_t failures = 0;
  std::string last_error;   ///< of the last failed attempt, "" after a success

  void attempt(dept_id_loader_actor::stateful_pointer<dept_id_loader_state> self) {
    self->request(pool, caf::infinite, borrow_atom::value)
      .then(
        [self](borrow_result& b) {
          auto& st = self->state;
          if (b.error != rc_error::none) {
            ++st.failures;
            st.last_error = std::string{to_string(b.error)};
            self->delayed_send(self, std::chrono::seconds(1), retry_atom::value);
            return;
          }
          st.lease = b.lease;
          auto me = caf::actor_cast<dept_id_loader_actor>(self);
          b.lease->fetch_dept_ids([me](dept_ids_outcome o) {
            caf::anon_send(me, ids_atom::value, std::move(o));
          });
        },
        [self](caf::error&) { self->quit(); });
  }
};

// The pool is passed as a spawn argument, not captured: CAF 0.17 binds a
// null std::tuple<> reference when a function actor takes no arguments,
// which UBSan rightly reports.
dept_id_loader_actor::behavior_type
dept_id_loader(dept_id_loader_actor::stateful_pointer<dept_id_loader_state> self, db_pool_actor pool,
               cache_front* front) {
  self->state.pool = std::move(pool);
  self->state.front = front;
  self->state.attempt(self);
  return {
    [self](ids_atom, dept_ids_outcome& o) {
      auto& st = self->state;
      self->send(st.pool, release_atom::value, std::move(st.lease));
      st.lease = nullptr;
      if (o.error != rc_error::none) {
        ++st.failures;
        st.last_error = std::string{to_string(o.error)};
        spdlog::warn("loading department ids failed ({}); retrying", to_string(o.error));
        self->delayed_send(self, std::chrono::seconds(1), retry_atom::value);
        return;
      }
      ++st.loads;
      st.last_error.clear();
      if (st.front->dept_id_count() == 0)
        spdlog::info("{} department ids loaded for /depts/random", o.ids->size());
      st.front->set_dept_ids(std::move(o.ids));
      // Departments come and go through writes: read the set again now
      // and then (a deleted id picked meanwhile is retried by the edge).
      self->delayed_send(self, std::chrono::seconds(30), retry_atom::value);
    },
    [self](retry_atom) { self->state.attempt(self); },
    [self](inspect_atom) -> actor_report {
      auto& st = self->state;
      actor_report r;
      r.name = dept_id_loader_state::name;
      r.id = self->id();
      r.answered = true;
      r.mailbox = static_cast<int64_t>(mailbox_size(self));
      r.add("ids", st.front->dept_id_count())
        .add("loads", st.loads)
        .add("failures", st.failures)
        .add("reading now", st.lease != nullptr)
        .add("last error", st.last_error.empty() ? std::string{"none"} : st.last_error);
      return r;
    },
  };
}

} // namespace

dept_id_loader_actor spawn_dept_id_loader(caf::actor_system& sys, db_pool_actor pool, cache_front& front) {
  return sys.spawn(dept_id_loader, std::move(pool), &front);
}

} // namespace restcache
