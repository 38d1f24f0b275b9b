// SPDX-License-Identifier: Apache-2.0
#define CAF_SUITE kind_limits

// Each kind's TTL and size cap as a shard applies them: when a document
// expires, whether it is kept, whether it goes to LMDB, whether a "does not
// exist" answer is remembered.

#include "cache/kind_limits.hpp"

#include <caf/test/unit_test.hpp>

#include "test/fixtures/catalogue_guard.hpp"

using namespace restcache;
using namespace std::chrono_literals;

namespace {

const doc_key dept_key{doc_kind{1}, 7};
const doc_key emp_key{doc_kind{2}, 7};

} // namespace

CAF_TEST(a kind without limits never expires and keeps any size in both tiers) {
  kind_limits none;
  auto now = kind_limits::time_point{} + 100s;
  CAF_CHECK(none.expiry(dept_key, now) == kind_limits::time_point::max());
  CAF_CHECK(none.keeps(dept_key, cached_doc{std::string(1 << 20, 'x'), "e"}));
  CAF_CHECK(none.in_tier(dept_key));
  CAF_CHECK(none.remembers_missing(dept_key, 60s));
}

CAF_TEST(a ttl sets the expiry keeps the kind out of lmdb and bounds missing marks) {
  kind_limits l;
  l.set(doc_kind{1}, 30s, 0);
  auto now = kind_limits::time_point{} + 100s;
  CAF_CHECK(l.expiry(dept_key, now) == now + 30s);
  CAF_CHECK(!l.in_tier(dept_key));
  CAF_CHECK(l.remembers_missing(dept_key, 30s));  // marks last no longer than the ttl
  CAF_CHECK(!l.remembers_missing(dept_key, 60s)); // they would outlive it
  // Other kinds are not touched.
  CAF_CHECK(l.expiry(emp_key, now) == kind_limits::time_point::max());
  CAF_CHECK(l.in_tier(emp_key));
}

CAF_TEST(a size cap keeps documents up to it) {
  kind_limits l;
  l.set(doc_kind{2}, 0s, 4);
  CAF_CHECK(l.keeps(emp_key, cached_doc{"abcd", "e"}));
  CAF_CHECK(!l.keeps(emp_key, cached_doc{"abcde", "e"}));
  CAF_CHECK(l.keeps(dept_key, cached_doc{"abcde", "e"}));
  CAF_CHECK(l.in_tier(emp_key)); // a cap alone keeps LMDB
}

CAF_TEST(the limits come from the installed catalogue) {
  auto kinds = demo::demo_kinds();
  kinds[0].ttl = 5s;
  kinds[1].max_bytes = 100;
  test::catalogue_guard guard{std::move(kinds)};
  auto l = kind_limits::of_catalogue();
  auto now = kind_limits::time_point{} + 1s;
  CAF_CHECK(l.expiry(dept_key, now) == now + 5s);
  CAF_CHECK(!l.keeps(emp_key, cached_doc{std::string(101, 'x'), "e"}));
  CAF_CHECK(l.keeps(emp_key, cached_doc{std::string(100, 'x'), "e"}));
}

CAF_TEST(a ttl changes the kind fingerprint and a size cap does not) {
  auto kind = demo::demo_kinds()[0];
  auto plain = kind_fingerprint(kind);
  kind.max_bytes = 100;
  CAF_CHECK_EQUAL(kind_fingerprint(kind), plain); // the same documents, fewer kept
  kind.ttl = 30s;
  auto with_ttl = kind_fingerprint(kind);
  CAF_CHECK_NOT_EQUAL(with_ttl, plain); // LMDB records from before it are not vouched for
  kind.ttl = 60s;
  CAF_CHECK_EQUAL(kind_fingerprint(kind), with_ttl); // how long does not matter: none are written
}
