// SPDX-License-Identifier: Apache-2.0
#include "app/listener_component.hpp"

#include <caf/all.hpp>

#include <random>

#include "actors/metrics_text.hpp"
#include "actors/notify_listener.hpp"
#include "app/cache_front.hpp"
#include "app/lmdb_tier_component.hpp"
#include "app/shards_component.hpp"
#include "app/startup.hpp"
#include "db/change_inbox.hpp"
#include "messages/prometheus.hpp"
#include "persistence/lmdb/store.hpp"
#include "persistence/pg/catalog_drift.hpp"

namespace restcache {

namespace {

notify_listener_config listener_config_of(daemon_context& ctx, lmdb::store* store) {
  const auto& o = ctx.options();
  notify_listener_config c;
  auto& conn = c.connection;
  conn.dsn = o.db_dsn;
  conn.retention = std::chrono::seconds{o.changelog_retention};
  conn.poll_interval = std::chrono::milliseconds{o.changelog_poll_interval_ms};
  conn.drift_interval = std::chrono::milliseconds{o.changelog_drift_interval_ms};
  conn.warn_bytes = o.changelog_warn_bytes;
  conn.replay_limit = static_cast<size_t>(o.changelog_max_pending);
  conn.stamp_lsn = ctx.fills_read_standbys;
  conn.check_declarations = true;
  conn.declarations_digest = startup::documents_installed().digest;
  conn.feed = parse_feed_choice(o.changelog_feed).value_or(feed_choice::automatic);
  conn.wal_relay = o.changelog_wal_relay;
  conn.slot_create_wait = std::chrono::milliseconds{o.changelog_slot_create_wait_ms};
  c.max_pending_keys = static_cast<size_t>(o.changelog_max_pending);
  if (store == nullptr) {
    // Memory only: nothing outlives the process, so neither does its slot.
    std::random_device rd;
    for (int i = 0; i < 16; ++i)
      conn.instance_id += "0123456789abcdefghijklmnopqrstuvwxyz"[rd() % 36];
    conn.temporary_slot = true;
    return c;
  }
  conn.history = store->history();
  conn.instance_id = store->instance_id();
  return c;
}

} // namespace

void listener_component::start(daemon_context& ctx) {
  auto& tier = ctx.find<lmdb_tier_component>();
  const auto& store = tier.store();
  metrics_.watermark.store(store ? store->watermark() : 0);
  if (ctx.cfg.resolved_cache_mode() == cache_mode::none) {
    ctx.long_lived.push_back(inspect_entry("notify-listener", listener_)); // listed as not running
    return;
  }
  auto cfg = listener_config_of(ctx, store.get());
  auto inbox = std::make_shared<change_inbox>(cfg.max_pending_keys);
  if (store) {
    // What the file's records are vouched for by: the LMDB commit that
    // carried the watermark is on disk (lmdb/env.hpp: durable commits).
    cfg.connection.durable_watermark = [store] { return store->watermark(); };
  }
  // Where the stored watermark was taken, so the first replay reads only what
  // that snapshot could not see (absent in a file of an older build).
  if (store && store->watermark() > 0) {
    if (auto p = parse_feed_position(store->watermark_position()); p && p->xmin == store->watermark())
      inbox->set_applied(p);
    // The entry the log must still hold (or have pruned past) for the
    // file's documents to be of the database's history.
    inbox->set_applied_witness(parse_log_witness(store->watermark_witness()));
    // The catalog the records were filled under: a kind's tables changed
    // unseen while the daemon was down drop them at the first check.
    cfg.connection.catalog = store->watermark_catalog();
    // The WAL feed's fingerprint has its publication part; a file kept by
    // the other feed holds a watermark that is no position in this one.
    cfg.connection.tiers_feed = pg::fingerprint_of_wal_feed(cfg.connection.catalog) ? feed_kind::wal
                                                                                    : feed_kind::triggers;
  }
  auto& shards = ctx.find<shards_component>();
  shards.front().set_drift(&metrics_.drift);
  listener_ = ctx.system->spawn(notify_listener, cfg, shards.shards(), tier.writer(), inbox, &metrics_, &status_);
  ctx.listener = listener_;
  register_status(ctx);
}

void listener_component::register_status(daemon_context& ctx) {
  ctx.long_lived.push_back(inspect_entry("notify-listener", listener_, &metrics_.mailbox));
  ctx.board.add_metrics_writer([this] {
    auto out = listener_metrics_text(metrics_);
    append_metric(out, "restcache_serving_stale_since_seconds",
                  "Unix time of the first stale-if-error answer since the listener was last caught up; 0: none.",
                  "gauge", double(status_.stale_since_us.load(std::memory_order_relaxed)) / 1e6);
    return out;
  });
  // Not ready until the listener has caught up: GETs go to PostgreSQL
  // meanwhile (slow), or are answered stale-if-error when it cannot be
  // reached; a load balancer should prefer an instance that is caught up.
  ctx.board.add_readiness_check(readiness_place::listener, [this] {
    if (metrics_.caught_up.load() == 1)
      return http::readiness_check{"listener", true, "caught up"};
    if (status_.stale_since_us.load(std::memory_order_relaxed) != 0)
      return http::readiness_check{"listener", false, "down, serving stale"};
    return http::readiness_check{"listener", false, metrics_.connected.load() == 1 ? "catching up" : "down"};
  });
  // Drift keeps the instance ready: every answer is still correct (from
  // PostgreSQL), and a balancer must not drop every instance of a database
  // an administrator altered. It says which kinds are not cached.
  ctx.board.add_readiness_check(readiness_place::documents, [this] {
    auto kinds = metrics_.drift.kinds();
    std::string state = kinds == 0 ? std::string{"cached"} : "not cached (drift, see the log): " + kind_names(kinds);
    if (metrics_.declarations_differ.load(std::memory_order_relaxed) == 1)
      state += "; the declarations applied to the database changed: a restart serves them";
    return http::readiness_check{"documents", true, state};
  });
}

void listener_component::stop(daemon_context& ctx) {
  if (!listener_)
    return;
  caf::scoped_actor self{*ctx.system};
  self->monitor(listener_);
  self->send_exit(listener_, caf::exit_reason::user_shutdown);
  self->receive([](caf::down_msg&) {});
  listener_ = nullptr;
  ctx.listener = nullptr;
}

} // namespace restcache
