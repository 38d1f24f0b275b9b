// SPDX-License-Identifier: Apache-2.0
#pragma once

// The acceptor of http::server, one per io thread. Beast internals: included
// only by http/*.cpp, never from another header.

#include <cstdint>
#include <memory>

#include "http/detail/connections.hpp"

namespace restcache::http::detail {

/// Accepts connections on one io thread; each stays on that thread.
class listener : public std::enable_shared_from_this<listener> {
public:
  listener(net::io_context& ioc, server_core& core);
  /// Opens, binds and listens; throws std::runtime_error naming the endpoint.
  void open(const tcp::endpoint& ep);
  /// Accepts on `first`'s listening socket too (a duplicate descriptor), from
  /// this listener's io thread: one acceptor per io thread, and whichever
  /// thread is free takes the next connection. (SO_REUSEPORT would also let
  /// a second daemon bind the port unnoticed.)
  void open_shared(listener& first);
  uint16_t port() const;
  void run();
  /// Closes the acceptor on its io thread (error-code overloads only).
  void close();

private:
  void do_accept();
  void on_accept(beast::error_code ec, socket_type socket);
  /// A session for the connection, checked by this thread's sweep.
  void start_session(socket_type&& socket, const ip_address& peer, bool reject);
  /// Over the limit with max_lingering_rejections sessions lingering
  /// already: answers 503 and closes without a session.
  void reject_at_once(socket_type&& socket);

  net::io_context& ioc_;
  server_core& core_;
  std::shared_ptr<connection_sweep> sweep_;
  tcp::acceptor acceptor_;
  net::steady_timer retry_timer_;
  uint16_t port_ = 0;
  /// The peer of the connection being accepted (one accept at a time): the
  /// accept call fills it, no getpeername() needed.
  tcp::endpoint peer_;
};

} // namespace restcache::http::detail
