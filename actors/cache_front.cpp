#include "actors/cache_front.hpp"

#include <caf/all.hpp>
#include <spdlog/spdlog.h>

#include <random>

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

bool cache_front::ready() const {
  return db_metrics_.connections_up.load(std::memory_order_relaxed) > 0;
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

namespace {

void counter(std::string& out, const char* name, const char* help, const char* type,
             const std::string& samples) {
  out += "# HELP ";
  out += name;
  out += ' ';
  out += help;
  out += "\n# TYPE ";
  out += name;
  out += ' ';
  out += type;
  out += '\n';
  out += samples;
}

template <class Get>
std::string per_shard(const char* name, const std::vector<cache_metrics>& shards, Get get) {
  std::string s;
  for (size_t i = 0; i < shards.size(); ++i)
    s += std::string{name} + "{shard=\"" + std::to_string(i) + "\"} " + std::to_string(get(shards[i])) + '\n';
  return s;
}

std::string single(const char* name, int64_t v) {
  return std::string{name} + ' ' + std::to_string(v) + '\n';
}

} // namespace

std::string cache_front::metrics_text() const {
  std::string out;
  auto& cm = cache_metrics_;
  auto rd = [](const auto& a) { return static_cast<int64_t>(a.load(std::memory_order_relaxed)); };
#define RC_SHARD_METRIC(field, type, help)                                                         \
  counter(out, "restcache_cache_" #field, help, type,                                               \
          per_shard("restcache_cache_" #field, cm, [&](const cache_metrics& m) { return rd(m.field); }))
  RC_SHARD_METRIC(hits, "counter", "Lookups answered from the memory tier.");
  RC_SHARD_METRIC(misses, "counter", "Lookups not answered from the memory tier.");
  RC_SHARD_METRIC(coalesced, "counter", "Misses that joined a fill already in flight.");
  RC_SHARD_METRIC(fills, "counter", "Fills started (one database query each).");
  RC_SHARD_METRIC(fill_errors, "counter", "Fills that failed or timed out.");
  RC_SHARD_METRIC(fills_discarded, "counter", "Fills overtaken by an invalidation, not cached.");
  RC_SHARD_METRIC(evictions, "counter", "Entries evicted to stay within the byte budget.");
  RC_SHARD_METRIC(invalidations, "counter", "Invalidations applied.");
  RC_SHARD_METRIC(entries, "gauge", "Documents held in memory.");
  RC_SHARD_METRIC(bytes, "gauge", "Bytes charged against the memory budget.");
#undef RC_SHARD_METRIC
  auto& db = db_metrics_;
  counter(out, "restcache_db_queries_total", "Statements run on pooled connections.", "counter",
          single("restcache_db_queries_total", rd(db.queries)));
  counter(out, "restcache_db_query_errors_total", "Statements that failed.", "counter",
          single("restcache_db_query_errors_total", rd(db.query_errors)));
  counter(out, "restcache_db_query_timeouts_total", "Statements cancelled by the query timeout.",
          "counter", single("restcache_db_query_timeouts_total", rd(db.query_timeouts)));
  counter(out, "restcache_db_connects_total", "Successful (re)connections.", "counter",
          single("restcache_db_connects_total", rd(db.reconnects)));
  counter(out, "restcache_db_connections_up", "Pooled connections established.", "gauge",
          single("restcache_db_connections_up", rd(db.connections_up)));
  counter(out, "restcache_db_borrow_waiting", "Fills waiting for a connection.", "gauge",
          single("restcache_db_borrow_waiting", rd(db.borrow_waiting)));
  counter(out, "restcache_db_borrow_rejected_total", "Fills refused because the wait queue was full.",
          "counter", single("restcache_db_borrow_rejected_total", rd(db.borrow_rejected)));
  counter(out, "restcache_dept_ids", "Department ids /depts/random picks from.", "gauge",
          single("restcache_dept_ids", static_cast<int64_t>(dept_id_count())));
  for (auto& source : metrics_sources_)
    out += source();
  return out;
}

caf::actor spawn_dept_id_loader(caf::actor_system& sys, db_pool_actor pool, cache_front& front) {
  using ids_atom = caf::atom_constant<caf::atom("ids")>;
  using retry_atom = caf::atom_constant<caf::atom("retry")>;
  return sys.spawn([pool, &front](caf::event_based_actor* self) -> caf::behavior {
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
        spdlog::info("{} department ids loaded for /depts/random", o.ids->size());
        front.set_dept_ids(std::move(o.ids));
        self->quit();
      },
      [attempt](retry_atom) { attempt(); },
    };
  });
}

} // namespace restcache
