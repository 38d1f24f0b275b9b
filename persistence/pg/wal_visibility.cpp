// SPDX-License-Identifier: Apache-2.0
#include "persistence/pg/wal_visibility.hpp"

#include <algorithm>
#include <stdexcept>

#include "persistence/pg/change_feed.hpp"

namespace restcache::pg {

uint64_t full_xid(uint32_t xid, uint64_t near) noexcept {
  uint64_t x = (near & ~uint64_t{0xffffffff}) | xid;
  if (x > near && x - near > (uint64_t{1} << 31) && x >= (uint64_t{1} << 32))
    x -= uint64_t{1} << 32;
  return x;
}

uint64_t wait_visible(connection& c, const std::vector<uint32_t>& xids,
                      const std::function<bool(std::chrono::milliseconds)>& pause) {
  using namespace std::chrono_literals;
  for (int tries = 0;; ++tries) {
    auto snap = current_snapshot(c);
    bool all = std::all_of(xids.begin(), xids.end(), [&](uint32_t x32) {
      auto x = full_xid(x32, snap.xmax);
      return x < snap.xmin
             || (x < snap.xmax && std::find(snap.xip.begin(), snap.xip.end(), x) == snap.xip.end());
    });
    if (all)
      return snap.xmax;
    if (!pause(tries < 20 ? 1ms : 10ms))
      throw std::runtime_error("stopping");
  }
}

} // namespace restcache::pg
