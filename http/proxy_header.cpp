// SPDX-License-Identifier: Apache-2.0
#include "http/proxy_header.hpp"

#include <algorithm>
#include <cstring>

namespace restcache::http {

namespace {

constexpr uint8_t signature[12] = {0x0D, 0x0A, 0x0D, 0x0A, 0x00, 0x0D, 0x0A, 0x51, 0x55, 0x49, 0x54, 0x0A};
constexpr size_t fixed_bytes = 16;

proxy_header invalid(std::string_view why) {
  proxy_header h;
  h.result = proxy_header::outcome::invalid;
  h.error = why;
  return h;
}

} // namespace

proxy_header read_proxy_header(const uint8_t* data, size_t size) noexcept {
  proxy_header h;
  if (std::memcmp(data, signature, std::min(size, sizeof signature)) != 0)
    return h; // absent: an HTTP request never begins with these bytes (a NUL after empty lines)
  if (size < fixed_bytes) {
    h.result = proxy_header::outcome::incomplete;
    return h;
  }
  const uint8_t version = data[12] >> 4, command = data[12] & 0x0f;
  const uint8_t family = data[13] >> 4, transport = data[13] & 0x0f;
  const size_t rest = (size_t{data[14]} << 8) | data[15];
  if (version != 2)
    return invalid("the PROXY protocol header is not version 2");
  if (command > 1)
    return invalid("the PROXY protocol header's command is neither LOCAL nor PROXY");
  if (fixed_bytes + rest > max_proxy_header_bytes)
    return invalid("the PROXY protocol header is longer than 1024 bytes");
  if (size < fixed_bytes + rest) {
    h.result = proxy_header::outcome::incomplete;
    return h;
  }
  h.length = fixed_bytes + rest;
  h.result = proxy_header::outcome::local;
  if (command == 0)
    return h; // LOCAL: the addresses, if any, are ignored
  const uint8_t* block = data + fixed_bytes;
  if (family == 1 && transport == 1) { // TCP over IPv4: source, destination, ports
    if (rest < 12)
      return invalid("the PROXY protocol header's IPv4 address block is short");
    const uint8_t octets[4] = {block[0], block[1], block[2], block[3]};
    h.client = ip_address::v4(octets);
    h.result = proxy_header::outcome::proxied;
  } else if (family == 2 && transport == 1) { // TCP over IPv6
    if (rest < 36)
      return invalid("the PROXY protocol header's IPv6 address block is short");
    h.client = ip_address::v6(block);
    h.result = proxy_header::outcome::proxied;
  } else if (family == 1 || family == 2) {
    return invalid("the PROXY protocol header names a transport other than TCP");
  }
  return h; // UNSPEC or UNIX: no client address to take
}

} // namespace restcache::http
