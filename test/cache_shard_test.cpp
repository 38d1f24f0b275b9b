// SPDX-License-Identifier: Apache-2.0
#define CAF_SUITE cache_shard
#include "actors/cache_shard.hpp"

#include "actors/batch_writer.hpp"
#include "demo/demo_catalogue.hpp"
#include "messages/document_encoder.hpp"
#include "messages/document_gzip.hpp"
#include "test/fixtures/catalogue_guard.hpp"
#include "test/fixtures/fake_pool_fixture.hpp"
#include "demo/demo_encoders.hpp"

using namespace restcache;
using namespace restcache::test;

namespace {

struct fixture : fake_pool_fixture {
  cache_metrics cm;
  cache_shard_actor shard;
  // Shared with the callbacks: a fill still pending when a test ends is
  // answered while the fixture is torn down.
  std::shared_ptr<std::vector<lookup_result>> answers =
    std::make_shared<std::vector<lookup_result>>();
  std::vector<lookup_result>& results = *answers;

  void spawn_shard(cache_shard_config cfg) {
    spawn_pool(1, 10'000);
    shard = sys.spawn(cache_shard, cfg, pool, &cm);
    sched.run();
  }

  ~fixture() {
    anon_send_exit(shard, caf::exit_reason::user_shutdown);
  }

  fixture() {
    spawn_shard(cache_shard_config{cache_mode::memory, 1 << 20, std::chrono::seconds{10}});
  }

  static doc_key key(int32_t id) {
    return doc_key{demo::deptemps_kind, id};
  }

  void get(int32_t id) {
    self->send(shard, get_atom::value, key(id),
               reply_callback{[answers = answers](lookup_result r) { answers->push_back(std::move(r)); }});
  }

  /// Asks for `id`, lets the fill run and completes it.
  void fill(int32_t id, int emps = 2) {
    get(id);
    sched.run();
    conn().complete_oldest(emps);
    sched.run();
  }
};

} // namespace

CAF_TEST_FIXTURE_SCOPE(cache_shard_tests, fixture)

CAF_TEST(a miss runs one query and a second get is a hit that runs none) {
  get(1);
  expect((get_atom, doc_key, reply_callback), from(self).to(shard).with(_, _, _));
  // The shard borrows a connection and runs the query on it.
  sched.run();
  CAF_REQUIRE_EQUAL(conn().pending.size(), 1u);
  CAF_CHECK_EQUAL(conn().pending[0].deptno, 1);
  CAF_CHECK(results.empty());
  conn().complete_oldest();
  sched.run();
  CAF_REQUIRE_EQUAL(results.size(), 1u);
  CAF_CHECK_EQUAL(results[0].error, rc_error::none);
  CAF_REQUIRE(results[0].doc != nullptr);
  CAF_CHECK(results[0].doc->body.find("\"deptNumber\":1,") != std::string::npos);
  CAF_CHECK_EQUAL(cm.fills.load(), 1u);

  get(1);
  expect((get_atom, doc_key, reply_callback), from(self).to(shard).with(_, _, _));
  // Answered within that one message: no borrow, no query.
  disallow((borrow_atom), from(_).to(pool));
  CAF_REQUIRE_EQUAL(results.size(), 2u);
  CAF_CHECK_EQUAL(results[1].doc, results[0].doc); // the same shared bytes, no copy
  CAF_CHECK_EQUAL(conn().queries, 1u);
  CAF_CHECK_EQUAL(cm.hits.load(), 1u);
  CAF_CHECK_EQUAL(cm.misses.load(), 1u);
  CAF_CHECK_EQUAL(cm.entries.load(), 1);
}

CAF_TEST(an employee document is filled and cached under its own key) {
  self->send(shard, get_atom::value, doc_key{demo::emp_kind, 7839},
             reply_callback{[answers = answers](lookup_result r) { answers->push_back(std::move(r)); }});
  sched.run();
  CAF_REQUIRE_EQUAL(conn().pending.size(), 1u);
  CAF_CHECK(conn().pending[0].kind == demo::emp_kind);
  conn().complete_oldest();
  sched.run();
  CAF_REQUIRE_EQUAL(results.size(), 1u);
  CAF_REQUIRE(results[0].doc != nullptr);
  CAF_CHECK(results[0].doc->body.rfind("{\"empNo\":7839,\"empName\":\"KING\"", 0) == 0);
  // The department with the same number is a different document.
  get(7839);
  sched.run();
  CAF_CHECK_EQUAL(conn().queries, 2u);
}

CAF_TEST(a thousand waiters on one cold key produce one query) {
  for (int i = 0; i < 1000; ++i)
    get(42);
  sched.run();
  CAF_CHECK_EQUAL(conn().queries, 1u);
  CAF_CHECK(results.empty());
  conn().complete_oldest();
  sched.run();
  CAF_REQUIRE_EQUAL(results.size(), 1000u);
  for (auto& r : results)
    CAF_CHECK_EQUAL(r.doc, results[0].doc);
  CAF_CHECK_EQUAL(cm.fills.load(), 1u);
  CAF_CHECK_EQUAL(cm.coalesced.load(), 999u);
}

CAF_TEST(an unknown id answers not found and caches nothing) {
  get(7);
  sched.run();
  conn().fail_oldest(rc_error::not_found);
  sched.run();
  CAF_REQUIRE_EQUAL(results.size(), 1u);
  CAF_CHECK_EQUAL(results[0].error, rc_error::not_found);
  CAF_CHECK(results[0].doc == nullptr);
  get(7);
  sched.run();
  CAF_CHECK_EQUAL(conn().queries, 2u);
}

CAF_TEST(a failed fill answers every waiter with its error and caches nothing) {
  get(8);
  get(8);
  sched.run();
  fail_every_read(rc_error::db_unavailable);
  CAF_REQUIRE_EQUAL(results.size(), 2u);
  CAF_CHECK_EQUAL(results[0].error, rc_error::db_unavailable);
  CAF_CHECK_EQUAL(results[1].error, rc_error::db_unavailable);
  CAF_CHECK_EQUAL(cm.entries.load(), 0);
  CAF_CHECK_EQUAL(cm.fill_errors.load(), 1u);
}

CAF_TEST(a fill overtaken by an invalidation answers its waiters but is not cached) {
  get(5);
  sched.run();
  CAF_REQUIRE_EQUAL(conn().pending.size(), 1u);
  self->send(shard, invalidate_atom::value, change_batch{{key(5), 77, 0}});
  expect((invalidate_atom, change_batch), from(self).to(shard).with(_, _));
  conn().complete_oldest();
  sched.run();
  CAF_REQUIRE_EQUAL(results.size(), 1u); // asked before the change was known
  CAF_CHECK(results[0].doc != nullptr);
  CAF_CHECK_EQUAL(cm.entries.load(), 0);
  CAF_CHECK_EQUAL(cm.fills_discarded.load(), 1u);
  get(5);
  sched.run();
  CAF_CHECK_EQUAL(conn().queries, 2u); // a new fill: the old result was not kept
}

CAF_TEST(a get after an invalidation does not join the overtaken fill) {
  get(6);
  sched.run();
  self->send(shard, invalidate_atom::value, change_batch{{key(6), 1, 0}});
  sched.run();
  get(6); // must not be answered by the fill that started before the change
  sched.run();
  CAF_REQUIRE_EQUAL(conn().pending.size(), 1u); // pool size 1: the second waits
  conn().complete_oldest();
  sched.run();
  CAF_REQUIRE_EQUAL(results.size(), 1u);
  CAF_REQUIRE_EQUAL(conn().pending.size(), 1u); // the second fill got the connection
  conn().complete_oldest(3);
  sched.run();
  CAF_REQUIRE_EQUAL(results.size(), 2u);
  CAF_CHECK_NOT_EQUAL(results[0].doc->body, results[1].doc->body);
  CAF_CHECK_EQUAL(cm.entries.load(), 1);
}

CAF_TEST(a changed row drops the documents holding it and overtakes the fills of its kinds) {
  fill(20); // employees 2001 and 2002
  fill(21);
  CAF_CHECK_EQUAL(cm.entries.load(), 2);
  get(22);
  sched.run(); // in flight: it may have read the row before its change
  self->send(shard, invalidate_atom::value,
             row_batch{{row_key("emp", {"2002"}), kind_bit(demo::deptemps_kind), 7, 0, 0}});
  sched.run();
  CAF_CHECK_EQUAL(cm.entries.load(), 1); // 21 holds no such row
  conn().complete_oldest();
  sched.run();
  CAF_CHECK_EQUAL(cm.entries.load(), 1);
  CAF_CHECK_EQUAL(cm.fills_discarded.load(), 1u);
  get(21);
  get(20);
  sched.run();
  CAF_CHECK_EQUAL(conn().queries, 4u); // 20 again; 21 a hit
  CAF_REQUIRE_EQUAL(results.size(), 4u);
  CAF_CHECK(results[3].status == cache_status::memory);
}

CAF_TEST(an invalidation drops a cached entry) {
  fill(9);
  CAF_CHECK_EQUAL(cm.entries.load(), 1);
  self->send(shard, invalidate_atom::value, change_batch{{key(9), 2, 0}});
  sched.run();
  CAF_CHECK_EQUAL(cm.entries.load(), 0);
  CAF_CHECK_EQUAL(cm.bytes.load(), 0);
  get(9);
  sched.run();
  CAF_CHECK_EQUAL(conn().queries, 2u);
}

CAF_TEST(a gzip lookup compresses a cached document once and charges the budget for it) {
  fill(12, 6); // a department of six employees: well over gzip_min_bytes
  CAF_REQUIRE_EQUAL(results.size(), 1u);
  CAF_REQUIRE(results[0].doc);
  CAF_CHECK(results[0].doc->gzip() == nullptr); // a plain get makes none
  auto plain_bytes = cm.bytes.load();
  auto gzip_get = [&] {
    self->send(shard, gzip_atom::value, key(12),
               reply_callback{[answers = answers](lookup_result r) { answers->push_back(std::move(r)); }});
    sched.run();
  };
  gzip_get();
  gzip_get();
  CAF_REQUIRE_EQUAL(results.size(), 3u);
  const auto* v = results[1].doc->gzip();
  CAF_REQUIRE(v != nullptr);
  CAF_CHECK_EQUAL(results[2].doc->gzip(), v); // made once, kept with the document
  CAF_CHECK_EQUAL(v->body, gzip_compress(results[0].doc->body));
  CAF_CHECK_EQUAL(v->etag, gzip_etag(results[0].doc->etag));
  CAF_CHECK_GREATER(cm.bytes.load(), plain_bytes);
  CAF_CHECK_EQUAL(conn().queries, 1u);
  // Dropped with its document: the budget is back to zero.
  self->send(shard, invalidate_atom::value, change_batch{{key(12), 2, 0}});
  sched.run();
  CAF_CHECK_EQUAL(cm.bytes.load(), 0);
}

CAF_TEST(fills beyond the wait queue of the pool are answered overloaded at once) {
  anon_send_exit(shard, caf::exit_reason::user_shutdown);
  anon_send_exit(pool, caf::exit_reason::user_shutdown);
  sched.run();
  conns->clear();
  // One connection, one place in the wait queue.
  spawn_pool(1, 1);
  shard = sys.spawn(cache_shard, cache_shard_config{cache_mode::memory, 1 << 20, std::chrono::seconds{10}},
                    pool, &cm);
  sched.run();
  get(1); // runs
  get(2); // waits for the connection
  get(3); // no room: overloaded (503 with Retry-After at the edge)
  sched.run();
  CAF_REQUIRE_EQUAL(results.size(), 1u);
  CAF_CHECK_EQUAL(results[0].error, rc_error::overloaded);
  CAF_CHECK_EQUAL(dbm.borrow_rejected.load(), 1u);
  conn().complete_oldest();
  sched.run();
  conn().complete_oldest();
  sched.run();
  CAF_CHECK_EQUAL(results.size(), 3u);
  CAF_CHECK_EQUAL(cm.entries.load(), 2);
}

CAF_TEST(fills in flight share one timer and each times out at its own deadline) {
  using std::chrono::seconds;
  // The mailbox reporters keep timers of their own.
  const auto others = sched.clock().schedule().size();
  get(11);
  sched.run();
  sched.clock().advance_time(seconds{4});
  sched.run();
  get(12);
  get(13);
  sched.run();
  // Three fills, one timer message: for the oldest deadline.
  CAF_CHECK_EQUAL(sched.clock().schedule().size(), others + 1);
  sched.clock().advance_time(seconds{6}); // fill 11 is 10 s old, 12 and 13 are 6 s
  sched.run();
  CAF_REQUIRE_EQUAL(results.size(), 1u);
  CAF_CHECK_EQUAL(results[0].error, rc_error::db_timeout);
  CAF_CHECK_EQUAL(cm.fill_errors.load(), 1u);
  CAF_CHECK_EQUAL(sched.clock().schedule().size(), others + 1); // re-armed for fill 12
  sched.clock().advance_time(seconds{3});
  sched.run();
  CAF_CHECK_EQUAL(results.size(), 1u);
  sched.clock().advance_time(seconds{1});
  sched.run();
  CAF_REQUIRE_EQUAL(results.size(), 3u);
  CAF_CHECK_EQUAL(results[1].error, rc_error::db_timeout);
  CAF_CHECK_EQUAL(results[2].error, rc_error::db_timeout);
  CAF_CHECK_EQUAL(sched.clock().schedule().size(), others); // nothing left to time
}

CAF_TEST(a fill answered in time leaves no timer behind) {
  const auto others = sched.clock().schedule().size();
  fill(21);
  CAF_REQUIRE_EQUAL(results.size(), 1u);
  CAF_CHECK_EQUAL(results[0].error, rc_error::none);
  sched.clock().advance_time(std::chrono::seconds{10});
  sched.run();
  CAF_CHECK_EQUAL(sched.clock().schedule().size(), others);
  CAF_CHECK_EQUAL(cm.fill_errors.load(), 0u);
  CAF_CHECK_EQUAL(results.size(), 1u);
}

CAF_TEST(a stuck fill answers its waiters with a timeout) {
  get(11);
  get(11);
  sched.run();
  CAF_CHECK(results.empty());
  sched.trigger_timeouts();
  sched.run();
  CAF_REQUIRE_EQUAL(results.size(), 2u);
  CAF_CHECK_EQUAL(results[0].error, rc_error::db_timeout);
  CAF_CHECK_EQUAL(results[1].error, rc_error::db_timeout);
  // The late answer is harmless and not cached.
  conn().complete_oldest();
  sched.run();
  CAF_CHECK_EQUAL(results.size(), 2u);
  CAF_CHECK_EQUAL(cm.entries.load(), 0);
}

CAF_TEST(a populated document is kept only if no invalidation came after its read) {
  auto doc = make_doc(demo::encode_deptemps(make_dept(30, 2)));
  self->send(shard, put_atom::value, key(30), doc, uint64_t{0});
  expect((put_atom, doc_key, doc_ptr, uint64_t), from(self).to(shard).with(_, _, _, 0u));
  CAF_CHECK_EQUAL(cm.populated.load(), 1u);
  get(30);
  sched.run();
  CAF_REQUIRE_EQUAL(results.size(), 1u);
  CAF_CHECK_EQUAL(results[0].doc, doc);
  CAF_CHECK_EQUAL(conn().queries, 0u);
  // An invalidation of any key moves the epoch: a page read before it is refused.
  self->send(shard, invalidate_atom::value, change_batch{{key(99), 5, 0}});
  sched.run();
  CAF_CHECK_EQUAL(cm.invalidation_epoch.load(), 1u);
  self->send(shard, put_atom::value, key(31), make_doc(demo::encode_deptemps(make_dept(31, 2))), uint64_t{0});
  sched.run();
  CAF_CHECK_EQUAL(cm.populated.load(), 1u);
  self->send(shard, put_atom::value, key(31), make_doc(demo::encode_deptemps(make_dept(31, 2))), uint64_t{1});
  sched.run();
  CAF_CHECK_EQUAL(cm.populated.load(), 2u);
  // It never replaces a cached entry.
  self->send(shard, put_atom::value, key(30), make_doc("{}"), uint64_t{1});
  sched.run();
  get(30);
  sched.run();
  CAF_CHECK_EQUAL(results.back().doc, doc);
}

CAF_TEST(mode none runs a query for every get and keeps nothing) {
  anon_send_exit(shard, caf::exit_reason::user_shutdown);
  anon_send_exit(pool, caf::exit_reason::user_shutdown);
  sched.run();
  conns->clear();
  spawn_shard(cache_shard_config{cache_mode::none, 1 << 20, std::chrono::seconds{10}});
  get(3);
  get(3);
  sched.run();
  CAF_CHECK_EQUAL(conn().queries, 1u); // one connection: the second waits for it
  conn().complete_oldest();
  sched.run();
  CAF_CHECK_EQUAL(conn().queries, 2u);
  conn().complete_oldest();
  sched.run();
  CAF_CHECK_EQUAL(results.size(), 2u);
  CAF_CHECK_EQUAL(cm.entries.load(), 0);
}

CAF_TEST_FIXTURE_SCOPE_END()

namespace {

struct budget_fixture : fixture {
  budget_fixture() {
    anon_send_exit(shard, caf::exit_reason::user_shutdown);
    anon_send_exit(pool, caf::exit_reason::user_shutdown);
    sched.run();
    conns->clear();
    // Room for about five documents of two employees.
    auto one = memory_tier::charge_of(*make_doc(demo::encode_deptemps(make_dept(1, 2))));
    budget = one * 5 + one / 2;
    spawn_shard(cache_shard_config{cache_mode::memory, budget, std::chrono::seconds{10}});
  }
  int64_t budget = 0;
};

} // namespace

CAF_TEST_FIXTURE_SCOPE(cache_shard_budget_tests, budget_fixture)

CAF_TEST(the byte budget holds and hot keys survive eviction) {
  fill(1);
  for (int32_t id = 2; id <= 40; ++id) {
    fill(id);
    get(1); // keep key 1 hot: its CLOCK bit is set again after every fill
    sched.run();
    CAF_CHECK_LESS_OR_EQUAL(cm.bytes.load(), budget);
  }
  CAF_CHECK_GREATER(cm.evictions.load(), 30u);
  CAF_CHECK_LESS_OR_EQUAL(cm.entries.load(), 5);
  auto queries = conn().queries;
  get(1);
  sched.run();
  CAF_CHECK_EQUAL(conn().queries, queries); // still cached
}

CAF_TEST_FIXTURE_SCOPE_END()

namespace {

/// A shard in front of a second tier: the fake tier serves reads, and a real
/// batch_writer writes to the same fake.
struct tier_fixture : fixture {
  std::shared_ptr<fake_tier> tier = std::make_shared<fake_tier>();
  batch_metrics bm;
  batch_writer_actor writer;

  void spawn_tiered(cache_mode mode) {
    anon_send_exit(shard, caf::exit_reason::user_shutdown);
    sched.run();
    writer = sys.spawn(batch_writer, batch_writer_config{}, tier, &bm);
    cache_shard_config cfg{mode, 1 << 20, std::chrono::seconds{10}};
    cfg.tier = tier;
    cfg.writer = writer;
    shard = sys.spawn(cache_shard, cfg, pool, &cm);
    sched.run();
  }

  tier_fixture() {
    spawn_tiered(cache_mode::tiered);
  }

  ~tier_fixture() {
    anon_send_exit(writer, caf::exit_reason::user_shutdown);
  }
};

} // namespace

CAF_TEST_FIXTURE_SCOPE(cache_shard_tier_tests, tier_fixture)

CAF_TEST(a memory miss found in the tier runs no query and is promoted) {
  auto doc = make_doc("{\"deptNumber\":12}");
  tier->docs[key(12)] = doc;
  get(12);
  sched.run();
  CAF_REQUIRE_EQUAL(results.size(), 1u);
  CAF_CHECK_EQUAL(results[0].doc, doc);
  CAF_CHECK_EQUAL(conn().queries, 0u);
  CAF_CHECK_EQUAL(cm.tier_hits.load(), 1u);
  get(12);
  sched.run();
  CAF_CHECK_EQUAL(tier->reads, 1u); // the second get was a memory hit
  CAF_CHECK_EQUAL(cm.hits.load(), 1u);
}

CAF_TEST(a filled document goes to memory and to the batch writer) {
  fill(13);
  CAF_CHECK_EQUAL(cm.entries.load(), 1);
  CAF_CHECK_EQUAL(bm.queued.load(), 1);
  sched.trigger_timeouts(); // the flush interval
  sched.run();
  CAF_REQUIRE_EQUAL(tier->records_written(), 1u);
  CAF_CHECK(tier->calls.back().puts[0].key == key(13));
}

CAF_TEST(an invalidated key is not read from the tier until its delete is confirmed) {
  tier->docs[key(14)] = make_doc("{\"old\":true}");
  self->send(shard, invalidate_atom::value, change_batch{{key(14), 3, 0}});
  sched.run(); // the writer holds the delete for a few milliseconds
  get(14);
  sched.run();
  CAF_CHECK_EQUAL(tier->reads, 0u); // shielded: straight to PostgreSQL
  CAF_CHECK_EQUAL(conn().queries, 1u);
  conn().complete_oldest();
  sched.run();
  CAF_REQUIRE_EQUAL(results.size(), 1u);
  CAF_CHECK_NOT_EQUAL(results[0].doc->body, "{\"old\":true}");
  // The delete commits (before the fill's record, in the same or an earlier
  // transaction) and is confirmed: the key is readable from the tier again.
  sched.trigger_timeouts();
  sched.run();
  bool deleted = false;
  for (auto& c : tier->calls)
    for (auto& k : c.deletes)
      deleted = deleted || k == key(14);
  CAF_CHECK(deleted);
  self->send(shard, invalidate_atom::value, change_batch{{key(14), 4, 0}}); // drop the memory copy too
  sched.run();
  sched.trigger_timeouts();
  sched.run();
  get(14);
  sched.run();
  CAF_CHECK_EQUAL(tier->reads, 1u);
}

CAF_TEST(a changed row goes to the writer and its kinds are not read from the tier until it is dropped there) {
  // Held by the tier only (evicted from memory, or from before a restart).
  tier->docs[key(15)] = make_doc("{\"old\":true}", {row_key("emp", {"1501"})});
  tier->docs[key(16)] = make_doc("{\"other\":true}", {row_key("emp", {"1601"})});
  self->send(shard, invalidate_atom::value,
             row_batch{{row_key("emp", {"1501"}), kind_bit(demo::deptemps_kind), 5, 0, 0}});
  sched.run(); // the writer holds the rows for a few milliseconds
  get(16);
  sched.run();
  CAF_CHECK_EQUAL(tier->reads, 0u); // the kind is shielded: straight to PostgreSQL
  CAF_CHECK_EQUAL(conn().queries, 1u);
  sched.trigger_timeouts();
  sched.run();
  bool sent = false;
  for (auto& c : tier->calls)
    sent = sent || c.changed_rows == std::vector<std::string>{row_key("emp", {"1501"})};
  CAF_CHECK(sent);
  // Dropped there: the kind is read from the tier again.
  conn().complete_oldest();
  sched.run();
  get(17);
  sched.run();
  CAF_CHECK_EQUAL(tier->reads, 1u);
}

CAF_TEST(lmdb mode keeps nothing in memory and reads the tier) {
  spawn_tiered(cache_mode::lmdb);
  fill(15);
  CAF_CHECK_EQUAL(cm.entries.load(), 0);
  CAF_CHECK_EQUAL(bm.queued.load(), 1);
  tier->docs[key(15)] = results[0].doc;
  get(15);
  sched.run();
  CAF_CHECK_EQUAL(conn().queries, 1u); // answered by the tier
  CAF_CHECK_EQUAL(cm.tier_hits.load(), 1u);
}

CAF_TEST_FIXTURE_SCOPE_END()

namespace {

/// The demo's kinds with limits on deptemps.
std::vector<doc_kind_entry> deptemps_with(std::chrono::seconds ttl, int64_t max_bytes) {
  auto kinds = demo::demo_kinds();
  for (auto& k : kinds)
    if (k.name == "deptemps") {
      k.ttl = ttl;
      k.max_bytes = max_bytes;
    }
  return kinds;
}

} // namespace

CAF_TEST_FIXTURE_SCOPE(cache_shard_limit_tests, tier_fixture)

CAF_TEST(a kind with a ttl is kept in memory for its ttl and never in the tier) {
  catalogue_guard kinds{deptemps_with(std::chrono::seconds{5}, 0)};
  spawn_tiered(cache_mode::tiered); // reads the limits of the catalogue
  tier->docs[key(12)] = make_doc("{\"old\":true}"); // a record from before the ttl: not read
  fill(12);
  CAF_REQUIRE_EQUAL(results.size(), 1u);
  CAF_CHECK(results[0].status == cache_status::stored);
  CAF_CHECK_EQUAL(tier->reads, 0u);
  CAF_CHECK_EQUAL(bm.queued.load(), 0); // not written to the tier
  sched.clock().advance_time(std::chrono::seconds{4});
  get(12);
  sched.run();
  CAF_REQUIRE_EQUAL(results.size(), 2u);
  CAF_CHECK(results[1].status == cache_status::memory);
  CAF_CHECK_EQUAL(conn().queries, 1u);
  sched.clock().advance_time(std::chrono::seconds{2}); // 6 s after the read
  get(12);
  sched.run();
  CAF_CHECK_EQUAL(conn().queries, 2u); // read again
  CAF_CHECK_EQUAL(cm.expired.load(), 1u);
  conn().complete_oldest();
  sched.run();
  CAF_REQUIRE_EQUAL(results.size(), 3u);
  CAF_CHECK(results[2].status == cache_status::stored);
  CAF_CHECK_EQUAL(tier->reads, 0u);
  // Another kind is kept as before, in both tiers.
  self->send(shard, get_atom::value, doc_key{demo::emp_kind, 7},
             reply_callback{[answers = answers](lookup_result r) { answers->push_back(std::move(r)); }});
  sched.run();
  CAF_CHECK_EQUAL(tier->reads, 1u);
}

CAF_TEST(a document above its kind size cap is answered and not kept) {
  catalogue_guard kinds{deptemps_with(std::chrono::seconds{0}, 16)};
  spawn_tiered(cache_mode::tiered);
  fill(14);
  CAF_REQUIRE_EQUAL(results.size(), 1u);
  CAF_REQUIRE(results[0].doc != nullptr);
  CAF_CHECK_GREATER(results[0].doc->body.size(), 16u);
  CAF_CHECK(results[0].status == cache_status::miss); // answered, not kept
  CAF_CHECK_EQUAL(cm.over_cap.load(), 1u);
  CAF_CHECK_EQUAL(cm.entries.load(), 0);
  CAF_CHECK_EQUAL(bm.queued.load(), 0);
  fill(14);
  CAF_CHECK_EQUAL(conn().queries, 2u); // every read goes to the database
}

CAF_TEST_FIXTURE_SCOPE_END()
