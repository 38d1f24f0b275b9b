// SPDX-License-Identifier: Apache-2.0
#pragma once

// How the LMDB tier is doing, for /ready, /metrics and the log: written by
// the daemon at start-up and by the batch writer as its commits fail and
// succeed, read by the HTTP side. Never read on the lookup path: a tier in
// trouble needs no check there (a failed read is a miss; a key whose delete
// has not committed is shielded by its shard either way).

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <utility>

namespace restcache {

enum class tier_state : uint8_t {
  ok,       ///< opened, and the last commit succeeded
  degraded, ///< commits fail (disk error, read-only file system): reads go on
  off,      ///< could not be opened at start: memory and PostgreSQL serve
};

inline const char* to_string(tier_state s) noexcept {
  switch (s) {
    case tier_state::ok: return "ok";
    case tier_state::degraded: return "degraded";
    case tier_state::off: return "off";
  }
  return "?";
}

class tier_status {
public:
  /// Sets the state and the words that say why (shown by /ready).
  void set(tier_state s, std::string why) {
    std::lock_guard<std::mutex> lock{mutex_};
    state_.store(s, std::memory_order_relaxed);
    why_ = std::move(why);
  }
  tier_state state() const noexcept { return state_.load(std::memory_order_relaxed); }
  std::pair<tier_state, std::string> get() const {
    std::lock_guard<std::mutex> lock{mutex_};
    return {state_.load(std::memory_order_relaxed), why_};
  }

private:
  mutable std::mutex mutex_;
  std::atomic<tier_state> state_{tier_state::ok};
  std::string why_;
};

} // namespace restcache
