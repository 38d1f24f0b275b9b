// SPDX-License-Identifier: Apache-2.0
#define CAF_SUITE notify_listener
#include "actors/notify_listener.hpp"

#include "actors/batch_writer.hpp"
#include "actors/cache_shard.hpp"
#include "demo/demo_catalogue.hpp"
#include "messages/document_encoder.hpp"
#include "test/fixtures/cache_stack_fixture.hpp"

using namespace restcache;
using namespace restcache::test;

namespace {

constexpr size_t shard_count = 2;

/// Two tiered shards over fake connections, a real batch writer on a fake
/// tier, and the listener actor without a connection thread: the tests fill
/// its inbox as the thread would.
struct fixture : cache_stack_fixture {
  std::shared_ptr<std::vector<lookup_result>> answers =
    std::make_shared<std::vector<lookup_result>>();

  explicit fixture(size_t max_keys = 1'000)
    : cache_stack_fixture(cache_stack_options{shard_count, max_keys}) {
  }

  static doc_key key(int32_t id) {
    return doc_key{demo::deptemps_kind, id};
  }

  const cache_shard_actor& shard_of(int32_t id) {
    return shards[doc_key_hash{}(key(id)) % shards.size()];
  }

  int64_t entries() {
    int64_t n = 0;
    for (auto& cm : cms)
      n += cm.entries.load();
    return n;
  }

  /// Caches `id` in memory through a fill.
  void cache(int32_t id) {
    self->send(shard_of(id), get_atom::value, key(id),
               reply_callback{[a = answers](lookup_result r) { a->push_back(std::move(r)); }});
    sched.run();
    conn().complete_oldest(2);
    sched.run();
  }

  /// The session is up and caught up: bypass off.
  void connect(uint64_t session = 1, uint64_t xmin = 100) {
    self->send(listener, listen_up_atom::value, session, uint64_t{0});
    sched.run();
    inbox->add_mark({xmin, session, {}});
    sched.run();
  }

  bool tier_deleted(int32_t id) {
    for (auto& c : tier->calls)
      for (auto& k : c.deletes)
        if (k == key(id))
          return true;
    return false;
  }

  std::optional<uint64_t> last_stored_watermark() {
    std::optional<uint64_t> w;
    for (auto& c : tier->calls)
      if (c.watermark)
        w = c.watermark;
    return w;
  }
};

struct small_inbox_fixture : fixture {
  small_inbox_fixture() : fixture(10) {
  }
};

} // namespace

CAF_TEST_FIXTURE_SCOPE(notify_listener_tests, fixture)

CAF_TEST(gets bypass the tiers until a mark of the live session is applied) {
  CAF_CHECK(bypass.load());
  CAF_CHECK_EQUAL(lm.caught_up.load(), 0);
  // A mark of a session that is not (or no longer) live does not count.
  inbox->add_mark({50, 7, {}});
  sched.run();
  CAF_CHECK(bypass.load());
  CAF_CHECK_EQUAL(lm.watermark.load(), 50u); // still a valid watermark
  connect(1, 100);
  CAF_CHECK(!bypass.load());
  CAF_CHECK_EQUAL(lm.caught_up.load(), 1);
  CAF_CHECK_EQUAL(lm.watermark.load(), 100u);
  self->send(listener, listen_dn_atom::value);
  sched.run();
  CAF_CHECK(bypass.load());
  CAF_CHECK_EQUAL(lm.caught_up.load(), 0);
}

CAF_TEST(a notification invalidates memory and the LMDB tier) {
  connect();
  cache(5);
  CAF_REQUIRE_EQUAL(entries(), 1);
  inbox->add({key(5), 42, 0});
  sched.run();
  CAF_CHECK_EQUAL(entries(), 0);
  CAF_CHECK_EQUAL(lm.invalidations.load(), 2u); // the deptemps and the department-alone document
  // Applied once dropped from memory: the next round need not wait for LMDB.
  CAF_CHECK_EQUAL(lm.applied_seq.load(), 42u);
  // The delete waits a few milliseconds in the writer, then commits.
  CAF_CHECK(!tier_deleted(5));
  sched.trigger_timeouts();
  sched.run();
  CAF_CHECK(tier_deleted(5));
}

CAF_TEST(a later position with the same xmin moves the stored watermark and a replay starts there) {
  connect(1, 100);
  // A transaction left open (100) holds xmin; the snapshots move on.
  inbox->add_mark({100, 1, feed_position{100, 150, {100}}});
  sched.run();
  inbox->add_mark({100, 1, feed_position{100, 180, {100}}, log_witness{170, 9000, 1'700'000'000'000'000}});
  sched.run();
  sched.trigger_timeouts();
  sched.run();
  CAF_CHECK_EQUAL(lm.watermark.load(), 100u);
  CAF_REQUIRE(inbox->applied().has_value());
  CAF_CHECK(*inbox->applied() == (feed_position{100, 180, {100}}));
  std::string stored;
  for (auto& c : tier->calls)
    if (c.watermark)
      stored = c.position;
  CAF_CHECK_EQUAL(stored, "100:180:100");
  CAF_CHECK_EQUAL(tier->calls.back().witness, "170:9000:1700000000000000");
  CAF_CHECK(inbox->applied_witness() == (log_witness{170, 9000, 1'700'000'000'000'000}));
  // A mark without a position (a higher xmin): the old position is dropped,
  // the witness (an entry applied all the same) kept.
  inbox->add_mark({190, 1, {}});
  sched.run();
  CAF_CHECK(!inbox->applied().has_value());
  CAF_CHECK(inbox->applied_witness().has_value());
}

CAF_TEST(a new catalog fingerprint is stored after the drop it came with even when the snapshot did not move) {
  connect(1, 100);
  cache(5);
  // The writer commits on its timers: a clear, then what came after it.
  auto settle = [&] {
    for (int i = 0; i < 4; ++i) {
      sched.run();
      sched.trigger_timeouts();
    }
    sched.run();
  };
  auto stored_catalog = [&](const std::string& catalog) {
    for (size_t i = 0; i < tier->calls.size(); ++i)
      if (tier->calls[i].catalog == catalog)
        return i + 1;
    return size_t{0};
  };
  inbox->add_mark({100, 1, feed_position{100, 150, {}}, std::nullopt, "log=1/1;dept=a"});
  settle();
  CAF_CHECK_GREATER(stored_catalog("log=1/1;dept=a"), 0u);
  // Drift: a drop and the same snapshot with another fingerprint. The
  // fingerprint lands only once the clear has.
  auto calls = tier->calls.size();
  inbox->request_drop();
  inbox->add_mark({100, 1, feed_position{100, 150, {}}, std::nullopt, "log=1/1;dept=b"});
  settle();
  CAF_CHECK_EQUAL(entries(), 0);
  size_t cleared_at = 0;
  for (size_t i = calls; i < tier->calls.size() && cleared_at == 0; ++i)
    if (tier->calls[i].clear)
      cleared_at = i + 1;
  CAF_CHECK_GREATER(cleared_at, 0u);
  CAF_CHECK_GREATER(stored_catalog("log=1/1;dept=b"), cleared_at);
  CAF_CHECK_EQUAL(lm.watermark.load(), 100u);
}

CAF_TEST(the watermark is stored only with or after the deletes of the changes before its mark) {
  connect(1, 100);
  inbox->add({key(6), 43, 0});
  inbox->add_mark({120, 1, {}});
  sched.run();
  // In memory the mark is applied; the delete of key 6 has not committed,
  // and neither has the watermark.
  CAF_CHECK_EQUAL(lm.watermark.load(), 120u);
  CAF_CHECK(!tier_deleted(6));
  CAF_CHECK(last_stored_watermark().value_or(0) < 120u);
  sched.trigger_timeouts();
  sched.run();
  sched.trigger_timeouts();
  sched.run();
  // The writer commits the watermark in the delete's transaction or a later one.
  std::optional<size_t> deleted_at, stored_at;
  for (size_t i = 0; i < tier->calls.size(); ++i) {
    for (auto& k : tier->calls[i].deletes)
      if (k == key(6) && !deleted_at)
        deleted_at = i;
    if (tier->calls[i].watermark.value_or(0) >= 120u && !stored_at)
      stored_at = i;
  }
  CAF_REQUIRE(deleted_at && stored_at);
  CAF_CHECK_GREATER_OR_EQUAL(*stored_at, *deleted_at);
}

CAF_TEST(a delete waiting in the writer does not hold back the memory drops of later changes) {
  // The writer commits nothing until the timeouts fire (a large batch ahead
  // of the deletes, a slow disk): rounds after the first two still reach
  // memory at once.
  connect();
  for (int32_t id = 7; id <= 10; ++id)
    cache(id);
  CAF_REQUIRE_EQUAL(entries(), 4);
  for (int32_t id = 7; id <= 10; ++id) {
    inbox->add({key(id), uint64_t(50 + id), 0});
    sched.run();
  }
  CAF_CHECK_EQUAL(entries(), 0);
  CAF_CHECK(!tier_deleted(7));
  sched.trigger_timeouts();
  sched.run();
  for (int32_t id = 7; id <= 10; ++id)
    CAF_CHECK(tier_deleted(id));
}

CAF_TEST(many changes to a few keys are coalesced into one invalidation per key) {
  connect();
  for (int round = 0; round < 1'000; ++round)
    for (int32_t id = 1; id <= 10; ++id)
      inbox->add({key(id), uint64_t(round * 10 + id), 0});
  CAF_CHECK_EQUAL(inbox->pending(), 10u);
  CAF_CHECK_EQUAL(inbox->coalesced(), 9'990u);
  sched.run();
  CAF_CHECK_EQUAL(lm.invalidations.load(), 20u); // each department's two documents
  sched.trigger_timeouts();
  sched.run();
  CAF_CHECK_EQUAL(lm.applied_seq.load(), 10'000u);
}

CAF_TEST(the notification of a change a write applied directly is not applied again) {
  connect();
  // The write's own invalidation (write_pool_job), then a GET refills the key.
  auto confirmed = std::make_shared<uint64_t>(0);
  sys.spawn(
    [confirmed](caf::event_based_actor* client, notify_listener_actor target) {
      client->request(target, caf::infinite, invalidate_atom::value, change_batch{{key(21), 77, 0}})
        .then([confirmed](uint64_t s) { *confirmed = s; });
    },
    listener);
  sched.run();
  sched.trigger_timeouts(); // the writer's delete
  sched.run();
  CAF_REQUIRE_EQUAL(*confirmed, 77u);
  cache(21);
  CAF_REQUIRE_EQUAL(entries(), 1);
  // Its notification: exactly that change, already applied.
  inbox->add({key(21), 77, 0});
  sched.run();
  CAF_CHECK_EQUAL(entries(), 1);
  CAF_CHECK_EQUAL(lm.already_applied.load(), 2u); // the deptemps and the department-alone key
  // Another change to the key is applied.
  inbox->add({key(21), 78, 0});
  sched.run();
  CAF_CHECK_EQUAL(entries(), 0);
  // And a coalesced one even if its newest sequence was applied directly:
  // it may stand for a change of another transaction too.
  cache(22);
  sys.spawn(
    [](caf::event_based_actor* client, notify_listener_actor target) {
      client->request(target, caf::infinite, invalidate_atom::value, change_batch{{key(22), 90, 0}})
        .then([](uint64_t) {});
    },
    listener);
  sched.run();
  sched.trigger_timeouts();
  sched.run();
  cache(22);
  CAF_REQUIRE_EQUAL(entries(), 1);
  inbox->add({key(22), 89, 0});
  inbox->add({key(22), 90, 0});
  sched.run();
  CAF_CHECK_EQUAL(entries(), 0);
}

CAF_TEST(a drop request clears memory and the LMDB tier) {
  connect();
  cache(7);
  cache(8);
  CAF_REQUIRE_EQUAL(entries(), 2);
  tier->docs[key(9)] = make_doc("{\"old\":true}");
  inbox->request_drop();
  sched.run();
  CAF_CHECK_EQUAL(entries(), 0);
  sched.trigger_timeouts();
  sched.run();
  bool cleared = false;
  for (auto& c : tier->calls)
    cleared = cleared || c.clear;
  CAF_CHECK(cleared);
  CAF_CHECK(tier->docs.empty());
}

CAF_TEST(a drop of some kinds clears only their documents from memory and the LMDB tier) {
  connect();
  cache(7);
  cache(8);
  CAF_REQUIRE_EQUAL(entries(), 2);
  tier->docs[key(9)] = make_doc("{\"dept\":true}");
  tier->docs[doc_key{demo::emp_kind, 9}] = make_doc("{\"emp\":true}");
  inbox->request_drop_kinds(kind_bit(demo::emp_kind));
  sched.run();
  sched.trigger_timeouts();
  sched.run();
  CAF_CHECK_EQUAL(entries(), 2); // the deptemps documents stay
  CAF_CHECK(tier->docs.count(key(9)) == 1);
  CAF_CHECK(tier->docs.count(doc_key{demo::emp_kind, 9}) == 0);
  bool whole = false;
  uint64_t erased = 0;
  for (auto& c : tier->calls) {
    whole = whole || c.clear;
    erased |= c.erased_kinds;
  }
  CAF_CHECK(!whole);
  CAF_CHECK_EQUAL(erased, kind_bit(demo::emp_kind));
  // A drop of both tiers asked for in the same round covers it.
  inbox->request_drop_kinds(kind_bit(demo::deptemps_kind));
  inbox->request_drop();
  sched.run();
  sched.trigger_timeouts();
  sched.run();
  CAF_CHECK_EQUAL(entries(), 0);
  CAF_CHECK(tier->docs.empty());
  CAF_CHECK(tier->calls.back().clear);
}

CAF_TEST(another history clears both tiers stores its identity and restarts the watermark) {
  connect(1, 2182);
  cache(5);
  CAF_REQUIRE_EQUAL(entries(), 1);
  CAF_REQUIRE_EQUAL(lm.watermark.load(), 2182u);
  // An old mark still queued when the reconnect found another history.
  inbox->add_mark({2500, 1, {}});
  history_identity b{99, 16400, "other", 1};
  inbox->request_reset(b);
  self->send(listener, listen_up_atom::value, uint64_t{2}, uint64_t{0});
  sched.run();
  sched.trigger_timeouts();
  sched.run();
  CAF_CHECK_EQUAL(entries(), 0);
  CAF_CHECK_EQUAL(lm.watermark.load(), 0u); // the old history's marks are gone
  bool stored = false;
  for (auto& c : tier->calls)
    if (c.clear && c.history) {
      stored = *c.history == b && c.watermark == uint64_t{0};
    }
  CAF_CHECK(stored);
  // The new history's xids are low; its marks raise the watermark from 0.
  inbox->add_mark({727, 2, {}});
  sched.run();
  CAF_CHECK_EQUAL(lm.watermark.load(), 727u);
  CAF_CHECK(!bypass.load());
  sched.trigger_timeouts();
  sched.run();
  CAF_CHECK_EQUAL(last_stored_watermark().value_or(0), 727u);
}

CAF_TEST(no tier read while a clear is in flight) {
  connect();
  tier->docs[key(11)] = make_doc("{\"old\":true}");
  inbox->request_drop();
  sched.run(); // the shards forwarded the clear; the writer holds it a few ms
  self->send(shard_of(11), get_atom::value, key(11),
             reply_callback{[a = answers](lookup_result r) { a->push_back(std::move(r)); }});
  sched.run();
  CAF_CHECK_EQUAL(tier->reads, 0u);
  CAF_CHECK_EQUAL(conn().pending.size(), 1u); // to PostgreSQL instead
}

CAF_TEST(while bypassed a get goes to PostgreSQL and nothing is kept) {
  CAF_REQUIRE(bypass.load());
  tier->docs[key(12)] = make_doc("{\"old\":true}");
  cache(12);
  CAF_CHECK_EQUAL(entries(), 0);
  CAF_CHECK_EQUAL(tier->reads, 0u);
  CAF_CHECK_EQUAL(bm.queued.load(), 0);
  CAF_REQUIRE_EQUAL(answers->size(), 1u);
  CAF_CHECK_NOT_EQUAL(answers->at(0).doc->body, "{\"old\":true}");
  // The older LMDB copy is deleted, unread: a later stale-if-error answer
  // must not go back behind the newer one just given.
  sched.trigger_timeouts();
  sched.run();
  CAF_CHECK(tier_deleted(12));
  CAF_CHECK_EQUAL(tier->reads, 0u);
}

CAF_TEST_FIXTURE_SCOPE_END()

CAF_TEST_FIXTURE_SCOPE(notify_listener_storm_tests, small_inbox_fixture)

CAF_TEST(a storm beyond the inbox bound turns into one drop of both tiers) {
  connect();
  cache(3);
  for (int32_t id = 1; id <= 100'000; ++id)
    inbox->add({key(id), uint64_t(id), 0});
  CAF_CHECK_EQUAL(inbox->pending(), 0u); // replaced by the drop: memory stays bounded
  CAF_CHECK_EQUAL(inbox->overflows(), 1u);
  sched.run();
  CAF_CHECK_EQUAL(entries(), 0);
  sched.trigger_timeouts();
  sched.run();
  bool cleared = false;
  for (auto& c : tier->calls)
    cleared = cleared || c.clear;
  CAF_CHECK(cleared);
}

CAF_TEST_FIXTURE_SCOPE_END()
