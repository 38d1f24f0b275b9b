// SPDX-License-Identifier: Apache-2.0
#pragma once

// The freshness checker's HTTP client: GETs on one kept-alive HTTP/1.1
// connection over POSIX sockets, blocking, each bounded by a timeout. It
// reads what restcached answers (a status line, headers, a body of
// Content-Length bytes); nothing else of HTTP is needed here. Failures come
// back as status 0 with `error` set.

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace restcache::freshness {

struct get_response {
  int status = 0;    ///< 0: no response (see error)
  std::string error; ///< why there is no response
  std::string reason;
  std::vector<std::pair<std::string, std::string>> headers; ///< in the order received
  std::string body;

  /// The first value of a header (name compared case-insensitively); "" when absent.
  std::string header_or_empty(std::string_view name) const;
};

class http_get {
public:
  /// Connects to host:port (an IPv4 or IPv6 address, or a name) at the first get.
  http_get(uint16_t port, std::chrono::milliseconds timeout, std::string host = "127.0.0.1");
  ~http_get();
  http_get(const http_get&) = delete;
  http_get& operator=(const http_get&) = delete;

  /// GET `target` on the kept-alive connection (opened when there is none);
  /// the connection is closed after a failure or when the server says so.
  get_response get(std::string_view target);
  bool is_open() const { return fd_ >= 0; }
  void close();

private:
  bool connect(get_response& r);
  bool send_all(std::string_view bytes, get_response& r);
  /// Reads more into buf_ before the deadline; false on EOF, error or timeout.
  bool fill(get_response& r);
  bool read_line(std::string& line, get_response& r);
  get_response failed(get_response& r, std::string what);

  uint16_t port_;
  std::chrono::milliseconds timeout_;
  std::string host_;
  int fd_ = -1;
  std::string buf_; ///< read and not yet consumed
  std::chrono::steady_clock::time_point deadline_{};
};

} // namespace restcache::freshness
