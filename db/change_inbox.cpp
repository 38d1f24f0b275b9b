// SPDX-License-Identifier: Apache-2.0
#include "db/change_inbox.hpp"

#include <algorithm>
#include <utility>

namespace restcache {

change_inbox::change_inbox(size_t max_keys) : max_keys_(max_keys) {
}

void change_inbox::set_wake(std::function<void()> wake) {
  std::function<void()> now;
  {
    std::lock_guard guard{mtx_};
    wake_ = std::move(wake);
    // Something came before the taker was there: wake it now.
    if ((!changes_.empty() || !rows_.empty() || drop_ || rebase_ || mark_) && !woken_) {
      woken_ = true;
      now = wake_;
    }
  }
  if (now)
    now();
}

std::function<void()> change_inbox::note_added() {
  if (woken_ || !wake_)
    return {};
  woken_ = true;
  return wake_;
}

namespace {

/// Merges `change` into what `pending` holds for `key`: the newest
/// sequence, the furthest WAL position (a standby must have replayed every
/// one), the oldest change time (the latency of the first change the
/// invalidation answers). Returns the entry it merged into, or nullptr when
/// `key` was not pending (the change is kept as it is).
template <class Map, class Key, class Change>
Change* merge_pending(Map& pending, const Key& key, const Change& change) {
  auto [it, fresh] = pending.try_emplace(key, change);
  if (fresh)
    return nullptr;
  auto& kept = it->second;
  kept.seq = std::max(kept.seq, change.seq);
  kept.lsn = std::max(kept.lsn, change.lsn);
  if (change.changed_us != 0 && (kept.changed_us == 0 || change.changed_us < kept.changed_us))
    kept.changed_us = change.changed_us;
  return &kept;
}

} // namespace

void change_inbox::overflow_if_full() {
  if (changes_.size() + rows_.size() <= max_keys_)
    return;
  ++overflows_;
  changes_.clear();
  rows_.clear();
  drop_ = true;
}

void change_inbox::add(const key_change& change) {
  std::function<void()> wake;
  {
    std::lock_guard guard{mtx_};
    if (!drop_) {
      if (auto* kept = merge_pending(changes_, change.key, change)) {
        ++coalesced_;
        kept->coalesced = true;
      } else {
        overflow_if_full();
      }
    }
    wake = note_added();
  }
  if (wake)
    wake();
}

void change_inbox::add_all(const change_batch& changes) {
  for (auto& c : changes)
    add(c);
}

void change_inbox::add_rows(const row_batch& rows) {
  if (rows.empty())
    return;
  std::function<void()> wake;
  {
    std::lock_guard guard{mtx_};
    for (const auto& r : rows) {
      if (drop_)
        break;
      if (auto* kept = merge_pending(rows_, r.row, r)) {
        ++coalesced_;
        kept->kinds |= r.kinds;
      } else {
        overflow_if_full();
      }
    }
    wake = note_added();
  }
  if (wake)
    wake();
}

void change_inbox::add_mark(mark_point mark) {
  std::function<void()> wake;
  {
    std::lock_guard guard{mtx_};
    // One thread adds them, in order: the newest of the newest session wins
    // (its xmin may stay while its xmax moves on: a transaction left open).
    if (!mark_ || mark.generation >= mark_->generation)
      mark_ = mark;
    wake = note_added();
  }
  if (wake)
    wake();
}

void change_inbox::request_drop() {
  std::function<void()> wake;
  {
    std::lock_guard guard{mtx_};
    changes_.clear();
    rows_.clear();
    drop_ = true;
    wake = note_added();
  }
  if (wake)
    wake();
}

void change_inbox::request_drop_kinds(uint64_t kinds) {
  std::function<void()> wake;
  {
    std::lock_guard guard{mtx_};
    drop_kinds_ |= kinds;
    wake = note_added();
  }
  if (wake)
    wake();
}

void change_inbox::request_reset(const history_identity& history) {
  std::function<void()> wake;
  {
    std::lock_guard guard{mtx_};
    changes_.clear();
    rows_.clear();
    drop_ = true;
    new_history_ = history;
    mark_.reset();
    wake = note_added();
  }
  if (wake)
    wake();
}

void change_inbox::request_rebase() {
  std::function<void()> wake;
  {
    std::lock_guard guard{mtx_};
    rebase_ = true;
    mark_.reset(); // of the old feed
    wake = note_added();
  }
  if (wake)
    wake();
}

change_inbox::round change_inbox::take() {
  std::lock_guard guard{mtx_};
  round r;
  r.drop_tiers = drop_;
  r.drop_kinds = drop_ ? 0 : drop_kinds_;
  r.new_history = std::move(new_history_);
  new_history_.reset();
  r.rebase = std::exchange(rebase_, false);
  r.changes.reserve(changes_.size());
  for (auto& [key, change] : changes_)
    r.changes.push_back(change);
  r.rows.reserve(rows_.size());
  for (auto& [row, change] : rows_)
    r.rows.push_back(std::move(change));
  r.mark = mark_;
  changes_.clear();
  rows_.clear();
  drop_ = false;
  drop_kinds_ = 0;
  mark_.reset();
  woken_ = false;
  return r;
}

void change_inbox::set_applied(std::optional<feed_position> position) {
  std::lock_guard guard{mtx_};
  applied_ = std::move(position);
}

std::optional<feed_position> change_inbox::applied() const {
  std::lock_guard guard{mtx_};
  return applied_;
}

void change_inbox::set_applied_witness(std::optional<log_witness> witness) {
  std::lock_guard guard{mtx_};
  applied_witness_ = witness;
}

std::optional<log_witness> change_inbox::applied_witness() const {
  std::lock_guard guard{mtx_};
  return applied_witness_;
}

size_t change_inbox::pending() const {
  std::lock_guard guard{mtx_};
  return changes_.size() + rows_.size();
}

uint64_t change_inbox::coalesced() const {
  std::lock_guard guard{mtx_};
  return coalesced_;
}

uint64_t change_inbox::overflows() const {
  std::lock_guard guard{mtx_};
  return overflows_;
}

} // namespace restcache
