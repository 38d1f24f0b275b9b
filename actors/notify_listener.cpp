// SPDX-License-Identifier: Apache-2.0
#include "actors/notify_listener.hpp"

#include <caf/all.hpp>
#include <spdlog/spdlog.h>

#include <chrono>
#include <limits>

#include "messages/cache_types.hpp"
#include "messages/doc_catalogue.hpp"
#include "actors/mailbox_report.hpp"

namespace restcache {

void with_fanned_out_keys(change_batch& changes) {
  auto n = changes.size();
  for (size_t i = 0; i < n; ++i)
    for_each_fanned_out(changes[i].key.kind(), [&](doc_kind k) {
      auto fanned = changes[i]; // the same change: sequence, time, WAL position
      fanned.key = fanned.key.of_kind(k);
      changes.push_back(fanned);
    });
}

std::vector<change_batch> notify_listener_state::split_by_shard(const change_batch& changes,
                                                               uint64_t& top) const {
  std::vector<change_batch> per_shard(shards.size());
  top = 0;
  for (auto& c : changes) {
    per_shard[shard_index(c.key, shards.size())].push_back(c); // as the edge routes lookups
    top = std::max(top, c.seq);
  }
  return per_shard;
}

void notify_listener_state::remember_own_write(const change_batch& changes) {
  for (auto& c : changes) {
    auto [it, fresh] = applied_directly.insert_or_assign(c.key, c.seq);
    (void) it;
    if (fresh)
      applied_directly_order.push_back(c.key);
  }
  while (applied_directly_order.size() > max_applied_directly) {
    applied_directly.erase(applied_directly_order.front());
    applied_directly_order.pop_front();
  }
}

bool notify_listener_state::applied_before(const key_change& c) {
  // Only an exact, single change: a coalesced one may also stand for a
  // change of another transaction with a lower sequence.
  if (c.coalesced)
    return false;
  auto i = applied_directly.find(c.key);
  if (i == applied_directly.end() || i->second != c.seq)
    return false;
  applied_directly.erase(i); // its key stays in the order queue; erasing a missing key is harmless
  return true;
}

void notify_listener_state::set_caught_up(bool yes) {
  // The daemon starts bypassed (nothing in the tiers is checked against the
  // database before the first catch-up), and is again after every loss.
  // The bypass first, then the gauge: whoever sees the gauge fall sees the
  // tiers bypassed.
  if (status != nullptr)
    status->set_caught_up(yes, now_us());
  metrics->caught_up.store(yes ? 1 : 0, std::memory_order_release);
}

void notify_listener_state::forget_positions() {
  metrics->watermark.store(0, std::memory_order_release);
  inbox->set_applied(std::nullopt);
  inbox->set_applied_witness(std::nullopt);
  applied_position.reset();
  applied_witness.reset();
  marks.clear();
}

void notify_listener_state::dispatch(notify_listener_ptr self) {
  if (outstanding.size() >= cfg.max_rounds_in_flight) {
    // Flow control: the inbox keeps coalescing meanwhile (bounded).
    round_waiting = true;
    return;
  }
  round_waiting = false;
  auto r = inbox->take();
  auto id = next_round++;
  size_t due = 0;
  auto on_error = [](caf::error&) {
    // Only at shutdown (a shard gone): the round stays unconfirmed, so the
    // watermark does not advance past it.
  };
  if (r.rebase && !r.new_history) {
    // Carried across a switch of feed: the old feed's positions mean
    // nothing in the new one's, the tiers stay.
    forget_positions();
    if (writer)
      caf::anon_send(writer, rebase_atom::value);
  }
  if (r.new_history) {
    // Another history: its xids have nothing to do with the old watermark,
    // and marks taken on the old one must not raise it again.
    forget_positions();
    if (writer)
      caf::anon_send(writer, history_atom::value, *r.new_history);
  }
  // Every kind (no argument) or those of a set; each shard's answer
  // confirms a share of the round.
  auto clear_shards = [&](auto... kinds) {
    for (auto& shard : shards) {
      ++due;
      self->request(shard, caf::infinite, clear_atom::value, kinds...)
        .then([self, id](uint64_t) { self->state.confirm(self, id); }, on_error);
    }
  };
  if (r.drop_tiers) {
    // A reset was logged by the connection with its rule; a first use of
    // empty tiers is no news.
    if (!r.new_history)
      spdlog::warn("notify listener: dropping both tiers");
    clear_shards();
    // Positions of the old history mean nothing now; the clears are in the
    // shards' mailboxes before any read their writers send next.
    if (r.new_history)
      release_lsn_waiters(true);
  } else if (r.drop_kinds != 0) {
    spdlog::warn("notify listener: dropping {} from both tiers", kind_names(r.drop_kinds));
    clear_shards(r.drop_kinds);
  }
  with_fanned_out_keys(r.changes);
  std::erase_if(r.changes, [this](const key_change& c) {
    if (!applied_before(c))
      return false;
    bump(metrics->already_applied);
    if (c.seq > metrics->applied_seq.load(std::memory_order_relaxed))
      metrics->applied_seq.store(c.seq, std::memory_order_relaxed); // applied, by the write itself
    return true;
  });
  if (!r.changes.empty()) {
    uint64_t top = 0;
    auto per_shard = split_by_shard(r.changes, top);
    bump(metrics->invalidations, r.changes.size());
    for (size_t i = 0; i < shards.size(); ++i) {
      if (per_shard[i].empty())
        continue;
      ++due;
      // Latency is measured when the shard answers: dropped from memory, and
      // not read from the second tier until the delete commits there.
      std::vector<int64_t> made;
      made.reserve(per_shard[i].size());
      for (auto& c : per_shard[i])
        made.push_back(c.changed_us);
      self->request(shards[i], caf::infinite, invalidate_atom::value, std::move(per_shard[i]))
        .then(
          [self, id, made = std::move(made)](uint64_t seq) {
            self->state.note_applied(seq, made);
            self->state.confirm(self, id);
          },
          on_error);
    }
  }
  if (!r.rows.empty()) {
    // A row names no key: every shard looks for the documents holding it.
    bump(metrics->invalidations, r.rows.size());
    std::vector<int64_t> made;
    for (auto& c : r.rows)
      made.push_back(c.changed_us);
    auto shared_made = std::make_shared<const std::vector<int64_t>>(std::move(made));
    for (auto& shard : shards) {
      ++due;
      self->request(shard, caf::infinite, invalidate_atom::value, r.rows)
        .then(
          [self, id, shared_made](uint64_t seq) {
            auto& st = self->state;
            // Once every shard is rid of the rows' documents.
            st.note_applied(seq, st.shards_answered_rows(id) ? *shared_made : std::vector<int64_t>{});
            st.confirm(self, id);
          },
          on_error);
    }
    rows_due.emplace(id, shards.size());
  }
  if (r.mark)
    marks.emplace_back(id, *r.mark);
  if (due > 0)
    outstanding.emplace(id, due);
  release_marks();
}

void notify_listener_state::note_applied(uint64_t seq, const std::vector<int64_t>& made) {
  auto now = now_us();
  for (auto us : made)
    if (us > 0)
      metrics->invalidation_latency.observe_us(now - us);
  auto& applied = metrics->applied_seq;
  if (seq > applied.load(std::memory_order_relaxed))
    applied.store(seq, std::memory_order_relaxed);
}

bool notify_listener_state::shards_answered_rows(uint64_t round) {
  auto i = rows_due.find(round);
  if (i == rows_due.end() || --i->second > 0)
    return false;
  rows_due.erase(i);
  return true;
}

void notify_listener_state::confirm(notify_listener_ptr self, uint64_t round) {
  auto i = outstanding.find(round);
  if (i != outstanding.end() && --i->second == 0)
    outstanding.erase(i);
  release_marks();
  if (round_waiting)
    dispatch(self);
}

void notify_listener_state::release_marks() {
  auto oldest_due = outstanding.empty() ? std::numeric_limits<uint64_t>::max() : outstanding.begin()->first;
  while (!marks.empty() && marks.front().first < oldest_due) {
    auto mark = marks.front().second;
    marks.pop_front();
    // A later position with the same xmin still narrows a replay (a
    // transaction left open holds xmin back, not xmax).
    auto w = metrics->watermark.load(std::memory_order_relaxed);
    bool has_position = mark.position.xmax > 0;
    bool moved = mark.xmin > w
                 || (mark.xmin == w && has_position
                     && (!applied_position || mark.position.xmax > applied_position->xmax));
    // A new catalog fingerprint is recorded once the drop it may have come
    // with is applied, even when the snapshot did not move.
    bool catalog_moved = !mark.catalog.empty() && mark.catalog != applied_catalog;
    if (moved) {
      metrics->watermark.store(mark.xmin, std::memory_order_release);
      applied_position = has_position ? std::optional{mark.position} : std::nullopt;
      inbox->set_applied(applied_position);
      if (mark.witness && (!applied_witness || mark.witness->xid >= applied_witness->xid)) {
        applied_witness = mark.witness;
        inbox->set_applied_witness(applied_witness);
      }
    }
    if (catalog_moved)
      applied_catalog = mark.catalog;
    if ((moved || catalog_moved) && writer)
      caf::anon_send(writer, watermark_atom::value, metrics->watermark.load(std::memory_order_relaxed),
                     applied_position ? to_text(*applied_position) : std::string{},
                     applied_witness ? to_text(*applied_witness) : std::string{}, applied_catalog);
    if (moved && !lsn_waiters.empty())
      release_lsn_waiters(false);
    // A mark of the live session, applied with all before it: caught up.
    if (session != 0 && mark.generation == session && metrics->caught_up.load() == 0) {
      spdlog::info("notify listener: caught up (watermark {})", mark.xmin);
      set_caught_up(true);
    }
  }
}

void notify_listener_state::release_lsn_waiters(bool all) {
  auto w = metrics->watermark.load(std::memory_order_relaxed);
  while (!lsn_waiters.empty() && (all || lsn_waiters.begin()->first <= w)) {
    lsn_waiters.begin()->second.deliver(w);
    lsn_waiters.erase(lsn_waiters.begin());
  }
}

actor_report notify_listener_state::report(notify_listener_ptr self) const {
  auto r = begin_report(name, self, &metrics->mailbox);
  auto rd = [](const auto& a) { return a.load(std::memory_order_relaxed); };
  r.add("connected", rd(metrics->connected) != 0)
    .add("caught up", rd(metrics->caught_up) != 0)
    .add("session", session)
    .add("applied seq", rd(metrics->applied_seq))
    .add("watermark", rd(metrics->watermark))
    .add("rounds in flight", outstanding.size())
    .add("marks waiting", marks.size())
    .add("inbox keys", inbox ? inbox->pending() : size_t{0})
    .add("changes read", rd(metrics->changes_read))
    .add("replayed", rd(metrics->replayed))
    .add("tier drops", rd(metrics->tier_drops))
    .add("tiers carried", rd(metrics->tiers_carried))
    .add("truncates", rd(metrics->truncates));
  return r;
}

notify_listener_actor::behavior_type
notify_listener(notify_listener_ptr self,
                notify_listener_config cfg, std::vector<cache_shard_actor> shards,
                batch_writer_actor writer, std::shared_ptr<change_inbox> inbox,
                listener_metrics* metrics, listener_status* status) {
  auto& st = self->state;
  st.cfg = std::move(cfg);
  st.shards = std::move(shards);
  st.writer = std::move(writer);
  st.inbox = std::move(inbox);
  st.metrics = metrics;
  st.status = status;
  st.set_caught_up(false);
  // The thread holds no strong reference: the actor may go first.
  caf::weak_actor_ptr weak{self->ctrl()}; // adds a weak reference
  auto send_self = [weak](auto... xs) {
    if (auto strong = weak.lock())
      caf::anon_send(caf::actor_cast<notify_listener_actor>(strong), xs...);
  };
  st.inbox->set_wake([send_self] { send_self(changes_atom::value); });
  if (st.cfg.start_connection)
    st.connection = std::make_unique<listen_connection>(
      st.cfg.connection, *st.inbox, *metrics,
      [send_self](uint64_t session, uint64_t lsn_floor) { send_self(listen_up_atom::value, session, lsn_floor); },
      [send_self] { send_self(listen_dn_atom::value); });
  // The mailbox size for /metrics: one message a second from a helper that
  // holds only a weak reference (never on the get path; never keeps this
  // actor alive or delays its exit).
  start_mailbox_reports(self);
  return {
    [self](changes_atom) { self->state.dispatch(self); },
    [self](mailbox_atom) {
      self->state.metrics->mailbox.store(static_cast<int64_t>(mailbox_size(self)),
                                         std::memory_order_relaxed);
    },
    [self](inspect_atom) -> actor_report { return self->state.report(self); },
    [self](listen_up_atom, uint64_t session, uint64_t lsn_floor) {
      auto& st = self->state;
      st.session = session;
      // Before the replay is applied and the shards read from standbys again.
      if (st.status != nullptr && lsn_floor > st.status->lsn_floor.load(std::memory_order_relaxed))
        st.status->lsn_floor.store(lsn_floor, std::memory_order_release);
    },
    [self](listen_dn_atom) {
      auto& st = self->state;
      st.session = 0;
      st.set_caught_up(false);
      st.release_lsn_waiters(true); // bypassed: their reads go to PostgreSQL
    },
    [self](passed_atom, uint64_t lsn) -> caf::result<uint64_t> {
      auto& st = self->state;
      auto w = st.metrics->watermark.load(std::memory_order_relaxed);
      if (st.metrics->feed_wal.load(std::memory_order_relaxed) == 0 || st.metrics->caught_up.load() == 0 || w >= lsn)
        return w;
      auto rp = self->make_response_promise<uint64_t>();
      st.lsn_waiters.emplace(lsn, rp);
      return rp;
    },
    [self](invalidate_atom, change_batch& changes) -> caf::result<uint64_t> {
      auto& st = self->state;
      with_fanned_out_keys(changes);
      // Its notification comes later through the same shards' mailboxes,
      // so it finds this applied already.
      st.remember_own_write(changes);
      uint64_t top = 0;
      auto per_shard = st.split_by_shard(changes, top);
      auto due = std::make_shared<size_t>(0);
      for (auto& b : per_shard)
        *due += b.empty() ? 0 : 1;
      if (*due == 0)
        return top;
      auto rp = self->make_response_promise<uint64_t>();
      for (size_t i = 0; i < st.shards.size(); ++i) {
        if (per_shard[i].empty())
          continue;
        self->request(st.shards[i], caf::infinite, invalidate_atom::value, std::move(per_shard[i]))
          .then(
            [rp, due, top](uint64_t) mutable {
              if (--*due == 0)
                rp.deliver(top);
            },
            [rp](caf::error& err) mutable { rp.deliver(std::move(err)); });
      }
      return rp;
    },
  };
}

} // namespace restcache
