// SPDX-License-Identifier: Apache-2.0
#include "cache/missing_keys.hpp"

#include <algorithm>
#include <vector>

#include "cache/keys_of_kinds.hpp"

namespace restcache {

bool missing_keys::remember(const doc_key& key, time_point now) {
  if (!keeps_any())
    return false;
  auto generation = next_generation_++;
  auto added =
    entries_.insert_or_assign(key, entry{now + std::chrono::duration_cast<time_point::duration>(ttl_), generation}).second;
  if (added)
    bytes_ += charge_of(key);
  order_.push_back(slot{key, generation});
  trim(now);
  return true;
}

bool missing_keys::contains(const doc_key& key, time_point now) {
  auto i = entries_.find(key);
  if (i == entries_.end())
    return false;
  if (i->second.expires > now)
    return true;
  forget(key);
  return false;
}

void missing_keys::forget(const doc_key& key) {
  if (entries_.erase(key) == 0)
    return;
  bytes_ -= charge_of(key);
  // Slots of forgotten entries are skipped by the trim; compact when they dominate.
  if (order_.size() > 2 * entries_.size() + 1024)
    std::erase_if(order_, [this](const slot& s) {
      auto j = entries_.find(s.key);
      return j == entries_.end() || j->second.generation != s.generation;
    });
}

void missing_keys::forget_kinds(uint64_t kinds) {
  for (const auto& key : keys_of_kinds(entries_, kinds))
    forget(key);
}

void missing_keys::clear() {
  entries_.clear();
  order_.clear();
  bytes_ = 0;
}

void missing_keys::trim(time_point now) {
  while (!order_.empty()) {
    auto s = order_.front();
    auto i = entries_.find(s.key);
    if (i != entries_.end() && i->second.generation == s.generation) {
      if (i->second.expires > now && bytes() <= max_bytes_)
        return;
      entries_.erase(i);
      bytes_ -= charge_of(s.key);
    }
    order_.pop_front();
  }
}

} // namespace restcache
