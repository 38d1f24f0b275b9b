// SPDX-License-Identifier: Apache-2.0
#define CAF_SUITE cache_answers
#include "actors/cache_shard.hpp"

#include "actors/batch_writer.hpp"
#include "demo/demo_catalogue.hpp"
#include "messages/document_encoder.hpp"
#include "test/fixtures/fake_pool_fixture.hpp"

// How a shard marks its answers (Cache-Status), a client's no-cache, the
// "does not exist" entries, and stale-if-error: each decided by the shard
// alone, so each is checked here on the deterministic scheduler.

using namespace restcache;
using namespace restcache::test;
using namespace std::chrono_literals;

namespace {

struct fixture : fake_pool_fixture {
  cache_metrics cm;
  listener_status status;
  cache_shard_actor shard;
  std::shared_ptr<std::vector<lookup_result>> answers = std::make_shared<std::vector<lookup_result>>();
  std::vector<lookup_result>& results = *answers;

  static cache_shard_config config() {
    cache_shard_config cfg{cache_mode::memory, 1 << 20, 10s};
    cfg.stale_if_error = 300s;
    cfg.negative_ttl = 60s;
    cfg.negative_bytes = 3 * missing_keys::charge;
    return cfg;
  }

  fixture() {
    status.set_caught_up(true, now_us());
    spawn_pool(1, 10'000);
    respawn(config());
  }

  ~fixture() {
    anon_send_exit(shard, caf::exit_reason::user_shutdown);
  }

  void respawn(cache_shard_config cfg) {
    if (shard)
      anon_send_exit(shard, caf::exit_reason::user_shutdown);
    cfg.listener = &status;
    shard = sys.spawn(cache_shard, cfg, pool, &cm);
    sched.run();
  }

  static doc_key key(int32_t id) {
    return doc_key{demo::deptemps_kind, id};
  }

  reply_callback keep() {
    return reply_callback{[answers = answers](lookup_result r) { answers->push_back(std::move(r)); }};
  }
  void get(int32_t id) { self->send(shard, get_atom::value, key(id), keep()); }
  void refill(int32_t id) { self->send(shard, refill_atom::value, key(id), keep()); }
  /// Asks for `id` and completes the fill it starts.
  void fill(int32_t id) {
    get(id);
    sched.run();
    conn().complete_oldest();
    sched.run();
  }
  /// Completes every query, also those waiting for the pool's connection.
  void complete_pending() {
    sched.run();
    while (!conn().pending.empty()) {
      conn().complete_oldest();
      sched.run();
    }
  }
  void missing(int32_t id) {
    get(id);
    sched.run();
    conn().fail_oldest(rc_error::not_found);
    sched.run();
  }
  void invalidate(int32_t id, uint64_t seq) {
    self->send(shard, invalidate_atom::value, change_batch{{key(id), seq, 0}});
    sched.run();
  }
  uint64_t answered(cache_status s) const { return cm.answers[static_cast<size_t>(s)].load(); }
  /// The listener lost the database `ago` before now.
  void lose_listener(std::chrono::seconds ago = 0s) {
    status.set_caught_up(false, now_us() - ago.count() * 1'000'000);
  }
};

} // namespace

CAF_TEST_FIXTURE_SCOPE(cache_answers_tests, fixture)

CAF_TEST(each answer says where it came from) {
  get(1);
  get(1);
  sched.run();
  conn().complete_oldest();
  sched.run();
  get(1);
  sched.run();
  CAF_REQUIRE_EQUAL(results.size(), 3u);
  CAF_CHECK(results[0].status == cache_status::stored);
  CAF_CHECK(results[1].status == cache_status::collapsed);
  CAF_CHECK(results[2].status == cache_status::memory);
  CAF_CHECK_EQUAL(answered(cache_status::stored), 1u);
  CAF_CHECK_EQUAL(answered(cache_status::collapsed), 1u);
  CAF_CHECK_EQUAL(cm.hits.load(), 1u); // memory answers are the hits counter
  CAF_CHECK_EQUAL(cache_status_field(results[2].status), "restcache; hit; detail=memory");
  CAF_CHECK_EQUAL(cache_status_field(results[0].status), "restcache; fwd=uri-miss; stored");
}

CAF_TEST(a fill overtaken by a change is marked as not stored) {
  get(2);
  sched.run();
  invalidate(2, 5);
  conn().complete_oldest();
  sched.run();
  CAF_REQUIRE_EQUAL(results.size(), 1u);
  CAF_CHECK(results[0].doc != nullptr);
  CAF_CHECK(results[0].status == cache_status::miss);
  CAF_CHECK_EQUAL(cache_status_field(results[0].status), "restcache; fwd=uri-miss");
}

CAF_TEST(no-cache runs a fill for a cached key and keeps its answer) {
  fill(3);
  auto first = results[0].doc;
  refill(3);
  sched.run();
  CAF_CHECK_EQUAL(conn().queries, 2u); // not answered from memory
  conn().complete_oldest(4);
  sched.run();
  CAF_REQUIRE_EQUAL(results.size(), 2u);
  CAF_CHECK(results[1].status == cache_status::refresh);
  CAF_CHECK_NOT_EQUAL(results[1].doc->body, first->body);
  get(3);
  sched.run();
  CAF_REQUIRE_EQUAL(results.size(), 3u);
  CAF_CHECK(results[2].status == cache_status::memory);
  CAF_CHECK_EQUAL(results[2].doc, results[1].doc); // the refreshed document replaced the old one
}

CAF_TEST(no-cache reaches the database once per key per refresh interval) {
  // The default cache.refresh-interval-ms (1 s): a storm of refreshes of one
  // key, and of many keys, costs one query per key per interval.
  fill(5);
  for (int i = 0; i < 50; ++i) {
    refill(5);
    complete_pending();
  }
  CAF_CHECK_EQUAL(conn().queries, 2u); // the fill, then one refresh; the rest from memory
  CAF_CHECK_EQUAL(answered(cache_status::refresh), 1u);
  CAF_CHECK_EQUAL(cm.hits.load(), 49u); // memory answers are the hits counter
  sched.clock().advance_time(1001ms);
  refill(5);
  complete_pending();
  CAF_CHECK_EQUAL(conn().queries, 3u); // a new interval: one more
  for (int32_t id = 100; id < 110; ++id)
    for (int i = 0; i < 5; ++i)
      refill(id);
  complete_pending();
  CAF_CHECK_EQUAL(conn().queries, 13u); // one per new key; the others joined its fill
  // A bound on the keys remembered in one interval bounds a storm of random ids.
  auto cfg = config();
  cfg.max_refreshed_keys = 3;
  respawn(cfg);
  auto before = conn().queries;
  for (int32_t id = 200; id < 210; ++id)
    fill(id);
  for (int32_t id = 200; id < 210; ++id)
    refill(id);
  complete_pending();
  CAF_CHECK_EQUAL(conn().queries - before, 13u); // ten fills, then three refreshes
}

CAF_TEST(no-cache joins a fill in flight instead of starting another) {
  get(4);
  sched.run();
  refill(4);
  sched.run();
  CAF_CHECK_EQUAL(conn().queries, 1u);
  conn().complete_oldest();
  sched.run();
  CAF_REQUIRE_EQUAL(results.size(), 2u);
  CAF_CHECK(results[1].status == cache_status::collapsed);
  CAF_CHECK_EQUAL(results[0].doc, results[1].doc);
}

CAF_TEST(two gets of a missing id run one query and the second says negative) {
  missing(7);
  get(7);
  sched.run();
  CAF_CHECK_EQUAL(conn().queries, 1u);
  CAF_REQUIRE_EQUAL(results.size(), 2u);
  CAF_CHECK_EQUAL(results[0].error, rc_error::not_found);
  CAF_CHECK(results[0].status == cache_status::stored);
  CAF_CHECK_EQUAL(results[1].error, rc_error::not_found);
  CAF_CHECK(results[1].status == cache_status::negative);
  CAF_CHECK_EQUAL(answered(cache_status::negative), 1u);
  CAF_CHECK_EQUAL(cm.negative_entries.load(), 1);
  CAF_CHECK_EQUAL(cm.bytes.load(), missing_keys::charge); // in the budget
}

CAF_TEST(the change that creates a missing id drops what was remembered) {
  missing(8);
  invalidate(8, 9); // the INSERT's notification
  CAF_CHECK_EQUAL(cm.negative_entries.load(), 0);
  fill(8);
  CAF_CHECK_EQUAL(conn().queries, 2u);
  CAF_REQUIRE_EQUAL(results.size(), 2u);
  CAF_CHECK(results[1].doc != nullptr);
}

CAF_TEST(a missing id is forgotten after the negative ttl) {
  missing(9);
  sched.clock().advance_time(59s);
  get(9);
  sched.run();
  CAF_CHECK_EQUAL(conn().queries, 1u);
  sched.clock().advance_time(2s);
  get(9);
  sched.run();
  CAF_CHECK_EQUAL(conn().queries, 2u);
  CAF_CHECK_EQUAL(cm.negative_entries.load(), 0);
}

CAF_TEST(missing ids stay within their share and do not evict documents) {
  fill(1);
  for (int32_t id = 100; id < 110; ++id)
    missing(id);
  CAF_CHECK_EQUAL(cm.negative_entries.load(), 3); // the cap: three entries
  CAF_CHECK_EQUAL(cm.entries.load(), 1);
  CAF_CHECK_EQUAL(cm.evictions.load(), 0u);
  auto queries = conn().queries;
  get(109); // the newest are kept
  get(100); // the oldest went first
  sched.run();
  CAF_CHECK_EQUAL(conn().queries, queries + 1);
}

CAF_TEST(a fill overtaken by a change does not remember the id as missing) {
  get(10);
  sched.run();
  invalidate(10, 3);
  conn().fail_oldest(rc_error::not_found);
  sched.run();
  CAF_CHECK_EQUAL(cm.negative_entries.load(), 0);
}

CAF_TEST(with the database unreachable a document cached before the loss is answered stale) {
  fill(11);
  auto cached = results[0].doc;
  lose_listener(3s);
  get(11); // bypassed: to PostgreSQL, which fails
  get(12); // never cached
  sched.run();
  fail_every_read(rc_error::db_unavailable);
  CAF_REQUIRE_EQUAL(results.size(), 3u);
  CAF_CHECK_EQUAL(results[1].error, rc_error::none);
  CAF_CHECK_EQUAL(results[1].doc, cached);
  CAF_CHECK(results[1].status == cache_status::stale_if_error);
  CAF_CHECK_EQUAL(results[1].age_s, 3u);
  CAF_CHECK_EQUAL(results[2].error, rc_error::db_unavailable);
  CAF_CHECK(results[2].status == cache_status::none);
  CAF_CHECK_EQUAL(answered(cache_status::stale_if_error), 1u);
  CAF_CHECK_NOT_EQUAL(status.stale_since_us.load(), 0);
  status.set_caught_up(true, now_us()); // back: fresh as before, nothing stale
  CAF_CHECK_EQUAL(status.stale_since_us.load(), 0);
  get(11);
  sched.run();
  CAF_CHECK(results.back().status == cache_status::memory);
}

CAF_TEST(a timed out fill is answered stale and an overloaded one is not) {
  fill(13);
  lose_listener();
  get(13);
  sched.run();
  sched.clock().advance_time(10s); // cache.fill-timeout
  sched.run();
  CAF_REQUIRE_EQUAL(results.size(), 2u);
  CAF_CHECK(results[1].status == cache_status::stale_if_error);
  conn().fail_oldest(rc_error::db_timeout); // the late answer changes nothing
  sched.run();
  get(13);
  sched.run();
  conn().fail_oldest(rc_error::overloaded);
  sched.run();
  CAF_REQUIRE_EQUAL(results.size(), 3u);
  CAF_CHECK_EQUAL(results[2].error, rc_error::overloaded);
}

CAF_TEST(nothing is answered stale past the window or before a first catch up) {
  fill(14);
  lose_listener(301s);
  get(14);
  sched.run();
  fail_every_read(rc_error::db_unavailable);
  CAF_REQUIRE_EQUAL(results.size(), 2u);
  CAF_CHECK_EQUAL(results[1].error, rc_error::db_unavailable);
  // A daemon that never caught up has checked nothing it holds.
  listener_status never;
  CAF_CHECK(!never.stale_age(now_us(), 300s));
  CAF_CHECK(!status.stale_age(now_us(), 0s)); // cache.stale-if-error=0: off
}

CAF_TEST(a newer document read while cut off keeps the older copy from answering stale) {
  fill(15);
  lose_listener();
  get(15);
  sched.run();
  conn().complete_oldest(5); // the database answered: another version
  sched.run();
  CAF_REQUIRE_EQUAL(results.size(), 2u);
  CAF_CHECK(results[1].status == cache_status::bypass);
  CAF_CHECK_NOT_EQUAL(results[1].doc->body, results[0].doc->body);
  CAF_CHECK_EQUAL(cm.entries.load(), 0); // the old copy is gone
  get(15);
  sched.run();
  fail_every_read(rc_error::db_unavailable);
  CAF_REQUIRE_EQUAL(results.size(), 3u);
  CAF_CHECK_EQUAL(results[2].error, rc_error::db_unavailable);
}

CAF_TEST_FIXTURE_SCOPE_END()

namespace {

/// A shard in front of a second tier that holds a document memory does not.
struct tier_fixture : fixture {
  std::shared_ptr<fake_tier> tier = std::make_shared<fake_tier>();
  batch_metrics bm;
  batch_writer_actor writer;

  tier_fixture() {
    writer = sys.spawn(batch_writer, batch_writer_config{}, tier, &bm);
    auto cfg = config();
    cfg.mode = cache_mode::tiered;
    cfg.tier = tier;
    cfg.writer = writer;
    respawn(cfg);
  }
  ~tier_fixture() {
    anon_send_exit(writer, caf::exit_reason::user_shutdown);
  }
};

} // namespace

CAF_TEST_FIXTURE_SCOPE(cache_answers_tier_tests, tier_fixture)

CAF_TEST(an lmdb hit is marked lmdb and answers stale when the database is gone) {
  auto doc = make_doc("{\"deptNumber\":21}");
  tier->docs[key(21)] = doc;
  get(21);
  sched.run();
  CAF_REQUIRE_EQUAL(results.size(), 1u);
  CAF_CHECK(results[0].status == cache_status::lmdb);
  tier->docs[key(22)] = make_doc("{\"deptNumber\":22}");
  lose_listener();
  get(22);
  sched.run();
  fail_every_read(rc_error::db_unavailable);
  CAF_REQUIRE_EQUAL(results.size(), 2u);
  CAF_CHECK(results[1].status == cache_status::stale_if_error);
  CAF_CHECK_EQUAL(results[1].doc, tier->docs[key(22)]);
}

CAF_TEST_FIXTURE_SCOPE_END()
