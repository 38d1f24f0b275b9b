// SPDX-License-Identifier: Apache-2.0
#include "runtime/io_scheduler.hpp"

#include "runtime/actor_profiler.hpp"

#include <caf/abstract_actor.hpp>
#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/execution_unit.hpp>
#include <caf/resumable.hpp>
#include <caf/settings.hpp>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>

#include <cstdio>
#include <optional>
#include <shared_mutex>
#include <string>
#include <utility>

#include <pthread.h>

namespace restcache::runtime {

namespace net = boost::asio;

namespace {

/// A counter one thread writes (a plain load and store, no locked
/// instruction) and any thread reads.
struct own_counter {
  std::atomic<uint64_t> value{0};
  void bump() noexcept { value.store(value.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed); }
};

} // namespace

struct io_scheduler::worker final : caf::execution_unit {
  worker(caf::actor_system& sys, io_scheduler& owner, size_t index)
    : caf::execution_unit(&sys), parent(owner), id(index),
      // One thread runs it, and every socket of it is used from that thread
      // only (sessions and listeners post to their own executor): asio skips
      // the per-descriptor locks of its reactor and keeps posts from this
      // thread thread-local. Other threads still post to it (locked).
      ioc(BOOST_ASIO_CONCURRENCY_HINT_UNSAFE_IO), work(ioc.get_executor()) {
    profile.worker_id = index;
  }

  /// An actor this worker runs sent to one that was idle: run it here next.
  void exec_later(caf::resumable* what) override {
    local.bump();
    parent.post(*this, what);
  }

  io_scheduler& parent;
  const size_t id;
  net::io_context ioc;
  std::optional<net::executor_work_guard<net::io_context::executor_type>> work;
  std::thread thread;
  own_counter resumed;
  own_counter local;
  actor_profiler::worker_log profile; ///< this thread's accounts (profiling only)
};

namespace {

/// The worker whose thread this is (nullptr on any other thread).
thread_local io_scheduler::worker* current_worker = nullptr;

/// The asio handler that resumes an actor. It owns the reference the
/// scheduler was given: a handler destroyed without running (the io_context
/// going away at shutdown) releases it the way CAF's own workers do.
struct resume_handler {
  io_scheduler::worker* w;
  caf::resumable* job;

  resume_handler(io_scheduler::worker* wk, caf::resumable* r) : w(wk), job(r) {}
  resume_handler(resume_handler&& other) noexcept : w(other.w), job(std::exchange(other.job, nullptr)) {}
  resume_handler(const resume_handler&) = delete;
  resume_handler& operator=(const resume_handler&) = delete;
  resume_handler& operator=(resume_handler&&) = delete;
  ~resume_handler() {
    if (job != nullptr)
      caf::scheduler::abstract_coordinator::cleanup_and_release(job);
  }

  void operator()();
};

} // namespace

io_scheduler::io_scheduler(caf::actor_system& sys) : super(sys) {}

io_scheduler::~io_scheduler() = default;

caf::actor_system::module* io_scheduler::make(caf::actor_system& sys) {
  return new io_scheduler(sys);
}

io_scheduler* io_scheduler::of(caf::actor_system& sys) noexcept {
  return dynamic_cast<io_scheduler*>(&sys.scheduler());
}

void io_scheduler::init(caf::actor_system_config& cfg) {
  super::init(cfg); // num_workers_ (scheduler.max-threads), max_throughput_
  if (num_workers_ == 0)
    num_workers_ = 1;
  workers_.reserve(num_workers_);
  for (size_t i = 0; i < num_workers_; ++i)
    workers_.push_back(std::make_unique<worker>(system(), *this, i));
  // CAF's own profiling options, read as its profiled coordinator reads them.
  if (caf::get_or(cfg, "scheduler.enable-profiling", false)) {
    auto path = caf::get_or(cfg, "scheduler.profiling-output-file", std::string{});
    auto resolution = caf::get_or(cfg, "scheduler.profiling-resolution",
                                  caf::timespan{std::chrono::milliseconds{100}});
    profiler_ = std::make_unique<actor_profiler>(
      path, std::chrono::duration_cast<std::chrono::milliseconds>(resolution));
    if (!profiler_->ok()) {
      std::fprintf(stderr, "restcached: cannot write the profile to \"%s\": profiling is off\n",
                   path.c_str());
      profiler_.reset();
    }
  }
}

std::vector<net::io_context*> io_scheduler::contexts() const {
  std::vector<net::io_context*> out;
  for (auto& w : workers_)
    out.push_back(&w->ioc);
  return out;
}

uint64_t io_scheduler::resumed() const noexcept {
  uint64_t n = 0;
  for (auto& w : workers_)
    n += w->resumed.value.load(std::memory_order_relaxed);
  return n;
}

uint64_t io_scheduler::posted_locally() const noexcept {
  uint64_t n = 0;
  for (auto& w : workers_)
    n += w->local.value.load(std::memory_order_relaxed);
  return n;
}

int io_scheduler::current_thread() noexcept {
  return current_worker != nullptr ? static_cast<int>(current_worker->id) : -1;
}

void io_scheduler::post(worker& w, caf::resumable* what) {
  net::post(w.ioc, resume_handler{&w, what});
}

void io_scheduler::enqueue(caf::resumable* what) {
  if (auto* w = current_worker; w != nullptr && &w->parent == this) {
    w->local.bump();
    post(*w, what);
    return;
  }
  // Another thread (libpq, the listener, the batch writer, the clock,
  // main): shared with stop(), which takes the io_contexts away.
  std::shared_lock guard{workers_mtx_};
  if (workers_.empty()) {
    // Stopped: the actor is cleaned up as CAF's own workers do at the end.
    guard.unlock();
    cleanup_and_release(what);
    return;
  }
  auto i = next_worker_.fetch_add(1, std::memory_order_relaxed) % workers_.size();
  post(*workers_[i], what);
}

void resume_handler::operator()() {
  auto* r = std::exchange(job, nullptr);
  w->resumed.bump();
  caf::resumable::resume_result result;
  if (auto* profiler = w->parent.profiler()) {
    // Its id for the accounts, taken while it is certainly whole.
    auto* actor = dynamic_cast<caf::abstract_actor*>(r);
    auto id = actor != nullptr ? actor->id() : 0;
    auto before = actor_profiler::sample::take();
    result = r->resume(w, w->parent.max_throughput());
    profiler->record(w->profile, id, actor_profiler::sample::take() - before);
  } else {
    result = r->resume(w, w->parent.max_throughput());
  }
  switch (result) {
    case caf::resumable::resume_later:
      // Its throughput share is used up and messages are left: to the back
      // of this loop's queue (other connections and actors go first). The
      // reference stays with it.
      w->parent.post(*w, r);
      break;
    case caf::resumable::done:
    case caf::resumable::awaiting_message:
      // Scheduled again by the next enqueue, which adds its own reference.
      caf::intrusive_ptr_release(r);
      break;
    case caf::resumable::shutdown_execution_unit:
      // Only CAF's own shutdown helpers answer this; none is sent here.
      caf::intrusive_ptr_release(r);
      break;
  }
}

void io_scheduler::run_worker(worker& w) {
  current_worker = &w;
  std::string name = "restcache.io." + std::to_string(w.id);
  pthread_setname_np(pthread_self(), name.c_str());
  system().thread_started();
  for (;;) {
    try {
      w.ioc.run();
      break;
    } catch (...) {
      // A handler threw (an HTTP handler: the server logs its own); the
      // loop goes on serving the other connections and actors.
    }
  }
  if (profiler_)
    profiler_->flush(w.profile);
  system().thread_terminates();
  current_worker = nullptr;
}

void io_scheduler::start() {
  for (auto& w : workers_)
    w->thread = std::thread{[this, wp = w.get()] { run_worker(*wp); }};
  // Delayed messages and timeouts: the clock's dispatch loop, as CAF's own
  // coordinator runs it.
  clock_thread_ = std::thread{[this] {
    pthread_setname_np(pthread_self(), "restcache.clock");
    system().thread_started();
    clock_.run_dispatch_loop();
    system().thread_terminates();
  }};
  super::start(); // the printer
}

void io_scheduler::stop() {
  // The utility actors first, while the io threads still run actors.
  stop_actors();
  // No more timeouts or delayed messages.
  clock_.cancel_dispatch_loop();
  if (clock_thread_.joinable())
    clock_thread_.join();
  for (auto& w : workers_) {
    w->work.reset();
    w->ioc.stop();
  }
  for (auto& w : workers_)
    if (w->thread.joinable())
      w->thread.join();
  // Handlers never run (actors still queued, connections of a server that
  // was not stopped) are destroyed with their io_context, releasing what
  // they hold, while the actor system is still whole. Taken out under the
  // lock, destroyed outside it: a cleanup may enqueue, and an enqueue from
  // now on finds no io_context and releases what it was given.
  std::vector<std::unique_ptr<worker>> gone;
  {
    std::unique_lock guard{workers_mtx_};
    gone.swap(workers_);
  }
  gone.clear();
}

} // namespace restcache::runtime
