// SPDX-License-Identifier: Apache-2.0
#include "cache/replica_tracker.hpp"

#include <algorithm>

namespace restcache {

void replica_tracker::note_change(const doc_key& key, uint64_t lsn) {
  if (lsn == 0 || !any())
    return;
  auto& at = key_lsns_[key];
  if (lsn <= at)
    return;
  at = lsn;
  lsn_order_.emplace_back(lsn, key);
}

void replica_tracker::note_kinds(uint64_t kinds, uint64_t lsn) {
  if (lsn == 0 || !any())
    return;
  for (size_t k = 0; k < kind_lsns_.size(); ++k)
    if ((kinds >> k) & 1)
      kind_lsns_[k] = std::max(kind_lsns_[k], lsn);
}

uint64_t replica_tracker::needed_lsn(const doc_key& key, uint64_t listener_floor) const {
  uint64_t need = std::max({lsn_floor_, listener_floor, kind_lsns_[static_cast<size_t>(key.kind()) & 63]});
  if (auto i = key_lsns_.find(key); i != key_lsns_.end())
    need = std::max(need, i->second);
  return need;
}

void replica_tracker::forget_replayed() {
  if (key_lsns_.size() > cfg_.max_key_lsns) {
    // Too many to remember one by one: every key waits for the highest.
    for (auto& [key, lsn] : key_lsns_)
      lsn_floor_ = std::max(lsn_floor_, lsn);
    key_lsns_.clear();
    lsn_order_.clear();
  }
  auto replayed = replayed_everywhere(cfg_.standbys);
  while (!lsn_order_.empty() && lsn_order_.front().first <= replayed) {
    auto [lsn, key] = lsn_order_.front();
    lsn_order_.pop_front();
    if (auto i = key_lsns_.find(key); i != key_lsns_.end() && i->second <= lsn) {
      key_lsns_.erase(i);
      // A standby that comes back from further behind must still wait.
      lsn_floor_ = std::max(lsn_floor_, lsn);
    }
  }
}

std::optional<size_t> replica_tracker::route(const doc_key& key, uint64_t id, uint64_t listener_floor,
                                             time_point now) {
  for (size_t tried = 0; tried < cfg_.standbys.size(); ++tried) {
    auto i = next_standby_++ % cfg_.standbys.size();
    if (!cfg_.standbys[i]->usable.load(std::memory_order_acquire))
      continue;
    auto [f, fresh] = fills_.try_emplace(id);
    if (fresh)
      f->second = {needed_lsn(key, listener_floor), i, now};
    f->second.standby = i;
    return i;
  }
  return std::nullopt;
}

replica_tracker::judgement replica_tracker::judge(uint64_t id, const answer& a, time_point now) {
  judgement out;
  auto f = fills_.find(id);
  if (f == fills_.end())
    return out;
  // A standby's answer counts only if the standby had replayed the key's
  // last change before it read: else it may be the old row.
  out.behind = a.on_standby && cfg_.lsn_check && a.replay_lsn < f->second.need_lsn;
  if (!out.behind && !a.unreachable) {
    fills_.erase(f);
    return out;
  }
  auto waited = now - f->second.began;
  if (out.behind && waited < cfg_.wait) {
    out.step = next_step::retry_standby;
    out.retry_in = std::min<std::chrono::nanoseconds>(std::chrono::milliseconds{10}, cfg_.wait - waited);
  } else {
    out.step = next_step::read_primary;
  }
  return out;
}

} // namespace restcache
