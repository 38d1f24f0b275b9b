// SPDX-License-Identifier: Apache-2.0
#define CAF_SUITE memory_tier
#include "cache/memory_tier.hpp"

#include <caf/test/unit_test.hpp>

#include <string>

#include "demo/demo_catalogue.hpp"
#include "messages/doc_catalogue.hpp"
#include "test/fixtures/doc_keys.hpp"
#include "messages/document_encoder.hpp"
#include "messages/document_gzip.hpp"

using namespace restcache;
using namespace std::chrono_literals;

namespace {

const memory_tier::time_point t0{};

/// A document of `size` bytes; every one of a size costs the same.
doc_ptr doc_of(size_t size, char fill = 'x') {
  return make_doc(std::string(size, fill));
}

/// A JSON-like body that gzip shrinks (a run of one character would shrink
/// to almost nothing, which is fine too, but this is what documents look like).
doc_ptr compressible_doc(int n) {
  std::string body = "[";
  for (int i = 0; i < n; ++i)
    body += "{\"empNo\":" + std::to_string(7000 + i) + ",\"name\":\"SMITH\",\"job\":\"CLERK\"},";
  body.back() = ']';
  return make_doc(std::move(body));
}

struct fixture {
  memory_tier_gauges gauges;
  int64_t one = memory_tier::charge_of(*doc_of(100));

  /// A tier with room for `docs` documents of 100 bytes and `missing`
  /// missing keys of the given TTL.
  memory_tier tier_for(int docs, int missing = 0, std::chrono::seconds ttl = 60s) {
    return memory_tier{docs * one, missing_keys{missing * missing_keys::charge, ttl}, gauges};
  }

  bool gauges_match(const memory_tier& t) const {
    return gauges.entries.load() == static_cast<int64_t>(t.size())
           && gauges.negative_entries.load() == static_cast<int64_t>(t.missing_count())
           && gauges.bytes.load() == t.bytes();
  }
};

} // namespace

CAF_TEST_FIXTURE_SCOPE(memory_tier_tests, fixture)

CAF_TEST(the documents holding a row are found until they leave the tier however they leave) {
  auto with_rows = [](std::vector<std::string> rows) { return make_doc(std::string(100, 'x'), std::move(rows)); };
  auto t = memory_tier{3 * memory_tier::charge_of(*with_rows({"emp\x1f" "1", "emp\x1f" "2"})) + 64,
                       missing_keys{0, 60s}, gauges};
  CAF_CHECK(t.store(dept_key(10), with_rows({"emp\x1f" "1", "emp\x1f" "2"}), 1));
  CAF_CHECK(t.store(dept_key(20), with_rows({"emp\x1f" "2", "emp\x1f" "3"}), 1));
  CAF_CHECK_EQUAL(t.holding("emp\x1f" "2").size(), 2u);
  CAF_CHECK_EQUAL(t.holding("emp\x1f" "1"), (std::vector<doc_key>{dept_key(10)}));
  CAF_CHECK(t.holding("emp\x1f" "4").empty());
  CAF_CHECK_EQUAL(t.rows_known(), 3u);
  // Rows are charged: a document knowing rows costs more than one that does not.
  CAF_CHECK(memory_tier::charge_of(*with_rows({"emp\x1f" "1"})) > memory_tier::charge_of(*doc_of(100)));
  // Replaced: the new document's rows only.
  CAF_CHECK(t.store(dept_key(10), with_rows({"emp\x1f" "4"}), 2));
  CAF_CHECK(t.holding("emp\x1f" "1").empty());
  CAF_CHECK_EQUAL(t.holding("emp\x1f" "4"), (std::vector<doc_key>{dept_key(10)}));
  // Dropped, evicted, cleared.
  t.forget(dept_key(20));
  CAF_CHECK(t.holding("emp\x1f" "3").empty());
  CAF_CHECK_EQUAL(t.holding("emp\x1f" "2"), (std::vector<doc_key>{}));
  for (int32_t id = 30; id <= 60; id += 10)
    t.store(dept_key(id), with_rows({"emp\x1f" + std::to_string(id)}), 3);
  CAF_CHECK(t.holding("emp\x1f" "4").empty()); // the oldest, evicted
  CAF_CHECK_EQUAL(t.rows_known(), t.size());
  t.clear();
  CAF_CHECK_EQUAL(t.rows_known(), 0u);
}

CAF_TEST(the hand evicts the first entry not hit since it last passed) {
  auto t = tier_for(3);
  for (int32_t id = 1; id <= 3; ++id)
    CAF_REQUIRE(t.store(dept_key(id), doc_of(100), 0));
  CAF_REQUIRE(t.hit(dept_key(1)) != nullptr); // a second chance for 1
  t.store(dept_key(4), doc_of(100), 0);
  // The hand passes 1 (clearing its bit) and evicts 2, the oldest unused.
  CAF_CHECK(t.contains(dept_key(1)));
  CAF_CHECK(!t.contains(dept_key(2)));
  CAF_CHECK(t.contains(dept_key(3)));
  CAF_CHECK(t.contains(dept_key(4)));
  CAF_CHECK_EQUAL(gauges.evictions.load(), 1u);
  // The hand goes on from where it stopped: 3, then 4, then 1, whose bit it
  // cleared on the way and which was not hit since.
  t.store(dept_key(5), doc_of(100), 0);
  CAF_CHECK(!t.contains(dept_key(3)));
  t.store(dept_key(6), doc_of(100), 0);
  CAF_CHECK(!t.contains(dept_key(4)));
  t.store(dept_key(7), doc_of(100), 0);
  CAF_CHECK(!t.contains(dept_key(1)));
  CAF_CHECK(t.contains(dept_key(5)));
  CAF_CHECK(t.contains(dept_key(6)));
  CAF_CHECK(t.contains(dept_key(7)));
  CAF_CHECK_EQUAL(t.size(), 3u);
  CAF_CHECK_EQUAL(gauges.evictions.load(), 4u);
  CAF_CHECK(gauges_match(t));
}

CAF_TEST(when every entry was hit the hand clears them all and the new entry goes first) {
  // The hot set wins over a document nobody asked for a second time yet.
  auto t = tier_for(3);
  for (int32_t id = 1; id <= 3; ++id)
    t.store(dept_key(id), doc_of(100), 0);
  for (int32_t id = 1; id <= 3; ++id)
    t.hit(dept_key(id));
  t.store(dept_key(4), doc_of(100), 0);
  CAF_CHECK(!t.contains(dept_key(4)));
  for (int32_t id = 1; id <= 3; ++id)
    CAF_CHECK(t.contains(dept_key(id)));
  // Their bits are spent now: the next store evicts the oldest of them.
  t.store(dept_key(5), doc_of(100), 0);
  CAF_CHECK(!t.contains(dept_key(1)));
  CAF_CHECK(t.contains(dept_key(5)));
}

CAF_TEST(the bytes held never pass the budget and the gauges follow them) {
  auto t = tier_for(10);
  for (int32_t id = 1; id <= 200; ++id) {
    t.store(dept_key(id), doc_of(static_cast<size_t>(50 + id % 120)), 0);
    if (id % 3 == 0)
      t.hit(dept_key(id - 1));
    CAF_REQUIRE_LESS_OR_EQUAL(t.bytes(), t.budget());
  }
  CAF_CHECK_GREATER(gauges.evictions.load(), 150u);
  CAF_CHECK(gauges_match(t));
  int64_t sum = 0;
  for (int32_t id = 1; id <= 200; ++id)
    if (auto* e = t.peek(dept_key(id)))
      sum += e->charge;
  CAF_CHECK_EQUAL(sum, t.bytes());
}

CAF_TEST(a long text key counts its bytes in the budget) {
  auto t = tier_for(3);
  auto key = doc_key::of_bytes(doc_kind{9}, std::string(100, 'k'));
  CAF_REQUIRE(t.store(key, doc_of(100), 0));
  CAF_CHECK_EQUAL(t.bytes(), one + 100);
  CAF_REQUIRE(t.store(dept_key(1), doc_of(100), 0));
  CAF_CHECK_EQUAL(t.bytes(), 2 * one + 100);
  CAF_REQUIRE(t.store(dept_key(2), doc_of(100), 0)); // past the budget by the key's bytes
  CAF_CHECK_EQUAL(t.size(), 2u);
  CAF_CHECK(t.peek(key) == nullptr); // the oldest went
  CAF_CHECK_EQUAL(t.bytes(), 2 * one);
  CAF_CHECK(gauges_match(t));
}

CAF_TEST(a document larger than the whole budget is not kept and evicts nothing) {
  auto t = tier_for(2);
  t.store(dept_key(1), doc_of(100), 0);
  CAF_CHECK(!t.store(dept_key(2), doc_of(1000), 0));
  CAF_CHECK(!t.contains(dept_key(2)));
  CAF_CHECK(t.contains(dept_key(1)));
  CAF_CHECK_EQUAL(gauges.evictions.load(), 0u);
}

CAF_TEST(storing a key again replaces its entry and its old clock slot is skipped) {
  auto t = tier_for(2);
  t.store(dept_key(1), doc_of(100, 'a'), 1);
  t.store(dept_key(2), doc_of(100), 1);
  t.store(dept_key(1), doc_of(100, 'b'), 7); // the old slot of 1 is now stale
  CAF_CHECK_EQUAL(t.size(), 2u);
  CAF_CHECK_EQUAL(t.bytes(), 2 * one);
  CAF_CHECK_EQUAL(t.peek(dept_key(1))->seq, 7u);
  CAF_CHECK_EQUAL(t.peek(dept_key(1))->doc->body, std::string(100, 'b'));
  // The hand skips the stale slot and evicts 2, then the new 1 in turn.
  t.store(dept_key(3), doc_of(100), 1);
  CAF_CHECK(!t.contains(dept_key(2)));
  CAF_CHECK(t.contains(dept_key(1)));
  CAF_CHECK(t.contains(dept_key(3)));
}

CAF_TEST(dropped entries leave stale slots that are compacted away) {
  auto t = tier_for(100'000);
  for (int round = 0; round < 5; ++round)
    for (int32_t id = 1; id <= 2000; ++id) {
      t.store(dept_key(id), doc_of(100), 0);
      t.drop(dept_key(id));
    }
  CAF_CHECK_EQUAL(t.size(), 0u);
  CAF_CHECK_EQUAL(t.bytes(), 0);
  CAF_CHECK_LESS_OR_EQUAL(t.clock_slots(), 1025u);
  CAF_CHECK(gauges_match(t));
}

CAF_TEST(a gzip variant is made once and charged to the budget) {
  memory_tier t{1 << 20, missing_keys{}, gauges};
  auto d = compressible_doc(40);
  CAF_REQUIRE_GREATER_OR_EQUAL(d->body.size(), gzip_min_bytes);
  t.store(dept_key(1), d, 0);
  auto plain = t.bytes();
  auto* e = t.hit(dept_key(1));
  CAF_REQUIRE(e != nullptr);
  t.keep_gzip(*e);
  CAF_REQUIRE(d->gzip() != nullptr);
  CAF_CHECK_GREATER(t.bytes(), plain);
  CAF_CHECK_EQUAL(t.peek(dept_key(1))->charge, t.bytes());
  auto with_gzip = t.bytes();
  t.keep_gzip(*t.hit(dept_key(1))); // made already: nothing more
  CAF_CHECK_EQUAL(t.bytes(), with_gzip);
  CAF_CHECK(gauges_match(t));
  t.drop(dept_key(1));
  CAF_CHECK_EQUAL(t.bytes(), 0);
  CAF_CHECK_EQUAL(gauges.bytes.load(), 0);
}

CAF_TEST(a small document gets no gzip variant) {
  memory_tier t{1 << 20, missing_keys{}, gauges};
  t.store(dept_key(1), doc_of(gzip_min_bytes - 1), 0);
  auto before = t.bytes();
  t.keep_gzip(*t.hit(dept_key(1)));
  CAF_CHECK(t.peek(dept_key(1))->doc->gzip() == nullptr);
  CAF_CHECK_EQUAL(t.bytes(), before);
}

CAF_TEST(a gzip variant that passes the budget evicts other entries) {
  auto d = compressible_doc(40);
  auto charge = memory_tier::charge_of(*d);
  memory_tier t{2 * charge, missing_keys{}, gauges};
  t.store(dept_key(1), d, 0);
  t.store(dept_key(2), compressible_doc(40), 0);
  t.keep_gzip(*t.hit(dept_key(1)));
  CAF_CHECK(t.contains(dept_key(1))); // its bit was set by the hit
  CAF_CHECK(!t.contains(dept_key(2)));
  CAF_CHECK_LESS_OR_EQUAL(t.bytes(), t.budget());
}

CAF_TEST(missing keys share the budget and expire after their ttl) {
  auto t = tier_for(2, 4, 5s);
  t.store(dept_key(1), doc_of(100), 0);
  CAF_CHECK(t.remember_missing(dept_key(9), t0));
  CAF_CHECK_EQUAL(t.bytes(), one + missing_keys::charge);
  CAF_CHECK(t.known_missing(dept_key(9), t0 + 4s));
  CAF_CHECK(!t.known_missing(dept_key(8), t0 + 4s));
  CAF_CHECK(gauges_match(t));
  CAF_CHECK(!t.known_missing(dept_key(9), t0 + 5s)); // expired: forgotten
  CAF_CHECK_EQUAL(t.missing_count(), 0u);
  CAF_CHECK_EQUAL(t.bytes(), one);
  CAF_CHECK(gauges_match(t));
}

CAF_TEST(missing keys are capped apart from the documents and may evict them) {
  // Room for one document and a missing key, so the second missing key
  // pushes the document out; the third passes the cap of two.
  memory_tier t{one + missing_keys::charge, missing_keys{2 * missing_keys::charge, 60s}, gauges};
  t.store(dept_key(1), doc_of(100), 0);
  t.remember_missing(dept_key(7), t0);
  CAF_CHECK(t.contains(dept_key(1)));
  t.remember_missing(dept_key(8), t0 + 1s);
  CAF_CHECK(!t.contains(dept_key(1)));
  t.remember_missing(dept_key(9), t0 + 2s);
  CAF_CHECK_EQUAL(t.missing_count(), 2u);
  CAF_CHECK(!t.known_missing(dept_key(7), t0 + 3s)); // the oldest went
  CAF_CHECK(t.known_missing(dept_key(9), t0 + 3s));
  CAF_CHECK(gauges_match(t));
}

CAF_TEST(a key is either a document or missing never both) {
  auto t = tier_for(4, 4);
  t.store(dept_key(1), doc_of(100), 0);
  t.remember_missing(dept_key(1), t0); // deleted since
  CAF_CHECK(!t.contains(dept_key(1)));
  CAF_CHECK(t.known_missing(dept_key(1), t0));
  t.store(dept_key(1), doc_of(100), 0); // created again
  CAF_CHECK(t.contains(dept_key(1)));
  CAF_CHECK(!t.known_missing(dept_key(1), t0));
  CAF_CHECK_EQUAL(t.bytes(), one);
  CAF_CHECK(gauges_match(t));
}

CAF_TEST(none are kept without a cap or a ttl) {
  auto no_cap = tier_for(2, 0);
  CAF_CHECK(!no_cap.remember_missing(dept_key(1), t0));
  auto no_ttl = tier_for(2, 4, 0s);
  CAF_CHECK(!no_ttl.remember_missing(dept_key(1), t0));
  CAF_CHECK(!no_ttl.known_missing(dept_key(1), t0));
  CAF_CHECK_EQUAL(gauges.negative_entries.load(), 0);
}

CAF_TEST(a change forgets the document and the missing mark of its key only) {
  auto t = tier_for(4, 4);
  t.store(dept_key(1), doc_of(100), 0);
  t.store(dept_key(2), doc_of(100), 0);
  t.remember_missing(dept_key(3), t0);
  t.forget(dept_key(1));
  t.forget(dept_key(3));
  CAF_CHECK(!t.contains(dept_key(1)));
  CAF_CHECK(t.contains(dept_key(2)));
  CAF_CHECK(!t.known_missing(dept_key(3), t0));
  CAF_CHECK_EQUAL(t.bytes(), one);
  CAF_CHECK(gauges_match(t));
}

CAF_TEST(dropping kinds keeps the other kinds) {
  auto t = tier_for(8, 4);
  t.store(dept_key(1), doc_of(100), 0);
  t.store(emp_key(1), doc_of(100), 0);
  t.store(emp_key(2), doc_of(100), 0);
  t.remember_missing(dept_key(5), t0);
  t.remember_missing(emp_key(5), t0);
  t.drop_kinds(kind_bit(demo::emp_kind));
  CAF_CHECK(t.contains(dept_key(1)));
  CAF_CHECK(!t.contains(emp_key(1)));
  CAF_CHECK(!t.contains(emp_key(2)));
  CAF_CHECK(t.known_missing(dept_key(5), t0));
  CAF_CHECK(!t.known_missing(emp_key(5), t0));
  CAF_CHECK_EQUAL(t.bytes(), one + missing_keys::charge);
  CAF_CHECK(gauges_match(t));
}

CAF_TEST(clear drops everything and brings the gauges to zero) {
  auto t = tier_for(8, 4);
  t.store(dept_key(1), doc_of(100), 0);
  t.store(emp_key(1), doc_of(100), 0);
  t.remember_missing(dept_key(5), t0);
  t.clear();
  CAF_CHECK_EQUAL(t.size(), 0u);
  CAF_CHECK_EQUAL(t.missing_count(), 0u);
  CAF_CHECK_EQUAL(t.bytes(), 0);
  CAF_CHECK_EQUAL(t.clock_slots(), 0u);
  CAF_CHECK_EQUAL(gauges.entries.load(), 0);
  CAF_CHECK_EQUAL(gauges.negative_entries.load(), 0);
  CAF_CHECK_EQUAL(gauges.bytes.load(), 0);
  // It keeps working after a clear.
  t.store(dept_key(2), doc_of(100), 0);
  CAF_CHECK(t.hit(dept_key(2)) != nullptr);
  CAF_CHECK(gauges_match(t));
}

CAF_TEST_FIXTURE_SCOPE_END()
