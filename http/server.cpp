// SPDX-License-Identifier: Apache-2.0
#include "http/server.hpp"

#include <algorithm>
#include <stdexcept>
#include <thread>
#include <vector>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/ip/address.hpp>
#include <boost/asio/post.hpp>
#include <spdlog/spdlog.h>

#include "http/detail/listener.hpp"
#include "http/detail/session.hpp"

namespace restcache::http {

using namespace detail;

struct server::impl {
  impl(server_options o, cache_gateway& g) : core(std::move(o), g) {
    if (core.opts.io_contexts.empty()) {
      for (int i = 0; i < std::max(1, core.opts.threads); ++i)
        // One thread runs it and uses its sockets (see io_scheduler's
        // contexts): no reactor I/O locks, posts from that thread stay local.
        own.push_back(std::make_unique<net::io_context>(BOOST_ASIO_CONCURRENCY_HINT_UNSAFE_IO));
      for (auto& c : own)
        contexts.push_back(c.get());
    } else {
      contexts = core.opts.io_contexts;
    }
  }

  // Declaration order is destruction order in reverse: the io_contexts (and
  // the sessions their pending handlers still own) go before the core they
  // point into.
  server_core core;
  std::vector<std::unique_ptr<net::io_context>> own; ///< when no io_contexts were given
  std::vector<net::io_context*> contexts;            ///< one acceptor each
  std::vector<net::executor_work_guard<net::io_context::executor_type>> work;
  std::vector<std::shared_ptr<listener>> acceptors;
  uint16_t port = 0; ///< bound, kept once the listeners are gone
  std::vector<std::thread> threads;
  std::mutex lifecycle; ///< start/run_threads/stop
  bool started = false;
  bool stopped = false;

  tcp::endpoint resolve() const {
    const auto& o = core.opts;
    beast::error_code ec;
    auto addr = net::ip::make_address(o.address, ec);
    if (!ec)
      return {addr, o.port};
    tcp::resolver resolver{*contexts.front()};
    auto results = resolver.resolve(o.address, std::to_string(o.port), ec);
    if (ec || results.empty())
      throw std::runtime_error("http: cannot resolve listen address '" + o.address +
                               "': " + (ec ? ec.message() : std::string{"no address"}));
    return results.begin()->endpoint();
  }

  static void run_one_thread(net::io_context& ioc) {
    for (;;) {
      try {
        ioc.run();
        return;
      } catch (const std::exception& e) {
        // A handler threw: log, keep serving the other connections.
        spdlog::error("http: unexpected exception in an asio handler: {}", e.what());
      } catch (...) {
        spdlog::error("http: unexpected non-standard exception in an asio handler");
      }
    }
  }
};

server::server(server_options opts, cache_gateway& gateway)
  : impl_(std::make_unique<impl>(std::move(opts), gateway)) {
}

server::~server() {
  stop();
}

void server::start() {
  std::lock_guard lk{impl_->lifecycle};
  auto& d = *impl_;
  if (d.started)
    throw std::runtime_error("http: server already started");
  if (d.stopped)
    throw std::runtime_error("http: server was stopped and cannot be restarted");
  auto ep = d.resolve();
  for (auto* ioc : d.contexts) {
    auto l = std::make_shared<listener>(*ioc, d.core);
    if (d.acceptors.empty())
      l->open(ep); // throws with a clear message
    else
      l->open_shared(*d.acceptors.front());
    d.acceptors.push_back(std::move(l));
  }
  d.port = d.acceptors.front()->port();
  for (auto& c : d.own)
    d.work.emplace_back(c->get_executor());
  for (auto& l : d.acceptors)
    l->run();
  d.started = true;
}

uint16_t server::bound_port() const {
  return impl_->acceptors.empty() ? impl_->port : impl_->acceptors.front()->port();
}

void server::run_threads() {
  std::lock_guard lk{impl_->lifecycle};
  auto& d = *impl_;
  if (!d.started)
    throw std::runtime_error("http: run_threads() before start()");
  if (d.stopped || !d.threads.empty())
    return;
  if (d.own.empty()) {
    // Threads of the io scheduler: each takes its metrics slot on its own.
    for (auto* ioc : d.contexts)
      net::post(*ioc, [&core = d.core] { core.metrics.register_this_thread(); });
    return;
  }
  d.threads.reserve(d.own.size());
  for (auto& c : d.own)
    d.threads.emplace_back([&d, ioc = c.get()] {
      d.core.metrics.register_this_thread();
      impl::run_one_thread(*ioc);
    });
}

void server::stop() {
  std::lock_guard lk{impl_->lifecycle};
  auto& d = *impl_;
  if (d.stopped)
    return;
  d.stopped = true;
  // From now on new sessions close at once and the listeners stop accepting.
  auto sessions = d.core.registry.begin_stop();
  for (auto& l : d.acceptors)
    l->close();
  const bool running = !d.threads.empty() || (d.own.empty() && d.started);
  if (running) {
    // Idle connections close now; a response in flight (also one waiting for
    // the cache) is finished and then its connection closes.
    for (auto& s : sessions)
      s->begin_shutdown();
    sessions.clear(); // our references must not keep sessions alive
    if (!d.core.registry.wait_empty_for(d.core.opts.drain_timeout)) {
      spdlog::warn("http: connections still busy after {} ms; closing them",
                   d.core.opts.drain_timeout.count());
      for (auto& s : d.core.registry.snapshot())
        s->force_close();
      if (!d.core.registry.wait_empty_for(std::chrono::milliseconds{1000}))
        spdlog::warn("http: some connections did not close in time; dropping them");
    }
  }
  sessions.clear();
  // Reply callbacks still on their way (in CAF mailboxes) find the gate
  // closed and touch nothing from now on.
  d.core.gate->close();
  d.work.clear();
  for (auto& c : d.own)
    c->stop();
  for (auto& t : d.threads)
    if (t.joinable())
      t.join();
  d.threads.clear();
  // The listeners are asio objects of their io_contexts: given ones may go
  // before this server (the io scheduler ends with the actor system), so
  // drop them now; a handler still queued keeps its listener until it runs
  // or its io_context destroys it. Handlers still queued on our own
  // io_contexts (and the sessions they own) are destroyed with them, in
  // ~impl while the core is still alive; on given io_contexts, when their
  // owner destroys them.
  d.acceptors.clear();
}

const http_metrics& server::metrics() const {
  return impl_->core.metrics;
}

} // namespace restcache::http
