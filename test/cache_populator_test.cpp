// SPDX-License-Identifier: Apache-2.0
#define CAF_SUITE cache_populator
#include "actors/cache_populator.hpp"

#include "actors/cache_shard.hpp"
#include "demo/demo_catalogue.hpp"
#include "messages/document_encoder.hpp"
#include "test/fixtures/fake_pool_fixture.hpp"
#include "demo/demo_encoders.hpp"

using namespace restcache;
using namespace restcache::test;

namespace {

struct fixture : fake_pool_fixture {
  std::vector<cache_metrics> cms{3};
  std::vector<cache_shard_actor> shards;

  fixture() {
    spawn_pool(1, 100);
    for (int i = 1; i <= 50; ++i)
      conns->at(0)->ids.push_back(i);
    for (auto& m : cms)
      shards.push_back(
        sys.spawn(cache_shard, cache_shard_config{cache_mode::memory, 1 << 20, std::chrono::seconds{10}},
                  pool, &m));
    sched.run();
  }

  ~fixture() {
    for (auto& s : shards)
      anon_send_exit(s, caf::exit_reason::user_shutdown);
  }

  uint64_t populated() const {
    uint64_t n = 0;
    for (auto& m : cms)
      n += m.populated.load();
    return n;
  }
};

} // namespace

CAF_TEST_FIXTURE_SCOPE(cache_populator_tests, fixture)

CAF_TEST(every department is cached page by page) {
  sys.spawn(cache_populator, cache_populator_config{20, int64_t{3} << 20, {demo::deptemps_kind}}, pool, shards, &cms);
  sched.run();
  CAF_CHECK_EQUAL(populated(), 50u);
  CAF_CHECK_EQUAL(conns->at(0)->queries, 4u); // 20 + 20 + 10 + the empty page
}

CAF_TEST(populate stops before the budget is used up) {
  auto one = memory_tier::charge_of(*make_doc(demo::encode_deptemps(make_dept(1, 2))));
  // Room for about 30 documents in all; pages of 5.
  sys.spawn(cache_populator, cache_populator_config{5, one * 30, {demo::deptemps_kind}}, pool, shards, &cms);
  sched.run();
  CAF_CHECK_GREATER(populated(), 10u);
  CAF_CHECK_LESS(populated(), 30u);
  int64_t bytes = 0;
  for (auto& m : cms)
    bytes += m.bytes.load();
  CAF_CHECK_LESS_OR_EQUAL(bytes, one * 30);
}

CAF_TEST_FIXTURE_SCOPE_END()
