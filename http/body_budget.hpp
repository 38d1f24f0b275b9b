// SPDX-License-Identifier: Apache-2.0
#pragma once

// The bytes of request bodies all connections may hold at once
// (http.body-budget-bytes): a write's body is read only once its share is
// taken, so what any number of clients can make the server hold in bodies
// is bounded by the budget, not by connections x body-limit. No Beast here.

#include <atomic>
#include <cstdint>
#include <string_view>

namespace restcache::http {

/// The detail of the 503 a write gets when the budget has no room for its body.
inline constexpr std::string_view body_budget_refusal =
  "the server holds as many request bodies as it may; retry later";

/// One connection's share of the budget: taken as its body's bytes arrive
/// (its buffer's capacity, which grows by doubling up to what it
/// announced), given back when the request is answered (or the connection
/// goes). Announcing a body takes nothing: a few bytes cannot take the
/// budget from the writes that send theirs.
class body_reservation {
public:
  body_reservation() = default;
  body_reservation(const body_reservation&) = delete;
  body_reservation& operator=(const body_reservation&) = delete;
  ~body_reservation() { release(); }

  /// Which budget to take from: `held` counts the bytes taken by every
  /// connection, `limit` is the budget.
  void attach(std::atomic<int64_t>& held, int64_t limit) noexcept {
    held_ = &held;
    limit_ = limit;
  }

  /// Takes `n` more bytes; false (nothing taken) when the budget has no room.
  bool grow(int64_t n) noexcept {
    if (n <= 0)
      return true;
    if (held_ == nullptr)
      return false;
    auto now = held_->load(std::memory_order_relaxed);
    do {
      if (now + n > limit_)
        return false;
    } while (!held_->compare_exchange_weak(now, now + n, std::memory_order_relaxed));
    bytes_ += n;
    return true;
  }

  /// Whether `n` more bytes would fit now (nothing taken): a body is let
  /// in only when its announced length would, and takes its share as its
  /// bytes arrive.
  bool has_room(int64_t n) const noexcept {
    return held_ != nullptr && held_->load(std::memory_order_relaxed) + n <= limit_;
  }

  /// Gives everything taken back.
  void release() noexcept {
    if (bytes_ > 0 && held_ != nullptr)
      held_->fetch_sub(bytes_, std::memory_order_relaxed);
    bytes_ = 0;
  }

  int64_t bytes() const noexcept { return bytes_; }

private:
  std::atomic<int64_t>* held_ = nullptr;
  int64_t limit_ = 0;
  int64_t bytes_ = 0;
};

} // namespace restcache::http
