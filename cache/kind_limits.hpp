// SPDX-License-Identifier: Apache-2.0
#pragma once

// What a shard keeps of each kind beyond what changes drop, from the
// catalogue: a kind with a TTL keeps a document that long after it was
// read, and in memory only (an LMDB record outlives a restart, and the
// file keeps no time of reading; a time-dependent document is cheap to read
// again); a kind with a size cap keeps no larger document (it is answered,
// not kept). Plain C++, used by the shard under its own thread.

#include <array>
#include <chrono>
#include <cstdint>

#include "messages/cache_types.hpp"
#include "messages/doc_catalogue.hpp"
#include "messages/doc_key.hpp"

namespace restcache {

class kind_limits {
public:
  using time_point = std::chrono::steady_clock::time_point;

  /// No limits (every kind kept until a change).
  kind_limits() = default;
  /// The limits of the installed catalogue's kinds.
  static kind_limits of_catalogue();

  /// Sets one kind's limits: `ttl` 0 for none, `max_bytes` 0 for none.
  void set(doc_kind kind, std::chrono::nanoseconds ttl, int64_t max_bytes) noexcept;

  /// When a document of `key`'s kind read at `now` stops being answered:
  /// time_point::max() for a kind without a TTL.
  time_point expiry(const doc_key& key, time_point now) const noexcept {
    const auto& l = of(key.kind());
    return l.ttl.count() > 0 ? now + l.ttl : time_point::max();
  }
  /// Whether `doc` may be kept for `key` (not above its kind's size cap).
  bool keeps(const doc_key& key, const cached_doc& doc) const noexcept {
    const auto& l = of(key.kind());
    return l.max_bytes == 0 || static_cast<int64_t>(doc.body.size()) <= l.max_bytes;
  }
  /// Whether `key`'s kind may be kept in LMDB (it has no TTL).
  bool in_tier(const doc_key& key) const noexcept { return of(key.kind()).ttl.count() == 0; }
  /// Whether a "does not exist" answer of `key`'s kind may be remembered
  /// for `negative_ttl`: not when its kind's TTL is shorter (a document of
  /// it may come to exist without a logged write within that TTL).
  bool remembers_missing(const doc_key& key, std::chrono::nanoseconds negative_ttl) const noexcept {
    const auto& l = of(key.kind());
    return l.ttl.count() == 0 || l.ttl >= negative_ttl;
  }

private:
  struct limits {
    std::chrono::nanoseconds ttl{0};
    int64_t max_bytes = 0;
  };
  const limits& of(doc_kind kind) const noexcept { return by_kind_[static_cast<uint8_t>(kind) % by_kind_.size()]; }

  std::array<limits, max_kinds + 1> by_kind_{}; ///< by kind id (0 is no kind)
};

} // namespace restcache
