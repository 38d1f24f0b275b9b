// SPDX-License-Identifier: Apache-2.0
#pragma once

// A client's IP address and the networks an option names (http.trusted-
// proxies): what the HTTP edge limits per client and whom it believes about
// the client behind a balancer. Plain values, no sockets.

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace restcache {

/// An IPv4 or IPv6 address, IPv4 held as ::ffff:a.b.c.d (so one type
/// compares and hashes both).
struct ip_address {
  std::array<uint8_t, 16> bytes{};

  static ip_address v4(const uint8_t (&octets)[4]) noexcept;
  static ip_address v4(uint32_t host_order) noexcept;
  static ip_address v6(const uint8_t* sixteen) noexcept;
  /// "192.0.2.1", "2001:db8::1" or "[2001:db8::1]"; nothing for anything else.
  static std::optional<ip_address> parse(std::string_view text);

  bool is_v4() const noexcept;
  /// The dotted or colon form (IPv4 without its ::ffff: prefix).
  std::string text() const;
  /// What a per-client limit counts as one client: an IPv4 address, or an
  /// IPv6 address's /64 (one subscriber's usual share, which it can rotate
  /// through at will).
  ip_address client_key() const noexcept;

  friend bool operator==(const ip_address&, const ip_address&) = default;
};

struct ip_address_hash {
  size_t operator()(const ip_address& a) const noexcept;
};

/// An address and a prefix length (bits of `base` that must match).
struct ip_network {
  ip_address base;
  unsigned prefix_bits = 128;

  bool contains(const ip_address& a) const noexcept;
};

/// A list of networks as an option writes it: addresses or CIDR networks
/// ("10.0.0.0/8", "::1", "192.0.2.7") separated by commas.
struct ip_network_list {
  std::vector<ip_network> networks;

  /// The list, or the reason it is not one (naming the bad entry).
  static std::optional<ip_network_list> parse(std::string_view text, std::string& error);
  /// 127.0.0.0/8 and ::1.
  static ip_network_list loopback();
  bool contains(const ip_address& a) const noexcept;
  bool empty() const noexcept { return networks.empty(); }
};

} // namespace restcache
