#include "messages/feed_position.hpp"

#include <charconv>

namespace restcache {

namespace {

bool parse_u64(std::string_view s, uint64_t& out) {
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc{} && end == s.data() + s.size();
}

std::string_view next_part(std::string_view& s, char sep) {
  auto at = s.find(sep);
  auto field = s.substr(0, at);
  s = at == std::string_view::npos ? std::string_view{} : s.substr(at + 1);
  return field;
}

} // namespace

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
  if (text.find(':') == std::string_view::npos || !parse_u64(next_part(text, ':'), p.xmin)
      || text.find(':') == std::string_view::npos || !parse_u64(next_part(text, ':'), p.xmax) || p.xmax < p.xmin)
    return std::nullopt;
  // "x,y,z" or nothing: a trailing comma is malformed.
  for (bool more = !text.empty(); more;) {
    more = text.find(',') != std::string_view::npos;
    uint64_t x = 0;
    if (!parse_u64(next_part(text, ','), x))
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
  auto us = text;
  auto [end, ec] = std::from_chars(us.data(), us.data() + us.size(), w.us);
  if (!parse_u64(xid, w.xid) || !parse_u64(seq, w.seq) || ec != std::errc{} || end != us.data() + us.size()
      || us.empty() || w.xid == 0)
    return std::nullopt;
  return w;
}

} // namespace restcache
