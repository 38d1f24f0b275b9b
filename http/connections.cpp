// SPDX-License-Identifier: Apache-2.0
#include "http/detail/connections.hpp"

#include <algorithm>
#include <ctime>
#include <string>
#include <thread>

#include <boost/beast/core/bind_handler.hpp>

#include "http/detail/session.hpp"

namespace restcache::http::detail {

void callback_gate::close() noexcept {
  open_.store(false, std::memory_order_seq_cst);
  while (users_.load(std::memory_order_seq_cst) != 0)
    std::this_thread::yield();
}

bool session_registry::add(const std::shared_ptr<session>& s) {
  std::lock_guard lk{mtx_};
  if (stopping_.load(std::memory_order_relaxed))
    return false;
  sessions_.emplace(s.get(), s);
  return true;
}

void session_registry::remove(const session* s) noexcept {
  std::lock_guard lk{mtx_};
  sessions_.erase(s);
  if (sessions_.empty())
    cv_.notify_all();
}

std::vector<std::shared_ptr<session>> session_registry::begin_stop() {
  {
    std::lock_guard lk{mtx_};
    stopping_.store(true, std::memory_order_release);
  }
  return snapshot();
}

std::vector<std::shared_ptr<session>> session_registry::snapshot() {
  std::vector<std::shared_ptr<session>> out;
  std::vector<std::weak_ptr<session>> weak;
  {
    std::lock_guard lk{mtx_};
    weak.reserve(sessions_.size());
    for (auto& [ptr, w] : sessions_)
      weak.push_back(w);
  }
  // lock() outside the mutex: a failed lock is a session in its destructor,
  // and the last shared_ptr must never be dropped while we hold mtx_.
  out.reserve(weak.size());
  for (auto& w : weak)
    if (auto s = w.lock())
      out.push_back(std::move(s));
  return out;
}

bool session_registry::wait_empty_for(std::chrono::milliseconds d) {
  std::unique_lock lk{mtx_};
  return cv_.wait_for(lk, d, [this] { return sessions_.empty(); });
}

server_core::server_core(server_options o, cache_gateway& g)
  : opts(std::move(o)), gateway(g),
    linger(std::min(opts.read_timeout, std::chrono::milliseconds{1000})) {
  lookup_timeout_detail =
    "the cache did not answer within " + std::to_string(opts.lookup_timeout.count()) + " ms";
  body_limit_detail =
    "the request body exceeds the limit of " + std::to_string(opts.body_limit) + " bytes";
}

// ---- deadlines -------------------------------------------------------------------

connection_sweep::connection_sweep(net::io_context& ioc, std::chrono::milliseconds tick)
  : timer_(ioc), tick_(tick) {
}

void connection_sweep::add(const std::shared_ptr<session>& s) {
  sessions_.push_back(s);
}

void connection_sweep::start() {
  arm();
}

void connection_sweep::arm() {
  timer_.expires_after(tick_);
  timer_.async_wait(beast::bind_front_handler(&connection_sweep::on_tick, shared_from_this()));
}

void connection_sweep::on_tick(beast::error_code ec) {
  if (ec)
    return;
  auto now = coarse_clock::now();
  // Gone connections leave; the order of the others does not matter.
  for (size_t i = 0; i < sessions_.size();) {
    if (auto s = sessions_[i].lock()) {
      s->check_deadline(now);
      ++i;
    } else {
      sessions_[i] = std::move(sessions_.back());
      sessions_.pop_back();
    }
  }
  arm();
}

} // namespace restcache::http::detail
