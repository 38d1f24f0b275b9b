// SPDX-License-Identifier: Apache-2.0
#include "cache/memory_tier.hpp"

#include <utility>
#include <vector>

#include "cache/keys_of_kinds.hpp"
#include "messages/document_gzip.hpp"
#include "messages/metric_types.hpp"

namespace restcache {

int64_t memory_tier::charge_of(const cached_doc& doc) noexcept {
  // Table slot, entry, CLOCK slot, make_shared block and the allocator's
  // headers: 310 to 395 bytes a document beyond its body and ETag, as the
  // table's load swings between growths (a probe of 120,000 to 240,000
  // entries); the most is charged, so the budget bounds the memory.
  constexpr int64_t overhead = 400;
  // A row it knows: the string in the document and its holders_ entry (the
  // key, the entry's own string, the table slot, the key vector).
  constexpr int64_t row_overhead = 128;
  int64_t rows = 0;
  for (const auto& r : doc.rows)
    rows += 2 * static_cast<int64_t>(r.capacity()) + row_overhead;
  return static_cast<int64_t>(doc.body.capacity() + doc.etag.capacity()) + overhead + rows;
}

void memory_tier::add_bytes(int64_t n) noexcept {
  bytes_ += n;
  if (gauges_ != nullptr)
    gauges_->bytes.fetch_add(n, std::memory_order_relaxed);
}

bool memory_tier::store(const doc_key& key, doc_ptr doc, uint64_t seq, time_point expires) {
  // A long text key's bytes are held once, shared by the entry and its slot.
  auto charge = charge_of(*doc) + static_cast<int64_t>(key.heap_bytes());
  if (charge > budget_)
    return false; // larger than the whole budget: served, not kept
  drop(key);
  forget_missing(key);
  auto generation = next_generation_++;
  for (const auto& row : doc->rows)
    holders_[row].push_back(key);
  entries_.emplace(key, entry{std::move(doc), charge, generation, false, seq, expires});
  clock_.push_back(clock_slot{key, generation});
  add_bytes(charge);
  if (gauges_ != nullptr)
    gauges_->entries.fetch_add(1, std::memory_order_relaxed);
  evict_until_within_budget();
  return true;
}

void memory_tier::keep_gzip(entry& e) {
  if (e.doc->gzip() != nullptr || e.doc->body.size() < gzip_min_bytes)
    return;
  auto variant = make_gzip_variant(*e.doc);
  auto extra = static_cast<int64_t>(variant->body.capacity() + variant->etag.capacity()) + 32;
  if (!e.doc->set_gzip(std::move(variant)))
    return;
  e.charge += extra;
  add_bytes(extra);
  evict_until_within_budget();
}

void memory_tier::erase(table::iterator i) {
  for (const auto& row : i->second.doc->rows)
    if (auto h = holders_.find(row); h != holders_.end()) {
      std::erase(h->second, i->first);
      if (h->second.empty())
        holders_.erase(h);
    }
  add_bytes(-i->second.charge);
  if (gauges_ != nullptr)
    gauges_->entries.fetch_sub(1, std::memory_order_relaxed);
  entries_.erase(i);
}

void memory_tier::drop(const doc_key& key) {
  auto i = entries_.find(key);
  if (i == entries_.end())
    return;
  erase(i);
  // Its CLOCK slot goes stale (generation mismatch) and is skipped later;
  // compact when stale slots dominate so the ring stays bounded.
  if (clock_.size() > 2 * entries_.size() + 1024) {
    std::deque<clock_slot> live;
    for (auto& slot : clock_) {
      auto j = entries_.find(slot.key);
      if (j != entries_.end() && j->second.generation == slot.generation)
        live.push_back(slot);
    }
    clock_.swap(live);
  }
}

void memory_tier::drop_kinds(uint64_t kinds) {
  for (const auto& key : keys_of_kinds(entries_, kinds))
    drop(key);
  change_missing([kinds](missing_keys& m) { m.forget_kinds(kinds); });
}

void memory_tier::clear() {
  if (gauges_ != nullptr) {
    gauges_->entries.fetch_sub(static_cast<int64_t>(entries_.size()), std::memory_order_relaxed);
    gauges_->negative_entries.fetch_sub(static_cast<int64_t>(missing_.size()), std::memory_order_relaxed);
    gauges_->bytes.fetch_sub(bytes_, std::memory_order_relaxed);
  }
  entries_.clear();
  holders_.clear();
  clock_.clear();
  missing_.clear();
  bytes_ = 0;
}

std::vector<doc_key> memory_tier::holding(std::string_view row) const {
  auto h = holders_.find(std::string{row}); // Debian's abseil: its own string_view
  return h == holders_.end() ? std::vector<doc_key>{} : h->second;
}

bool memory_tier::remember_missing(const doc_key& key, time_point now) {
  if (!missing_.keeps_any())
    return false;
  drop(key);
  change_missing([&](missing_keys& m) { m.remember(key, now); });
  evict_until_within_budget();
  return true;
}

template <class Change>
void memory_tier::change_missing(Change&& change) {
  auto was = static_cast<int64_t>(missing_.size());
  auto was_bytes = missing_.bytes();
  change(missing_);
  // Counted apart: one key in and another out keeps the count, not the
  // bytes, when their keys differ in length.
  auto added = static_cast<int64_t>(missing_.size()) - was;
  if (auto bytes = missing_.bytes() - was_bytes; bytes != 0)
    add_bytes(bytes);
  if (added != 0 && gauges_ != nullptr)
    gauges_->negative_entries.fetch_add(added, std::memory_order_relaxed);
}

bool memory_tier::known_missing_slow(const doc_key& key, time_point now) {
  bool found = false;
  change_missing([&](missing_keys& m) { found = m.contains(key, now); }); // an expired one goes
  return found;
}

void memory_tier::forget_missing_slow(const doc_key& key) {
  change_missing([&](missing_keys& m) { m.forget(key); });
}

void memory_tier::evict_until_within_budget() {
  // CLOCK (second chance): a hit only sets a bit, no list splicing on the hot
  // path; a key hit since the hand last passed survives one more round.
  while (bytes_ > budget_ && !clock_.empty()) {
    auto slot = clock_.front();
    clock_.pop_front();
    auto i = entries_.find(slot.key);
    if (i == entries_.end() || i->second.generation != slot.generation)
      continue; // stale slot
    if (i->second.referenced) {
      i->second.referenced = false;
      clock_.push_back(slot);
      continue;
    }
    erase(i);
    if (gauges_ != nullptr)
      bump(gauges_->evictions);
  }
}

} // namespace restcache
