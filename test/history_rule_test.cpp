// SPDX-License-Identifier: Apache-2.0
#define CAF_SUITE history_rule
#include "messages/history.hpp"

#include <caf/test/unit_test.hpp>

#include "persistence/lmdb/record_codec.hpp"

using namespace restcache;

namespace {

history_identity demo() {
  return {7714425296235736950ULL, 16384, "restcache", 1};
}

live_history live(history_identity id, uint64_t next_xid) {
  return {std::move(id), next_xid};
}

} // namespace

CAF_TEST(the same history at or past the watermark is replayed) {
  CAF_CHECK(compare_history(demo(), 2182, live(demo(), 2182)) == history_rule::same);
  CAF_CHECK(compare_history(demo(), 2182, live(demo(), 9000)) == history_rule::same);
  CAF_CHECK(compare_history(demo(), 0, live(demo(), 3)) == history_rule::same);
}

CAF_TEST(nothing known cannot be checked) {
  CAF_CHECK(compare_history(std::nullopt, 0, live(demo(), 727)) == history_rule::first_use);
  CAF_CHECK(compare_history(std::nullopt, 2182, live(demo(), 727)) == history_rule::first_use);
}

CAF_TEST(each part of the identity decides) {
  auto other = demo();
  other.system_id += 1;
  CAF_CHECK(compare_history(demo(), 2182, live(other, 9000)) == history_rule::other_cluster);
  other = demo();
  other.database_oid = 16385;
  CAF_CHECK(compare_history(demo(), 2182, live(other, 9000)) == history_rule::other_database);
  other = demo();
  other.database_name = "restcache2"; // dropped and another created under the OID's old name is another database too
  CAF_CHECK(compare_history(demo(), 2182, live(other, 9000)) == history_rule::other_database);
  other = demo();
  other.timeline = 2;
  CAF_CHECK(compare_history(demo(), 2182, live(other, 9000)) == history_rule::other_timeline);
  // The cluster is named before the xids: a new cluster's low xids are not
  // reported as going backwards.
  other = demo();
  other.system_id = 1;
  CAF_CHECK(compare_history(demo(), 2182, live(other, 727)) == history_rule::other_cluster);
}

CAF_TEST(a next xid below the watermark is an older copy of the data) {
  CAF_CHECK(compare_history(demo(), 2182, live(demo(), 727)) == history_rule::went_backwards);
  CAF_CHECK(compare_history(demo(), 2182, live(demo(), 2181)) == history_rule::went_backwards);
}

CAF_TEST(rules have names for the log and the metric) {
  CAF_CHECK_EQUAL(std::string{to_string(history_rule::went_backwards)}, "went_backwards");
  CAF_CHECK_EQUAL(describe(demo()), "system 7714425296235736950, database 16384 \"restcache\", timeline 1");
}

CAF_TEST(the identity round trips through its LMDB encoding) {
  auto id = demo();
  auto back = lmdb::decode_history(lmdb::encode_history(id));
  CAF_REQUIRE(back);
  CAF_CHECK(*back == id);
  id.database_name.clear();
  back = lmdb::decode_history(lmdb::encode_history(id));
  CAF_REQUIRE(back);
  CAF_CHECK(*back == id);
  CAF_CHECK(!lmdb::decode_history("short"));
}
