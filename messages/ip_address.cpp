// SPDX-License-Identifier: Apache-2.0
#include "messages/ip_address.hpp"

#include <cstring>

#include <arpa/inet.h>

#include "messages/text.hpp"

namespace restcache {

namespace {

constexpr uint8_t v4_prefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

/// `entry` in single quotes, for a refusal (appended to, never prepended:
/// GCC 12 warns wrongly about "'" + std::string).
std::string quoted(std::string_view entry) {
  std::string q;
  q.reserve(entry.size() + 2);
  q += '\'';
  q.append(entry);
  q += '\'';
  return q;
}

} // namespace

ip_address ip_address::v4(const uint8_t (&octets)[4]) noexcept {
  ip_address a;
  std::memcpy(a.bytes.data(), v4_prefix, sizeof v4_prefix);
  std::memcpy(a.bytes.data() + 12, octets, 4);
  return a;
}

ip_address ip_address::v4(uint32_t host_order) noexcept {
  const uint8_t octets[4] = {uint8_t(host_order >> 24), uint8_t(host_order >> 16), uint8_t(host_order >> 8),
                             uint8_t(host_order)};
  return v4(octets);
}

ip_address ip_address::v6(const uint8_t* sixteen) noexcept {
  ip_address a;
  std::memcpy(a.bytes.data(), sixteen, 16);
  return a;
}

std::optional<ip_address> ip_address::parse(std::string_view text) {
  std::string s{trim(text)};
  if (s.size() > 2 && s.front() == '[' && s.back() == ']')
    s = s.substr(1, s.size() - 2);
  uint8_t buf[16];
  if (inet_pton(AF_INET, s.c_str(), buf) == 1) {
    const uint8_t octets[4] = {buf[0], buf[1], buf[2], buf[3]};
    return v4(octets);
  }
  if (inet_pton(AF_INET6, s.c_str(), buf) == 1)
    return v6(buf);
  return std::nullopt;
}

bool ip_address::is_v4() const noexcept {
  return std::memcmp(bytes.data(), v4_prefix, sizeof v4_prefix) == 0;
}

std::string ip_address::text() const {
  char out[INET6_ADDRSTRLEN];
  if (is_v4())
    inet_ntop(AF_INET, bytes.data() + 12, out, sizeof out);
  else
    inet_ntop(AF_INET6, bytes.data(), out, sizeof out);
  return out;
}

ip_address ip_address::client_key() const noexcept {
  if (is_v4())
    return *this;
  ip_address k = *this;
  std::memset(k.bytes.data() + 8, 0, 8);
  return k;
}

size_t ip_address_hash::operator()(const ip_address& a) const noexcept {
  uint64_t hi, lo;
  std::memcpy(&hi, a.bytes.data(), 8);
  std::memcpy(&lo, a.bytes.data() + 8, 8);
  // Fibonacci hashing of both halves: spreads consecutive addresses.
  return static_cast<size_t>((hi * 0x9E3779B97F4A7C15ull) ^ (lo * 0xC2B2AE3D27D4EB4Full));
}

bool ip_network::contains(const ip_address& a) const noexcept {
  unsigned bits = prefix_bits;
  for (size_t i = 0; i < 16 && bits > 0; ++i) {
    const unsigned take = bits >= 8 ? 8 : bits;
    const auto mask = static_cast<uint8_t>(0xff00u >> take);
    if ((a.bytes[i] & mask) != (base.bytes[i] & mask))
      return false;
    bits -= take;
  }
  return true;
}

std::optional<ip_network_list> ip_network_list::parse(std::string_view text, std::string& error) {
  ip_network_list out;
  while (!text.empty()) {
    auto entry = trim(next_part(text, ','));
    if (entry.empty())
      continue;
    auto slash = entry.find('/');
    auto addr = ip_address::parse(entry.substr(0, slash));
    if (!addr) {
      error = quoted(entry) + " is not an IP address or network (address/prefix)";
      return std::nullopt;
    }
    ip_network net{*addr, 128};
    const unsigned max_bits = addr->is_v4() ? 32 : 128;
    unsigned bits = max_bits;
    if (slash != std::string_view::npos && (!parse_whole(entry.substr(slash + 1), bits) || bits > max_bits)) {
      error = quoted(entry) + " has a prefix length that is not 0 to " + std::to_string(max_bits);
      return std::nullopt;
    }
    // An IPv4 prefix counts within the ::ffff:0:0/96 the address is held in.
    net.prefix_bits = addr->is_v4() ? 96 + bits : bits;
    for (unsigned bit = net.prefix_bits; bit < 128; ++bit)
      if (net.base.bytes[bit / 8] & (0x80u >> (bit % 8))) {
        error = quoted(entry) + " has host bits set past its prefix";
        return std::nullopt;
      }
    out.networks.push_back(net);
  }
  return out;
}

ip_network_list ip_network_list::loopback() {
  std::string why;
  return *parse("127.0.0.0/8, ::1", why);
}

bool ip_network_list::contains(const ip_address& a) const noexcept {
  for (auto& n : networks)
    if (n.contains(a))
      return true;
  return false;
}

} // namespace restcache
