// SPDX-License-Identifier: Apache-2.0
#define CAF_SUITE fill_keeping

#include "cache/fill_keeping.hpp"

#include <caf/test/dsl.hpp>

#include <string>

using namespace restcache;

namespace {

fill_read document(bool current) {
  return {current, true, false, false};
}

fill_read missing(bool current) {
  return {current, false, true, false};
}

fill_read error(bool stale_copy) {
  return {true, false, false, stale_copy};
}

fill_kind_rules memory_on() {
  fill_kind_rules k;
  k.uses_memory = true;
  return k;
}

/// The rule's answer by name, so a failure says which.
std::string keep(const fill_read& r, const fill_kind_rules& k) {
  return to_string(keeping_of(r, k));
}

} // namespace

CAF_TEST(a current document is kept unless over its cap) {
  CAF_CHECK_EQUAL(keep(document(true), memory_on()), "store");
  auto capped = memory_on();
  capped.within_cap = false;
  CAF_CHECK_EQUAL(keep(document(true), capped), "over_cap");
  // Kept for LMDB alone too (cache.mode=lmdb): the shard decides where.
  CAF_CHECK_EQUAL(keep(document(true), fill_kind_rules{}), "store");
}

CAF_TEST(a read older than the key last change is answered only) {
  CAF_CHECK_EQUAL(keep(document(false), memory_on()), "nothing");
  auto remembering = memory_on();
  remembering.remembers_missing = true;
  CAF_CHECK_EQUAL(keep(missing(false), remembering), "nothing");
}

CAF_TEST(a current 404 is remembered only where its kind and memory allow) {
  auto remembering = memory_on();
  remembering.remembers_missing = true;
  CAF_CHECK_EQUAL(keep(missing(true), remembering), "remember_missing");
  CAF_CHECK_EQUAL(keep(missing(true), memory_on()), "nothing");
  auto no_memory = remembering;
  no_memory.uses_memory = false;
  CAF_CHECK_EQUAL(keep(missing(true), no_memory), "nothing");
}

CAF_TEST(an error is answered with a stale copy when one is allowed) {
  CAF_CHECK_EQUAL(keep(error(true), memory_on()), "stale_instead");
  CAF_CHECK_EQUAL(keep(error(false), memory_on()), "nothing");
  // A stale copy wins over everything else the read could have been.
  fill_read odd{true, true, false, true};
  CAF_CHECK_EQUAL(keep(odd, memory_on()), "stale_instead");
}

CAF_TEST(a read while bypassed drops older copies of a document or a 404 and not for an error) {
  auto bypassed = memory_on();
  bypassed.bypassed = true;
  CAF_CHECK_EQUAL(keep(document(false), bypassed), "drop_older_copies");
  CAF_CHECK_EQUAL(keep(missing(false), bypassed), "drop_older_copies");
  fill_read failed{false, false, false, false};
  CAF_CHECK_EQUAL(keep(failed, bypassed), "nothing");
  // `current` comes first: whether a read of a bypassed kind counts as
  // current is for the shard to say.
  CAF_CHECK_EQUAL(keep(document(true), bypassed), "store");
}

CAF_TEST(a fill reads again only when its session ended under it and it has reads left) {
  CAF_CHECK(reads_again(rc_error::db_unavailable, 1));
  CAF_CHECK(reads_again(rc_error::db_unavailable, max_read_tries - 1));
  CAF_CHECK(!reads_again(rc_error::db_unavailable, max_read_tries));
  // Another connection would answer the same.
  for (auto e : {rc_error::none, rc_error::not_found, rc_error::db_schema, rc_error::db_timeout, rc_error::overloaded})
    CAF_CHECK(!reads_again(e, 1));
}
