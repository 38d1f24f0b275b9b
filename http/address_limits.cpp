// SPDX-License-Identifier: Apache-2.0
#include "http/address_limits.hpp"

#include <algorithm>
#include <limits>

namespace restcache::http {

// ---- address_slots --------------------------------------------------------------

address_slots::address_slots(size_t per_address) : per_address_(per_address) {
}

address_slots::shard& address_slots::shard_of(const ip_address& who) noexcept {
  return shards_[ip_address_hash{}(who) % shards_.size()];
}

namespace {

bool counts(const sheddable::phase p, bool shed) noexcept {
  return p != sheddable::phase::leaving && !shed;
}

} // namespace

address_slots::admission address_slots::admit(const ip_address& who, const std::shared_ptr<sheddable>& c) {
  if (per_address_ == 0)
    return admission::admitted;
  // Locked under the shard's mutex and let go only after it is released: a
  // last reference dropped under the mutex would run the connection's
  // destructor, which calls leave().
  std::shared_ptr<sheddable> victim;
  auto& s = shard_of(who);
  {
    std::lock_guard lk{s.mtx};
    auto& members = s.by_address[who];
    size_t live = 0;
    const member* idle = nullptr;
    const member* receiving = nullptr;
    int64_t idle_since = std::numeric_limits<int64_t>::max(), receiving_since = idle_since;
    for (auto& m : members) {
      // A member's object is alive while it is listed: its destructor
      // removes it under this mutex before anything of it goes.
      const auto p = m.id->phase_.load(std::memory_order_relaxed);
      if (!counts(p, m.id->shed_.load(std::memory_order_relaxed)))
        continue;
      ++live;
      const auto since = m.id->since_.load(std::memory_order_relaxed);
      if (p == sheddable::phase::idle && since < idle_since) {
        idle = &m;
        idle_since = since;
      } else if (p == sheddable::phase::receiving && since < receiving_since) {
        receiving = &m;
        receiving_since = since;
      }
    }
    if (live >= per_address_) {
      for (auto* pick : {idle, receiving}) {
        if (!pick)
          continue;
        victim = pick->conn.lock(); // empty: in its destructor, about to leave
        if (victim)
          break;
      }
      if (!victim) {
        if (members.empty())
          s.by_address.erase(who);
        return admission::refused;
      }
      victim->shed_.store(true, std::memory_order_relaxed);
    }
    members.push_back({c, c.get()});
  }
  if (!victim)
    return admission::admitted;
  victim->shed();
  return admission::shed_one;
}

void address_slots::leave(const ip_address& who, const sheddable* c) noexcept {
  if (per_address_ == 0)
    return;
  auto& s = shard_of(who);
  std::lock_guard lk{s.mtx};
  auto it = s.by_address.find(who);
  if (it == s.by_address.end())
    return;
  auto& members = it->second;
  auto at = std::find_if(members.begin(), members.end(), [c](const member& m) { return m.id == c; });
  if (at != members.end()) {
    *at = std::move(members.back());
    members.pop_back();
  }
  if (members.empty())
    s.by_address.erase(it);
}

size_t address_slots::counted(const ip_address& who) {
  auto& s = shard_of(who);
  std::lock_guard lk{s.mtx};
  auto it = s.by_address.find(who);
  if (it == s.by_address.end())
    return 0;
  return static_cast<size_t>(std::count_if(it->second.begin(), it->second.end(), [](const member& m) {
    return counts(m.id->phase_.load(std::memory_order_relaxed), m.id->shed_.load(std::memory_order_relaxed));
  }));
}

// ---- credential_throttle ------------------------------------------------------------

credential_throttle::credential_throttle(unsigned burst, clock::duration interval, size_t max_addresses)
  : burst_(std::max(burst, 1u)), interval_(interval), max_addresses_(std::max<size_t>(max_addresses, 1)) {
}

bool credential_throttle::may_try(const ip_address& who, clock::time_point now) {
  if (size_.load(std::memory_order_relaxed) == 0)
    return true;
  std::lock_guard lk{mtx_};
  auto it = until_.find(who);
  if (it == until_.end())
    return true;
  if (it->second <= now) { // all expired: forgotten
    until_.erase(it);
    size_.store(until_.size(), std::memory_order_relaxed);
    return true;
  }
  // With `burst` failures in hand the next must wait for one to expire.
  return it->second - now <= (burst_ - 1) * interval_;
}

void credential_throttle::failed(const ip_address& who, clock::time_point now) {
  std::lock_guard lk{mtx_};
  auto it = until_.find(who);
  if (it == until_.end()) {
    if (until_.size() >= max_addresses_)
      make_room(now);
    it = until_.emplace(who, now).first;
  }
  it->second = std::max(it->second, now) + interval_;
  size_.store(until_.size(), std::memory_order_relaxed);
}

void credential_throttle::make_room(clock::time_point now) {
  std::erase_if(until_, [now](const auto& e) { return e.second <= now; });
  if (until_.size() < max_addresses_)
    return;
  auto least = std::min_element(until_.begin(), until_.end(),
                                [](const auto& a, const auto& b) { return a.second < b.second; });
  until_.erase(least);
}

size_t credential_throttle::tracked() {
  std::lock_guard lk{mtx_};
  return until_.size();
}

} // namespace restcache::http
