// SPDX-License-Identifier: Apache-2.0
#define CAF_SUITE replica_tracker
#include "cache/replica_tracker.hpp"

#include <caf/test/unit_test.hpp>

#include <memory>

#include "messages/doc_catalogue.hpp"
#include "test/fixtures/doc_keys.hpp"

using namespace restcache;
using namespace std::chrono_literals;

namespace {

const replica_tracker::time_point t0{};

struct fixture {
  replica_health a;
  replica_health b;

  fixture() {
    a.usable = true;
    b.usable = true;
  }

  replica_tracker tracker(size_t max_key_lsns = 100, bool lsn_check = true) {
    return replica_tracker{{{&a, &b}, lsn_check, 100ms, max_key_lsns}};
  }
};

using step = replica_tracker::next_step;

} // namespace

CAF_TEST_FIXTURE_SCOPE(replica_tracker_tests, fixture)

CAF_TEST(fills go to the usable standbys in turn) {
  auto t = tracker();
  CAF_CHECK(t.route(dept_key(1), 1, 0, t0) == std::optional<size_t>{0});
  CAF_CHECK(t.route(dept_key(1), 2, 0, t0) == std::optional<size_t>{1});
  CAF_CHECK(t.route(dept_key(1), 3, 0, t0) == std::optional<size_t>{0});
  b.usable = false;
  CAF_CHECK(t.route(dept_key(1), 4, 0, t0) == std::optional<size_t>{0});
  CAF_CHECK(t.route(dept_key(1), 5, 0, t0) == std::optional<size_t>{0});
  a.usable = false;
  CAF_CHECK(!t.route(dept_key(1), 6, 0, t0).has_value());
  CAF_CHECK_EQUAL(t.standby_fills(), 5u);
  CAF_CHECK(t.forget_fill(5)); // it reads the primary after all
  CAF_CHECK(!t.forget_fill(6)); // never went to a standby
  CAF_CHECK_EQUAL(t.standby_fills(), 4u);
}

CAF_TEST(without standbys nothing is routed or remembered) {
  replica_tracker t;
  CAF_CHECK(!t.any());
  CAF_CHECK(!t.route(dept_key(1), 1, 0, t0).has_value());
  t.note_change(dept_key(1), 500);
  CAF_CHECK_EQUAL(t.waiting_keys(), 0u);
  CAF_CHECK_EQUAL(t.needed_lsn(dept_key(1), 7), 7u);
}

CAF_TEST(a changed key needs its last change and the others the floor) {
  auto t = tracker();
  t.note_change(dept_key(1), 500);
  t.note_change(dept_key(1), 400); // older: the key still needs 500
  t.note_change(dept_key(2), 0);   // no position known: nothing to wait for
  CAF_CHECK_EQUAL(t.needed_lsn(dept_key(1), 100), 500u);
  CAF_CHECK_EQUAL(t.needed_lsn(dept_key(2), 100), 100u);
  CAF_CHECK_EQUAL(t.needed_lsn(dept_key(1), 900), 900u); // the listener's floor is higher
  CAF_CHECK_EQUAL(t.waiting_keys(), 1u);
}

CAF_TEST(positions replayed everywhere are forgotten and raise the floor) {
  auto t = tracker();
  t.note_change(dept_key(1), 500);
  t.note_change(dept_key(2), 700);
  a.replay_lsn = 600;
  b.replay_lsn = 800;
  t.forget_replayed(); // 600 everywhere: 500 goes, 700 stays
  CAF_CHECK_EQUAL(t.waiting_keys(), 1u);
  CAF_CHECK_EQUAL(t.needed_lsn(dept_key(1), 0), 500u); // a standby back from further behind still waits
  CAF_CHECK_EQUAL(t.needed_lsn(dept_key(3), 0), 500u);
  CAF_CHECK_EQUAL(t.needed_lsn(dept_key(2), 0), 700u);
  a.replay_lsn = 700;
  t.forget_replayed();
  CAF_CHECK_EQUAL(t.waiting_keys(), 0u);
  CAF_CHECK_EQUAL(t.needed_lsn(dept_key(3), 0), 700u);
}

CAF_TEST(a key changed again is not forgotten by its older position) {
  auto t = tracker();
  t.note_change(dept_key(1), 500);
  t.note_change(dept_key(1), 900);
  a.replay_lsn = 600;
  b.replay_lsn = 600;
  t.forget_replayed();
  CAF_CHECK_EQUAL(t.needed_lsn(dept_key(1), 0), 900u);
  CAF_CHECK_EQUAL(t.waiting_keys(), 1u);
}

CAF_TEST(past the cap every key waits for the highest position) {
  auto t = tracker(3);
  for (int32_t id = 1; id <= 4; ++id)
    t.note_change(dept_key(id), static_cast<uint64_t>(100 * id));
  t.forget_replayed(); // nothing replayed anywhere yet
  CAF_CHECK_EQUAL(t.waiting_keys(), 0u);
  CAF_CHECK_EQUAL(t.needed_lsn(dept_key(1), 0), 400u);
  CAF_CHECK_EQUAL(t.needed_lsn(dept_key(99), 0), 400u);
}

CAF_TEST(a standby behind the change is read again within the wait and then the primary) {
  auto t = tracker();
  t.note_change(dept_key(1), 500);
  CAF_REQUIRE(t.route(dept_key(1), 1, 0, t0).has_value());
  auto v = t.judge(1, {true, 499, false}, t0 + 30ms);
  CAF_CHECK(v.step == step::retry_standby);
  CAF_CHECK(v.behind);
  CAF_CHECK(v.retry_in == 10ms);
  // Retried on the other standby: the position and the start stay.
  CAF_CHECK(t.route(dept_key(1), 1, 0, t0 + 40ms) == std::optional<size_t>{1});
  v = t.judge(1, {true, 499, false}, t0 + 95ms);
  CAF_CHECK(v.step == step::retry_standby);
  CAF_CHECK(v.retry_in == 5ms); // what is left of the wait
  v = t.judge(1, {true, 499, false}, t0 + 100ms);
  CAF_CHECK(v.step == step::read_primary);
  CAF_CHECK(v.behind);
}

CAF_TEST(a standby that replayed the change is used and the fill forgotten) {
  auto t = tracker();
  t.note_change(dept_key(1), 500);
  t.route(dept_key(1), 1, 0, t0);
  auto v = t.judge(1, {true, 500, false}, t0);
  CAF_CHECK(v.step == step::use);
  CAF_CHECK(!v.behind);
  CAF_CHECK(!t.on_standby(1));
}

CAF_TEST(an unreachable standby sends the fill to the primary at once) {
  auto t = tracker();
  t.route(dept_key(1), 1, 0, t0);
  auto v = t.judge(1, {false, 0, true}, t0);
  CAF_CHECK(v.step == step::read_primary);
  CAF_CHECK(!v.behind);
}

CAF_TEST(an answer from a primary behind the address is used) {
  // The standby was promoted: it is not in recovery, so nothing to wait for.
  auto t = tracker();
  t.note_change(dept_key(1), 500);
  t.route(dept_key(1), 1, 0, t0);
  CAF_CHECK(t.judge(1, {false, 0, false}, t0).step == step::use);
}

CAF_TEST(without the lsn check the answer of a standby is used as it is) {
  auto t = tracker(100, false);
  t.note_change(dept_key(1), 500);
  t.route(dept_key(1), 1, 0, t0);
  CAF_CHECK(t.judge(1, {true, 1, false}, t0).step == step::use);
}

CAF_TEST(a fill that never read a standby is used) {
  auto t = tracker();
  CAF_CHECK(t.judge(42, {true, 0, false}, t0).step == step::use);
}

CAF_TEST_FIXTURE_SCOPE_END()
