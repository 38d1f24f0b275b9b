#include "http/server.hpp"

#include <algorithm>
#include <stdexcept>
#include <thread>
#include <vector>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/ip/address.hpp>
#include <spdlog/spdlog.h>

#include "http/detail/session.hpp"

namespace restcache::http {

using namespace detail;

struct server::impl {
  impl(server_options o, cache_gateway& g)
    : core(std::move(o), g), ioc(std::max(1, core.opts.threads)) {
  }

  // Declaration order is destruction order in reverse: the io_context (and
  // the sessions its pending handlers still own) goes before the core they
  // point into.
  server_core core;
  net::io_context ioc;
  std::optional<net::executor_work_guard<net::io_context::executor_type>> work;
  std::shared_ptr<listener> acceptor;
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
    tcp::resolver resolver{const_cast<net::io_context&>(ioc)};
    auto results = resolver.resolve(o.address, std::to_string(o.port), ec);
    if (ec || results.empty())
      throw std::runtime_error("http: cannot resolve listen address '" + o.address +
                               "': " + (ec ? ec.message() : std::string{"no address"}));
    return results.begin()->endpoint();
  }

  void run_one_thread() {
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
  if (impl_->started)
    throw std::runtime_error("http: server already started");
  if (impl_->stopped)
    throw std::runtime_error("http: server was stopped and cannot be restarted");
  auto ep = impl_->resolve();
  auto l = std::make_shared<listener>(impl_->ioc, impl_->core);
  l->open(ep); // throws with a clear message
  impl_->acceptor = std::move(l);
  impl_->work.emplace(impl_->ioc.get_executor());
  impl_->acceptor->run();
  impl_->started = true;
}

uint16_t server::bound_port() const {
  return impl_->acceptor ? impl_->acceptor->port() : 0;
}

void server::run_threads() {
  std::lock_guard lk{impl_->lifecycle};
  if (!impl_->started)
    throw std::runtime_error("http: run_threads() before start()");
  if (impl_->stopped || !impl_->threads.empty())
    return;
  const int n = std::max(1, impl_->core.opts.threads);
  impl_->threads.reserve(size_t(n));
  for (int i = 0; i < n; ++i)
    impl_->threads.emplace_back([this] {
      impl_->core.metrics.register_this_thread();
      impl_->run_one_thread();
    });
}

void server::stop() {
  std::lock_guard lk{impl_->lifecycle};
  auto& d = *impl_;
  if (d.stopped)
    return;
  d.stopped = true;
  // From now on new sessions close at once and the listener stops accepting.
  auto sessions = d.core.registry.begin_stop();
  if (d.acceptor)
    d.acceptor->close();
  if (!d.threads.empty()) {
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
  d.work.reset();
  d.ioc.stop();
  for (auto& t : d.threads)
    if (t.joinable())
      t.join();
  d.threads.clear();
  // Handlers still queued (and the sessions they own) are destroyed with the
  // io_context, which happens in ~impl while the core is still alive.
}

const http_metrics& server::metrics() const {
  return impl_->core.metrics;
}

} // namespace restcache::http
