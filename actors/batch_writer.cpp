// SPDX-License-Identifier: Apache-2.0
#include "actors/batch_writer.hpp"

#include <caf/all.hpp>
#include <spdlog/spdlog.h>

#include <cstdio>
#include <algorithm>
#include <string_view>
#include <thread>
#include <unordered_set>

#include "actors/mailbox_report.hpp"
#include "messages/doc_catalogue.hpp"

namespace restcache {

void batch_writer_state::flush_records() {
  timer_armed = false;
  ++timer_generation;
  if (queue.empty())
    return;
  if (!flush_clear()) {
    // Records may not land before the clear that came ahead of them.
    bump(metrics->records_dropped, queue.size());
    queue.clear();
    metrics->queued.store(0, std::memory_order_relaxed);
    return;
  }
  std::vector<tier_record> batch;
  batch.reserve(queue.size());
  for (auto& [key, rec] : queue)
    batch.push_back(std::move(rec));
  queue.clear();
  metrics->queued.store(0, std::memory_order_relaxed);
  auto started = std::chrono::steady_clock::now();
  try {
    store->write(batch, deletes, unique_changed_rows(), watermark);
    watermark.reset();
    confirm_deletes();
    auto us = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now()
                                                                    - started);
    bump(metrics->flushes);
    bump(metrics->records_written, batch.size());
    metrics->last_flush_us.store(static_cast<uint64_t>(us.count()), std::memory_order_relaxed);
    metrics->flush_duration.observe_us(us.count());
    note_success();
  } catch (const std::exception& e) {
    bump(metrics->records_dropped, batch.size());
    note_failure("writing records (dropped)", batch.size(), e);
  }
}

void batch_writer_state::note_failure(const char* doing, size_t n, const std::exception& e) {
  bump(metrics->write_errors);
  ++failures_in_a_row;
  metrics->status.set(tier_state::degraded, std::string{"writes failing: "} + e.what());
  if (failures_in_a_row == 1 || failures_in_a_row % 100 == 0)
    spdlog::error("batch writer: {} {} failed ({} failures in a row; the tier is read, not written, meanwhile): {}",
                  doing, n, failures_in_a_row, e.what());
}

void batch_writer_state::note_success() {
  if (auto notice = store->take_notice(); !notice.empty())
    spdlog::warn("batch writer: {}", notice);
  if (failures_in_a_row == 0)
    return;
  spdlog::info("batch writer: the LMDB tier takes writes again after {} failed commits", failures_in_a_row);
  failures_in_a_row = 0;
  metrics->status.set(tier_state::ok, "open");
}

std::chrono::milliseconds batch_writer_state::retry_delay() const {
  auto delay = cfg.retry_delay;
  for (uint64_t i = 1; i < failures_in_a_row && delay < cfg.max_retry_delay; ++i)
    delay *= 2;
  return std::min(delay, cfg.max_retry_delay);
}

void batch_writer_state::bound_pending_deletes() {
  if (failures_in_a_row == 0 || clear_pending || deletes.size() + changed_rows.size() <= cfg.max_queue)
    return;
  spdlog::warn("batch writer: {} deletes wait for a tier that fails to commit: dropping the whole tier instead",
               deletes.size() + changed_rows.size());
  discard_for_clear();
}

bool batch_writer_state::flush_clear() {
  if (!clear_pending && kinds_to_erase == 0)
    return true;
  try {
    if (clear_pending)
      store->clear(watermark, history);
    else
      store->erase_kinds(kinds_to_erase);
  } catch (const std::exception& e) {
    note_failure("clearing the tier (retrying)", 1, e);
    return false;
  }
  note_success();
  if (clear_pending) {
    watermark.reset();
    history.reset();
    bump(metrics->clears);
  }
  clear_pending = false;
  kinds_to_erase = 0;
  for (auto& c : clear_promises)
    c.promise.deliver(c.seq);
  clear_promises.clear();
  return true;
}

void batch_writer_state::discard_for_clear() {
  // Everything queued or pending came before the clear: it covers them.
  bump(metrics->records_discarded, queue.size());
  queue.clear();
  metrics->queued.store(0, std::memory_order_relaxed);
  deletes.clear();
  changed_rows.clear();
  for (auto& d : delete_promises)
    clear_promises.push_back(std::move(d));
  delete_promises.clear();
  clear_pending = true;
}

void batch_writer_state::discard_for_erase(uint64_t kinds) {
  if (clear_pending)
    return;
  size_t before = queue.size();
  std::erase_if(queue, [kinds](const auto& q) { return of_kinds(q.first, kinds); });
  bump(metrics->records_discarded, before - queue.size());
  metrics->queued.store(static_cast<int64_t>(queue.size()), std::memory_order_relaxed);
  kinds_to_erase |= kinds;
}

void batch_writer_state::schedule_delete_flush(batch_writer_actor::pointer self) {
  if (!delete_flush_scheduled) {
    delete_flush_scheduled = true;
    self->delayed_send(self, cfg.delete_delay, flush_del_atom::value);
  }
}

bool batch_writer_state::flush_deletes() {
  delete_flush_scheduled = false;
  if (!flush_clear())
    return false;
  if (deletes.empty() && changed_rows.empty() && !watermark)
    return true;
  try {
    store->write({}, deletes, unique_changed_rows(), watermark);
    watermark.reset();
  } catch (const std::exception& e) {
    note_failure("deleting keys (retrying)", deletes.size(), e);
    return false;
  }
  note_success();
  confirm_deletes();
  return true;
}

void batch_writer_state::confirm_deletes() {
  bump(metrics->deletes_written, deletes.size());
  deletes.clear();
  changed_rows.clear();
  for (auto& d : delete_promises)
    d.promise.deliver(d.seq);
  delete_promises.clear();
}

const std::vector<std::string>& batch_writer_state::unique_changed_rows() {
  // Every shard forwards the same rows (each after its own records): the
  // tier looks each up once.
  std::sort(changed_rows.begin(), changed_rows.end());
  changed_rows.erase(std::unique(changed_rows.begin(), changed_rows.end()), changed_rows.end());
  return changed_rows;
}

caf::result<uint64_t> batch_writer_state::promise_deletes(batch_writer_actor::pointer self, uint64_t seq) {
  auto rp = self->make_response_promise<uint64_t>();
  if (clear_pending) {
    // The clear covers these keys too: it answers once it commits.
    deletes.clear();
    changed_rows.clear();
    clear_promises.push_back({seq, rp});
  } else {
    delete_promises.push_back({seq, rp});
    bound_pending_deletes();
  }
  schedule_delete_flush(self);
  return rp;
}

namespace {

actor_report writer_report(batch_writer_actor::pointer self, const batch_writer_state& st) {
  auto& m = *st.metrics;
  auto r = begin_report(batch_writer_state::name, self, &m.mailbox);
  auto rd = [](const auto& a) { return a.load(std::memory_order_relaxed); };
  r.add("queued records", st.queue.size())
    .add("records in mailbox", rd(m.in_mailbox))
    .add("pending deletes", st.deletes.size())
    .add("clear pending", st.clear_pending)
    .add("flushes", rd(m.flushes))
    .add("records written", rd(m.records_written))
    .add("records dropped", rd(m.records_dropped))
    .add("last flush took", [&] {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.1f ms", double(rd(m.last_flush_us)) / 1000.0);
      return std::string{buf};
    }())
    .add("write errors", rd(m.write_errors))
    .add("failed commits in a row", st.failures_in_a_row)
    .add("tier", [&] {
      auto [state, why] = m.status.get();
      return std::string{to_string(state)} + (why.empty() ? "" : ": " + why);
    }())
    .add("flush timer armed", st.timer_armed);
  return r;
}

} // namespace

batch_writer_actor::behavior_type
batch_writer(batch_writer_actor::stateful_pointer<batch_writer_state> self, batch_writer_config cfg,
             std::shared_ptr<record_store> store, batch_metrics* metrics) {
  auto& st = self->state;
  st.cfg = cfg;
  st.store = std::move(store);
  st.metrics = metrics;
  // The mailbox size for /metrics: one message a second from a helper that
  // holds only a weak reference (never on the get path; never keeps this
  // actor alive or delays its exit).
  start_mailbox_reports(self);
  // Shutdown: whatever is queued still reaches the tier.
  self->set_exit_handler([self](caf::exit_msg& msg) {
    self->state.flush_deletes();
    self->state.flush_records();
    self->quit(msg.reason);
  });
  return {
    [self](put_atom, const doc_key& key, doc_ptr& doc, uint64_t seq) {
      auto& st = self->state;
      st.metrics->in_mailbox.fetch_sub(1, std::memory_order_relaxed);
      auto i = st.queue.find(key);
      if (i == st.queue.end() && st.queue.size() >= st.cfg.max_queue) {
        bump(st.metrics->records_dropped);
        return;
      }
      if (i == st.queue.end())
        st.queue.emplace(key, tier_record{key, std::move(doc), seq});
      else
        i->second = tier_record{key, std::move(doc), seq}; // the newer fill wins
      st.metrics->queued.store(static_cast<int64_t>(st.queue.size()), std::memory_order_relaxed);
      if (st.queue.size() >= st.cfg.batch_size) {
        st.flush_records();
      } else if (!st.timer_armed) {
        st.timer_armed = true;
        self->delayed_send(self, st.cfg.flush_interval, flush_atom::value, st.timer_generation);
      }
    },
    [self](invalidate_atom, const change_batch& changes) -> caf::result<uint64_t> {
      auto& st = self->state;
      uint64_t seq = 0;
      for (auto& c : changes) {
        if (st.queue.erase(c.key) > 0)
          bump(st.metrics->records_discarded);
        st.deletes.push_back(c.key);
        seq = std::max(seq, c.seq);
      }
      st.metrics->queued.store(static_cast<int64_t>(st.queue.size()), std::memory_order_relaxed);
      return st.promise_deletes(self, seq);
    },
    [self](invalidate_atom, const row_batch& rows) -> caf::result<uint64_t> {
      auto& st = self->state;
      uint64_t seq = 0;
      std::unordered_set<std::string_view> changed;
      for (auto& r : rows) {
        changed.insert(r.row);
        st.changed_rows.push_back(r.row);
        seq = std::max(seq, r.seq);
      }
      // A queued record holding one was read before the change.
      auto before = st.queue.size();
      std::erase_if(st.queue, [&](const auto& q) {
        if (!q.second.doc)
          return false;
        const auto& held = q.second.doc->rows;
        return std::any_of(held.begin(), held.end(), [&](const std::string& row) { return changed.count(row) > 0; });
      });
      bump(st.metrics->records_discarded, before - st.queue.size());
      st.metrics->queued.store(static_cast<int64_t>(st.queue.size()), std::memory_order_relaxed);
      return st.promise_deletes(self, seq);
    },
    [self](clear_atom) -> caf::result<uint64_t> {
      auto& st = self->state;
      st.discard_for_clear();
      auto rp = self->make_response_promise<uint64_t>();
      st.clear_promises.push_back({0, rp});
      st.schedule_delete_flush(self);
      return rp;
    },
    [self](clear_atom, uint64_t kinds) -> caf::result<uint64_t> {
      auto& st = self->state;
      st.discard_for_erase(kinds);
      auto rp = self->make_response_promise<uint64_t>();
      st.clear_promises.push_back({0, rp});
      st.schedule_delete_flush(self);
      return rp;
    },
    [self](history_atom, const history_identity& id) {
      auto& st = self->state;
      st.discard_for_clear();
      st.history = id;
      // The old history's watermark means nothing in the new one; the
      // listener's next marks raise it from 0.
      st.watermark = 0;
      st.schedule_delete_flush(self);
    },
    [self](rebase_atom) { self->state.watermark.reset(); },
    [self](watermark_atom, uint64_t xmin, std::string& position, std::string& witness, std::string& catalog) {
      auto& st = self->state;
      // Marks come in order; one older than what is pending (a late message
      // of a session before a reset) is dropped.
      if (!st.watermark || xmin >= st.watermark->xmin)
        st.watermark = replay_watermark{xmin, std::move(position), std::move(witness), std::move(catalog)};
      st.schedule_delete_flush(self);
    },
    [self](flush_atom, uint64_t generation) {
      if (generation == self->state.timer_generation)
        self->state.flush_records();
    },
    [self](drain_atom) -> uint64_t {
      auto& st = self->state;
      // Detached: sleeping blocks only this thread. Bounded: a disk that keeps
      // failing must not hold up shutdown (the next start replays anyway).
      for (int attempt = 0; attempt < 50 && !st.flush_deletes(); ++attempt)
        std::this_thread::sleep_for(std::min(st.retry_delay(), std::chrono::milliseconds{100}));
      st.flush_records();
      return st.metrics->records_written.load(std::memory_order_relaxed);
    },
    [self](mailbox_atom) {
      self->state.metrics->mailbox.store(static_cast<int64_t>(mailbox_size(self)),
                                         std::memory_order_relaxed);
    },
    [self](inspect_atom) -> actor_report { return writer_report(self, self->state); },
    [self](flush_del_atom) {
      if (!self->state.flush_deletes()) {
        self->state.delete_flush_scheduled = true;
        self->delayed_send(self, self->state.retry_delay(), flush_del_atom::value);
      }
    },
  };
}

batch_writer_actor spawn_batch_writer(caf::actor_system& sys, batch_writer_config cfg,
                                      std::shared_ptr<record_store> store, batch_metrics* metrics) {
  return sys.spawn<caf::detached>(batch_writer, cfg, std::move(store), metrics);
}

} // namespace restcache
