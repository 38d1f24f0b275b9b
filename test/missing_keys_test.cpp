// SPDX-License-Identifier: Apache-2.0
#define CAF_SUITE missing_keys
#include "cache/missing_keys.hpp"

#include <caf/test/unit_test.hpp>

#include "demo/demo_catalogue.hpp"
#include "messages/doc_catalogue.hpp"
#include "test/fixtures/doc_keys.hpp"

using namespace restcache;
using namespace std::chrono_literals;

namespace {

const missing_keys::time_point t0{};

} // namespace

CAF_TEST(a key is remembered until its ttl and forgotten once it expired) {
  missing_keys m{10 * missing_keys::charge, 5s};
  CAF_REQUIRE(m.remember(dept_key(1), t0));
  CAF_CHECK(m.contains(dept_key(1), t0 + 4s));
  CAF_CHECK(!m.contains(dept_key(2), t0));
  CAF_CHECK_EQUAL(m.bytes(), missing_keys::charge);
  CAF_CHECK(!m.contains(dept_key(1), t0 + 5s));
  CAF_CHECK(m.empty()); // the expired entry went with the lookup
  CAF_CHECK_EQUAL(m.bytes(), 0);
}

CAF_TEST(past the cap the oldest go first and remembering again makes a key the newest) {
  missing_keys m{3 * missing_keys::charge, 60s};
  for (int32_t id = 1; id <= 3; ++id)
    m.remember(dept_key(id), t0 + std::chrono::seconds{id});
  m.remember(dept_key(1), t0 + 4s); // again: newest now, with a new ttl
  m.remember(dept_key(4), t0 + 5s);
  CAF_CHECK_EQUAL(m.size(), 3u);
  CAF_CHECK(!m.contains(dept_key(2), t0 + 5s)); // the oldest
  CAF_CHECK(m.contains(dept_key(1), t0 + 5s));
  CAF_CHECK(m.contains(dept_key(3), t0 + 5s));
  CAF_CHECK(m.contains(dept_key(4), t0 + 5s));
  CAF_CHECK(m.contains(dept_key(1), t0 + 63s)); // its second ttl
  CAF_CHECK(!m.contains(dept_key(3), t0 + 63s));
}

CAF_TEST(expired entries are trimmed when another is remembered) {
  missing_keys m{10 * missing_keys::charge, 5s};
  for (int32_t id = 1; id <= 4; ++id)
    m.remember(dept_key(id), t0);
  m.remember(dept_key(9), t0 + 6s);
  CAF_CHECK_EQUAL(m.size(), 1u);
  CAF_CHECK_EQUAL(m.bytes(), missing_keys::charge);
}

CAF_TEST(a forgotten key leaves no slot that could push out a live one) {
  missing_keys m{2 * missing_keys::charge, 60s};
  m.remember(dept_key(1), t0);
  m.forget(dept_key(1)); // the INSERT that created it
  CAF_CHECK(!m.contains(dept_key(1), t0));
  m.remember(dept_key(2), t0 + 1s);
  m.remember(dept_key(3), t0 + 2s);
  CAF_CHECK(m.contains(dept_key(2), t0 + 2s));
  CAF_CHECK(m.contains(dept_key(3), t0 + 2s));
  // Many forgotten slots are compacted away, and the cap still holds.
  for (int32_t id = 100; id < 3000; ++id) {
    m.remember(dept_key(id), t0 + 3s);
    m.forget(dept_key(id));
  }
  m.remember(dept_key(4), t0 + 4s);
  CAF_CHECK_EQUAL(m.size(), 2u);
  CAF_CHECK(m.contains(dept_key(4), t0 + 4s));
  CAF_CHECK(m.contains(dept_key(3), t0 + 4s));
}

CAF_TEST(forgetting kinds keeps the other kinds) {
  missing_keys m{10 * missing_keys::charge, 60s};
  m.remember(dept_key(1), t0);
  m.remember(doc_key{demo::emp_kind, 1}, t0);
  m.remember(doc_key{demo::dept_kind, 1}, t0);
  m.forget_kinds(kind_bit(demo::emp_kind) | kind_bit(demo::dept_kind));
  CAF_CHECK_EQUAL(m.size(), 1u);
  CAF_CHECK(m.contains(dept_key(1), t0));
  m.clear();
  CAF_CHECK(m.empty());
}

CAF_TEST(a cap below one entry or a ttl of zero keeps none) {
  missing_keys small{missing_keys::charge - 1, 60s};
  CAF_CHECK(!small.keeps_any());
  CAF_CHECK(!small.remember(dept_key(1), t0));
  CAF_CHECK(small.empty());
  missing_keys no_ttl{10 * missing_keys::charge, 0s};
  CAF_CHECK(!no_ttl.remember(dept_key(1), t0));
  missing_keys none;
  CAF_CHECK(!none.keeps_any());
}

CAF_TEST(a long text key costs its bytes besides the charge and the cap counts them) {
  const doc_kind text_kind{9}; // any kind: the set keys bytes, not the catalogue
  auto long_key = doc_key::of_bytes(text_kind, std::string(100, 'k'));
  auto short_key = doc_key::of_bytes(text_kind, "short");
  CAF_CHECK_EQUAL(missing_keys::charge_of(short_key), missing_keys::charge);
  CAF_CHECK_EQUAL(missing_keys::charge_of(long_key), missing_keys::charge + 100);
  missing_keys m{2 * missing_keys::charge + 100, 60s};
  CAF_REQUIRE(m.remember(long_key, t0));
  CAF_REQUIRE(m.remember(long_key, t0 + 1s)); // again: counted once
  CAF_CHECK_EQUAL(m.bytes(), missing_keys::charge + 100);
  CAF_REQUIRE(m.remember(short_key, t0 + 2s));
  CAF_CHECK_EQUAL(m.bytes(), 2 * missing_keys::charge + 100);
  // One more goes past the cap: the oldest (the long key) makes room.
  CAF_REQUIRE(m.remember(dept_key(3), t0 + 3s));
  CAF_CHECK(!m.contains(long_key, t0 + 3s));
  CAF_CHECK_EQUAL(m.bytes(), 2 * missing_keys::charge);
  m.forget(short_key);
  CAF_CHECK_EQUAL(m.bytes(), missing_keys::charge);
  m.clear();
  CAF_CHECK_EQUAL(m.bytes(), 0);
}
