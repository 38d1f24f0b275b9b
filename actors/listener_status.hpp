// SPDX-License-Identifier: Apache-2.0
#pragma once

// What the notify listener tells the shards and the daemon about itself
// without a message: whether it is caught up, and since when it is not.
// Plain atomics, written by the listener, read on the lookup path (the
// bypass flag) and on the error path (the rest).

#include <atomic>
#include <chrono>
#include <cstdint>
#include <limits>
#include <optional>

namespace restcache {

/// Now, in microseconds since the epoch (system clock): the unit of the
/// times below and of a change's time in the change log.
inline int64_t now_us() noexcept {
  using namespace std::chrono;
  return duration_cast<microseconds>(system_clock::now().time_since_epoch()).count();
}

struct listener_status {
  /// caught_up_until_us while the listener is caught up.
  static constexpr int64_t caught_up_now = std::numeric_limits<int64_t>::max();

  /// Set while the listener is not caught up: GETs bypass the tiers, since
  /// nothing tells the shards what changed meanwhile.
  std::atomic<bool> bypass{true};
  /// The last moment the listener was caught up (microseconds since the
  /// epoch, system clock): caught_up_now while it is, 0 before it ever was.
  std::atomic<int64_t> caught_up_until_us{0};
  /// When this instance first answered stale-if-error since the listener was
  /// last caught up (microseconds since the epoch); 0 while it has not.
  std::atomic<int64_t> stale_since_us{0};
  /// The primary's WAL position when the listener last (re)connected and
  /// replayed: every change committed before lies below it, so a fill may
  /// read from a standby only once the standby has replayed this far (0:
  /// no standbys, or not known yet).
  std::atomic<uint64_t> lsn_floor{0};

  /// The listener caught up (`yes`) or lost the database at `now_us`.
  void set_caught_up(bool yes, int64_t now_us) noexcept {
    if (yes) {
      caught_up_until_us.store(caught_up_now, std::memory_order_release);
      stale_since_us.store(0, std::memory_order_release);
    } else {
      // Only the end of a caught-up stretch moves it: a second loss report
      // keeps the first one's time, and a start-up never caught up stays 0.
      int64_t expected = caught_up_now;
      caught_up_until_us.compare_exchange_strong(expected, now_us, std::memory_order_acq_rel);
    }
    bypass.store(!yes, std::memory_order_release);
  }

  /// Whole seconds since the cached documents were last known to match the
  /// database, when that is at most `limit`; nullopt when they may not be
  /// answered stale (never caught up, too long ago, or limit 0).
  std::optional<uint32_t> stale_age(int64_t now_us, std::chrono::seconds limit) const noexcept {
    if (limit.count() <= 0)
      return std::nullopt;
    auto until = caught_up_until_us.load(std::memory_order_acquire);
    if (until == caught_up_now)
      return 0;
    if (until == 0)
      return std::nullopt;
    auto behind_us = std::max<int64_t>(0, now_us - until);
    if (behind_us > limit.count() * 1'000'000)
      return std::nullopt;
    return static_cast<uint32_t>(behind_us / 1'000'000);
  }

  /// Notes a stale-if-error answer at `now_us` (the first one's time is kept).
  void note_stale_answer(int64_t now_us) noexcept {
    int64_t none = 0;
    if (stale_since_us.load(std::memory_order_relaxed) == 0)
      stale_since_us.compare_exchange_strong(none, now_us, std::memory_order_acq_rel);
  }
};

} // namespace restcache
