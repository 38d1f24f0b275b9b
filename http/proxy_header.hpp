// SPDX-License-Identifier: Apache-2.0
#pragma once

// The PROXY protocol version 2 header (HAProxy's proxy-protocol.txt, 2.2):
// what a balancer in http.trusted-proxies sends before the HTTP bytes to
// name the client it forwards. No Beast here.

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "messages/ip_address.hpp"

namespace restcache::http {

/// Largest header taken: the 16 fixed bytes plus the address block and
/// TLVs a balancer adds (HAProxy's few TLVs are well under this).
inline constexpr size_t max_proxy_header_bytes = 1024;

struct proxy_header {
  enum class outcome : uint8_t {
    absent,     ///< the bytes do not begin with the signature: no header
    incomplete, ///< a header so far: read more
    invalid,    ///< not a header that may be taken; `error` says why
    local,      ///< LOCAL (the balancer's own health check): the peer is the client
    proxied,    ///< PROXY: `client` is the address it forwards for
  };
  outcome result = outcome::absent;
  size_t length = 0;   ///< bytes of the header (local and proxied)
  ip_address client{}; ///< proxied only
  std::string_view error;
};

/// Reads a PROXY v2 header at the start of `data`. A PROXY command over a
/// transport the header names no IP address for (UNSPEC, UNIX) is `local`:
/// the spec says to use the connection's own addresses then.
proxy_header read_proxy_header(const uint8_t* data, size_t size) noexcept;

} // namespace restcache::http
