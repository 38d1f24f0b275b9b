// SPDX-License-Identifier: Apache-2.0
#define CAF_SUITE db_pool
#include "actors/db_pool.hpp"

#include "test/fixtures/fake_pool_fixture.hpp"

using namespace restcache;
using namespace restcache::test;

namespace {

struct fixture : fake_pool_fixture {
  std::vector<borrow_result> answers;

  /// A borrower whose answer lands in `answers`.
  void borrow() {
    // The pool as a spawn argument: CAF 0.17 trips UBSan on argument-less
    // function actors (see spawn_dept_id_loader).
    sys.spawn(
      [this](caf::event_based_actor* client, db_pool_actor target) {
        client->request(target, caf::infinite, borrow_atom::value)
          .then([this](borrow_result& r) { answers.push_back(std::move(r)); });
      },
      pool);
    sched.run();
  }

  void release(const db_lease& lease) {
    self->send(pool, release_atom::value, lease);
    sched.run();
  }
};

} // namespace

CAF_TEST_FIXTURE_SCOPE(db_pool_tests, fixture)

CAF_TEST(borrowers get distinct idle connections) {
  spawn_pool(2, 10);
  borrow();
  borrow();
  CAF_REQUIRE_EQUAL(answers.size(), 2u);
  CAF_CHECK_EQUAL(answers[0].error, rc_error::none);
  CAF_CHECK_EQUAL(answers[1].error, rc_error::none);
  CAF_CHECK_NOT_EQUAL(answers[0].lease, answers[1].lease);
}

CAF_TEST(an exhausted pool queues borrowers up to its bound then answers overloaded) {
  spawn_pool(1, 2);
  borrow();
  CAF_REQUIRE_EQUAL(answers.size(), 1u);
  borrow();
  borrow();
  CAF_CHECK_EQUAL(answers.size(), 1u); // two waiting
  CAF_CHECK_EQUAL(dbm.borrow_waiting.load(), 2);
  borrow();
  CAF_REQUIRE_EQUAL(answers.size(), 2u);
  CAF_CHECK_EQUAL(answers[1].error, rc_error::overloaded);
  CAF_CHECK_EQUAL(dbm.borrow_rejected.load(), 1u);
  // Releasing hands the connection to the oldest waiter.
  release(answers[0].lease);
  CAF_REQUIRE_EQUAL(answers.size(), 3u);
  CAF_CHECK_EQUAL(answers[2].error, rc_error::none);
  CAF_CHECK_EQUAL(answers[2].lease, answers[0].lease);
  CAF_CHECK_EQUAL(dbm.borrow_waiting.load(), 1);
}

CAF_TEST(with no connection up borrowers wait out the reconnect grace then fail fast) {
  spawn_pool(1, 10);
  borrow();
  borrow(); // waits
  CAF_REQUIRE_EQUAL(answers.size(), 1u);
  // The connection breaks while lent: a blip, as far as anyone knows yet.
  conns->at(0)->up_ = false;
  conns->at(0)->on_down(0);
  sched.run();
  borrow(); // waits too
  CAF_REQUIRE_EQUAL(answers.size(), 1u);
  CAF_CHECK_EQUAL(dbm.borrow_waiting.load(), 2);
  // The grace is over and nothing came back: the waiters fail, and so does
  // the next borrower, at once.
  CAF_REQUIRE_GREATER(sched.trigger_timeouts(), 0u);
  sched.run();
  CAF_REQUIRE_EQUAL(answers.size(), 3u);
  CAF_CHECK_EQUAL(answers[1].error, rc_error::db_unavailable);
  CAF_CHECK_EQUAL(answers[2].error, rc_error::db_unavailable);
  borrow();
  CAF_REQUIRE_EQUAL(answers.size(), 4u);
  CAF_CHECK_EQUAL(answers[3].error, rc_error::db_unavailable);
}

CAF_TEST(a borrower waiting out the reconnect grace gets the connection that comes back) {
  spawn_pool(1, 10);
  borrow();
  conns->at(0)->up_ = false;
  conns->at(0)->on_down(0);
  sched.run();
  release(answers[0].lease); // the broken one is not lent again
  borrow();
  CAF_REQUIRE_EQUAL(answers.size(), 1u);
  conns->at(0)->up_ = true;
  conns->at(0)->on_up(0);
  sched.run();
  CAF_REQUIRE_EQUAL(answers.size(), 2u);
  CAF_CHECK_EQUAL(answers[1].error, rc_error::none);
  // The old outage's timer changes nothing now.
  CAF_CHECK_GREATER(sched.trigger_timeouts(), 0u);
  sched.run();
  borrow(); // waits for the lent connection, as ever
  CAF_CHECK_EQUAL(answers.size(), 2u);
  CAF_CHECK_EQUAL(dbm.borrow_waiting.load(), 1);
}

CAF_TEST(a broken connection is replaced when it comes back) {
  spawn_pool(1, 10);
  borrow();
  auto lease = answers[0].lease;
  conns->at(0)->up_ = false;
  conns->at(0)->on_down(0);
  sched.run();
  release(lease); // a down connection is not lent again
  CAF_CHECK_GREATER(sched.trigger_timeouts(), 0u); // and the reconnect grace is over
  sched.run();
  borrow();
  CAF_CHECK_EQUAL(answers.back().error, rc_error::db_unavailable);
  // The connection's thread reconnects and announces it.
  conns->at(0)->up_ = true;
  conns->at(0)->on_up(0);
  sched.run();
  borrow();
  CAF_CHECK_EQUAL(answers.back().error, rc_error::none);
  CAF_CHECK_EQUAL(answers.back().lease, lease);
}

CAF_TEST(a reconnect while lent does not lend the connection twice) {
  spawn_pool(1, 10);
  borrow();
  auto lease = answers[0].lease;
  conns->at(0)->on_down(0);
  conns->at(0)->on_up(0);
  sched.run();
  borrow(); // must wait: the connection is still lent
  CAF_CHECK_EQUAL(answers.size(), 1u);
  release(lease);
  CAF_REQUIRE_EQUAL(answers.size(), 2u);
  CAF_CHECK_EQUAL(answers[1].error, rc_error::none);
}

CAF_TEST(a pipelining connection serves several borrowers before the next one is lent) {
  spawn_pool(2, 10, 3);
  for (int i = 0; i < 6; ++i)
    borrow();
  CAF_REQUIRE_EQUAL(answers.size(), 6u);
  for (size_t i = 0; i < answers.size(); ++i) {
    CAF_CHECK_EQUAL(answers[i].error, rc_error::none);
    CAF_CHECK_EQUAL(answers[i].lease, answers[i < 3 ? 0 : 3].lease); // packed: three, then three
  }
  CAF_CHECK_NOT_EQUAL(answers[0].lease, answers[3].lease);
  CAF_CHECK_EQUAL(dbm.in_use.load(), 2);
  borrow(); // both full: waits
  CAF_CHECK_EQUAL(answers.size(), 6u);
  CAF_CHECK_EQUAL(dbm.borrow_waiting.load(), 1);
  release(answers[1].lease);
  CAF_REQUIRE_EQUAL(answers.size(), 7u);
  CAF_CHECK_EQUAL(answers[6].lease, answers[1].lease);
  // A connection the driver already knows is down is not lent, even
  // before the pool hears of it.
  conns->at(answers[0].lease->slot())->up_ = false;
  release(answers[0].lease);
  borrow();
  CAF_CHECK_EQUAL(answers.size(), 7u); // and the other one is full
  CAF_CHECK_EQUAL(dbm.borrow_waiting.load(), 1);
}

CAF_TEST_FIXTURE_SCOPE_END()
