// SPDX-License-Identifier: Apache-2.0
#include "http/detail/session.hpp"

#include <algorithm>
#include <array>
#include <string>

#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/bind_handler.hpp>
#include <boost/beast/http/error.hpp>

#include "http/proxy_header.hpp"
#include "http/wire_format.hpp"

namespace restcache::http::detail {

namespace {

/// Largest amount read and discarded after our last response.
constexpr std::size_t max_drain_bytes = 1 << 20;

/// Request line plus header fields (Beast's default, stated here so the 431
/// detail names it).
constexpr std::uint32_t header_limit = 8 * 1024;
/// What a connection keeps between requests of the read buffer a body
/// grew: a header and one read beyond it.
constexpr std::size_t kept_buffer_capacity = 16 * 1024;

/// A body buffer larger than this is freed once parsed, not kept for the
/// connection's next request (a small write's is kept: no allocation).
constexpr std::size_t kept_body_capacity = 4 * 1024;

bool is_http_error(const beast::error_code& ec) {
  return ec.category() == bhttp::make_error_code(bhttp::error::end_of_stream).category();
}

} // namespace

// ---- session -----------------------------------------------------------------

session::session(socket_type&& socket, const ip_address& peer, server_core& core, bool reject)
  : core_(core), stream_(std::move(socket)), lookup_timer_(stream_.get_executor()), client_(peer),
    reject_(reject) {
  body_.attach(core_.metrics.body_bytes_held, static_cast<int64_t>(core_.opts.body_budget));
  // A served connection's place in connections_open was taken by the
  // listener; this gives it back.
  if (reject_)
    core_.rejecting.fetch_add(1, std::memory_order_relaxed);
}

session::~session() {
  core_.registry.remove(this);
  if (slot_taken_)
    core_.slots.leave(slot_key_, this);
  if (reject_)
    core_.rejecting.fetch_sub(1, std::memory_order_relaxed);
  else
    core_.metrics.connections_open.fetch_sub(1, std::memory_order_relaxed);
}

void session::run() {
  // The socket's executor is this connection's io thread: start there.
  net::dispatch(stream_.get_executor(),
                beast::bind_front_handler(&session::on_run, shared_from_this()));
}

void session::begin_shutdown() {
  net::post(stream_.get_executor(), [self = shared_from_this()] { self->on_shutdown(false); });
}

void session::force_close() {
  net::post(stream_.get_executor(), [self = shared_from_this()] { self->on_shutdown(true); });
}

void session::check_deadline(coarse_clock::time_point now) {
  if (now < deadline_)
    return;
  switch (state_) {
    case state::reading: // idle keep-alive, or a request arriving too slowly
      if (request_started_)
        core_.metrics.request_timeouts.fetch_add(1, std::memory_order_relaxed);
      return finish();    // the pending read ends with operation_aborted
    case state::writing: // a client that does not read its answer
    case state::closing: // lingering after our last response
      return finish();   // the pending operation ends with operation_aborted
    case state::awaiting_lookup:
    case state::queued: // for a moment: the next request is being started
    case state::closed:
      return;
  }
}

void session::on_run() {
  if (!core_.registry.add(shared_from_this()))
    return finish(); // accepted while stop() began
  if (core_.opts.access_log)
    remote_ = client_.text();
  if (reject_) {
    started_ = steady::now();
    core_.handler.over_limit_reply(st_, reply_);
    return send_reply();
  }
  // A balancer's client is known once its header is read.
  if (core_.opts.trusted_proxies.contains(client_))
    proxy_pending_ = true;
  else if (!limit_per_address())
    return;
  do_read();
}

bool session::limit_per_address() {
  if (core_.opts.exempt_addresses.contains(client_))
    return true; // this host's own (a reverse proxy carrying many clients, tools)
  slot_key_ = client_.client_key();
  st_.client = &slot_key_; // wrong tokens are slowed per address
  switch (core_.slots.admit(slot_key_, shared_from_this())) {
    case address_slots::admission::shed_one:
      core_.metrics.connections_shed.fetch_add(1, std::memory_order_relaxed);
      [[fallthrough]];
    case address_slots::admission::admitted:
      slot_taken_ = true;
      return true;
    case address_slots::admission::refused:
      break;
  }
  core_.metrics.connections_refused_per_address.fetch_add(1, std::memory_order_relaxed);
  started_ = steady::now();
  core_.handler.refused_connection_reply(
    make_problem(429, "this client address has " + std::to_string(core_.slots.per_address())
                        + " connections open, each of them busy (http.max-connections-per-address)"),
    st_, reply_);
  send_reply();
  return false;
}

bool session::take_proxy_header() {
  auto h = read_proxy_header(static_cast<const uint8_t*>(buffer_.data().data()), buffer_.size());
  switch (h.result) {
    case proxy_header::outcome::incomplete:
      // Its bytes are the request's first: the request deadline bounds it.
      request_started_ = true;
      read_more();
      return false;
    case proxy_header::outcome::invalid:
      proxy_pending_ = false;
      reject_request(400, h.error);
      return false;
    case proxy_header::outcome::absent: // the balancer's own request (a check, a tool): not capped
      proxy_pending_ = false;
      return true;
    case proxy_header::outcome::local:
      proxy_pending_ = false;
      buffer_.consume(h.length);
      return true;
    case proxy_header::outcome::proxied:
      break;
  }
  proxy_pending_ = false;
  buffer_.consume(h.length);
  client_ = h.client;
  core_.metrics.connections_proxied.fetch_add(1, std::memory_order_relaxed);
  if (core_.opts.access_log)
    remote_ = client_.text();
  return limit_per_address();
}

void session::shed() {
  net::post(stream_.get_executor(), [self = shared_from_this()] { self->on_shed(); });
}

void session::on_shed() {
  switch (state_) {
    case state::reading: // idle, or a request (or body) arriving
      return finish();
    case state::awaiting_lookup:
      st_.keep_alive = false; // the answer says the connection closes
      [[fallthrough]];
    case state::queued:
    case state::writing:
      shed_pending_ = true;
      return;
    case state::closing:
    case state::closed:
      return;
  }
}

void session::on_shutdown(bool force) {
  switch (state_) {
    case state::reading: // idle keep-alive or a request still arriving
    case state::closing: // draining after our last response
      return finish();
    case state::awaiting_lookup:
      st_.keep_alive = false; // the answer, when it comes, closes the connection
      if (force) {
        lookup_pending_ = false; // a late reply is now ignored
        send_problem(make_problem(503, "the server is shutting down"));
      }
      return;
    case state::queued: // responses held back: they go out, then the connection closes
      st_.keep_alive = false;
      return force ? finish() : write_pending(false);
    case state::writing:
      if (force)
        finish();
      return; // otherwise on_write closes, as the registry says stopping
    case state::closed:
      return;
  }
}

// ---- reading a request ------------------------------------------------------------

void session::do_read() {
  state_ = state::reading;
  st_.request_id.clear();
  // What a write's body grew of the read buffer is not kept for the
  // connection's life: the bound a connection holds (docs/operating.md,
  // "Security") counts none.
  if (buffer_.capacity() > kept_buffer_capacity && buffer_.size() <= kept_buffer_capacity)
    buffer_.shrink_to_fit();
  // The last request's share of the body budget went back with its answer
  // (send_reply), and a large body's buffer once it was parsed.
  parser_.emplace(request_, body_);
  parser_->set_body_limit(core_.opts.body_limit);
  parser_->header_limit(header_limit);
  // The header alone first: a body is read only once admit_body() has seen
  // where it goes and who sends it.
  parser_->eager(false);
  header_checked_ = false;
  request_started_ = false;
  // Idle keep-alive: set once here, never moved by what arrives.
  const auto now = coarse_clock::now();
  idle_deadline_ = now + core_.opts.read_timeout;
  set_phase(phase::idle, now.time_since_epoch().count());
  deadline_ = idle_deadline_;
  parse_buffered();
}

bool session::skip_empty_lines() {
  // RFC 9112 2.2: empty lines before a request line are ignored (some
  // clients send a CRLF after a POST body).
  while (buffer_.size() > 0) {
    auto data = static_cast<const char*>(buffer_.data().data());
    if (data[0] == '\n') {
      buffer_.consume(1);
    } else if (data[0] == '\r') {
      if (buffer_.size() < 2)
        return false; // a lone CR: wait for what follows
      if (data[1] != '\n')
        return true; // the parser refuses it
      buffer_.consume(2);
    } else {
      return true;
    }
  }
  return true;
}

void session::parse_buffered() {
  // The parser is fed straight from the connection's buffer (not Beast's
  // generic read operation): a pipelined request that arrived with the one
  // before is parsed without a read.
  while (buffer_.size() > 0) {
    if (proxy_pending_) {
      if (!take_proxy_header())
        return;
      continue;
    }
    if (!request_started_) {
      auto first = *static_cast<const char*>(buffer_.data().data());
      if ((first == '\r' || first == '\n') && (!skip_empty_lines() || buffer_.size() == 0))
        break;
      // The request's own deadline runs from its first byte; it is set by
      // read_more(), only when the request did not arrive whole at once.
      request_started_ = true;
      request_deadline_ = {};
      set_phase(phase::receiving); // since: when it went idle
    }
    beast::error_code ec;
    auto used = parser_->put(buffer_.data(), ec);
    buffer_.consume(used);
    if (ec == bhttp::error::need_more) {
      // Past the header, what the parser leaves is a chunk header or the
      // trailer not yet whole (a body's bytes are taken as they come):
      // Beast bounds neither, so they are bounded here like a header.
      if (header_checked_ && buffer_.size() > header_limit)
        return reject_unbounded_chunk_line();
      break;
    }
    if (ec)
      return on_read_error(ec);
    if (!header_checked_ && parser_->is_header_done()) {
      header_checked_ = true;
      if (!admit_body())
        return; // refused, or the client is told to go on (100 Continue)
    }
    if (parser_->is_done())
      return handle_request();
    if (used == 0)
      break;
  }
  // Responses held back go out before waiting for a client that may be
  // waiting for them.
  if (!out_.empty())
    return write_pending(true);
  read_more();
}

bool session::admit_body() {
  if (parser_->is_done() && !request_.has_expect)
    return true; // nearly every request: no body, nothing more to look at
  const auto length = parser_->content_length();
  const bool announces_body = parser_->chunked() || (length && *length > 0);
  started_ = steady::now();
  reply_.clear();
  if (!core_.handler.admit_body(request_, announces_body, st_, reply_)) {
    send_reply(); // keep_alive is off: the body is never read
    return false;
  }
  if (length && !body_.has_room(static_cast<int64_t>(*length))) {
    core_.metrics.body_budget_refusals.fetch_add(1, std::memory_order_relaxed);
    send_problem(make_problem(503, body_budget_refusal));
    return false;
  }
  parser_->eager(true); // the body, as far as it has arrived
  // 100 Continue only now that the route and the credentials have passed,
  // and only to a client still waiting for it.
  if (announces_body && request_.has_expect && request_.version == 11 && buffer_.size() == 0) {
    static constexpr std::string_view continue_line = "HTTP/1.1 100 Continue\r\n\r\n";
    state_ = state::writing;
    deadline_ = request_deadline();
    net::async_write(stream_, net::buffer(continue_line.data(), continue_line.size()),
                     [self = shared_from_this()](beast::error_code ec, std::size_t) {
                       if (self->state_ != state::writing)
                         return; // closed meanwhile
                       if (ec)
                         return self->finish();
                       self->state_ = state::reading;
                       self->parse_buffered();
                     });
    return false;
  }
  return true;
}

coarse_clock::time_point session::request_deadline() {
  // Set the first time the request is not whole: from now (the turn its
  // first bytes arrived in), header and body must be in by then however
  // slowly they trickle. A request that arrives whole never reads the clock.
  if (request_deadline_ == coarse_clock::time_point{})
    request_deadline_ = coarse_clock::now() + core_.opts.request_timeout;
  return request_deadline_;
}

void session::read_more() {
  state_ = state::reading;
  deadline_ = request_started_ ? request_deadline() : idle_deadline_;
  // A body that was let in and sends nothing loses its connection (and
  // its share of the body budget) well before the request's deadline.
  if (header_checked_ && !parser_->is_done())
    deadline_ = std::min(deadline_, coarse_clock::now() + core_.opts.body_idle_timeout);
  // At least 4 KB of room: a whole keep-alive request in one read.
  auto room = std::clamp<std::size_t>(buffer_.capacity() - buffer_.size(), 4096, 65536);
  stream_.async_read_some(buffer_.prepare(room),
                          beast::bind_front_handler(&session::on_read, shared_from_this()));
}

void session::on_read(beast::error_code ec, std::size_t bytes) {
  if (state_ != state::reading)
    return; // closed by stop()
  if (ec == net::error::eof) {
    // Between requests: the client is done. Mid-request: it gave up.
    return do_close();
  }
  if (ec)
    return finish(); // reset, aborted (also by the sweep: the read took too long)
  buffer_.commit(bytes);
  parse_buffered();
}

void session::reject_unbounded_chunk_line() {
  // The last chunk ("0") is parsed with the trailer after it: a whole first
  // line naming size 0 means the trailer is what grows.
  auto data = std::string_view{static_cast<const char*>(buffer_.data().data()), buffer_.size()};
  auto line_end = data.find("\r\n");
  const bool trailer = line_end != std::string_view::npos && data.substr(0, std::min(line_end, data.find(';')))
                                                                 .find_first_not_of('0') == std::string_view::npos;
  buffer_.clear();
  if (trailer)
    return reject_request(431, "the chunked body's trailer exceeds the limit of " + std::to_string(header_limit)
                                 + " bytes");
  reject_request(400, "a chunk header (its size and extensions) exceeds the limit of " + std::to_string(header_limit)
                        + " bytes");
}

void session::on_read_error(beast::error_code ec) {
  if (ec == bhttp::error::end_of_stream || ec == bhttp::error::partial_message)
    return do_close(); // the client closed (mid-request or between requests)
  if (auto& refused = parser_->refused(); refused.status != 0) {
    if (refused.status == 503)
      core_.metrics.body_budget_refusals.fetch_add(1, std::memory_order_relaxed);
    return reject_request(refused.status, refused.detail);
  }
  if (ec == bhttp::error::body_limit)
    return reject_request(413, core_.body_limit_detail);
  if (ec == bhttp::error::header_limit)
    return reject_request(431, "the request header exceeds the limit of " +
                                 std::to_string(header_limit) + " bytes");
  if (is_http_error(ec)) {
    std::string detail = "malformed HTTP request: " + ec.message();
    return reject_request(400, detail);
  }
  finish(); // reset, aborted (also by the sweep: the read took too long)
}

void session::reject_request(unsigned status, std::string_view detail) {
  core_.metrics.bad_requests.fetch_add(1, std::memory_order_relaxed);
  started_ = steady::now();
  st_.metric_route = unrouted_metric_route;
  st_.version = parser_ && parser_->is_header_done() ? request_.version : 11;
  if (st_.version != 10 && st_.version != 11)
    st_.version = 11;
  st_.keep_alive = false; // the stream is not in a known state any more
  st_.head = false;
  // Echo the client's id on a 413 or 431 as on any answer: the fields read
  // so far are in the message even when the header did not complete (Beast
  // reports an announced Content-Length over the limit before it does).
  if (parser_)
    request_handler::take_request_id(request_, st_.request_id);
  send_problem(make_problem(status, detail));
}

// ---- asking the handler and the gateway ------------------------------------------

void session::handle_request() {
  set_phase(phase::busy);
  started_ = steady::now();
  reply_.clear();
  request_.body_framed = parser_->content_length().has_value() || parser_->chunked();
  auto next = core_.handler.start(request_, parser_->keep_alive() && !core_.registry.stopping(), st_, reply_);
  // The body has been parsed into the write: its text is not kept while the
  // database works, nor for the connection's next request (the reservation
  // still counts the write until answered).
  if (request_.body.capacity() > kept_body_capacity)
    std::string{}.swap(request_.body);
  proceed(next);
}

void session::proceed(next_step next) {
  switch (next) {
    case next_step::reply:
      return send_reply();
    case next_step::lookup:
      return start_lookup();
    case next_step::action: {
      auto work = std::move(st_.work);
      return work(await(&session::on_action));
    }
  }
}

template <class Result>
inline_callback<void(Result)> session::await(void (session::*on_done)(uint64_t, Result)) {
  state_ = state::awaiting_lookup;
  lookup_pending_ = true;
  const uint64_t seq = ++lookup_seq_;
  // One timer per connection, armed lazily: it is not cancelled when the
  // reply comes, only re-armed on expiry while a lookup is still pending, so
  // a busy connection pays one clock read per request, not a timer operation.
  lookup_deadline_ = steady::now() + core_.opts.lookup_timeout;
  if (!timer_armed_)
    arm_lookup_timer();
  // The callback holds the session weakly (the timer owns it while the lookup
  // is pending) and the gate strongly: after stop() it does nothing at all.
  return [weak = weak_from_this(), gate = core_.gate, seq, on_done](Result r) mutable {
    gate->run([&] {
      if (auto self = weak.lock()) {
        auto ex = self->stream_.get_executor();
        // Answered on the connection's own io thread (a shard run there):
        // resume at once, run to completion. From another thread: post.
        if (ex.running_in_this_thread())
          return ((*self).*on_done)(seq, std::move(r));
        net::post(ex, [self = std::move(self), seq, on_done, r = std::move(r)]() mutable {
          ((*self).*on_done)(seq, std::move(r));
        });
      }
    });
  };
}

void session::start_lookup() {
  auto cb = await(&session::on_lookup);
  try {
    if (st_.refill)
      core_.gateway.refill(st_.key, std::move(cb));
    else if (st_.gzip)
      core_.gateway.lookup_gzip(st_.key, std::move(cb));
    else
      core_.gateway.lookup(st_.key, std::move(cb));
  } catch (const std::exception&) {
    lookup_pending_ = false;
    send_problem(make_problem(rc_error::internal, "the cache could not be asked"));
  }
}

bool session::take_answer(uint64_t seq) noexcept {
  // Otherwise answered already (504 or shutdown), or the connection is gone.
  if (state_ != state::awaiting_lookup || !lookup_pending_ || seq != lookup_seq_)
    return false;
  lookup_pending_ = false;
  return true;
}

void session::on_lookup(uint64_t seq, lookup_result r) {
  if (take_answer(seq))
    proceed(core_.handler.on_lookup(std::move(r), st_, reply_));
}

void session::on_action(uint64_t seq, action_answer a) {
  if (take_answer(seq))
    proceed(core_.handler.on_action(std::move(a), st_, reply_));
}

void session::arm_lookup_timer() {
  timer_armed_ = true;
  lookup_timer_.expires_at(lookup_deadline_);
  lookup_timer_.async_wait(beast::bind_front_handler(&session::on_lookup_timer, shared_from_this()));
}

void session::on_lookup_timer(beast::error_code ec) {
  timer_armed_ = false;
  if (ec == net::error::operation_aborted || state_ == state::closed || !lookup_pending_)
    return;
  if (steady::now() < lookup_deadline_)
    return arm_lookup_timer(); // a later lookup is pending: wait for its deadline
  lookup_pending_ = false;     // the late reply will be dropped by on_lookup
  core_.metrics.lookup_timeouts.fetch_add(1, std::memory_order_relaxed);
  send_problem(make_problem(504, core_.lookup_timeout_detail));
}

// ---- writing the answer ----------------------------------------------------------

void session::send_problem(problem p) {
  if (st_.request_id.empty()) // rejected before a request was parsed: the log line names it too
    request_handler::fresh_request_id(st_.request_id);
  reply_.clear();
  core_.handler.problem_reply(std::move(p), st_, reply_);
  send_reply();
}

void session::send_reply() {
  set_phase(phase::busy);
  body_.release(); // the request is answered: its body and its parsed write are gone
  if (st_.request_id.empty())
    request_handler::fresh_request_id(st_.request_id); // a request rejected before it was parsed
  serialize_head(header_text_, reply_, st_.version, st_.request_id, st_.keep_alive);
  write_head_and_body(reply_.status, reply_.body);
}

void session::write_head_and_body(unsigned status, std::string_view body) {
  account_response(status, body.size());
  // More pipelined bytes are here already: this response waits to leave in
  // one write with the next ones (up to 64 KB of them).
  constexpr std::size_t max_held_back = 64 * 1024;
  const bool hold_back = buffer_.size() > 0 && st_.keep_alive && !core_.registry.stopping()
                         && out_.size() + header_text_.size() + body.size() <= max_held_back;
  if (!hold_back && out_.empty()) {
    state_ = state::writing;
    deadline_ = coarse_clock::now() + core_.opts.read_timeout;
    read_more_after_write_ = false;
    std::array<net::const_buffer, 2> buffers{net::buffer(header_text_), net::buffer(body.data(), body.size())};
    net::async_write(stream_, buffers, beast::bind_front_handler(&session::on_write, shared_from_this()));
    return;
  }
  out_ += header_text_;
  out_.append(body.data(), body.size());
  reply_.clear();
  if (!hold_back)
    return write_pending(false); // the last of a pipelined run: all of them go now
  core_.metrics.responses_coalesced.fetch_add(1, std::memory_order_relaxed);
  state_ = state::queued;
  // Posted, not called: a long pipeline must not nest handlers.
  net::post(stream_.get_executor(), [self = shared_from_this()] {
    if (self->state_ == state::queued)
      self->do_read();
  });
}

void session::write_pending(bool then_read_more) {
  state_ = state::writing;
  deadline_ = coarse_clock::now() + core_.opts.read_timeout;
  read_more_after_write_ = then_read_more;
  net::async_write(stream_, net::buffer(out_), beast::bind_front_handler(&session::on_write, shared_from_this()));
}

void session::account_response(unsigned status, size_t body_bytes) {
  auto us = std::chrono::duration_cast<std::chrono::microseconds>(steady::now() - started_).count();
  core_.account(st_.metric_route, status, us, [&](logging::access_entry& e) {
    e.remote = remote_;
    // Also for a request refused before its header was complete: what of
    // its request line was read.
    e.method = request_.method.empty() ? std::string_view{"-"} : std::string_view{request_.method};
    e.target = request_.target.empty() ? std::string_view{"-"} : std::string_view{request_.target};
    e.version = st_.version;
    e.bytes = body_bytes;
    e.request_id = st_.request_id;
  });
}

void session::on_write(beast::error_code ec, std::size_t) {
  reply_.doc.reset();
  if (state_ != state::writing)
    return; // force-closed
  if (ec)
    return finish();
  out_.clear();
  if (!st_.keep_alive || shed_pending_ || core_.registry.stopping())
    return do_close();
  if (read_more_after_write_)
    return read_more(); // the request half parsed before the write
  do_read();
}

// ---- closing -------------------------------------------------------------------

void session::do_close() {
  state_ = state::closing;
  set_phase(phase::leaving);
  beast::error_code ec;
  stream_.shutdown(tcp::socket::shutdown_send, ec);
  if (ec)
    return finish();
  // Read until the client closes too (bounded in time and bytes): closing
  // with unread data would send a reset that can destroy our last response.
  drained_ = 0;
  deadline_ = coarse_clock::now() + core_.linger;
  do_drain();
}

void session::do_drain() {
  stream_.async_read_some(buffer_.prepare(16 * 1024),
                          beast::bind_front_handler(&session::on_drain, shared_from_this()));
}

void session::on_drain(beast::error_code ec, std::size_t bytes) {
  if (state_ != state::closing)
    return;
  drained_ += bytes;
  if (ec || drained_ > max_drain_bytes)
    return finish();
  do_drain();
}

void session::finish() {
  if (state_ == state::closed)
    return;
  state_ = state::closed;
  set_phase(phase::leaving);
  lookup_pending_ = false;
  beast::error_code ec;
  stream_.shutdown(tcp::socket::shutdown_both, ec);
  stream_.close(ec);      // cancels any pending read or write
  lookup_timer_.cancel(); // releases the timer's hold on the session
  // parser_, buffer_ and reply_ stay: a cancelled operation may still use them.
}

} // namespace restcache::http::detail
