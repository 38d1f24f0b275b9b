// SPDX-License-Identifier: Apache-2.0
#pragma once

// CAF's thread-safe actor clock, with one cost removed: every actor that
// terminates asks the clock to cancel its timeouts (local_actor::cleanup),
// which allocates an event and wakes the clock thread, even for an actor
// that never set one. Short-lived actors (a write's job actor) then cost a
// clock-thread wake-up each. This clock remembers which actors set a
// timeout and forwards only their cancellations.

#include <caf/detail/thread_safe_actor_clock.hpp>

#include <atomic>
#include <cstdint>
#include <mutex>
#include <unordered_set>

namespace restcache::runtime {

class actor_clock final : public caf::detail::thread_safe_actor_clock {
public:
  using super = caf::detail::thread_safe_actor_clock;

  void set_ordinary_timeout(time_point t, caf::abstract_actor* self, caf::atom_value type,
                            uint64_t id) override;
  void set_request_timeout(time_point t, caf::abstract_actor* self, caf::message_id id) override;
  void set_multi_timeout(time_point t, caf::abstract_actor* self, caf::atom_value type,
                         uint64_t id) override;
  void cancel_timeouts(caf::abstract_actor* self) override;

  /// Cancellations handed to the clock thread, and those it was spared.
  uint64_t cancellations_forwarded() const noexcept {
    return forwarded_.load(std::memory_order_relaxed);
  }
  uint64_t cancellations_skipped() const noexcept {
    return skipped_.load(std::memory_order_relaxed);
  }

private:
  void note(caf::abstract_actor* self);

  std::mutex mtx_;
  /// Actors that set a timeout and have not terminated (guarded by mtx_).
  std::unordered_set<caf::actor_id> with_timeouts_;
  std::atomic<uint64_t> forwarded_{0};
  std::atomic<uint64_t> skipped_{0};
};

} // namespace restcache::runtime
