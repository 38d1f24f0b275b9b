// SPDX-License-Identifier: Apache-2.0
#pragma once

// The counting primitives every layer's metrics are made of: plain relaxed
// atomics that one side writes and a scrape reads from any thread, with no
// message round trip. The Prometheus text of them: messages/prometheus.hpp.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <iterator>

namespace restcache {

/// Durations in fixed buckets (Prometheus histogram), written by one actor,
/// read on scrape. Bounds in seconds.
struct latency_histogram {
  static constexpr double bounds[] = {0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05,
                                      0.1,    0.25,  0.5,   1.0,   2.5,  5.0,   10.0};
  static constexpr size_t bucket_count = std::size(bounds) + 1; ///< the last is +Inf
  std::atomic<uint64_t> buckets[bucket_count] = {}; ///< not cumulative
  std::atomic<uint64_t> sum_us{0};
  std::atomic<uint64_t> count{0};

  void observe_us(int64_t us) noexcept {
    if (us < 0)
      us = 0; // clocks of client and server may differ slightly
    size_t i = 0;
    while (i < std::size(bounds) && double(us) > bounds[i] * 1e6)
      ++i;
    buckets[i].fetch_add(1, std::memory_order_relaxed);
    sum_us.fetch_add(static_cast<uint64_t>(us), std::memory_order_relaxed);
    count.fetch_add(1, std::memory_order_relaxed);
  }
};

/// Observes the time from its construction to its destruction.
class scoped_duration {
public:
  explicit scoped_duration(latency_histogram& h) noexcept : h_(h), start_(std::chrono::steady_clock::now()) {}
  ~scoped_duration() { observe_now(); }
  /// Observes now (before a result is handed on, so a reader that saw the
  /// result also sees the observation); later calls do nothing.
  void observe_now() noexcept {
    if (done_)
      return;
    done_ = true;
    h_.observe_us(std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - start_)
                    .count());
  }
  scoped_duration(const scoped_duration&) = delete;
  scoped_duration& operator=(const scoped_duration&) = delete;

private:
  latency_histogram& h_;
  std::chrono::steady_clock::time_point start_;
  bool done_ = false;
};

// RESTCACHE_METRICS=OFF (CMake) builds a daemon whose hot-path counting is
// compiled out (bump_hot, single_writer_counter), to measure what counting
// costs (bench/). Tests need it on.
#ifndef RESTCACHE_METRICS_ENABLED
#define RESTCACHE_METRICS_ENABLED 1
#endif

inline void bump(std::atomic<uint64_t>& c, uint64_t n = 1) noexcept {
  c.fetch_add(n, std::memory_order_relaxed);
}

/// For the counters of the request path (a memory hit): compiled out with
/// RESTCACHE_METRICS=OFF.
inline void bump_hot(std::atomic<uint64_t>& c) noexcept {
  if constexpr (RESTCACHE_METRICS_ENABLED)
    c.fetch_add(1, std::memory_order_relaxed);
}

/// A counter one thread writes (a plain load and store, no locked
/// instruction) and any thread reads.
struct single_writer_counter {
  std::atomic<uint64_t> value{0};

  void add(uint64_t n = 1) noexcept {
    if constexpr (RESTCACHE_METRICS_ENABLED)
      value.store(value.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
  }
  /// For a slot several threads share.
  void add_shared(uint64_t n = 1) noexcept {
    if constexpr (RESTCACHE_METRICS_ENABLED)
      value.fetch_add(n, std::memory_order_relaxed);
  }
  uint64_t get() const noexcept { return value.load(std::memory_order_relaxed); }
};

} // namespace restcache
