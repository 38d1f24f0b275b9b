// SPDX-License-Identifier: Apache-2.0
#pragma once

// CAF's scheduler replaced by the HTTP io threads: one asio io_context per
// thread (concurrency hint 1), and those threads are CAF's workers. An actor
// woken from an io thread (a session's message to a shard, a shard's reply)
// is posted to that same io_context: no lock, no wake-up of another thread,
// and it runs in the same event loop as the connection that woke it. Woken
// from any other thread (the clock, libpq and listener threads, the detached
// batch writer, main), it is posted to an io thread round robin.
//
// Loaded as a module (actor_system_config::module_factories), so CAF does
// not build its own scheduler; scheduler.max-threads is the number of io
// threads. scheduler.policy does not apply; scheduler.enable-profiling (and
// its output file and resolution) is honoured by actor_profiler, in the
// format of CAF's profiled scheduler.
// Blocking work must stay off these threads: it would stall HTTP on that core.
//
// Plain CAF and Asio; Beast stays in http/.

#include "runtime/actor_clock.hpp"
#include <caf/scheduler/abstract_coordinator.hpp>

#include <atomic>
#include <cstddef>
#include <memory>
#include <shared_mutex>
#include <thread>
#include <vector>

namespace boost::asio {
class io_context;
} // namespace boost::asio

namespace restcache::runtime {

class actor_profiler;

class io_scheduler final : public caf::scheduler::abstract_coordinator {
public:
  using super = caf::scheduler::abstract_coordinator;

  explicit io_scheduler(caf::actor_system& sys);
  ~io_scheduler() override;

  /// For actor_system_config::module_factories.
  static caf::actor_system::module* make(caf::actor_system& sys);

  /// Thread-safe: the current io thread's own context when called from one
  /// of ours, else the next io thread's.
  void enqueue(caf::resumable* what) override;

  caf::actor_clock& clock() noexcept override { return clock_; }

  /// One io_context per io thread, for the HTTP server's acceptors and
  /// connections. Valid from the actor system's construction until its end.
  std::vector<boost::asio::io_context*> contexts() const;

  /// Actors resumed so far, over all io threads (tests, inspection).
  uint64_t resumed() const noexcept;
  /// Actors woken from an io thread and posted to its own context.
  uint64_t posted_locally() const noexcept;

  /// The per-actor CPU accounts (scheduler.enable-profiling), else nullptr.
  actor_profiler* profiler() const noexcept { return profiler_.get(); }

  /// The index of the io thread calling, or -1 on any other thread.
  static int current_thread() noexcept;

  /// The scheduler of `sys` when it is an io_scheduler, else nullptr.
  static io_scheduler* of(caf::actor_system& sys) noexcept;

  /// One io thread: its io_context, its CAF execution unit and counters.
  struct worker;
  /// Posts `what` (with the reference the caller hands over) to `w`'s loop.
  void post(worker& w, caf::resumable* what);

protected:
  void init(caf::actor_system_config& cfg) override;
  void start() override;
  void stop() override;

private:
  void run_worker(worker& w);

  std::vector<std::unique_ptr<worker>> workers_; ///< empty once stopped
  /// Foreign threads' enqueues read workers_ under it; stop() empties it.
  mutable std::shared_mutex workers_mtx_;
  runtime::actor_clock clock_;
  /// With scheduler.enable-profiling: every resume is measured.
  std::unique_ptr<actor_profiler> profiler_;
  std::thread clock_thread_;
};

} // namespace restcache::runtime
