// SPDX-License-Identifier: Apache-2.0
#define CAF_SUITE batch_writer
#include "actors/batch_writer.hpp"

#include <caf/test/dsl.hpp>

#include "demo/demo_catalogue.hpp"
#include "messages/document_encoder.hpp"
#include "test/fixtures/fake_db.hpp"

using namespace restcache;
using restcache::test::fake_tier;

namespace {

doc_key key(int32_t id) {
  return doc_key{demo::deptemps_kind, id};
}

struct fixture : test_coordinator_fixture<> {
  std::shared_ptr<fake_tier> store = std::make_shared<fake_tier>();
  batch_metrics metrics;
  batch_writer_actor writer;
  std::shared_ptr<std::vector<uint64_t>> confirmed = std::make_shared<std::vector<uint64_t>>();

  void spawn_writer(batch_writer_config cfg) {
    writer = sys.spawn(batch_writer, cfg, store, &metrics);
    sched.run();
  }

  fixture() {
    spawn_writer(batch_writer_config{});
  }

  ~fixture() {
    anon_send_exit(writer, caf::exit_reason::user_shutdown);
    sched.run();
  }

  void put(int32_t id, const std::string& body = "{}", uint64_t seq = 1) {
    self->send(writer, put_atom::value, key(id), make_doc(body), seq);
  }

  /// Sends invalidate (of keys or of rows) as a request; the confirmed
  /// sequence lands in `confirmed`.
  template <class Batch>
  void ask_invalidate(Batch batch) {
    sys.spawn(
      [confirmed = confirmed, batch](caf::event_based_actor* client, batch_writer_actor target) {
        client->request(target, caf::infinite, invalidate_atom::value, batch)
          .then([confirmed](uint64_t s) { confirmed->push_back(s); });
      },
      writer);
  }
  void invalidate(int32_t id, uint64_t seq) { ask_invalidate(change_batch{{key(id), seq, 0}}); }
};

} // namespace

CAF_TEST_FIXTURE_SCOPE(batch_writer_tests, fixture)

CAF_TEST(ten thousand records flush in one transaction) {
  for (int32_t id = 1; id < 10'000; ++id)
    put(id);
  sched.run();
  CAF_CHECK(store->calls.empty());
  CAF_CHECK_EQUAL(metrics.queued.load(), 9'999);
  put(10'000);
  sched.run();
  CAF_REQUIRE_EQUAL(store->calls.size(), 1u);
  CAF_CHECK_EQUAL(store->calls[0].puts.size(), 10'000u);
  CAF_CHECK_EQUAL(metrics.flushes.load(), 1u);
  CAF_CHECK_EQUAL(metrics.queued.load(), 0);
}

CAF_TEST(a few records flush when the interval passes) {
  put(1);
  put(2);
  put(3);
  sched.run();
  CAF_CHECK(store->calls.empty());
  sched.trigger_timeouts();
  sched.run();
  CAF_REQUIRE_EQUAL(store->calls.size(), 1u);
  CAF_CHECK_EQUAL(store->calls[0].puts.size(), 3u);
}

CAF_TEST(queued records flush at shutdown) {
  put(1);
  put(2);
  sched.run();
  anon_send_exit(writer, caf::exit_reason::user_shutdown);
  sched.run();
  CAF_CHECK_EQUAL(store->records_written(), 2u);
}

CAF_TEST(a drain after the last records writes them and answers the total) {
  put(1);
  put(2);
  put(3);
  auto total = std::make_shared<uint64_t>(0);
  sys.spawn(
    [total](caf::event_based_actor* client, batch_writer_actor target) {
      client->request(target, caf::infinite, drain_atom::value).then([total](uint64_t n) { *total = n; });
    },
    writer);
  sched.run();
  CAF_CHECK_EQUAL(store->records_written(), 3u);
  CAF_CHECK_EQUAL(*total, 3u);
}

CAF_TEST(the newest record per key wins in the queue) {
  put(7, "{\"v\":1}", 1);
  put(7, "{\"v\":2}", 2);
  sched.run();
  sched.trigger_timeouts();
  sched.run();
  CAF_REQUIRE_EQUAL(store->records_written(), 1u);
  CAF_CHECK_EQUAL(store->calls[0].puts[0].doc->body, "{\"v\":2}");
  CAF_CHECK_EQUAL(store->calls[0].puts[0].seq, 2u);
}

CAF_TEST(an invalidation discards an older queued record and deletes the key promptly) {
  put(5, "{\"old\":true}");
  put(6);
  invalidate(5, 42);
  sched.run();
  CAF_CHECK_EQUAL(metrics.records_discarded.load(), 1u);
  CAF_CHECK(confirmed->empty()); // not before the delete committed
  // The delete timer (milliseconds) fires before the flush interval (a second).
  sched.trigger_timeout();
  sched.run();
  CAF_REQUIRE_EQUAL(store->calls.size(), 1u);
  CAF_CHECK(store->calls[0].puts.empty());
  CAF_REQUIRE_EQUAL(store->calls[0].deletes.size(), 1u);
  CAF_CHECK(store->calls[0].deletes[0] == key(5));
  CAF_REQUIRE_EQUAL(confirmed->size(), 1u);
  CAF_CHECK_EQUAL(confirmed->at(0), 42u);
  // The old record never reaches the tier.
  sched.trigger_timeouts();
  sched.run();
  for (auto& c : store->calls)
    for (auto& r : c.puts)
      CAF_CHECK(!(r.key == key(5)));
  CAF_CHECK_EQUAL(store->records_written(), 1u); // key 6 only
}

CAF_TEST(a changed row discards the queued records holding it and is deleted there promptly) {
  self->send(writer, put_atom::value, key(5), make_doc("{\"old\":true}", {row_key("emp", {"501"})}), uint64_t{1});
  self->send(writer, put_atom::value, key(6), make_doc("{}", {row_key("emp", {"601"})}), uint64_t{1});
  ask_invalidate(row_batch{{row_key("emp", {"501"}), kind_bit(demo::deptemps_kind), 43, 0, 0}});
  sched.run();
  CAF_CHECK_EQUAL(metrics.records_discarded.load(), 1u); // the record holding it
  CAF_CHECK(confirmed->empty()); // not before its records' delete committed
  sched.trigger_timeout();
  sched.run();
  CAF_REQUIRE_EQUAL(store->calls.size(), 1u);
  CAF_CHECK_EQUAL(store->calls[0].changed_rows, (std::vector<std::string>{row_key("emp", {"501"})}));
  CAF_REQUIRE_EQUAL(confirmed->size(), 1u);
  CAF_CHECK_EQUAL(confirmed->at(0), 43u);
  sched.trigger_timeouts();
  sched.run();
  CAF_CHECK_EQUAL(store->records_written(), 1u); // key 6 only
}

CAF_TEST(a record queued after an invalidation is written after the delete) {
  anon_send_exit(writer, caf::exit_reason::user_shutdown);
  sched.run();
  store->calls.clear();
  spawn_writer(batch_writer_config{1, std::chrono::seconds{1}, 100});
  invalidate(8, 9);
  sched.run();
  put(8, "{\"new\":true}", 10); // batch size 1: flushes at once, with the delete
  sched.run();
  CAF_REQUIRE_EQUAL(store->calls.size(), 1u);
  CAF_CHECK_EQUAL(store->calls[0].deletes.size(), 1u);
  CAF_REQUIRE_EQUAL(store->calls[0].puts.size(), 1u); // the store applies deletes first
  CAF_CHECK_EQUAL(store->calls[0].puts[0].doc->body, "{\"new\":true}");
  CAF_CHECK_EQUAL(confirmed->size(), 1u);
}

CAF_TEST(a drop of kinds discards their queued records and erases them before later records) {
  put(5, "{\"old\":true}");
  self->send(writer, put_atom::value, doc_key{demo::emp_kind, 6}, make_doc("{}"), uint64_t{1});
  auto answered = std::make_shared<bool>(false);
  sys.spawn(
    [answered](caf::event_based_actor* client, batch_writer_actor target) {
      client->request(target, caf::infinite, clear_atom::value, kind_bit(demo::deptemps_kind))
        .then([answered](uint64_t) { *answered = true; });
    },
    writer);
  sched.run();
  CAF_CHECK_EQUAL(metrics.records_discarded.load(), 1u); // key 5's; the employee stays queued
  put(5, "{\"new\":true}", 2);
  sched.run();
  sched.trigger_timeouts();
  sched.run();
  sched.trigger_timeouts();
  sched.run();
  CAF_CHECK(*answered);
  CAF_REQUIRE_GREATER_OR_EQUAL(store->calls.size(), 2u);
  CAF_CHECK_EQUAL(store->calls[0].erased_kinds, kind_bit(demo::deptemps_kind));
  CAF_CHECK(!store->calls[0].clear);
  std::vector<std::string> written;
  for (auto& c : store->calls)
    for (auto& r : c.puts)
      written.push_back(r.doc->body);
  CAF_CHECK_EQUAL(written.size(), 2u); // the employee and the newer key 5
  CAF_CHECK(std::find(written.begin(), written.end(), "{\"old\":true}") == written.end());
  CAF_CHECK_EQUAL(metrics.clears.load(), 0u);
}

CAF_TEST(a full queue drops records and counts them) {
  anon_send_exit(writer, caf::exit_reason::user_shutdown);
  sched.run();
  spawn_writer(batch_writer_config{100, std::chrono::seconds{1}, 10});
  for (int32_t id = 1; id <= 15; ++id)
    put(id);
  put(3); // a key already queued is replaced, not dropped
  sched.run();
  CAF_CHECK_EQUAL(metrics.records_dropped.load(), 5u);
  CAF_CHECK_EQUAL(metrics.queued.load(), 10);
  sched.trigger_timeouts();
  sched.run();
  CAF_CHECK_EQUAL(store->records_written(), 10u);
}

CAF_TEST(a failed delete is retried and confirmed only once it commits) {
  store->fail_next = 1;
  invalidate(4, 3);
  sched.run();
  sched.trigger_timeout(); // the delete transaction fails
  sched.run();
  CAF_CHECK(confirmed->empty());
  CAF_CHECK_EQUAL(metrics.write_errors.load(), 1u);
  sched.trigger_timeout(); // the retry commits
  sched.run();
  CAF_REQUIRE_EQUAL(confirmed->size(), 1u);
  CAF_CHECK_EQUAL(store->calls.size(), 1u);
}

CAF_TEST(a failed record transaction drops its records and the writer goes on) {
  put(1);
  put(2);
  store->fail_next = 1;
  sched.run();
  sched.trigger_timeouts();
  sched.run();
  CAF_CHECK_EQUAL(metrics.records_dropped.load(), 2u);
  put(3);
  sched.run();
  sched.trigger_timeouts();
  sched.run();
  CAF_CHECK_EQUAL(store->records_written(), 1u);
}

CAF_TEST(failing commits mark the tier degraded and the first success marks it ok again) {
  CAF_CHECK_EQUAL(metrics.status.state(), tier_state::ok);
  store->fail_next = 3;
  invalidate(4, 3);
  sched.run();
  for (int i = 0; i < 3; ++i) { // the first try and two retries fail
    sched.trigger_timeout();
    sched.run();
  }
  CAF_CHECK_EQUAL(metrics.write_errors.load(), 3u);
  CAF_CHECK_EQUAL(metrics.status.state(), tier_state::degraded);
  CAF_CHECK(metrics.status.get().second.find("writes failing") != std::string::npos);
  CAF_CHECK(confirmed->empty());
  sched.trigger_timeout(); // the third retry commits
  sched.run();
  CAF_CHECK_EQUAL(confirmed->size(), 1u);
  CAF_CHECK_EQUAL(metrics.status.state(), tier_state::ok);
}

CAF_TEST(retries of failed deletes back off to the limit and no further) {
  batch_writer_config cfg;
  cfg.retry_delay = std::chrono::milliseconds{100};
  cfg.max_retry_delay = std::chrono::milliseconds{1000};
  batch_writer_state st;
  st.cfg = cfg;
  CAF_CHECK_EQUAL(st.retry_delay().count(), 100);
  st.failures_in_a_row = 2;
  CAF_CHECK_EQUAL(st.retry_delay().count(), 200);
  st.failures_in_a_row = 4;
  CAF_CHECK_EQUAL(st.retry_delay().count(), 800);
  st.failures_in_a_row = 50;
  CAF_CHECK_EQUAL(st.retry_delay().count(), 1000);
}

CAF_TEST(deletes that pile up while commits fail become one clear) {
  anon_send_exit(writer, caf::exit_reason::user_shutdown);
  sched.run();
  batch_writer_config cfg;
  cfg.max_queue = 4;
  spawn_writer(cfg);
  store->fail_next = 1000;
  invalidate(1, 1);
  sched.run();
  sched.trigger_timeout(); // fails: the streak begins
  sched.run();
  for (int32_t id = 2; id <= 6; ++id)
    invalidate(id, uint64_t(id));
  sched.run();
  invalidate(7, 7); // after the clear is pending: answered by it too
  sched.run();
  store->fail_next = 0;
  sched.trigger_timeout();
  sched.run();
  CAF_REQUIRE(!store->calls.empty());
  CAF_CHECK(store->calls.front().clear);
  CAF_CHECK_EQUAL(confirmed->size(), 7u);
  CAF_CHECK_EQUAL(metrics.clears.load(), 1u);
  CAF_CHECK_EQUAL(metrics.status.state(), tier_state::ok);
}

CAF_TEST_FIXTURE_SCOPE_END()
