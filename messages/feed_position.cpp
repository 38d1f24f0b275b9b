// SPDX-License-Identifier: Apache-2.0
#include "messages/feed_position.hpp"

#include "messages/text.hpp"

namespace restcache {

std::string to_text(const feed_position& p) {
  auto out = std::to_string(p.xmin) + ':' + std::to_string(p.xmax) + ':';
  for (size_t i = 0; i < p.xip.size(); ++i) {
    if (i > 0)
      out += ',';
    out += std::to_string(p.xip[i]);
  }
  return out;
}

std::optional<feed_position> parse_feed_position(std::string_view text) {
  feed_position p;
  if (text.find(':') == std::string_view::npos || !parse_whole(next_part(text, ':'), p.xmin)
      || text.find(':') == std::string_view::npos || !parse_whole(next_part(text, ':'), p.xmax) || p.xmax < p.xmin)
    return std::nullopt;
  // "x,y,z" or nothing: a trailing comma is malformed.
  for (bool more = !text.empty(); more;) {
    more = text.find(',') != std::string_view::npos;
    uint64_t x = 0;
    if (!parse_whole(next_part(text, ','), x))
      return std::nullopt;
    p.xip.push_back(x);
  }
  return p;
}

std::string to_text(const log_witness& w) {
  return std::to_string(w.xid) + ':' + std::to_string(w.seq) + ':' + std::to_string(w.us);
}

std::optional<log_witness> parse_log_witness(std::string_view text) {
  log_witness w;
  auto xid = next_part(text, ':');
  auto seq = next_part(text, ':');
  if (!parse_whole(xid, w.xid) || !parse_whole(seq, w.seq) || !parse_whole(text, w.us) || w.xid == 0)
    return std::nullopt;
  return w;
}

} // namespace restcache
