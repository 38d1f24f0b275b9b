// SPDX-License-Identifier: Apache-2.0
#include "cache/kind_limits.hpp"

namespace restcache {

kind_limits kind_limits::of_catalogue() {
  kind_limits out;
  for (const auto& kind : doc_catalogue())
    out.set(kind.kind, kind.ttl, kind.max_bytes);
  return out;
}

void kind_limits::set(doc_kind kind, std::chrono::nanoseconds ttl, int64_t max_bytes) noexcept {
  auto id = static_cast<uint8_t>(kind);
  if (id < by_kind_.size())
    by_kind_[id] = limits{ttl, max_bytes};
}

} // namespace restcache
