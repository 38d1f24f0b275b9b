// SPDX-License-Identifier: Apache-2.0
#pragma once

// What /metrics and /ready say, gathered from the components that own it:
// each registers its own exposition writer and readiness checks when it
// starts; the HTTP edge reads the board (through cache_front).

#include <functional>
#include <string>
#include <vector>

#include "http/cache_gateway.hpp"

namespace restcache {

/// Where /ready lists a check (lowest first, then in the order added): what
/// answers at all, what vouches for the cached documents, then the tiers.
namespace readiness_place {
inline constexpr int database = 0;
inline constexpr int listener = 10;
inline constexpr int documents = 20;
inline constexpr int tier = 30;
} // namespace readiness_place

class status_board {
public:
  /// A writer of one or more whole metric families (each family written by
  /// one writer only, so its samples stay together under one TYPE line).
  void add_metrics_writer(std::function<std::string()> writer);
  /// One more condition /ready reports, at `place` (readiness_place).
  void add_readiness_check(int place, std::function<http::readiness_check()> check);

  std::string metrics_text() const;
  std::vector<http::readiness_check> readiness() const;

private:
  struct placed_check {
    int place;
    std::function<http::readiness_check()> check;
  };
  std::vector<std::function<std::string()>> writers_;
  std::vector<placed_check> checks_; ///< kept in place order
};

} // namespace restcache
