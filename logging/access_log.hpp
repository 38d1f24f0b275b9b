// SPDX-License-Identifier: Apache-2.0
#pragma once

// log.access: one line per answered request. The request path only appends
// to a buffer of its own thread (an uncontended lock, no syscall, no
// allocation once the buffer has grown); a writer thread takes the buffers
// every 100 ms and writes them. A writer that falls behind makes lines
// dropped, counted and said in the log where they are missing, never a
// slower request. A target is logged up to max_target_bytes.

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

#include "logging/log_file.hpp"

namespace restcache::logging {

/// What one line says; views are only read during record().
struct access_entry {
  std::string_view remote;     ///< client address
  std::string_view method;
  std::string_view target;
  unsigned version = 11;       ///< 10 or 11
  unsigned status = 0;
  uint64_t bytes = 0;          ///< response body bytes
  int64_t duration_us = 0;     ///< request read to response handed to the socket
  std::string_view request_id;
};

class access_log {
public:
  /// json: one object per line; else text:
  /// 127.0.0.1 - - [2026-11-30T09:28:12.123Z] "GET /deptemps/1 HTTP/1.1" 200 1523 0.000123 "<request id>"
  access_log(std::shared_ptr<log_file> out, bool json);
  ~access_log(); // writes what is buffered, stops the writer
  access_log(const access_log&) = delete;
  access_log& operator=(const access_log&) = delete;

  void record(const access_entry& e) noexcept;
  /// Lines not logged because the writer was behind (more than
  /// max_buffered bytes waiting in a thread's buffer).
  uint64_t dropped() const noexcept { return dropped_.load(std::memory_order_relaxed); }
  uint64_t written() const noexcept { return written_.load(std::memory_order_relaxed); }

  static constexpr size_t max_buffered = 8 << 20;
  /// A longer request target is logged cut there, with how much was cut.
  static constexpr size_t max_target_bytes = 512;

private:
  struct alignas(64) thread_buffer {
    std::mutex mtx;
    std::string text;
    uint64_t lines = 0;
    uint64_t dropped = 0; ///< lines that did not fit since the last write
  };
  thread_buffer& buffer_of_this_thread();
  void format(std::string& out, const access_entry& e) const;
  void run_writer();
  /// A line saying `n` lines went unlogged here.
  void note_dropped(std::string& out, uint64_t n) const;
  void write_all();

  std::shared_ptr<log_file> out_;
  bool json_;
  std::mutex buffers_mtx_;
  std::deque<thread_buffer> buffers_; ///< elements stay in place as threads are added
  std::atomic<uint64_t> dropped_{0};
  std::atomic<uint64_t> written_{0};
  std::mutex stop_mtx_;
  std::condition_variable stop_cv_;
  bool stopping_ = false;
  std::thread writer_;
};

} // namespace restcache::logging
