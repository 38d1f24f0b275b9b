// SPDX-License-Identifier: Apache-2.0
#pragma once

// What the connections of http::server share: the asio types, the coarse
// clock and the per-thread sweep of deadlines, the gate and registry that
// stop() uses, and server_core. Beast internals: included only by http/*.cpp
// and http/detail/, never from another header.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <ctime>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/error.hpp>

#include "http/address_limits.hpp"
#include "http/cache_gateway.hpp"
#include "http/http_metrics.hpp"
#include "http/request_handler.hpp"
#include "http/server.hpp"

namespace restcache::http::detail {

namespace beast = boost::beast;
namespace net = boost::asio;
using tcp = net::ip::tcp;
using steady = std::chrono::steady_clock;

// Concrete executor types instead of Beast's default any_io_executor: every
// operation copies its executor, and the type-erased one costs a shared_ptr
// copy and indirect calls each time (visible in a profile under wrk). No
// strand: each io_context is run by one thread, so everything posted to a
// connection's executor runs on that thread, in order.
using executor_type = net::io_context::executor_type;
/// A plain socket: the read, write and linger limits are enforced by the
/// io thread's connection_sweep, not by a timer per operation.
using stream_type = net::basic_stream_socket<tcp, executor_type>;
using socket_type = stream_type;
using timer_type = net::basic_waitable_timer<steady, net::wait_traits<steady>, executor_type>;

class session;

/// A monotonic clock read without a system call or a precise source
/// (CLOCK_MONOTONIC_COARSE, a few ms of resolution): deadlines of seconds
/// need no better, and it is cheap enough to read on every request.
struct coarse_clock {
  using duration = std::chrono::nanoseconds;
  using rep = duration::rep;
  using period = duration::period;
  using time_point = std::chrono::time_point<coarse_clock>;
  static constexpr bool is_steady = true;
  static time_point now() noexcept {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
    return time_point{duration{int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec}};
  }
};

/// One per io thread: every `tick` it closes the connections of its thread
/// whose deadline (read, write or linger) has passed. Instead of a timer per
/// read and per write, a connection stores a deadline per operation. Runs
/// on its io thread only; holds the connections weakly.
class connection_sweep : public std::enable_shared_from_this<connection_sweep> {
public:
  connection_sweep(net::io_context& ioc, std::chrono::milliseconds tick);
  /// On the io thread: the connection is checked from now on.
  void add(const std::shared_ptr<session>& s);
  void start();

private:
  void arm();
  void on_tick(beast::error_code ec);

  net::steady_timer timer_;
  std::chrono::milliseconds tick_;
  std::vector<std::weak_ptr<session>> sessions_;
};

/// Lets reply callbacks that outlive the server learn, safely, that it is
/// gone. A callback runs its body only while the gate is open; close() waits
/// until no callback is inside, so once it returns no callback touches a
/// session or the io_context again. Callbacks hold the gate by shared_ptr.
class callback_gate {
public:
  template <class F>
  void run(F&& f) {
    users_.fetch_add(1, std::memory_order_seq_cst);
    struct leave {
      std::atomic<int>& u;
      ~leave() { u.fetch_sub(1, std::memory_order_seq_cst); }
    } guard{users_};
    if (open_.load(std::memory_order_seq_cst))
      f();
  }
  void close() noexcept;

private:
  std::atomic<int> users_{0};
  std::atomic<bool> open_{true};
};

/// Every live session, so stop() can reach them. One mutex operation per
/// connection (not per request).
class session_registry {
public:
  /// False once stopping: the caller must close instead of serving.
  bool add(const std::shared_ptr<session>& s);
  void remove(const session* s) noexcept;
  /// Marks the server as stopping and returns the sessions alive now.
  std::vector<std::shared_ptr<session>> begin_stop();
  std::vector<std::shared_ptr<session>> snapshot();
  /// Waits until no session is left; false on timeout.
  bool wait_empty_for(std::chrono::milliseconds d);
  bool stopping() const noexcept { return stopping_.load(std::memory_order_acquire); }

private:
  std::mutex mtx_;
  std::condition_variable cv_;
  std::unordered_map<const session*, std::weak_ptr<session>> sessions_;
  std::atomic<bool> stopping_{false};
};

/// What the listener and every session share; lives as long as the server.
struct server_core {
  server_core(server_options o, cache_gateway& g);

  server_options opts;
  cache_gateway& gateway;
  http_metrics metrics;
  session_registry registry;
  std::shared_ptr<callback_gate> gate = std::make_shared<callback_gate>();
  /// Rejecting sessions (503 over max_connections) alive now.
  std::atomic<int64_t> rejecting{0};
  /// After the last response: how long to read (and discard) what the client
  /// still sends before closing, so a close does not turn into a reset.
  std::chrono::milliseconds linger;
  /// Connections per client address (opts.max_connections_per_address).
  address_slots slots{opts.max_connections_per_address};
  /// Wrong tokens per client address: 10 at once, then one a second.
  credential_throttle throttle{10, std::chrono::seconds{1}, 16384};
  request_handler handler{opts, gateway, metrics, &throttle};
  std::string lookup_timeout_detail;

  /// Counts an answer in /metrics and, with the access log on, writes its
  /// line: `fill(entry)` adds what the caller knows (only called then).
  template <class Fill>
  void account(uint8_t route, unsigned status, int64_t duration_us, Fill&& fill) {
    metrics.record(route, status, duration_us);
    if (auto* log = opts.access_log) {
      logging::access_entry e;
      e.status = status;
      e.duration_us = duration_us;
      fill(e);
      log->record(e);
    }
  }
  std::string body_limit_detail;
};

} // namespace restcache::http::detail
