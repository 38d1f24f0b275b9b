// SPDX-License-Identifier: Apache-2.0
#include "component/status_board.hpp"

#include <algorithm>

namespace restcache {

void status_board::add_metrics_writer(std::function<std::string()> writer) {
  writers_.push_back(std::move(writer));
}

void status_board::add_readiness_check(int place, std::function<http::readiness_check()> check) {
  auto at = std::upper_bound(checks_.begin(), checks_.end(), place,
                             [](int p, const placed_check& c) { return p < c.place; });
  checks_.insert(at, placed_check{place, std::move(check)});
}

std::string status_board::metrics_text() const {
  std::string out;
  for (auto& writer : writers_)
    out += writer();
  return out;
}

std::vector<http::readiness_check> status_board::readiness() const {
  std::vector<http::readiness_check> out;
  out.reserve(checks_.size());
  for (auto& c : checks_)
    out.push_back(c.check());
  return out;
}

} // namespace restcache
