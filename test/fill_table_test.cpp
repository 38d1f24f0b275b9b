// SPDX-License-Identifier: Apache-2.0
#define CAF_SUITE fill_table
#include "cache/fill_table.hpp"

#include <caf/test/unit_test.hpp>

#include <string>
#include <vector>

#include "demo/demo_catalogue.hpp"
#include "messages/doc_catalogue.hpp"
#include "test/fixtures/doc_keys.hpp"

using namespace restcache;
using namespace std::chrono_literals;

namespace {

const fill_table::time_point t0{};

struct fixture {
  fill_table fills{5s};
  /// What each reader was answered, by its name.
  std::vector<std::string> answered;

  reply_callback reader(std::string name) {
    return [this, name](lookup_result) { answered.push_back(name); };
  }
  fill_table::waiter waiter(std::string name, cache_status how = cache_status::stored) {
    return {reader(std::move(name)), how};
  }
  /// Answers every waiter of `f`, as the shard does.
  void answer(fill_table::ended& f) {
    for (auto& w : f.waiters)
      w.cb(lookup_result{rc_error::none, nullptr});
  }
  bool join(const doc_key& key, std::string name) {
    auto cb = reader(std::move(name));
    return fills.join(key, cb, cache_status::collapsed);
  }
};

} // namespace

CAF_TEST_FIXTURE_SCOPE(fill_table_tests, fixture)

CAF_TEST(readers of one key wait for one fill and are answered in order) {
  auto id = fills.start(dept_key(1), 7, waiter("a"), t0);
  CAF_CHECK(fills.in_flight(dept_key(1)));
  CAF_CHECK(join(dept_key(1), "b"));
  CAF_CHECK(join(dept_key(1), "c"));
  CAF_CHECK(!join(dept_key(2), "x")); // nothing in flight for another key
  CAF_CHECK_EQUAL(fills.current_count(), 1u);
  CAF_CHECK(fills.current_seq(dept_key(1)) == std::optional<uint64_t>{7});
  CAF_CHECK_EQUAL(fills.waiting_readers(), 3u);
  auto f = fills.finish(dept_key(1), id);
  CAF_REQUIRE(f.has_value());
  CAF_CHECK(f->current);
  CAF_CHECK_EQUAL(f->seq, 7u);
  CAF_REQUIRE_EQUAL(f->waiters.size(), 3u);
  CAF_CHECK(f->waiters[0].how == cache_status::stored);
  CAF_CHECK(f->waiters[1].how == cache_status::collapsed);
  answer(*f);
  CAF_CHECK_EQUAL(answered, (std::vector<std::string>{"a", "b", "c"}));
  CAF_CHECK(!fills.in_flight(dept_key(1)));
  CAF_CHECK(!fills.finish(dept_key(1), id).has_value()); // once only
  CAF_CHECK_EQUAL(fills.waiting_readers(), 0u);
}

CAF_TEST(a fill overtaken by a change answers its readers but is not current) {
  auto old_id = fills.start(dept_key(1), 3, waiter("before"), t0);
  CAF_CHECK(fills.overtake(dept_key(1)));
  CAF_CHECK(!fills.overtake(dept_key(1))); // nothing current any more
  CAF_CHECK(!fills.in_flight(dept_key(1)));
  CAF_CHECK(!join(dept_key(1), "late")); // a reader after the change starts anew
  CAF_CHECK(fills.pending(dept_key(1), old_id));
  auto new_id = fills.start(dept_key(1), 4, waiter("after"), t0 + 1s);
  CAF_CHECK_NOT_EQUAL(old_id, new_id);
  // The overtaken fill's answer arrives first: its readers get it, and it
  // takes nothing of the new fill.
  auto old_fill = fills.finish(dept_key(1), old_id);
  CAF_REQUIRE(old_fill.has_value());
  CAF_CHECK(!old_fill->current);
  CAF_REQUIRE_EQUAL(old_fill->waiters.size(), 1u);
  answer(*old_fill);
  CAF_CHECK(fills.in_flight(dept_key(1)));
  auto new_fill = fills.finish(dept_key(1), new_id);
  CAF_REQUIRE(new_fill.has_value());
  CAF_CHECK(new_fill->current);
  CAF_CHECK_EQUAL(new_fill->seq, 4u);
  answer(*new_fill);
  CAF_CHECK_EQUAL(answered, (std::vector<std::string>{"before", "after"}));
}

CAF_TEST(an uncached fill is never current and is not joined) {
  auto id = fills.start_uncached(dept_key(1), waiter("a", cache_status::bypass), t0);
  CAF_CHECK(!fills.in_flight(dept_key(1)));
  CAF_CHECK(!join(dept_key(1), "b"));
  CAF_CHECK_EQUAL(fills.uncached_count(), 1u);
  auto f = fills.finish(dept_key(1), id);
  CAF_REQUIRE(f.has_value());
  CAF_CHECK(!f->current);
  CAF_CHECK(f->waiters.front().how == cache_status::bypass);
}

CAF_TEST(fills past their deadline end in start order and their answers come too late) {
  auto a = fills.start(dept_key(1), 0, waiter("a"), t0);
  auto b = fills.start_uncached(dept_key(2), waiter("b"), t0 + 1s);
  auto c = fills.start(dept_key(3), 0, waiter("c"), t0 + 2s);
  CAF_CHECK(fills.next_deadline() == t0 + 5s);
  CAF_CHECK(fills.expire(t0 + 4s).empty());
  auto gone = fills.expire(t0 + 6s);
  CAF_REQUIRE_EQUAL(gone.size(), 2u);
  CAF_CHECK_EQUAL(gone[0].id, a);
  CAF_CHECK(gone[0].current);
  CAF_CHECK_EQUAL(gone[1].id, b);
  CAF_CHECK(!gone[1].current);
  CAF_CHECK(gone[1].key == dept_key(2));
  CAF_CHECK(!fills.pending(dept_key(1), a));
  CAF_CHECK(!fills.finish(dept_key(1), a).has_value()); // its answer after the timeout
  CAF_CHECK(fills.next_deadline() == t0 + 7s);
  CAF_CHECK(fills.finish(dept_key(3), c).has_value());
  CAF_CHECK(!fills.next_deadline().has_value());
}

CAF_TEST(the next deadline skips fills already answered) {
  auto a = fills.start(dept_key(1), 0, waiter("a"), t0);
  fills.start(dept_key(2), 0, waiter("b"), t0 + 2s);
  CAF_CHECK(fills.finish(dept_key(1), a).has_value());
  CAF_CHECK(fills.next_deadline() == t0 + 7s);
  CAF_CHECK(fills.expire(t0 + 6s).empty()); // a was answered: nothing ends
}

CAF_TEST(an overtaken fill keeps its deadline) {
  auto a = fills.start(dept_key(1), 0, waiter("a"), t0);
  fills.overtake(dept_key(1));
  auto gone = fills.expire(t0 + 5s);
  CAF_REQUIRE_EQUAL(gone.size(), 1u);
  CAF_CHECK_EQUAL(gone[0].id, a);
  CAF_CHECK(!gone[0].current);
}

CAF_TEST(overtaking kinds leaves the other kinds current) {
  fills.start(dept_key(1), 0, waiter("d1"), t0);
  fills.start(emp_key(1), 0, waiter("e1"), t0);
  fills.start(emp_key(2), 0, waiter("e2"), t0);
  CAF_CHECK_EQUAL(fills.overtake_kinds(kind_bit(demo::emp_kind)), 2u);
  CAF_CHECK(fills.in_flight(dept_key(1)));
  CAF_CHECK(!fills.in_flight(emp_key(1)));
  CAF_CHECK_EQUAL(fills.uncached_count(), 2u);
  CAF_CHECK_EQUAL(fills.waiting_readers(), 3u);
  CAF_CHECK_EQUAL(fills.overtake_kinds(std::nullopt), 1u);
  CAF_CHECK_EQUAL(fills.current_count(), 0u);
}

CAF_TEST_FIXTURE_SCOPE_END()
