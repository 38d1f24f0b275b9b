#pragma once

// The HTTP server: a Beast acceptor and do_/on_ sessions on asio threads.
// Beast stays in http/*.cpp and http/detail/; this header is cheap to include.

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "http/cache_gateway.hpp"
#include "http/http_metrics.hpp"
#include "logging/access_log.hpp"

namespace restcache::http {

struct server_options {
  std::string address = "127.0.0.1";
  uint16_t port = 8080;           ///< 0 picks a free port (see bound_port())
  int threads = 1;                ///< asio threads running the io_context
  size_t body_limit = 2 << 20;    ///< request body limit in bytes
  /// When set, writes need "Authorization: Bearer <write_token>" (else 401).
  std::string write_token;
  std::chrono::milliseconds read_timeout{30'000};   ///< idle keep-alive / slow client limit
  std::chrono::milliseconds lookup_timeout{10'000}; ///< a lookup not answered by then gets 504
  size_t max_connections = 10'000; ///< beyond this, new connections get 503 and are closed
  /// stop(): how long sessions may take to finish the response in flight
  /// (including a pending lookup) before they are answered 503 / closed.
  std::chrono::milliseconds drain_timeout{5'000};
  /// When set, every answered request is logged there (log.access).
  logging::access_log* access_log = nullptr;
};

class server {
public:
  server(server_options opts, cache_gateway& gateway);
  ~server(); // stops and joins if still running
  server(const server&) = delete;
  server& operator=(const server&) = delete;

  /// Binds and listens; throws std::runtime_error with a clear message on failure.
  void start();
  /// The port actually bound (useful with port 0).
  uint16_t bound_port() const;
  /// Runs the io_context on `threads` std::threads; returns immediately.
  void run_threads();
  /// Stops accepting, lets sessions finish their current response, then
  /// stops the io_context and joins the threads. Safe to call twice, and from
  /// any thread except an asio thread of this server.
  void stop();

  /// Request, response and connection counters (thread-safe reads), for the
  /// daemon to include in its /metrics text.
  const http_metrics& metrics() const;

private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

} // namespace restcache::http
