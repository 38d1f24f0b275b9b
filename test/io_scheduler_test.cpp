// SPDX-License-Identifier: Apache-2.0
#define CAF_SUITE io_scheduler
#include "runtime/io_scheduler.hpp"

#include <caf/test/unit_test.hpp>

#include <caf/all.hpp>

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>

#include <atomic>
#include <chrono>
#include <fstream>
#include <future>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "test/fixtures/test_support.hpp"

// The io threads as CAF's workers, threaded (CAF's deterministic test
// coordinator cannot stand in for a scheduler of our own): messages between
// actors from many threads, timers, requests with timeouts, actors woken from
// an io thread staying on it, and shutdown with work still queued.

using namespace restcache;
using namespace std::chrono_literals;

namespace {

using ping_atom = caf::atom_constant<caf::atom("ping")>;
using where_atom = caf::atom_constant<caf::atom("where")>;

struct config : caf::actor_system_config {
  explicit config(size_t threads) {
    set("scheduler.max-threads", threads);
    module_factories.push_back(&runtime::io_scheduler::make);
  }
};

struct fixture {
  config cfg{2};
  caf::actor_system sys{cfg};
  runtime::io_scheduler& sched = *runtime::io_scheduler::of(sys);
};

// Every function actor here takes an argument: for one without, CAF 0.17
// binds a reference to its empty, null argument tuple (UBSan reports it).

/// Answers ping n with n + 1 and where with the io thread it runs on.
caf::behavior echo(caf::event_based_actor*, int /*tag*/) {
  return {
    [](ping_atom, int n) { return n + 1; },
    [](where_atom) { return runtime::io_scheduler::current_thread(); },
  };
}

/// Plays `rounds` of ping with `peer`, then reports to `done`.
caf::behavior player(caf::event_based_actor* self, caf::actor peer, int rounds,
                     std::shared_ptr<std::promise<int>> done) {
  self->send(peer, ping_atom::value, 0);
  return {
    [=](int n) {
      if (n >= rounds) {
        done->set_value(n);
        self->quit();
        return;
      }
      self->send(peer, ping_atom::value, n);
    },
  };
}

} // namespace

CAF_TEST_FIXTURE_SCOPE(io_scheduler_tests, fixture)

CAF_TEST(it is the scheduler and has one io_context per thread) {
  CAF_CHECK_EQUAL(sched.contexts().size(), 2u);
  CAF_CHECK_EQUAL(runtime::io_scheduler::current_thread(), -1); // the test's own thread
}

CAF_TEST(pairs of actors exchange messages on the io threads) {
  constexpr int pairs = 8, rounds = 20'000;
  std::vector<std::future<int>> results;
  for (int i = 0; i < pairs; ++i) {
    auto done = std::make_shared<std::promise<int>>();
    results.push_back(done->get_future());
    sys.spawn(player, sys.spawn(echo, i), rounds, done);
  }
  for (auto& r : results) {
    CAF_REQUIRE(r.wait_for(30s) == std::future_status::ready);
    CAF_CHECK_EQUAL(r.get(), rounds);
  }
  // Every message after the first was sent from an io thread: each woke its
  // receiver on that same thread.
  CAF_CHECK_GREATER(sched.resumed(), uint64_t{pairs} * rounds);
  CAF_CHECK_GREATER(sched.posted_locally(), uint64_t{pairs} * rounds);
}

CAF_TEST(an actor woken from an io thread runs on that thread) {
  // Spawned from io thread i, an actor and its first message stay there.
  for (size_t i = 0; i < sched.contexts().size(); ++i) {
    std::promise<int> where;
    boost::asio::post(*sched.contexts()[i], [&] {
      sys.spawn(
        [&](caf::event_based_actor* self, int) {
          self->send(self, where_atom::value);
          return caf::behavior{[&, self](where_atom) {
            where.set_value(runtime::io_scheduler::current_thread());
            self->quit();
          }};
        },
        0);
    });
    auto f = where.get_future();
    CAF_REQUIRE(f.wait_for(10s) == std::future_status::ready);
    CAF_CHECK_EQUAL(f.get(), static_cast<int>(i));
  }
}

CAF_TEST(delayed messages and request timeouts fire) {
  std::promise<void> fired;
  std::promise<caf::error> timed_out;
  auto silent = sys.spawn(
    [](caf::event_based_actor*, int) -> caf::behavior {
      return {[](ping_atom, int) {
        // never answers in time: the request below times out
        return caf::delegated<int>{};
      }};
    },
    0);
  sys.spawn(
    [&](caf::event_based_actor* self, caf::actor target) {
      self->delayed_send(self, 50ms, where_atom::value);
      self->request(target, 100ms, ping_atom::value, 1)
        .then([](int) {}, [&](caf::error& err) { timed_out.set_value(err); });
      return caf::behavior{[&](where_atom) { fired.set_value(); }};
    },
    silent);
  CAF_REQUIRE(fired.get_future().wait_for(10s) == std::future_status::ready);
  auto err = timed_out.get_future();
  CAF_REQUIRE(err.wait_for(10s) == std::future_status::ready);
  CAF_CHECK_EQUAL(err.get(), caf::sec::request_timeout);
  caf::anon_send_exit(silent, caf::exit_reason::user_shutdown);
}

CAF_TEST(many threads spawn and ask short lived actors at once) {
  constexpr int threads = 4, per_thread = 500;
  std::atomic<int> answered{0};
  std::vector<std::thread> ts;
  for (int t = 0; t < threads; ++t)
    ts.emplace_back([&] {
      caf::scoped_actor self{sys};
      for (int i = 0; i < per_thread; ++i) {
        auto e = sys.spawn(echo, i);
        self->request(e, 10s, ping_atom::value, i).receive(
          [&](int n) {
            if (n == i + 1)
              ++answered;
          },
          [](caf::error&) {});
        self->send_exit(e, caf::exit_reason::user_shutdown);
      }
    });
  for (auto& t : ts)
    t.join();
  CAF_CHECK_EQUAL(answered.load(), threads * per_thread);
}

CAF_TEST(an actor ends without waking the clock unless it set a timeout) {
  auto& clock = static_cast<runtime::actor_clock&>(sys.clock());
  const auto forwarded = clock.cancellations_forwarded();
  const auto skipped = clock.cancellations_skipped();
  caf::scoped_actor self{sys};
  constexpr int plain = 100;
  for (int i = 0; i < plain; ++i) {
    auto e = sys.spawn(echo, i);
    self->monitor(e);
    self->send_exit(e, caf::exit_reason::user_shutdown);
  }
  for (int i = 0; i < plain; ++i)
    self->receive([](caf::down_msg&) {});
  // An actor sends its down messages before it cancels its timeouts
  // (local_actor::cleanup): wait for the last cancellations to be counted.
  auto settle = [](auto done) {
    for (int i = 0; i < 1000 && !done(); ++i)
      std::this_thread::sleep_for(5ms);
  };
  settle([&] { return clock.cancellations_skipped() >= skipped + plain; });
  CAF_CHECK_EQUAL(clock.cancellations_forwarded(), forwarded);
  CAF_CHECK_GREATER_OR_EQUAL(clock.cancellations_skipped(), skipped + plain);
  // One with a receive timeout: its cancellation reaches the clock thread,
  // which drops the pending timeout and with it the actor's last reference.
  auto waiting = sys.spawn(
    [](caf::event_based_actor*, int) -> caf::behavior {
      return {[](ping_atom, int n) { return n; }, caf::after(std::chrono::seconds{3600}) >> [] {}};
    },
    0);
  auto weak = caf::actor_cast<caf::weak_actor_ptr>(waiting);
  self->monitor(waiting);
  self->send_exit(waiting, caf::exit_reason::user_shutdown);
  waiting = nullptr;
  self->receive([](caf::down_msg&) {});
  settle([&] { return clock.cancellations_forwarded() >= forwarded + 1; });
  CAF_CHECK_EQUAL(clock.cancellations_forwarded(), forwarded + 1);
  bool released = false;
  for (int i = 0; i < 1000 && !released; ++i) {
    released = weak.lock() == nullptr;
    if (!released)
      std::this_thread::sleep_for(10ms);
  }
  CAF_CHECK(released);
}

CAF_TEST_FIXTURE_SCOPE_END()

CAF_TEST(the system shuts down with messages still queued) {
  // No fixture: the system goes away inside the test, with actors that have
  // thousands of messages left; nothing may leak or run after it.
  config cfg{2};
  auto sys = std::make_unique<caf::actor_system>(cfg);
  std::vector<caf::actor> actors;
  for (int i = 0; i < 16; ++i)
    actors.push_back(sys->spawn(echo, i));
  for (int round = 0; round < 2'000; ++round)
    for (auto& a : actors)
      caf::anon_send(a, ping_atom::value, round);
  for (auto& a : actors)
    caf::anon_send_exit(a, caf::exit_reason::user_shutdown);
  actors.clear();
  sys.reset();
  CAF_CHECK(true);
}

CAF_TEST(with scheduler.enable-profiling each actor gets CPU rows in the format of CAF) {
  test::temp_dir dir{"io-profile"};
  auto path = dir.path + "/profile.txt";
  caf::actor_id busy_id = 0;
  {
    config cfg{2};
    cfg.set("scheduler.enable-profiling", true);
    cfg.set("scheduler.profiling-output-file", path);
    cfg.set("scheduler.profiling-resolution", caf::timespan{10ms});
    caf::actor_system sys{cfg};
    auto busy = sys.spawn(echo, 0);
    busy_id = busy.id();
    caf::scoped_actor self{sys};
    for (int i = 0; i < 2'000; ++i)
      self->request(busy, caf::infinite, ping_atom::value, i).receive([](int) {}, [](caf::error&) {});
    self->send_exit(busy, caf::exit_reason::user_shutdown);
  } // the io threads flush what is left as they end
  std::ifstream in{path};
  std::string header;
  CAF_REQUIRE(std::getline(in, header));
  CAF_CHECK(header.rfind("clock", 0) == 0);
  CAF_CHECK(header.find("usr") != std::string::npos);
  int busy_rows = 0, worker_rows = 0;
  uint64_t busy_us = 0;
  for (std::string line; std::getline(in, line);) {
    std::istringstream row{line};
    uint64_t clock = 0, id = 0, time = 0, usr = 0, sys_us = 0;
    std::string type;
    row >> clock >> type >> id >> time >> usr >> sys_us;
    CAF_REQUIRE(!row.fail());
    if (type == "worker")
      ++worker_rows;
    else if (type == "actor" && id == busy_id) {
      ++busy_rows;
      busy_us += time;
    }
  }
  CAF_CHECK_GREATER_OR_EQUAL(busy_rows, 1);
  CAF_CHECK_GREATER_OR_EQUAL(worker_rows, 1);
  CAF_CHECK_GREATER(busy_us, 0u); // 2,000 resumes take some time
}
