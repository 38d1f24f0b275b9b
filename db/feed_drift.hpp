// SPDX-License-Identifier: Apache-2.0
#pragma once

// Which document kinds the listener found drifted (persistence/pg/
// catalog_drift.hpp: a trigger missing, disabled or not ALWAYS, a column
// missing, the catalog unreadable), and why. Written by the listener's
// connection thread at every check; the kinds are read on the lookup path
// (a drifted kind is bypassed: served from PostgreSQL, never kept), the
// words by /ready, /metrics and the 503 of a query the schema broke.

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>

#include "messages/doc_catalogue.hpp"

namespace restcache {

class feed_drift {
public:
  uint64_t kinds() const noexcept { return kinds_.load(std::memory_order_acquire); }
  bool drifted(doc_kind k) const noexcept { return (kinds() & kind_bit(k)) != 0; }

  /// The drifted kinds and the problems that make them so ("" with none).
  void set(uint64_t kinds, std::string problems) {
    std::lock_guard lock{mutex_};
    problems_ = std::move(problems);
    kinds_.store(kinds, std::memory_order_release);
  }
  std::string problems() const {
    std::lock_guard lock{mutex_};
    return problems_;
  }

private:
  std::atomic<uint64_t> kinds_{0};
  mutable std::mutex mutex_;
  std::string problems_;
};

} // namespace restcache
