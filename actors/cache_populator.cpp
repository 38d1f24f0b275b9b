// SPDX-License-Identifier: Apache-2.0
#include "actors/cache_populator.hpp"

#include <caf/all.hpp>
#include <spdlog/spdlog.h>

#include "actors/cache_shard.hpp"
#include "messages/doc_catalogue.hpp"

namespace restcache {

int64_t cache_populator_state::cached_bytes() const {
  int64_t sum = 0;
  for (auto& m : *metrics)
    sum += m.bytes.load(std::memory_order_relaxed);
  return sum;
}

void cache_populator_state::request_page(
  cache_populator_actor::stateful_pointer<cache_populator_state> self) {
  if (cfg.caught_up != nullptr && cfg.caught_up->load(std::memory_order_acquire) == 0) {
    self->delayed_send(self, std::chrono::milliseconds{100}, retry_atom::value);
    return;
  }
  if (cfg.writer != nullptr
      && cfg.writer->queued.load(std::memory_order_relaxed) + cfg.writer->in_mailbox.load(std::memory_order_relaxed)
           > cfg.writer_high_water) {
    self->delayed_send(self, std::chrono::milliseconds{20}, retry_atom::value);
    return;
  }
  // Epochs first, then the query: whatever the query reads is at least as new
  // as every invalidation counted here.
  epochs.clear();
  for (auto& m : *metrics)
    epochs.push_back(m.invalidation_epoch.load(std::memory_order_acquire));
  self->request(pool, caf::infinite, borrow_atom::value)
    .then(
      [self](borrow_result& b) {
        auto& st = self->state;
        if (b.error != rc_error::none) {
          self->delayed_send(self, std::chrono::seconds{1}, retry_atom::value);
          return;
        }
        st.lease = std::move(b.lease);
        auto me = caf::actor_cast<cache_populator_actor>(self);
        st.lease->fetch_page(st.kind(), st.after, st.cfg.page_size, st.total < 0, [me](page_outcome o) {
          caf::anon_send(me, page_atom::value, std::move(o));
        });
      },
      [self](caf::error&) { self->quit(); });
}

void cache_populator_state::start_kind() {
  after = std::string{first_key(doc_kind_info(kind()).key)};
  total = -1;
  sent = 0;
  started = last_report = std::chrono::steady_clock::now();
}

void cache_populator_state::report(bool done) {
  using namespace std::chrono;
  auto now = steady_clock::now();
  if (!done && now - last_report < cfg.progress_interval)
    return;
  last_report = now;
  auto secs = duration<double>(now - started).count();
  auto mib = cached_bytes() >> 20;
  const auto& what = doc_kind_info(kind()).populate.plural;
  if (total > 0)
    spdlog::info("cache.populate: {}{} of {} {} ({:.1f}%), {} MiB cached, {:.1f} s", done ? "done, " : "", sent,
                 total, what, 100.0 * double(sent) / double(total), mib, secs);
  else
    spdlog::info("cache.populate: {}{} {}, {} MiB cached, {:.1f} s", done ? "done, " : "", sent, what, mib, secs);
}

cache_populator_actor::behavior_type
cache_populator(cache_populator_actor::stateful_pointer<cache_populator_state> self,
                cache_populator_config cfg, db_pool_actor pool,
                std::vector<cache_shard_actor> shards, std::vector<cache_metrics>* metrics) {
  auto& st = self->state;
  st.cfg = cfg;
  st.pool = std::move(pool);
  st.shards = std::move(shards);
  st.metrics = metrics;
  if (st.cfg.kinds.empty()) {
    self->quit();
    return {[](page_atom, page_outcome&) {}, [](retry_atom) {}};
  }
  st.start_kind();
  st.request_page(self);
  return {
    [self](page_atom, page_outcome& page) {
      auto& st = self->state;
      if (st.lease)
        self->send(st.pool, release_atom::value, std::move(st.lease));
      if (page.error != rc_error::none) {
        spdlog::warn("cache.populate: page after {} failed ({}); retrying", st.after,
                     to_string(page.error));
        self->delayed_send(self, std::chrono::seconds{1}, retry_atom::value);
        return;
      }
      if (st.total < 0)
        st.total = page.total;
      if (page.rows == 0) {
        st.report(true);
        if (++st.kind_at == st.cfg.kinds.size()) {
          self->quit();
          return;
        }
        st.start_kind();
        st.request_page(self);
        return;
      }
      int64_t page_bytes = 0;
      for (const auto& [key, doc] : *page.docs) {
        page_bytes += memory_tier::charge_of(*doc);
        auto i = shard_index(key, st.shards.size());
        self->send(st.shards[i], put_atom::value, key, doc, st.epochs[i]);
        ++st.sent;
      }
      st.after = std::move(page.last_key);
      st.report(false);
      // Stop before the next page would push the tier into eviction.
      auto limit = static_cast<int64_t>(double(st.cfg.memory_bytes) * st.cfg.fill_ratio);
      if (st.cached_bytes() + 2 * page_bytes > limit) {
        spdlog::info("cache.populate: memory budget nearly used; stopping");
        st.report(true);
        self->quit();
        return;
      }
      st.request_page(self);
    },
    [self](retry_atom) { self->state.request_page(self); },
  };
}

} // namespace restcache
