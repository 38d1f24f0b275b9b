// SPDX-License-Identifier: Apache-2.0
#include "cache/fill_table.hpp"

#include <utility>

#include "cache/keys_of_kinds.hpp"

namespace restcache {

uint64_t fill_table::next_id(const doc_key& key, time_point now) {
  auto id = next_id_++;
  deadlines_.push_back({now + std::chrono::duration_cast<time_point::duration>(timeout_), key, id});
  return id;
}

uint64_t fill_table::start(const doc_key& key, uint64_t seq, waiter first, time_point now) {
  auto id = next_id(key, now);
  auto& f = current_[key];
  f.id = id;
  f.seq = seq;
  f.waiters.push_back(std::move(first));
  return id;
}

uint64_t fill_table::start_uncached(const doc_key& key, waiter first, time_point now) {
  auto id = next_id(key, now);
  uncached_[id].push_back(std::move(first));
  return id;
}

bool fill_table::join(const doc_key& key, reply_callback& cb, cache_status how) {
  auto f = current_.find(key);
  if (f == current_.end())
    return false;
  f->second.waiters.push_back({std::move(cb), how});
  return true;
}

std::optional<uint64_t> fill_table::current_seq(const doc_key& key) const {
  if (auto f = current_.find(key); f != current_.end())
    return f->second.seq;
  return std::nullopt;
}

bool fill_table::overtake(const doc_key& key) {
  auto f = current_.find(key);
  if (f == current_.end())
    return false;
  uncached_.emplace(f->second.id, std::move(f->second.waiters));
  current_.erase(f);
  return true;
}

size_t fill_table::overtake_kinds(std::optional<uint64_t> kinds) {
  size_t n = 0;
  for (auto f = current_.begin(); f != current_.end();) {
    if (kinds && !of_kinds(f->first, *kinds)) {
      ++f;
      continue;
    }
    uncached_.emplace(f->second.id, std::move(f->second.waiters));
    f = current_.erase(f);
    ++n;
  }
  return n;
}

std::optional<fill_table::ended> fill_table::finish(const doc_key& key, uint64_t id) {
  std::optional<ended> out;
  if (auto f = current_.find(key); f != current_.end() && f->second.id == id) {
    out = ended{key, id, std::move(f->second.waiters), true, f->second.seq};
    current_.erase(f);
  } else if (auto u = uncached_.find(id); u != uncached_.end()) {
    out = ended{key, id, std::move(u->second), false, 0};
    uncached_.erase(u);
  }
  drop_ended_deadlines();
  return out;
}

bool fill_table::pending(const doc_key& key, uint64_t id) const {
  if (auto f = current_.find(key); f != current_.end() && f->second.id == id)
    return true;
  return uncached_.count(id) > 0;
}

std::vector<fill_table::ended> fill_table::expire(time_point now) {
  std::vector<ended> out;
  while (!deadlines_.empty() && deadlines_.front().at <= now) {
    auto d = deadlines_.front();
    deadlines_.pop_front();
    if (auto e = finish(d.key, d.id)) // drops the ended deadlines behind it too
      out.push_back(std::move(*e));
  }
  return out;
}

std::optional<fill_table::time_point> fill_table::next_deadline() {
  drop_ended_deadlines();
  if (deadlines_.empty())
    return std::nullopt;
  return deadlines_.front().at;
}

void fill_table::drop_ended_deadlines() {
  while (!deadlines_.empty() && !pending(deadlines_.front().key, deadlines_.front().id))
    deadlines_.pop_front();
}

size_t fill_table::waiting_readers() const noexcept {
  size_t n = 0;
  for (const auto& [id, waiters] : uncached_)
    n += waiters.size();
  for (const auto& [key, f] : current_)
    n += f.waiters.size();
  return n;
}

} // namespace restcache
