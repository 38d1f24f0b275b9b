// SPDX-License-Identifier: Apache-2.0
#include "messages/wal_lsn.hpp"

#include <cstdio>

namespace restcache {

namespace {

std::optional<uint32_t> parse_hex32(std::string_view s) noexcept {
  if (s.empty() || s.size() > 8)
    return std::nullopt;
  uint32_t v = 0;
  for (char ch : s) {
    uint32_t d;
    if (ch >= '0' && ch <= '9')
      d = uint32_t(ch - '0');
    else if (ch >= 'A' && ch <= 'F')
      d = uint32_t(ch - 'A' + 10);
    else if (ch >= 'a' && ch <= 'f')
      d = uint32_t(ch - 'a' + 10);
    else
      return std::nullopt;
    v = (v << 4) | d;
  }
  return v;
}

} // namespace

std::optional<uint64_t> parse_wal_lsn(std::string_view text) noexcept {
  auto slash = text.find('/');
  if (slash == std::string_view::npos)
    return std::nullopt;
  auto hi = parse_hex32(text.substr(0, slash));
  auto lo = parse_hex32(text.substr(slash + 1));
  if (!hi || !lo)
    return std::nullopt;
  return (uint64_t{*hi} << 32) | *lo;
}

std::string format_wal_lsn(uint64_t lsn) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "%X/%X", unsigned(lsn >> 32), unsigned(lsn & 0xffffffffu));
  return buf;
}

} // namespace restcache
