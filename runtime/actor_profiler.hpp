// SPDX-License-Identifier: Apache-2.0
#pragma once

// Per-actor CPU accounting for the io scheduler, in the format of CAF's
// profiled coordinator (which CAF builds only when no scheduler module is
// loaded): with scheduler.enable-profiling, every resume is measured with
// getrusage(RUSAGE_THREAD) and, each scheduler.profiling-resolution, one row
// per actor that ran and one per worker goes to
// scheduler.profiling-output-file:
//   clock (µs since the epoch), type (actor | worker), id, time, usr, sys
//   (µs in the interval), mem (the thread's peak RSS in KiB).
// The rows read like CAF's, so the same scripts work with either scheduler.

#include <caf/fwd.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <fstream>
#include <mutex>
#include <string>
#include <unordered_map>

namespace restcache::runtime {

class actor_profiler {
public:
  using usec = std::chrono::microseconds;

  /// CPU used by the calling thread so far (or, as a difference, between two).
  struct sample {
    usec runtime{0}; ///< wall clock
    usec usr{0};
    usec sys{0};
    long mem = 0;
    static sample take();
    sample& operator+=(const sample& o);
    sample operator-(const sample& o) const;
  };

  /// One io thread's accounts since its last flush (that thread only).
  struct worker_log {
    size_t worker_id = 0;
    std::unordered_map<uint64_t, sample> actors;
    sample worker;
    std::chrono::steady_clock::time_point last_flush = std::chrono::steady_clock::now();
  };

  /// Opens `path` and writes the header; ok() tells whether it could.
  actor_profiler(const std::string& path, std::chrono::milliseconds resolution);

  bool ok() const noexcept { return static_cast<bool>(file_); }

  /// Adds one resume of actor `id` that took `used`; writes the thread's
  /// rows when an interval has passed.
  void record(worker_log& log, uint64_t id, const sample& used);

  /// Writes the thread's rows now (the io thread ends).
  void flush(worker_log& log);

private:
  std::mutex file_mtx_;
  std::ofstream file_;
  std::chrono::milliseconds resolution_;
};

} // namespace restcache::runtime
