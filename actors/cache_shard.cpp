// SPDX-License-Identifier: Apache-2.0
#include "actors/cache_shard.hpp"

#include <caf/all.hpp>

#include "actors/mailbox_report.hpp"
#include "cache/fill_keeping.hpp"
#include "messages/doc_catalogue.hpp"
#include "messages/document_encoder.hpp"
#include "messages/document_gzip.hpp"
#include "messages/key_comparison.hpp"

namespace restcache {

namespace {

/// How a waiter's answer is marked when the fill's answer was not kept.
cache_status unkept(cache_status how) noexcept {
  switch (how) {
    case cache_status::stored: return cache_status::miss;
    case cache_status::refresh: return cache_status::refresh_unkept;
    default: return how;
  }
}

} // namespace

void cache_shard_state::read_fill(cache_shard_actor::stateful_pointer<cache_shard_state> self,
                                  const db_pool_actor& from, const doc_key& key, uint64_t id, int tries) {
  auto failed = [self, key, id](rc_error e) {
    self->send(self, filled_atom::value, key, id, fetch_outcome{e, nullptr});
  };
  self->request(from, caf::infinite, borrow_atom::value)
    .then(
      [self, from, key, id, tries, failed](borrow_result& borrowed) {
        if (borrowed.error != rc_error::none)
          return failed(borrowed.error);
        auto& held = self->state.reads[id];
        held = held_read{from, std::move(borrowed.lease), tries};
        // Called on the connection's thread.
        held.lease->fetch_document(key, [me = caf::actor_cast<cache_shard_actor>(self), key, id](fetch_outcome o) {
          caf::anon_send(me, filled_atom::value, key, id, std::move(o));
        });
      },
      [failed](caf::error&) { failed(rc_error::db_unavailable); });
}

bool cache_shard_state::read_done(cache_shard_actor::stateful_pointer<cache_shard_state> self, const doc_key& key,
                                  uint64_t id, rc_error error) {
  auto it = reads.find(id);
  if (it == reads.end())
    return false; // the borrow failed: no connection read it
  auto held = std::move(it->second);
  reads.erase(it);
  self->send(held.pool, release_atom::value, std::move(held.lease));
  if (!reads_again(error, held.tries) || !fills.pending(key, id))
    return false;
  read_fill(self, held.pool, key, id, held.tries + 1);
  return true;
}

uint64_t cache_shard_state::listener_lsn_floor() const noexcept {
  return cfg.listener != nullptr ? cfg.listener->lsn_floor.load(std::memory_order_acquire) : 0;
}

bool cache_shard_state::may_refresh(const doc_key& key, caf::actor_clock::time_point now) {
  if (cfg.refresh_interval.count() <= 0)
    return true;
  if (now >= refresh_window_end) {
    refreshed.clear();
    refresh_window_end = now + cfg.refresh_interval;
  }
  if (refreshed.size() >= cfg.max_refreshed_keys)
    return false;
  return refreshed.insert(key).second;
}

std::optional<lookup_result> cache_shard_state::stale_answer(const doc_key& key, rc_error error) {
  // Never for overloaded: the database is there, and more load is the last
  // thing it needs answered with old documents.
  // Nor for a drifted kind: nothing it held before the drift is vouched for.
  if ((error != rc_error::db_unavailable && error != rc_error::db_timeout) || cfg.listener == nullptr
      || cfg.mode == cache_mode::none || (cfg.drift != nullptr && cfg.drift->drifted(key.kind())))
    return std::nullopt;
  auto now = now_us();
  auto age = cfg.listener->stale_age(now, cfg.stale_if_error);
  if (!age)
    return std::nullopt;
  doc_ptr doc;
  if (auto* e = memory.peek(key))
    doc = e->doc;
  else if (tier_readable(key))
    doc = cfg.tier->get(key);
  if (!doc)
    return std::nullopt;
  cfg.listener->note_stale_answer(now);
  return lookup_result{rc_error::none, std::move(doc), cache_status::stale_if_error, *age};
}

void cache_shard_state::count_answer(cache_status status) noexcept {
  if (status != cache_status::none)
    bump(metrics->answers[static_cast<size_t>(status)]);
}

void cache_shard_state::answer_fill(waiter_list& waiters, const lookup_result& result, bool kept) {
  const bool marked = result.error == rc_error::none || result.error == rc_error::not_found;
  for (auto& w : waiters) {
    lookup_result r = result;
    if (r.status == cache_status::none && marked)
      r.status = kept ? w.how : unkept(w.how);
    count_answer(r.status);
    w.cb(std::move(r));
  }
  waiters.clear();
}

void cache_shard_state::apply_change(const key_change& change) {
  bump(metrics->invalidations);
  applied_seq = std::max(applied_seq, change.seq);
  replicas.note_change(change.key, change.lsn);
  memory.forget(change.key);
  if (fills.overtake(change.key)) // it may have read the row before the change committed
    bump(metrics->fills_discarded);
}

void cache_shard_state::arm_fill_timer(cache_shard_actor::pointer self) {
  if (fill_timer_armed)
    return;
  auto at = fills.next_deadline();
  if (!at)
    return;
  auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(*at - self->clock().now());
  fill_timer_armed = true;
  self->delayed_send(self, std::max(wait, std::chrono::milliseconds{1}), fill_tmo_atom::value);
}

void cache_shard_state::expire_fills(cache_shard_actor::pointer self) {
  fill_timer_armed = false;
  for (auto& f : fills.expire(self->clock().now())) {
    replicas.forget_fill(f.id);
    bump(metrics->fill_errors);
    auto stale = stale_answer(f.key, rc_error::db_timeout);
    answer_fill(f.waiters, stale ? *stale : lookup_result{rc_error::db_timeout, nullptr}, false);
  }
  arm_fill_timer(self);
}

void cache_shard_state::write_through(cache_shard_actor::pointer self, const doc_key& key,
                                      const doc_ptr& doc, uint64_t seq) {
  if (!cfg.uses_tier() || !cfg.writer || !limits.in_tier(key))
    return;
  if (auto* m = cfg.writer_metrics) {
    if (m->in_mailbox.load(std::memory_order_relaxed) + m->queued.load(std::memory_order_relaxed)
        >= cfg.writer_max_pending) {
      bump(m->records_dropped); // LMDB is behind: the tier is a cache
      return;
    }
    m->in_mailbox.fetch_add(1, std::memory_order_relaxed);
  }
  self->send(cfg.writer, put_atom::value, key, doc, seq);
}

void cache_shard_state::delete_from_tier(cache_shard_actor::pointer self, const change_batch& changes) {
  if (!cfg.uses_tier() || !cfg.writer || changes.empty())
    return;
  for (auto& c : changes)
    ++shielded[c.key];
  self->request(cfg.writer, caf::infinite, invalidate_atom::value, changes)
    .then(
      [this, changes](uint64_t) { // runs in the actor, which owns this state
        for (auto& c : changes)
          if (auto i = shielded.find(c.key); i != shielded.end() && --i->second == 0)
            shielded.erase(i);
      },
      [](caf::error&) {
        // Only at shutdown (the writer gone): the keys stay shielded.
      });
}

void cache_shard_state::apply_rows(cache_shard_actor::pointer self, const row_batch& rows) {
  change_batch found;
  uint64_t kinds = 0;
  for (const auto& r : rows) {
    kinds |= r.kinds;
    applied_seq = std::max(applied_seq, r.seq);
    replicas.note_kinds(r.kinds, r.lsn);
    for (auto& key : memory.holding(r.row))
      found.push_back(key_change{key, r.seq, r.changed_us, false, r.lsn});
  }
  for (const auto& c : found)
    apply_change(c);
  bump(metrics->fills_discarded, fills.overtake_kinds(kinds));
  delete_from_tier(self, found);
  if (!cfg.uses_tier() || !cfg.writer || rows.empty())
    return;
  // The writer finds the rows in the records it holds or has queued; until
  // it has, the kinds' records are not read (one of them may hold a row
  // memory no longer does).
  shield_kinds(kinds, true);
  self->request(cfg.writer, caf::infinite, invalidate_atom::value, rows)
    .then([this, kinds](uint64_t) { shield_kinds(kinds, false); }, // runs in the actor, which owns this state
          [](caf::error&) {
            // Only at shutdown (the writer gone): the kinds stay shielded.
          });
}

void cache_shard_state::shield_kinds(uint64_t kinds, bool on) {
  for (size_t k = 0; k < row_shields.size(); ++k)
    if ((kinds >> k) & 1) {
      if (on)
        ++row_shields[k];
      else
        --row_shields[k];
    }
}

namespace {

const char* mode_name(cache_mode m) {
  switch (m) {
    case cache_mode::memory:
      return "memory";
    case cache_mode::none:
      return "none";
    case cache_mode::tiered:
      return "tiered";
    case cache_mode::lmdb:
      return "lmdb";
  }
  return "?";
}


} // namespace

actor_report cache_shard_state::report(cache_shard_actor::pointer self) const {
  auto r = begin_report(name, self, &metrics->mailbox);
  r.add("entries", memory.size())
    .add("known missing", memory.missing_count())
    .add("bytes", memory.bytes())
    .add("budget", memory.budget())
    .add("fills in flight", fills.current_count())
    .add("uncached fills", fills.uncached_count())
    .add("waiting readers", fills.waiting_readers())
    .add("shielded keys", shielded.size())
    .add("clears in flight", clears_in_flight)
    .add("keys waiting for standby replay", replicas.waiting_keys())
    .add("standby fills in flight", replicas.standby_fills())
    .add("applied seq", applied_seq)
    .add("epoch", epoch)
    .add("mode", std::string{mode_name(cfg.mode)} + (cfg.bypassed() && cfg.mode != cache_mode::none ? " (bypassed)" : ""));
  return r;
}

key_report cache_shard_state::report_key(const doc_key& key) const {
  key_report r;
  r.key = key_label(key);
  r.shard_applied_seq = applied_seq;
  if (auto* e = memory.peek(key)) {
    r.in_memory = true;
    r.memory_bytes = static_cast<int64_t>(e->doc->body.size());
    r.etag = e->doc->etag;
    r.doc_seq = e->seq;
  }
  if (auto seq = fills.current_seq(key)) {
    r.fill_in_flight = true;
    if (!r.in_memory)
      r.doc_seq = *seq;
  }
  r.shielded = clears_in_flight > 0 || shielded.count(key) > 0;
  r.tier_enabled = cfg.uses_tier();
  if (r.tier_enabled) {
    // This shard's own reader, on this shard's thread, as a GET would read.
    if (auto doc = cfg.tier->get(key)) {
      r.in_lmdb = true;
      r.lmdb_bytes = static_cast<int64_t>(doc->body.size());
    }
  }
  return r;
}

namespace {

/// Drops what memory holds of the kinds (every kind: nullopt), treats their
/// fills in flight as overtaken, and has the writer drop them from the
/// second tier; answers once both tiers are rid of them. The tier is read
/// for no key meanwhile.
caf::result<uint64_t> clear_tiers(cache_shard_actor::stateful_pointer<cache_shard_state> self,
                                  std::optional<uint64_t> kinds) {
  auto& st = self->state;
  if (kinds)
    st.memory.drop_kinds(*kinds);
  else
    st.memory.clear();
  bump(st.metrics->fills_discarded, st.fills.overtake_kinds(kinds));
  ++st.epoch;
  st.metrics->invalidation_epoch.store(st.epoch, std::memory_order_release);
  if (!st.cfg.uses_tier() || !st.cfg.writer)
    return uint64_t{0};
  ++st.clears_in_flight;
  auto rp = self->make_response_promise<uint64_t>();
  auto answer = [self, rp](uint64_t confirmed) mutable {
    --self->state.clears_in_flight;
    rp.deliver(confirmed);
  };
  auto failed = [rp](caf::error& err) mutable { rp.deliver(std::move(err)); };
  if (kinds)
    self->request(st.cfg.writer, caf::infinite, clear_atom::value, *kinds).then(std::move(answer), std::move(failed));
  else
    self->request(st.cfg.writer, caf::infinite, clear_atom::value).then(std::move(answer), std::move(failed));
  return rp;
}

} // namespace

cache_shard_actor::behavior_type
cache_shard(cache_shard_actor::stateful_pointer<cache_shard_state> self, cache_shard_config cfg,
            db_pool_actor pool, cache_metrics* metrics) {
  self->state.cfg = cfg;
  self->state.fills = fill_table{cfg.fill_timeout};
  self->state.replicas = replica_tracker{{cfg.replica_states, cfg.replica_lsn_check, cfg.replica_wait, cfg.max_key_lsns}};
  self->state.memory = memory_tier{cfg.memory_bytes, missing_keys{cfg.negative_bytes, cfg.negative_ttl}, *metrics};
  self->state.limits = kind_limits::of_catalogue();
  self->state.pool = std::move(pool);
  self->state.metrics = metrics;

  // Sends fill `id` of the key to a usable standby when `standby_ok`, else
  // to the primary. A fill read on a standby keeps the WAL position it must
  // see and when it began across its retries; one that goes to the primary
  // after all is counted as such.
  auto send_fill = [self](const doc_key& key, uint64_t id, bool standby_ok) {
    auto& st = self->state;
    if (standby_ok) {
      if (auto standby = st.replicas.route(key, id, st.listener_lsn_floor(), self->clock().now())) {
        bump(st.metrics->replica_fills);
        st.read_fill(self, st.cfg.replicas[*standby], key, id);
        return;
      }
    }
    if (st.replicas.forget_fill(id))
      bump(st.metrics->replica_to_primary);
    st.read_fill(self, st.pool, key, id);
  };

  // Sends the read of a fill just started (to a standby, unless the fill is
  // bypassed: nothing known of what changed) and arms the timer for its
  // deadline: a stuck query cannot hang readers.
  auto send_new_fill = [self, send_fill](const doc_key& key, uint64_t id) {
    auto& st = self->state;
    bump(st.metrics->fills);
    send_fill(key, id, !st.cfg.replicas.empty() && !st.cfg.bypassed(key.kind()));
    st.arm_fill_timer(self);
  };

  // The mailbox size for /metrics: one message a second from a helper that
  // holds only a weak reference (never on the get path; never keeps this
  // actor alive or delays its exit).
  start_mailbox_reports(self);

  // cache.mode=none, or bypassed while the listener is not caught up: every
  // request runs its own query; nothing is kept.
  auto bypass = [self, send_new_fill](const doc_key& key, reply_callback& cb) {
    auto& st = self->state;
    bump(st.metrics->misses);
    send_new_fill(key, st.fills.start_uncached(key, {std::move(cb), cache_status::bypass}, self->clock().now()));
  };
  // A fill whose answer is kept; `how` marks the answer of the reader that started it.
  auto fill_for = [self, send_new_fill](const doc_key& key, reply_callback& cb, cache_status how) {
    auto& st = self->state;
    send_new_fill(key, st.fills.start(key, st.applied_seq, {std::move(cb), how}, self->clock().now()));
  };
  auto join = [self](const doc_key& key, reply_callback& cb) {
    auto& st = self->state;
    if (!st.fills.join(key, cb, cache_status::collapsed))
      return false;
    bump(st.metrics->coalesced);
    return true;
  };

  // `gzip`: the client accepts gzip, so a cached document gets its variant.
  auto lookup = [self, bypass, fill_for, join](const doc_key& key, reply_callback& cb, bool gzip) {
      auto& st = self->state;
      // A key spelled otherwise than its row's one spelling (a citext key
      // with a letter past ASCII) is answered, never kept.
      if (st.cfg.bypassed(key.kind()) || !cacheable_key(key))
        return bypass(key, cb);
      if (auto* e = st.memory.hit(key)) {
        if (e->live([self] { return self->clock().now(); })) {
          bump_hot(st.metrics->hits);
          auto doc = e->doc; // keep_gzip may evict the entry
          if (gzip)
            st.memory.keep_gzip(*e);
          cb(lookup_result{rc_error::none, std::move(doc), cache_status::memory});
          return;
        }
        st.memory.drop(key); // past its kind's TTL: read again
        bump(st.metrics->expired);
      }
      bump(st.metrics->misses);
      if (join(key, cb))
        return;
      if (st.memory.known_missing(key, self->clock().now())) {
        st.count_answer(cache_status::negative);
        cb(lookup_result{rc_error::not_found, nullptr, cache_status::negative});
        return;
      }
      // The second tier: a read of microseconds, never a write lock. A key
      // whose delete is not yet confirmed is not read: it may be old there.
      if (st.tier_readable(key)) {
        if (auto doc = st.cfg.tier->get(key)) {
          bump(st.metrics->tier_hits);
          if (st.cfg.uses_memory())
            st.memory.store(key, doc, st.applied_seq); // promoted: current, as it was not shielded
          cb(lookup_result{rc_error::none, std::move(doc), cache_status::lmdb});
          return;
        }
      }
      fill_for(key, cb, cache_status::stored);
  };
  // The client's Cache-Control: no-cache (cache.no-cache=honour): what the
  // tiers hold is not used (a fill in flight is joined: it started after
  // nothing the client saw), once per key per refresh interval; within it
  // a refresh is a lookup, so clients cannot choose the database's load.
  auto refill = [self, bypass, fill_for, join, lookup](const doc_key& key, reply_callback& cb) {
    if (self->state.cfg.bypassed(key.kind()) || !cacheable_key(key))
      return bypass(key, cb);
    if (!self->state.may_refresh(key, self->clock().now()))
      return lookup(key, cb, false);
    bump(self->state.metrics->misses);
    if (!join(key, cb))
      fill_for(key, cb, cache_status::refresh);
  };

  return {
    [lookup](get_atom, const doc_key& key, reply_callback& cb) { lookup(key, cb, false); },
    [lookup](gzip_atom, const doc_key& key, reply_callback& cb) { lookup(key, cb, true); },
    [refill](refill_atom, const doc_key& key, reply_callback& cb) { refill(key, cb); },
    [self](invalidate_atom, change_batch& changes) -> caf::result<uint64_t> {
      auto& st = self->state;
      uint64_t seq = 0;
      for (auto& c : changes) {
        st.apply_change(c);
        seq = std::max(seq, c.seq);
      }
      if (st.replicas.any()) {
        st.replicas.forget_replayed();
        st.metrics->key_lsns.store(static_cast<int64_t>(st.replicas.waiting_keys()), std::memory_order_relaxed);
      }
      // Before anything else reads the epoch: a populate page read before
      // these changes is not kept.
      ++st.epoch;
      st.metrics->invalidation_epoch.store(st.epoch, std::memory_order_release);
      st.delete_from_tier(self, changes);
      // Answered now, not when the delete commits: the listener sends its next
      // round once this one is answered, and a commit waiting behind a large
      // batch (or a slow disk) must not hold back the memory drops of the
      // changes after it. The shielded keys are not read from LMDB meanwhile,
      // and the deletes are in the writer's mailbox before anything the
      // listener sends it after this answer (the replay watermark included),
      // so the watermark never commits ahead of them.
      return seq;
    },
    [self](invalidate_atom, row_batch& rows) -> caf::result<uint64_t> {
      auto& st = self->state;
      uint64_t seq = 0;
      for (auto& r : rows)
        seq = std::max(seq, r.seq);
      st.apply_rows(self, rows);
      ++st.epoch; // a populate page read before is not kept
      st.metrics->invalidation_epoch.store(st.epoch, std::memory_order_release);
      return seq; // answered now, as a batch of keys is
    },
    [self](clear_atom) { return clear_tiers(self, std::nullopt); },
    [self](clear_atom, uint64_t kinds) { return clear_tiers(self, kinds); },
    [self, send_fill](filled_atom, const doc_key& key, uint64_t fill_id, fetch_outcome& outcome) {
      auto& st = self->state;
      if (st.read_done(self, key, fill_id, outcome.error))
        return;
      if (st.replicas.on_standby(fill_id)) {
        if (!st.fills.pending(key, fill_id)) {
          st.replicas.forget_fill(fill_id); // answered meanwhile (its timeout)
        } else {
          replica_tracker::answer read{outcome.on_standby, outcome.replay_lsn,
                                       outcome.error != rc_error::none && outcome.error != rc_error::not_found};
          auto verdict = st.replicas.judge(fill_id, read, self->clock().now());
          if (verdict.behind)
            bump(st.metrics->replica_behind);
          if (verdict.step == replica_tracker::next_step::retry_standby) {
            self->delayed_send(self, caf::timespan{verdict.retry_in}, refetch_atom::value, key, fill_id);
            return;
          }
          if (verdict.step == replica_tracker::next_step::read_primary) {
            send_fill(key, fill_id, false);
            return;
          }
        }
      }
      if (outcome.error != rc_error::none && outcome.error != rc_error::not_found)
        bump(st.metrics->fill_errors);
      auto fill = st.fills.finish(key, fill_id);
      if (!fill)
        return; // the fill timed out and its waiters were answered already
      lookup_result result{outcome.error, nullptr};
      if (outcome.error == rc_error::none) {
        if (outcome.doc)
          result.doc = std::move(outcome.doc);
        else
          result.error = rc_error::internal;
      }
      auto stale = st.stale_answer(key, result.error);
      const fill_read read{fill->current, result.doc != nullptr, result.error == rc_error::not_found,
                           stale.has_value()};
      const fill_kind_rules rules{!result.doc || st.limits.keeps(key, *result.doc), st.cfg.uses_memory(),
                                  st.limits.remembers_missing(key, st.cfg.negative_ttl), st.cfg.bypassed(key.kind())};
      bool kept = false;
      switch (keeping_of(read, rules)) {
        case fill_keeping::stale_instead:
          return st.answer_fill(fill->waiters, *stale, false);
        case fill_keeping::over_cap:
          bump(st.metrics->over_cap);
          break;
        case fill_keeping::store:
          if (st.cfg.uses_memory())
            st.memory.store(key, result.doc, fill->seq, st.limits.expiry(key, self->clock().now()));
          st.write_through(self, key, result.doc, fill->seq);
          kept = st.cfg.uses_memory() || (st.cfg.uses_tier() && st.limits.in_tier(key));
          break;
        case fill_keeping::remember_missing:
          kept = st.memory.remember_missing(key, self->clock().now());
          break;
        case fill_keeping::drop_older_copies:
          // The LMDB copy is deleted unread (nothing is read from the file
          // while bypassed: its history may not be checked yet), and with it
          // a record still queued in the writer.
          if (auto* e = st.memory.peek(key); e != nullptr && (!result.doc || e->doc->etag != result.doc->etag))
            st.memory.drop(key);
          if (st.cfg.uses_tier()) // not in cache.mode=none, where every GET comes here
            st.delete_from_tier(self, change_batch{key_change{key}});
          break;
        case fill_keeping::nothing:
          break;
      }
      st.answer_fill(fill->waiters, result, kept);
    },
    [self](put_atom, const doc_key& key, doc_ptr& doc, uint64_t epoch) {
      auto& st = self->state;
      if (st.cfg.bypassed(key.kind()) || epoch != st.epoch || st.memory.contains(key)
          || st.fills.in_flight(key))
        return;
      if (!st.limits.keeps(key, *doc)) {
        bump(st.metrics->over_cap);
        return;
      }
      bump(st.metrics->populated);
      st.write_through(self, key, doc, st.applied_seq);
      if (st.cfg.uses_memory())
        st.memory.store(key, std::move(doc), st.applied_seq, st.limits.expiry(key, self->clock().now()));
    },
    [self](mailbox_atom) {
      self->state.metrics->mailbox.store(static_cast<int64_t>(mailbox_size(self)),
                                         std::memory_order_relaxed);
    },
    [self](inspect_atom) -> actor_report { return self->state.report(self); },
    [self](inspect_atom, const doc_key& key) -> key_report { return self->state.report_key(key); },
    [self](fill_tmo_atom) { self->state.expire_fills(self); },
    [self, send_fill](refetch_atom, const doc_key& key, uint64_t fill_id) {
      auto& st = self->state;
      if (!st.replicas.on_standby(fill_id))
        return;
      if (!st.fills.pending(key, fill_id)) { // answered meanwhile (its timeout)
        st.replicas.forget_fill(fill_id);
        return;
      }
      send_fill(key, fill_id, true);
    },
  };
}

} // namespace restcache
