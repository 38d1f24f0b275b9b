// SPDX-License-Identifier: Apache-2.0
#include "actors/db_pool.hpp"

#include <caf/all.hpp>

#include "actors/mailbox_report.hpp"

namespace restcache {

size_t db_pool_state::connections_up() const noexcept {
  size_t n = 0;
  for (auto& s : slots)
    n += s.up ? 1 : 0;
  return n;
}

bool db_pool_state::has_room(uint64_t i) const noexcept {
  const auto& s = slots[i];
  return s.up && s.leases < cfg.leases_per_connection && s.conn->up();
}

std::optional<uint64_t> db_pool_state::pick() const noexcept {
  for (uint64_t i = 0; i < slots.size(); ++i)
    if (has_room(i))
      return i;
  return std::nullopt;
}

void db_pool_state::lend(uint64_t i) {
  if (slots[i].leases++ == 0)
    metrics->in_use.fetch_add(1, std::memory_order_relaxed);
}

void db_pool_state::give_back(uint64_t i) {
  if (slots[i].leases > 0 && --slots[i].leases == 0)
    metrics->in_use.fetch_sub(1, std::memory_order_relaxed);
}

actor_report db_pool_state::report(db_pool_actor::pointer self) const {
  auto r = begin_report(name, self, &metrics->mailbox);
  size_t lent = 0, leases = 0, idle = 0;
  for (auto& s : slots) {
    lent += s.leases > 0 ? 1 : 0;
    leases += s.leases;
    idle += s.up && s.leases == 0 ? 1 : 0;
  }
  r.add("size", slots.size())
    .add("up", connections_up())
    .add("in use", lent)
    .add("idle", idle)
    .add("borrowers", leases)
    .add("borrowers per connection", cfg.leases_per_connection)
    .add("waiting", waiters.size())
    .add("max waiting", cfg.max_waiters)
    .add("rejected", metrics->borrow_rejected.load(std::memory_order_relaxed));
  return r;
}

void db_pool_state::make_available(uint64_t i) {
  while (!waiters.empty() && has_room(i)) {
    lend(i);
    auto rp = std::move(waiters.front());
    waiters.pop_front();
    metrics->borrow_waiting.fetch_sub(1, std::memory_order_relaxed);
    rp.deliver(borrow_result{rc_error::none, slots[i].conn});
  }
}

void db_pool_state::fail_waiters(rc_error e) {
  for (auto& rp : waiters)
    rp.deliver(borrow_result{e, nullptr});
  metrics->borrow_waiting.fetch_sub(static_cast<int64_t>(waiters.size()), std::memory_order_relaxed);
  waiters.clear();
}

db_pool_actor::behavior_type db_pool(db_pool_actor::stateful_pointer<db_pool_state> self,
                                     db_pool_config cfg, connection_factory factory,
                                     db_metrics* metrics) {
  auto& st = self->state;
  st.cfg = cfg;
  st.metrics = metrics;
  st.slots.resize(cfg.pool_size);
  // Connections hold only a weak reference: the pool owns them, not the
  // other way round.
  auto weak = caf::actor_cast<caf::weak_actor_ptr>(self);
  auto notify = [weak](auto atom) {
    return [weak, atom](uint64_t slot) {
      if (auto strong = caf::actor_cast<caf::strong_actor_ptr>(weak))
        caf::anon_send(caf::actor_cast<db_pool_actor>(strong), atom, slot);
    };
  };
  for (uint64_t i = 0; i < cfg.pool_size; ++i)
    st.slots[i].conn = factory(i, notify(conn_up_atom::value), notify(conn_down_atom::value));
  // The mailbox size for /metrics: one message a second from a helper that
  // holds only a weak reference (never on the get path; never keeps this
  // actor alive or delays its exit).
  start_mailbox_reports(self);
  // When the pool exits its state is destroyed: dropping the leases stops
  // the connection threads (each finishes its current statement first).
  return {
    [self](borrow_atom) -> caf::result<borrow_result> {
      auto& st = self->state;
      if (auto i = st.pick()) {
        st.lend(*i);
        return borrow_result{rc_error::none, st.slots[*i].conn};
      }
      if (st.connections_up() == 0 && !st.in_reconnect_grace)
        return borrow_result{rc_error::db_unavailable, nullptr};
      if (st.waiters.size() >= st.cfg.max_waiters) {
        bump(st.metrics->borrow_rejected);
        return borrow_result{rc_error::overloaded, nullptr};
      }
      st.metrics->borrow_waiting.fetch_add(1, std::memory_order_relaxed);
      st.waiters.push_back(self->make_response_promise<borrow_result>());
      return st.waiters.back();
    },
    [self](release_atom, db_lease& lease) {
      auto& st = self->state;
      auto i = lease->slot();
      if (i >= st.slots.size() || st.slots[i].leases == 0)
        return;
      st.give_back(i);
      if (lease->up())
        st.make_available(i);
    },
    [self](conn_up_atom, uint64_t i) {
      auto& st = self->state;
      if (i >= st.slots.size() || st.slots[i].up)
        return;
      st.slots[i].up = true;
      st.in_reconnect_grace = false;
      st.make_available(i);
    },
    [self](conn_down_atom, uint64_t i) {
      auto& st = self->state;
      if (i >= st.slots.size() || !st.slots[i].up)
        return;
      st.slots[i].up = false;
      if (st.connections_up() == 0) {
        ++st.outages;
        st.in_reconnect_grace = st.cfg.reconnect_grace.count() > 0;
        if (st.in_reconnect_grace)
          self->delayed_send(self, st.cfg.reconnect_grace, regrace_atom::value, st.outages);
        else
          st.fail_waiters(rc_error::db_unavailable);
      }
    },
    [self](regrace_atom, uint64_t outage) {
      auto& st = self->state;
      if (outage != st.outages || st.connections_up() > 0)
        return; // a connection came back since (and perhaps went again)
      st.in_reconnect_grace = false;
      st.fail_waiters(rc_error::db_unavailable);
    },
    [self](mailbox_atom) {
      self->state.metrics->mailbox.store(static_cast<int64_t>(mailbox_size(self)),
                                         std::memory_order_relaxed);
    },
    [self](inspect_atom) -> actor_report { return self->state.report(self); },
  };
}

} // namespace restcache
