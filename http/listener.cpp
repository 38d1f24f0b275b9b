// SPDX-License-Identifier: Apache-2.0
#include "http/detail/listener.hpp"
#include "http/detail/session.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <stdexcept>

#include <unistd.h>

#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>
#include <boost/beast/core/bind_handler.hpp>

#include "http/wire_format.hpp"

namespace restcache::http::detail {

namespace {

/// Accept errors that mean "out of descriptors or memory": retrying at once
/// would spin, so wait a little.
bool is_resource_error(const beast::error_code& ec) {
  if (ec.category() != boost::system::system_category())
    return false;
  int v = ec.value();
  return v == EMFILE || v == ENFILE || v == ENOBUFS || v == ENOMEM;
}

std::string endpoint_text(const tcp::endpoint& ep) {
  auto addr = ep.address().to_string();
  if (ep.address().is_v6())
    addr = "[" + addr + "]";
  return addr + ":" + std::to_string(ep.port());
}

/// How often a sweep looks at its connections: a quarter of the shortest
/// limit it enforces, between 5 and 250 ms (a limit is kept within that).
std::chrono::milliseconds sweep_tick(const server_core& core) {
  auto shortest = std::min(core.opts.read_timeout, core.linger);
  return std::clamp(shortest / 4, std::chrono::milliseconds{5}, std::chrono::milliseconds{250});
}

} // namespace

listener::listener(net::io_context& ioc, server_core& core)
  : ioc_(ioc), core_(core), sweep_(std::make_shared<connection_sweep>(ioc, sweep_tick(core))),
    acceptor_(ioc.get_executor()), retry_timer_(acceptor_.get_executor()) {
}

void listener::open(const tcp::endpoint& ep) {
  beast::error_code ec;
  auto fail = [&](const char* what) {
    beast::error_code ignored;
    acceptor_.close(ignored);
    throw std::runtime_error("http: cannot " + std::string{what} + " " + endpoint_text(ep) + ": " +
                             ec.message());
  };
  acceptor_.open(ep.protocol(), ec);
  if (ec)
    fail("open a socket for");
  acceptor_.set_option(net::socket_base::reuse_address(true), ec);
  if (ec)
    fail("set SO_REUSEADDR on");
  acceptor_.bind(ep, ec);
  if (ec)
    fail("bind");
  acceptor_.listen(net::socket_base::max_listen_connections, ec);
  if (ec)
    fail("listen on");
  auto local = acceptor_.local_endpoint(ec);
  if (ec)
    fail("read the local endpoint of");
  port_ = local.port();
}

void listener::open_shared(listener& first) {
  int fd = ::dup(first.acceptor_.native_handle());
  if (fd < 0)
    throw std::runtime_error("http: cannot share the listening socket: " + std::string{std::strerror(errno)});
  beast::error_code ec;
  acceptor_.assign(first.acceptor_.local_endpoint(ec).protocol(), fd, ec);
  if (ec) {
    ::close(fd);
    throw std::runtime_error("http: cannot share the listening socket: " + ec.message());
  }
  port_ = first.port_;
}

uint16_t listener::port() const {
  return port_;
}

void listener::run() {
  net::dispatch(acceptor_.get_executor(), [self = shared_from_this()] {
    self->sweep_->start();
    self->do_accept();
  });
}

void listener::close() {
  net::post(acceptor_.get_executor(), [self = shared_from_this()] {
    beast::error_code ec;
    self->acceptor_.cancel(ec);
    self->acceptor_.close(ec);
    self->retry_timer_.cancel();
    // The sweep goes on: connections still finishing keep their limits. It
    // ends with its io_context (it holds nothing but weak references).
  });
}

void listener::start_session(socket_type&& socket, const ip_address& peer, bool reject) {
  auto s = std::make_shared<session>(std::move(socket), peer, core_, reject);
  sweep_->add(s); // this listener's io thread is the connection's, and its sweep's
  s->run();
}

void listener::do_accept() {
  if (!acceptor_.is_open() || core_.registry.stopping())
    return;
  // The connection lives on this listener's io thread.
  acceptor_.async_accept(ioc_.get_executor(), peer_,
                         beast::bind_front_handler(&listener::on_accept, shared_from_this()));
}

void listener::reject_at_once(socket_type&& socket) {
  request_state st;
  reply r;
  core_.handler.over_limit_reply(st, r);
  std::string text;
  serialize_head(text, r, st.version, st.request_id, false);
  text.append(r.body);
  beast::error_code ec;
  socket.non_blocking(true, ec);
  // A new connection's send buffer is empty: the answer (under 1 KB) goes in
  // whole, or the connection is already gone.
  socket.send(net::buffer(text), 0, ec);
  core_.account(st.metric_route, r.status, 0, [&](logging::access_entry& e) {
    e.remote = peer_.address().to_string();
    e.version = st.version;
    e.bytes = r.body.size();
    e.request_id = st.request_id;
  });
  socket.shutdown(tcp::socket::shutdown_send, ec);
  // Read what the client has sent so far: closing with unread bytes would
  // send a reset instead of the FIN, and a reset can destroy the answer in
  // flight. A request arriving after the close may still meet one.
  std::array<char, 2048> sink;
  for (int i = 0; i < 8; ++i) {
    socket.receive(net::buffer(sink), 0, ec);
    if (ec)
      break; // would_block (nothing more yet), eof, or an error
  }
  socket.close(ec);
}

void listener::on_accept(beast::error_code ec, socket_type socket) {
  if (ec) {
    if (ec == net::error::operation_aborted || !acceptor_.is_open() || core_.registry.stopping())
      return;
    if (is_resource_error(ec)) {
      retry_timer_.expires_after(std::chrono::milliseconds{50});
      retry_timer_.async_wait([self = shared_from_this()](beast::error_code tec) {
        if (!tec)
          self->do_accept();
      });
      return;
    }
    return do_accept(); // e.g. ECONNABORTED: the next connection is fine
  }
  beast::error_code ignored;
  socket.set_option(tcp::no_delay(true), ignored);
  const auto addr = peer_.address();
  const auto peer = addr.is_v4() ? ip_address::v4(addr.to_v4().to_uint())
                                 : ip_address::v6(addr.to_v6().to_bytes().data());
  core_.metrics.connections_accepted.fetch_add(1, std::memory_order_relaxed);
  // A place is taken before the session exists, in one atomic step: with an
  // acceptor per io thread, a load-then-increment would let two of them
  // both take the last place. The session gives it back when it goes.
  auto open = core_.metrics.connections_open.fetch_add(1, std::memory_order_relaxed);
  if (open >= 0 && size_t(open) >= core_.opts.max_connections) {
    core_.metrics.connections_open.fetch_sub(1, std::memory_order_relaxed);
    core_.metrics.connections_rejected.fetch_add(1, std::memory_order_relaxed);
    if (core_.rejecting.load(std::memory_order_relaxed) >= int64_t(core_.opts.max_lingering_rejections))
      reject_at_once(std::move(socket));
    else
      start_session(std::move(socket), peer, true);
  } else {
    start_session(std::move(socket), peer, false);
  }
  do_accept();
}

} // namespace restcache::http::detail
