// SPDX-License-Identifier: Apache-2.0
#pragma once

// The HTTP server: a Beast acceptor and do_/on_ sessions on asio threads.
// Beast stays in http/*.cpp and http/detail/; this header is cheap to include.

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "config/defaults.hpp"
#include "http/cache_gateway.hpp"
#include "http/http_metrics.hpp"
#include "logging/access_log.hpp"
#include "messages/ip_address.hpp"

namespace boost::asio {
class io_context;
} // namespace boost::asio

namespace restcache::http {

struct server_options {
  std::string address = defaults::http_address;
  uint16_t port = defaults::http_port; ///< 0 picks a free port (see bound_port())
  /// Threads, each running an io_context of its own with its own acceptor
  /// (SO_REUSEPORT): a connection lives on the thread that accepted it.
  int threads = 1;
  /// When given, the server runs its acceptors and connections on these
  /// io_contexts (one acceptor each) and starts no threads: their owner (the
  /// io scheduler, whose threads are also CAF's workers) runs them, and
  /// keeps them running until after stop().
  std::vector<boost::asio::io_context*> io_contexts;
  size_t body_limit = defaults::http_body_limit; ///< request body limit in bytes
  /// When set, writes need "Authorization: Bearer <write_token>" (else 401).
  std::string write_token;
  /// Every write answers 403 (http.writes=closed), token or not.
  bool writes_closed = false;
  /// Writes without a token accept only these Host names (lower case, port
  /// left out; "*" any): a page in a browser on this machine cannot write
  /// through DNS rebinding.
  std::vector<std::string> allowed_hosts{"localhost", "127.0.0.1", "[::1]"};
  /// /metrics needs the write token.
  bool metrics_need_token = false;
  /// GET /openapi.json's body (http::openapi_document, made once at start).
  std::string openapi;
  /// Cache-Control: no-cache makes a lookup a refill (else it is ignored).
  bool honour_no_cache = false;
  /// Idle keep-alive between requests, and a client slow to read its answer.
  std::chrono::milliseconds read_timeout{defaults::http_read_timeout_ms};
  /// From a request's first byte until its header and body are in: trickled
  /// bytes never extend it.
  std::chrono::milliseconds request_timeout{defaults::http_request_timeout_ms};
  /// A body that sends nothing this long loses its connection and its share.
  std::chrono::milliseconds body_idle_timeout{defaults::http_body_idle_timeout_ms};
  /// Request body bytes all connections together may hold (503 beyond).
  size_t body_budget = defaults::http_body_budget_bytes;
  std::chrono::milliseconds lookup_timeout{10'000}; ///< a lookup not answered by then gets 504
  size_t max_connections = defaults::http_max_connections; ///< beyond this, new connections get 503 and are closed
  /// One client address's connections (0: no cap): at the cap its oldest
  /// idle (else slowest receiving) connection makes room, else 429.
  size_t max_connections_per_address = defaults::http_max_connections_per_address;
  /// Peers whose connections may begin with a PROXY v2 header naming the
  /// client; their own connections (no header) are not capped per address.
  ip_network_list trusted_proxies;
  /// Clients limited neither by max_connections_per_address nor by the
  /// slow-down of wrong tokens (by default this host's loopback addresses).
  ip_network_list exempt_addresses = ip_network_list::loopback();
  /// Connections over max_connections answered by a session that lingers
  /// until the client has closed (at most the linger); beyond this many at
  /// once, the 503 is sent as the connection is accepted and it is closed at
  /// once, so a flood costs neither memory nor descriptors.
  size_t max_lingering_rejections = 256;
  /// stop(): how long sessions may take to finish the response in flight
  /// (including a pending lookup) before they are answered 503 / closed.
  std::chrono::milliseconds drain_timeout{defaults::http_shutdown_timeout_ms};
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
  /// Runs each io_context on a std::thread of its own (with io_contexts
  /// given: only registers each io thread's metrics slot); returns at once.
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
