#pragma once

// The daemon's http::cache_gateway: routes each lookup to the shard that owns
// its key, keeps the set of department ids that /depts/random picks from, and
// renders the counters for /metrics. Not an actor: it is called from asio
// threads and only sends messages.

#include <caf/fwd.hpp>

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "actors/actors.hpp"
#include "actors/metrics.hpp"
#include "db/feed_drift.hpp"
#include "http/cache_gateway.hpp"

namespace restcache {

class cache_front final : public http::cache_gateway {
public:
  /// `cache` holds one cache_metrics per shard, in shard order.
  cache_front(std::vector<cache_shard_actor> shards, std::vector<cache_metrics>& cache,
              db_metrics& db);

  void lookup(doc_key key, reply_callback cb) override;
  void lookup_gzip(doc_key key, reply_callback cb) override;
  void refill(doc_key key, reply_callback cb) override;
  std::optional<doc_key> random_document() override;
  std::vector<http::readiness_check> readiness() const override;
  std::string drift_detail(doc_kind kind) const override;
  std::string metrics_text() const override;
  void write(write_request req, write_callback cb) override;
  void list_depts(int32_t after, int32_t limit, page_callback cb) override;

  /// Where writes and GET /depts go: the write pool, and the listener that
  /// applies a write's own invalidations (null in cache mode none).
  /// `stamp_lsn`: fills read from standbys; writes stamp their changes with
  /// the primary's WAL position after the commit (make_write_job).
  void set_write_path(caf::actor_system& sys, db_pool_actor pool, notify_listener_actor listener,
                      std::chrono::milliseconds apply_timeout, bool stamp_lsn = false);
  /// The listener's drift state, for db_schema answers (none in cache mode none).
  void set_drift(const feed_drift* drift) { drift_ = drift; }
  /// The pool GET /depts pages are read on, apart from the writes'.
  void set_list_pool(db_pool_actor pool);

  /// Replaces the id set (loaded at start-up; kept current by later issues).
  void set_dept_ids(std::shared_ptr<const std::vector<int32_t>> ids);
  size_t dept_id_count() const;

  /// Extra exposition text appended to /metrics (the HTTP server's counters).
  void add_metrics_source(std::function<std::string()> source);
  /// One more condition /ready requires (besides a pooled connection).
  void add_readiness_check(std::function<http::readiness_check()> check);

  const cache_shard_actor& shard_for(const doc_key& key) const;

private:
  const feed_drift* drift_ = nullptr;
  std::vector<cache_shard_actor> shards_;
  std::vector<cache_metrics>& cache_metrics_;
  db_metrics& db_metrics_;
  mutable std::mutex ids_mtx_;
  std::shared_ptr<const std::vector<int32_t>> dept_ids_;
  /// Bumped (under ids_mtx_) whenever dept_ids_ changes: /depts/random reads
  /// the set through a copy of its own thread, taken again only when this
  /// moved, so a request costs one atomic load, no lock and no count.
  std::atomic<uint64_t> ids_generation_;
  std::vector<std::function<std::string()>> metrics_sources_;
  std::vector<std::function<http::readiness_check()>> readiness_checks_;
  caf::actor_system* sys_ = nullptr;
  db_pool_actor write_pool_;
  db_pool_actor list_pool_; ///< GET /depts; the write pool when none is set
  notify_listener_actor listener_;
  std::chrono::milliseconds apply_timeout_{5'000};
  bool stamp_lsn_ = false; ///< writes stamp their changes with the primary's WAL position
};

/// Spawns an actor that borrows a connection from `pool` and reads every
/// department id into `front`, again every 30 s; it retries every second
/// while the database is unavailable. The caller stops it at shutdown.
dept_id_loader_actor spawn_dept_id_loader(caf::actor_system& sys, db_pool_actor pool, cache_front& front);

} // namespace restcache
