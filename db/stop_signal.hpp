// SPDX-License-Identifier: Apache-2.0
#pragma once

// How a driver thread of its own (the change listener, the relay's lead) is
// told to stop while it sleeps or waits on a socket: a pipe whose read end
// wakes poll(), and a flag.

#include <atomic>
#include <chrono>

namespace restcache {

class stop_signal {
public:
  stop_signal();
  ~stop_signal();
  stop_signal(const stop_signal&) = delete;
  stop_signal& operator=(const stop_signal&) = delete;

  /// Sets the flag and wakes whoever waits.
  void stop() noexcept;
  bool stopping() const noexcept { return stopping_.load(std::memory_order_acquire); }
  /// Sleeps up to `d`, or until stop(); false when stopping.
  bool pause(std::chrono::milliseconds d) const;
  /// Readable once stop() was called: poll() it beside a socket.
  int fd() const noexcept { return fds_[0]; }

private:
  int fds_[2] = {-1, -1};
  std::atomic<bool> stopping_{false};
};

} // namespace restcache
