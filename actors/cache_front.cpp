#include "actors/cache_front.hpp"

#include <caf/all.hpp>
#include <spdlog/spdlog.h>

#include <random>

#include "actors/db_direct.hpp"
#include "actors/write_jobs.hpp"
#include "http/prometheus.hpp"

namespace restcache {

cache_front::cache_front(std::vector<cache_shard_actor> shards, std::vector<cache_metrics>& cache,
                         db_metrics& db)
  : shards_(std::move(shards)), cache_metrics_(cache), db_metrics_(db) {
}

const cache_shard_actor& cache_front::shard_for(const doc_key& key) const {
  return shards_[doc_key_hash{}(key) % shards_.size()];
}

void cache_front::lookup(doc_key key, reply_callback cb) {
  caf::anon_send(shard_for(key), get_atom::value, key, std::move(cb));
}

std::optional<int32_t> cache_front::random_dept_id() {
  std::shared_ptr<const std::vector<int32_t>> ids;
  {
    std::lock_guard guard{ids_mtx_};
    ids = dept_ids_;
  }
  if (!ids || ids->empty())
    return std::nullopt;
  thread_local std::mt19937_64 rng{std::random_device{}()};
  std::uniform_int_distribution<size_t> pick{0, ids->size() - 1};
  return (*ids)[pick(rng)];
}

void cache_front::set_direct_path(caf::actor_system& sys, db_pool_actor pool,
                                  notify_listener_actor listener, std::chrono::milliseconds apply_timeout) {
  sys_ = &sys;
  direct_pool_ = std::move(pool);
  listener_ = std::move(listener);
  apply_timeout_ = apply_timeout;
}

void cache_front::write(write_request req, write_callback cb) {
  if (!sys_) {
    cb(write_result{rc_error::internal, 0, false, "writes are not wired", true});
    return;
  }
  sys_->spawn(db_direct, direct_pool_, listener_, make_write_job(std::move(req)),
              std::function<void(direct_outcome, bool)>{[cb = std::move(cb)](direct_outcome o, bool applied) {
                cb(to_write_result(o, applied));
              }},
              apply_timeout_);
}

void cache_front::list_depts(int32_t after, int32_t limit, page_callback cb) {
  if (!sys_) {
    cb(page_result{rc_error::internal, {}});
    return;
  }
  sys_->spawn(db_direct, direct_pool_, notify_listener_actor{}, make_page_job(after, limit),
              std::function<void(direct_outcome, bool)>{[cb = std::move(cb)](direct_outcome o, bool) {
                cb(page_result{o.error, std::move(o.body)});
              }},
              apply_timeout_);
}

bool cache_front::ready() const {
  if (db_metrics_.connections_up.load(std::memory_order_relaxed) == 0)
    return false;
  for (auto& check : readiness_checks_)
    if (!check())
      return false;
  return true;
}

void cache_front::add_readiness_check(std::function<bool()> check) {
  readiness_checks_.push_back(std::move(check));
}

void cache_front::set_dept_ids(std::shared_ptr<const std::vector<int32_t>> ids) {
  std::lock_guard guard{ids_mtx_};
  dept_ids_ = std::move(ids);
}

size_t cache_front::dept_id_count() const {
  std::lock_guard guard{ids_mtx_};
  return dept_ids_ ? dept_ids_->size() : 0;
}

void cache_front::add_metrics_source(std::function<std::string()> source) {
  metrics_sources_.push_back(std::move(source));
}

std::string cache_front::metrics_text() const {
  using http::append_metric;
  using http::append_metric_header;
  using http::append_sample;
  std::string out;
  auto rd = [](const auto& a) { return static_cast<int64_t>(a.load(std::memory_order_relaxed)); };
  auto per_shard = [&](const char* name, const char* type, const char* help, auto field) {
    append_metric_header(out, name, help, type);
    for (size_t i = 0; i < cache_metrics_.size(); ++i)
      append_sample(out, name, "{shard=\"" + std::to_string(i) + "\"}", rd(cache_metrics_[i].*field));
  };
  using cm = cache_metrics;
  per_shard("restcache_cache_hits", "counter", "Lookups answered from the memory tier.", &cm::hits);
  per_shard("restcache_cache_misses", "counter", "Lookups not answered from the memory tier.", &cm::misses);
  per_shard("restcache_cache_tier_hits", "counter", "Memory misses answered from the LMDB tier.",
            &cm::tier_hits);
  per_shard("restcache_cache_coalesced", "counter", "Misses that joined a fill already in flight.",
            &cm::coalesced);
  per_shard("restcache_cache_fills", "counter", "Fills started (one database query each).", &cm::fills);
  per_shard("restcache_cache_fill_errors", "counter", "Fills that failed or timed out.", &cm::fill_errors);
  per_shard("restcache_cache_fills_discarded", "counter",
            "Fills overtaken by an invalidation, not cached.", &cm::fills_discarded);
  per_shard("restcache_cache_evictions", "counter", "Entries evicted to stay within the byte budget.",
            &cm::evictions);
  per_shard("restcache_cache_invalidations", "counter", "Invalidations applied.", &cm::invalidations);
  per_shard("restcache_cache_populated", "counter", "Entries stored by cache.populate.", &cm::populated);
  per_shard("restcache_cache_entries", "gauge", "Documents held in memory.", &cm::entries);
  per_shard("restcache_cache_bytes", "gauge", "Bytes charged against the memory budget.", &cm::bytes);
  auto& db = db_metrics_;
  append_metric(out, "restcache_db_queries_total", "Statements run on pooled connections.", "counter",
                rd(db.queries));
  append_metric(out, "restcache_db_query_errors_total", "Statements that failed.", "counter",
                rd(db.query_errors));
  append_metric(out, "restcache_db_query_timeouts_total", "Statements cancelled by the query timeout.",
                "counter", rd(db.query_timeouts));
  append_metric(out, "restcache_db_connects_total", "Successful (re)connections.", "counter",
                rd(db.reconnects));
  append_metric(out, "restcache_db_connections_up", "Pooled connections established.", "gauge",
                rd(db.connections_up));
  append_metric(out, "restcache_db_borrow_waiting", "Fills waiting for a connection.", "gauge",
                rd(db.borrow_waiting));
  append_metric(out, "restcache_db_borrow_rejected_total",
                "Fills refused because the wait queue was full.", "counter", rd(db.borrow_rejected));
  append_metric(out, "restcache_dept_ids", "Department ids /depts/random picks from.", "gauge",
                static_cast<int64_t>(dept_id_count()));
  for (auto& source : metrics_sources_)
    out += source();
  return out;
}

caf::actor spawn_dept_id_loader(caf::actor_system& sys, db_pool_actor pool, cache_front& front) {
  using ids_atom = caf::atom_constant<caf::atom("ids")>;
  using retry_atom = caf::atom_constant<caf::atom("retry")>;
  // The pool is passed as a spawn argument, not captured: CAF 0.17 binds a
  // null std::tuple<> reference when a function actor takes no arguments,
  // which UBSan rightly reports.
  return sys.spawn([&front](caf::event_based_actor* self, db_pool_actor pool) -> caf::behavior {
    auto lease = std::make_shared<db_lease>();
    auto attempt = [self, pool, lease] {
      self->request(pool, caf::infinite, borrow_atom::value)
        .then(
          [self, lease](borrow_result& b) {
            if (b.error != rc_error::none) {
              self->delayed_send(self, std::chrono::seconds(1), retry_atom::value);
              return;
            }
            *lease = b.lease;
            auto me = caf::actor_cast<caf::actor>(self);
            b.lease->fetch_dept_ids([me](dept_ids_outcome o) {
              caf::anon_send(me, ids_atom::value, std::move(o));
            });
          },
          [self](caf::error&) { self->quit(); });
    };
    attempt();
    return {
      [self, pool, lease, &front](ids_atom, dept_ids_outcome& o) {
        self->send(pool, release_atom::value, std::move(*lease));
        if (o.error != rc_error::none) {
          spdlog::warn("loading department ids failed ({}); retrying", to_string(o.error));
          self->delayed_send(self, std::chrono::seconds(1), retry_atom::value);
          return;
        }
        if (front.dept_id_count() == 0)
          spdlog::info("{} department ids loaded for /depts/random", o.ids->size());
        front.set_dept_ids(std::move(o.ids));
        // Departments come and go through writes: read the set again now
        // and then (a deleted id picked meanwhile is retried by the edge).
        self->delayed_send(self, std::chrono::seconds(30), retry_atom::value);
      },
      [attempt](retry_atom) { attempt(); },
    };
  }, std::move(pool));
}

} // namespace restcache
