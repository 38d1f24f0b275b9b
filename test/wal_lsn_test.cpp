// SPDX-License-Identifier: Apache-2.0
#define CAF_SUITE wal_lsn
#include "messages/wal_lsn.hpp"

#include <caf/test/dsl.hpp>

using namespace restcache;

namespace {

/// The parsed position, or a marker no valid text gives.
uint64_t parsed(const char* text) {
  auto lsn = parse_wal_lsn(text);
  return lsn ? *lsn : 0xDEADu;
}

} // namespace

CAF_TEST(wal positions parse as PostgreSQL writes them and compare as numbers) {
  CAF_CHECK_EQUAL(parsed("0/0"), 0u);
  CAF_CHECK_EQUAL(parsed("16/B374D848"), (uint64_t{0x16} << 32) | 0xB374D848u);
  CAF_CHECK_EQUAL(parsed("ffffffff/ffffffff"), UINT64_MAX);
  CAF_CHECK_LESS(parsed("0/FFFFFFFF"), parsed("1/0"));
  CAF_CHECK_EQUAL(format_wal_lsn(parsed("16/B374D848")), "16/B374D848");
  for (auto bad : {"", "/", "16", "16/", "/B3", "1G/0", "123456789/0", "0/0 ", "-1/0"})
    CAF_CHECK(!parse_wal_lsn(bad).has_value());
}
