// SPDX-License-Identifier: Apache-2.0
#include "tools/freshness/http_get.hpp"

#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <strings.h>

namespace restcache::freshness {

namespace {

bool same_name(std::string_view a, std::string_view b) {
  return a.size() == b.size() && strncasecmp(a.data(), b.data(), a.size()) == 0;
}

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

} // namespace

std::string get_response::header_or_empty(std::string_view name) const {
  for (const auto& [n, v] : headers)
    if (same_name(n, name))
      return v;
  return {};
}

http_get::http_get(uint16_t port, std::chrono::milliseconds timeout, std::string host)
  : port_(port), timeout_(timeout), host_(std::move(host)) {
}

http_get::~http_get() {
  close();
}

void http_get::close() {
  if (fd_ >= 0)
    ::close(fd_);
  fd_ = -1;
  buf_.clear();
}

get_response http_get::failed(get_response& r, std::string what) {
  close();
  r.status = 0;
  r.error = std::move(what);
  return std::move(r);
}

bool http_get::connect(get_response& r) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  auto port = std::to_string(port_);
  if (int e = getaddrinfo(host_.c_str(), port.c_str(), &hints, &found); e != 0) {
    r.error = host_ + ": " + gai_strerror(e);
    return false;
  }
  for (auto* a = found; a != nullptr && fd_ < 0; a = a->ai_next) {
    int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0)
      continue;
    if (::connect(fd, a->ai_addr, a->ai_addrlen) == 0) {
      int one = 1;
      setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      fd_ = fd;
    } else {
      r.error = std::string{"connect: "} + std::strerror(errno);
      ::close(fd);
    }
  }
  freeaddrinfo(found);
  return fd_ >= 0;
}

bool http_get::send_all(std::string_view bytes, get_response& r) {
  while (!bytes.empty()) {
    auto n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      r.error = std::string{"send: "} + std::strerror(errno);
      return false;
    }
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

bool http_get::fill(get_response& r) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline_ - std::chrono::steady_clock::now());
  if (left.count() <= 0) {
    r.error = "timed out after " + std::to_string(timeout_.count()) + " ms";
    return false;
  }
  pollfd p{fd_, POLLIN, 0};
  int ready = ::poll(&p, 1, static_cast<int>(left.count()));
  if (ready < 0 && errno == EINTR)
    return fill(r);
  if (ready <= 0) {
    r.error = ready == 0 ? "timed out after " + std::to_string(timeout_.count()) + " ms"
                         : std::string{"poll: "} + std::strerror(errno);
    return false;
  }
  char chunk[16384];
  auto n = ::recv(fd_, chunk, sizeof chunk, 0);
  if (n <= 0) {
    r.error = n == 0 ? "connection closed by the server" : std::string{"recv: "} + std::strerror(errno);
    return false;
  }
  buf_.append(chunk, static_cast<size_t>(n));
  return true;
}

bool http_get::read_line(std::string& line, get_response& r) {
  for (;;) {
    if (auto end = buf_.find("\r\n"); end != std::string::npos) {
      line.assign(buf_, 0, end);
      buf_.erase(0, end + 2);
      return true;
    }
    if (buf_.size() > 65536) {
      r.error = "a header line longer than 64 KiB";
      return false;
    }
    if (!fill(r))
      return false;
  }
}

get_response http_get::get(std::string_view target) {
  get_response r;
  deadline_ = std::chrono::steady_clock::now() + timeout_;
  if (fd_ < 0 && !connect(r))
    return failed(r, r.error);
  std::string req;
  req.append("GET ").append(target).append(" HTTP/1.1\r\nHost: ").append(host_).append("\r\n\r\n");
  if (!send_all(req, r))
    return failed(r, r.error);
  std::string line;
  if (!read_line(line, r))
    return failed(r, r.error);
  // HTTP/1.1 200 OK
  if (line.size() < 12 || line.compare(0, 7, "HTTP/1.") != 0
      || std::from_chars(line.data() + 9, line.data() + 12, r.status).ec != std::errc{})
    return failed(r, "not an HTTP status line: " + line.substr(0, 80));
  r.reason = line.size() > 13 ? line.substr(13) : "";
  bool closes = line.compare(0, 8, "HTTP/1.0") == 0;
  size_t length = 0;
  for (;;) {
    if (!read_line(line, r))
      return failed(r, r.error);
    if (line.empty())
      break;
    auto colon = line.find(':');
    if (colon == std::string::npos)
      return failed(r, "a header line without a colon: " + line.substr(0, 80));
    std::string name = line.substr(0, colon);
    std::string value{trimmed(std::string_view{line}.substr(colon + 1))};
    if (same_name(name, "Content-Length")
        && std::from_chars(value.data(), value.data() + value.size(), length).ec != std::errc{})
      return failed(r, "a Content-Length that is no number: " + value);
    if (same_name(name, "Transfer-Encoding"))
      return failed(r, "a chunked answer, which this client does not read");
    if (same_name(name, "Connection"))
      closes = closes || same_name(value, "close");
    r.headers.emplace_back(std::move(name), std::move(value));
  }
  while (buf_.size() < length)
    if (!fill(r))
      return failed(r, r.error);
  r.body.assign(buf_, 0, length);
  buf_.erase(0, length);
  if (closes)
    close();
  return r;
}

} // namespace restcache::freshness
