#include "http/detail/session.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cstring>
#include <ctime>
#include <thread>

#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>
#include <boost/beast/core/bind_handler.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/http/status.hpp>

#include <spdlog/spdlog.h>

#include <random>

#include "http/gzip.hpp"
#include "messages/document_gzip.hpp"
#include "messages/body_parser.hpp"

namespace restcache::http::detail {

namespace {

/// Largest amount read and discarded after our last response.
constexpr std::size_t max_drain_bytes = 1 << 20;

/// Request line plus header fields (Beast's default, stated here so the 431
/// detail names it).
constexpr std::uint32_t header_limit = 8 * 1024;

/// IMF-fixdate of now, formatted at most once a second per thread.
std::string_view http_date() {
  static constexpr const char* days[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
  static constexpr const char* months[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                           "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  thread_local std::time_t last = -1;
  thread_local char buf[40];
  thread_local int len = 0;
  std::time_t now = std::time(nullptr);
  if (now != last) {
    last = now;
    std::tm t{};
    gmtime_r(&now, &t);
    len = std::snprintf(buf, sizeof buf, "%s, %02d %s %04d %02d:%02d:%02d GMT", days[t.tm_wday % 7],
                        t.tm_mday, months[t.tm_mon % 12], t.tm_year + 1900, t.tm_hour, t.tm_min,
                        t.tm_sec);
    if (len < 0 || len >= int(sizeof buf))
      len = 0;
  }
  return {buf, size_t(len)};
}

/// A request id a client may choose: 1..128 of [A-Za-z0-9._:-] (it goes
/// into a header and the log as is).
bool sane_request_id(std::string_view id) noexcept {
  if (id.empty() || id.size() > 128)
    return false;
  for (char c : id)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-' || c == ':'))
      return false;
  return true;
}

std::string fresh_request_id() {
  // On every request without an id: 15 hex digits (60 random bits), no
  // formatting call, and short enough for the string's inline buffer of 15
  // characters (16 digits allocated on every request).
  thread_local std::mt19937_64 rng{std::random_device{}()};
  static constexpr char hex[] = "0123456789abcdef";
  constexpr size_t digits = 15;
  static_assert(digits < sizeof(std::string));
  uint64_t v = rng();
  std::string id(digits, '0');
  for (size_t i = digits; i-- > 0; v >>= 4)
    id[i] = hex[v & 15];
  return id;
}

/// application/json, with parameters (charset) or not, in any case.
bool is_json_media_type(std::string_view v) noexcept {
  auto semi = v.find(';');
  auto type = v.substr(0, semi);
  while (!type.empty() && (type.back() == ' ' || type.back() == '\t'))
    type.remove_suffix(1);
  constexpr std::string_view json = "application/json";
  if (type.size() != json.size())
    return false;
  for (size_t i = 0; i < json.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(type[i])) != json[i])
      return false;
  return true;
}

/// Compares without an early exit (the write token); only the length leaks.
bool same_secret(std::string_view given, std::string_view secret) noexcept {
  if (secret.empty())
    return false;
  unsigned char diff = given.size() == secret.size() ? 0 : 1;
  auto n = std::min(given.size(), secret.size());
  for (size_t i = 0; i < n; ++i)
    diff |= static_cast<unsigned char>(given[i] ^ secret[i]);
  return diff == 0;
}

write_op write_op_of(route_kind k) noexcept {
  switch (k) {
    case route_kind::create_dept: return write_op::create_dept;
    case route_kind::replace_dept: return write_op::replace_dept;
    case route_kind::rewrite_random_dept: return write_op::rewrite_random_dept;
    case route_kind::delete_dept: return write_op::delete_dept;
    case route_kind::create_emp: return write_op::create_emp;
    case route_kind::replace_emp: return write_op::replace_emp;
    default: return write_op::delete_emp;
  }
}

bool is_http_error(const beast::error_code& ec) {
  return ec.category() == bhttp::make_error_code(bhttp::error::end_of_stream).category();
}

} // namespace

// ---- callback_gate, session_registry, server_core ---------------------------

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

coarse_clock::time_point coarse_clock::now() noexcept {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
  return time_point{duration{int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec}};
}

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

// ---- session -----------------------------------------------------------------

session::session(socket_type&& socket, server_core& core, bool reject)
  : core_(core), stream_(std::move(socket)), lookup_timer_(stream_.get_executor()),
    reject_(reject) {
  // A served connection's place in connections_open was taken by the
  // listener; this gives it back.
  if (reject_)
    core_.rejecting.fetch_add(1, std::memory_order_relaxed);
}

session::~session() {
  core_.registry.remove(this);
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
  if (core_.opts.access_log) {
    beast::error_code ec;
    auto ep = stream_.remote_endpoint(ec);
    remote_ = ec ? std::string{"-"} : ep.address().to_string();
  }
  if (reject_) {
    started_ = steady::now();
    metric_route_ = unrouted_metric_route;
    version_ = 11;
    keep_alive_ = false;
    head_ = false;
    return send_problem(make_problem(503, "too many open connections; retry later"));
  }
  do_read();
}

void session::on_shutdown(bool force) {
  switch (state_) {
    case state::reading: // idle keep-alive or a request still arriving
    case state::closing: // draining after our last response
      return finish();
    case state::awaiting_lookup:
      keep_alive_ = false; // the answer, when it comes, closes the connection
      if (force) {
        lookup_pending_ = false; // a late reply is now ignored
        send_problem(make_problem(503, "the server is shutting down"));
      }
      return;
    case state::queued: // responses held back: they go out, then the connection closes
      keep_alive_ = false;
      return force ? finish() : write_pending(false);
    case state::writing:
      if (force)
        finish();
      return; // otherwise on_write closes, as the registry says stopping
    case state::closed:
      return;
  }
}

void session::do_read() {
  state_ = state::reading;
  request_id_.clear();
  parser_.emplace(request_);
  parser_->body_limit(core_.opts.body_limit);
  parser_->header_limit(header_limit);
  parser_->eager(true); // the body too, as far as it has arrived
  deadline_ = coarse_clock::now() + core_.opts.read_timeout;
  parse_buffered();
}

void session::parse_buffered() {
  // The parser is fed straight from the connection's buffer (not Beast's
  // generic read operation): a pipelined request that arrived with the one
  // before is parsed without a read.
  while (buffer_.size() > 0) {
    beast::error_code ec;
    auto used = parser_->put(buffer_.data(), ec);
    buffer_.consume(used);
    if (ec == bhttp::error::need_more)
      break;
    if (ec)
      return on_read_error(ec);
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

void session::read_more() {
  state_ = state::reading;
  deadline_ = coarse_clock::now() + core_.opts.read_timeout;
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

void session::on_read_error(beast::error_code ec) {
  if (ec == bhttp::error::end_of_stream || ec == bhttp::error::partial_message)
    return do_close(); // the client closed (mid-request or between requests)
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
  metric_route_ = unrouted_metric_route;
  version_ = parser_ && parser_->is_header_done() ? request_.version : 11;
  if (version_ != 10 && version_ != 11)
    version_ = 11;
  keep_alive_ = false; // the stream is not in a known state any more
  head_ = false;
  // Echo the client's id on a 413 or 431 as on any answer: the fields read
  // so far are in the message even when the header did not complete (Beast
  // reports an announced Content-Length over the limit before it does).
  if (parser_)
    take_request_id();
  send_problem(make_problem(status, detail));
}

void session::take_request_id() {
  if (request_.has_request_id && sane_request_id(request_.request_id))
    request_id_ = request_.request_id;
  else
    request_id_ = fresh_request_id();
}

void session::log_problem(unsigned status, std::string_view detail) const {
  // Errors of the server (5xx) are warnings; a client's mistakes are debug.
  if (status >= 500)
    spdlog::warn("request {}: {} {}", request_id_, status, detail);
  else
    spdlog::debug("request {}: {} {}", request_id_, status, detail);
}

void session::handle_request() {
  started_ = steady::now();
  random_tries_ = 0;
  version_ = request_.version == 10 ? 10 : 11;
  keep_alive_ = parser_->keep_alive() && !core_.registry.stopping();
  take_request_id();
  gzip_ = request_.has_accept_encoding && accepts_gzip(request_.accept_encoding);
  const route r = parse_route(request_.method, request_.target);
  metric_route_ = static_cast<uint8_t>(r.kind);
  head_ = r.head;
  switch (r.kind) {
    case route_kind::deptemps:
      return start_lookup(doc_key{doc_kind::deptemps, r.id});
    case route_kind::dept:
      return start_lookup(doc_key{doc_kind::dept, r.id});
    case route_kind::emp:
      return start_lookup(doc_key{doc_kind::emp, r.id});
    case route_kind::random_dept: {
      auto id = core_.gateway.random_dept_id();
      if (!id)
        return send_problem(make_problem(503, "no department ids are loaded yet; retry later"));
      random_tries_ = 1;
      return start_lookup(doc_key{doc_kind::deptemps, *id});
    }
    case route_kind::list_depts:
      return core_.gateway.list_depts(r.after, r.limit, await(&session::on_page));
    case route_kind::create_dept:
    case route_kind::replace_dept:
    case route_kind::rewrite_random_dept:
    case route_kind::delete_dept:
    case route_kind::create_emp:
    case route_kind::replace_emp:
    case route_kind::delete_emp:
      return start_write(r);
    case route_kind::health:
      return send_body(200, content_type_json, health_body);
    case route_kind::ready:
      return send_readiness();
    case route_kind::metrics:
      owned_body_ = core_.gateway.metrics_text();
      return send_owned(200, content_type_metrics);
    case route_kind::bad_request:
      return send_problem(make_problem(400, r.detail));
    case route_kind::method_not_allowed:
      return send_problem(make_problem(405, r.detail), r.allow);
    case route_kind::not_found:
      return send_problem(make_problem(404, r.detail));
  }
  send_problem(make_problem(rc_error::internal));
}

void session::start_write(const route& r) {
  write_op_ = write_op_of(r.kind);
  if (!core_.opts.write_token.empty()) {
    constexpr std::string_view bearer = "Bearer ";
    std::string_view given = request_.has_authorization ? std::string_view{request_.authorization} : std::string_view{};
    if (!given.starts_with(bearer) || !same_secret(given.substr(bearer.size()), core_.opts.write_token)) {
      begin_problem(make_problem(401, "writes need Authorization: Bearer <the http.write-token>"));
      res_.set(bhttp::field::www_authenticate, "Bearer realm=\"restcache\"");
      return do_write();
    }
  }
  write_request w;
  w.op = write_op_;
  w.id = r.id;
  if (request_.has_if_match)
    w.if_match = identity_etags(request_.if_match); // a gzip ETag names the same document
  if (has_body(r.kind)) {
    if (!parser_->content_length() && !parser_->chunked())
      return send_problem(make_problem(411, "a write needs a body with Content-Length (or chunked)"));
    if (!request_.has_content_type || !is_json_media_type(request_.content_type))
      return send_problem(make_problem(415, "the body must be application/json"));
    const std::string& body = request_.body;
    std::optional<int32_t> path_id = r.id > 0 ? std::optional<int32_t>{r.id} : std::nullopt;
    if (r.kind == route_kind::create_dept || r.kind == route_kind::replace_dept) {
      auto parsed = parse_dept_body(body, path_id);
      if (!parsed)
        return send_problem(make_problem(parsed.status, parsed.detail));
      w.id = parsed.value->dept.deptno;
      w.dept = std::make_shared<const dept_with_emps>(std::move(*parsed.value));
    } else {
      auto parsed = parse_emp_body(body, path_id);
      if (!parsed)
        return send_problem(make_problem(parsed.status, parsed.detail));
      w.id = parsed.value->empno;
      w.emp = std::make_shared<const emp_row>(std::move(*parsed.value));
    }
  }
  core_.gateway.write(std::move(w), await(&session::on_written));
}

// ---- the lookup and its timeout ----------------------------------------------

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

void session::start_lookup(doc_key key) {
  key_ = key;
  auto cb = await(&session::on_lookup);
  try {
    if (gzip_)
      core_.gateway.lookup_gzip(key, std::move(cb));
    else
      core_.gateway.lookup(key, std::move(cb));
  } catch (const std::exception&) {
    lookup_pending_ = false;
    send_problem(make_problem(rc_error::internal, "the cache could not be asked"));
  }
}

void session::on_page(uint64_t seq, page_result r) {
  if (state_ != state::awaiting_lookup || !lookup_pending_ || seq != lookup_seq_)
    return;
  lookup_pending_ = false;
  if (r.error != rc_error::none)
    return send_problem(make_problem(r.error));
  owned_body_ = std::move(r.body);
  const bool gz = gzip_ && owned_body_.size() >= gzip_min_bytes;
  if (gz)
    owned_body_ = gzip_compress(owned_body_);
  begin_response(200);
  res_.set(bhttp::field::content_type, content_type_json);
  res_.set(bhttp::field::vary, "Accept-Encoding");
  if (gz)
    res_.set(bhttp::field::content_encoding, "gzip");
  set_body(owned_body_);
  do_write();
}

void session::on_written(uint64_t seq, write_result r) {
  if (state_ != state::awaiting_lookup || !lookup_pending_ || seq != lookup_seq_)
    return;
  lookup_pending_ = false;
  if (r.error != rc_error::none)
    return send_problem(make_problem(r.error, r.detail));
  if (!r.applied)
    spdlog::warn("request {}: write committed, but its invalidation was not confirmed in time", request_id_);
  const bool emp = write_op_ == write_op::create_emp || write_op_ == write_op::replace_emp
                   || write_op_ == write_op::delete_emp;
  switch (write_op_) {
    case write_op::create_dept:
    case write_op::create_emp: {
      owned_body_ = std::string{emp ? "{\"empNo\":" : "{\"deptNumber\":"} + std::to_string(r.id) + "}";
      begin_response(201);
      res_.set(bhttp::field::location, (emp ? "/depts/emps/" : "/depts/") + std::to_string(r.id));
      res_.set(bhttp::field::content_type, content_type_json);
      set_body(owned_body_);
      return do_write();
    }
    case write_op::rewrite_random_dept:
      owned_body_ = "{\"deptNumber\":" + std::to_string(r.id) + "}";
      return send_owned(200, content_type_json);
    default:
      begin_response(204);
      return do_write();
  }
}

void session::on_lookup(uint64_t seq, lookup_result r) {
  if (state_ != state::awaiting_lookup || !lookup_pending_ || seq != lookup_seq_)
    return; // answered already (504 or shutdown) or the connection is gone
  lookup_pending_ = false;
  if (r.error == rc_error::none && r.doc)
    return send_doc(std::move(r.doc));
  rc_error e = r.error == rc_error::none ? rc_error::internal : r.error;
  if (e == rc_error::not_found && random_tries_ > 0 && random_tries_ < 4) {
    // The id set is refreshed every 30 s: a department deleted since is
    // skipped, not answered 404 to a request for "any department".
    if (auto id = core_.gateway.random_dept_id()) {
      ++random_tries_;
      return start_lookup(doc_key{doc_kind::deptemps, *id});
    }
  }
  if (e == rc_error::not_found) {
    std::string detail = (key_.kind == doc_kind::emp ? "employee " : "department ")
                         + std::to_string(key_.id) + " does not exist";
    return send_problem(make_problem(e, detail));
  }
  send_problem(make_problem(e));
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

// ---- responses -------------------------------------------------------------------

void session::begin_response(unsigned status) {
  res_ = {};
  res_.version(version_);
  res_.result(status);
  res_.set(bhttp::field::server, server_name);
  res_.set(bhttp::field::date, http_date());
  if (request_id_.empty())
    request_id_ = fresh_request_id(); // a request rejected before it was parsed
  res_.set("X-Request-Id", request_id_);
}

void session::set_body(std::string_view body) {
  res_.content_length(body.size());
  if (!head_)
    res_.body() = {body.data(), body.size()};
}

void session::send_body(unsigned status, std::string_view content_type, std::string_view body) {
  begin_response(status);
  res_.set(bhttp::field::content_type, content_type);
  set_body(body);
  do_write();
}

void session::send_readiness() {
  // {"database":"up","listener":"caught up",...}: in both answers, so a
  // probe's log says which condition failed.
  std::string checks = "{", failing;
  for (auto& c : core_.gateway.readiness()) {
    if (checks.size() > 1)
      checks += ',';
    checks += '"' + c.name + "\":\"" + c.state + '"';
    if (!c.ok)
      failing += (failing.empty() ? "" : ", ") + c.name + " " + c.state;
  }
  checks += '}';
  if (failing.empty()) {
    owned_body_ = R"({"status":"ready","checks":)" + checks + "}";
    return send_owned(200, content_type_json);
  }
  auto p = make_problem(503, "not ready: " + failing);
  p.body.insert(p.body.size() - 1, ",\"checks\":" + checks); // an extension member (RFC 9457)
  send_problem(std::move(p));
}

void session::send_owned(unsigned status, std::string_view content_type) {
  send_body(status, content_type, owned_body_);
}

void session::begin_problem(problem p) {
  log_problem(p.status, p.body);
  owned_body_ = std::move(p.body);
  begin_response(p.status);
  if (p.retry_after)
    res_.set(bhttp::field::retry_after, retry_after_seconds);
  res_.set(bhttp::field::content_type, content_type_problem);
  set_body(owned_body_);
}

void session::send_problem(problem p, std::string_view allow) {
  begin_problem(std::move(p));
  if (!allow.empty())
    res_.set(bhttp::field::allow, allow);
  do_write();
}

bool session::not_modified(std::string_view etag) const {
  // Several If-None-Match fields were joined into one list, which is what
  // they mean (RFC 9110 5.3).
  return parser_ && request_.has_if_none_match && if_none_match_matches(request_.if_none_match, etag);
}

void session::send_doc(doc_ptr doc) {
  const bool gz = gzip_ && doc->body.size() >= gzip_min_bytes;
  // The variant the shard keeps with the document; else (a document from
  // LMDB or a fill, or a gateway without variants) compressed here.
  const encoded_variant* kept = gz ? doc->gzip() : nullptr;
  std::string gz_etag;
  if (gz && !kept)
    gz_etag = gzip_etag(doc->etag);
  std::string_view etag = !gz ? std::string_view{doc->etag} : kept ? std::string_view{kept->etag} : std::string_view{gz_etag};
  if (not_modified(etag)) {
    core_.metrics.not_modified.fetch_add(1, std::memory_order_relaxed);
    begin_response(304);
    res_.set(bhttp::field::etag, etag);
    res_.set(bhttp::field::cache_control, cache_control_documents);
    res_.set(bhttp::field::vary, "Accept-Encoding");
    return do_write();
  }
  if (!gz)
    return send_doc_direct(std::move(doc));
  begin_response(200);
  res_.set(bhttp::field::content_type, content_type_json);
  res_.set(bhttp::field::etag, etag);
  res_.set(bhttp::field::cache_control, cache_control_documents);
  res_.set(bhttp::field::vary, "Accept-Encoding");
  if (gz) {
    res_.set(bhttp::field::content_encoding, "gzip");
    if (kept) {
      set_body(kept->body); // no copy: doc_ keeps its variant alive
      doc_ = std::move(doc);
      return do_write();
    }
    owned_body_ = gzip_compress(doc->body);
    set_body(owned_body_);
    return do_write();
  }
  set_body(doc->body); // no copy: doc_ keeps the bytes alive
  doc_ = std::move(doc);
  do_write();
}

void session::send_doc_direct(doc_ptr doc) {
  // The most frequent answer, a cached document, skips the response object:
  // its header is the same constant lines for every document plus the
  // ETag, length, date and request id (Beast's generic serializer cost
  // about a third of the instructions of a memory hit). Copied into place
  // with lengths known here, not appended piece by piece (each append
  // measured its literal and checked the capacity).
  static const std::string fixed = "Server: " + std::string{server_name} + "\r\nContent-Type: "
                                   + std::string{content_type_json} + "\r\nCache-Control: "
                                   + std::string{cache_control_documents} + "\r\nVary: Accept-Encoding\r\n";
  const std::string_view date = http_date();
  char length[24];
  auto [length_end, ec] = std::to_chars(length, length + sizeof length, doc->body.size());
  const std::string_view connection = connection_header();
  constexpr std::string_view status_line = "HTTP/1.1 200 OK\r\n";
  header_text_.resize(status_line.size() + fixed.size() + 6 + doc->etag.size() + 18
                      + static_cast<size_t>(length_end - length) + 8 + date.size() + 16
                      + request_id_.size() + 2 + connection.size() + 2);
  char* p = header_text_.data();
  auto put = [&p](std::string_view s) {
    if (s.empty())
      return; // memcpy from an empty view's null data is undefined
    std::memcpy(p, s.data(), s.size());
    p += s.size();
  };
  put(version_ == 10 ? "HTTP/1.0 200 OK\r\n" : status_line);
  put(fixed);
  put("ETag: ");
  put(doc->etag);
  put("\r\nContent-Length: ");
  put({length, static_cast<size_t>(length_end - length)});
  put("\r\nDate: ");
  put(date);
  put("\r\nX-Request-Id: ");
  put(request_id_);
  put("\r\n");
  put(connection);
  put("\r\n");
  std::string_view body = head_ ? std::string_view{} : std::string_view{doc->body};
  doc_ = std::move(doc);
  write_head_and_body(200, body);
}

std::string_view session::connection_header() const noexcept {
  // HTTP/1.1 keeps the connection by default, HTTP/1.0 closes by default.
  if (version_ == 10 && keep_alive_)
    return "Connection: keep-alive\r\n";
  if (version_ != 10 && !keep_alive_)
    return "Connection: close\r\n";
  return {};
}

void session::do_write() {
  // res_ written by hand: status line, its fields, the body view. The same
  // bytes Beast's serializer writes, without its generic buffer machinery.
  header_text_.clear();
  header_text_ += version_ == 10 ? "HTTP/1.0 " : "HTTP/1.1 ";
  auto status = res_.result_int();
  header_text_ += std::to_string(status);
  header_text_ += ' ';
  auto reason = bhttp::obsolete_reason(res_.result());
  header_text_.append(reason.data(), reason.size());
  header_text_ += "\r\n";
  for (auto& f : res_) {
    header_text_.append(f.name_string().data(), f.name_string().size());
    header_text_ += ": ";
    header_text_.append(f.value().data(), f.value().size());
    header_text_ += "\r\n";
  }
  header_text_ += connection_header();
  header_text_ += "\r\n";
  write_head_and_body(status, {res_.body().data(), res_.body().size()});
}

void session::write_head_and_body(unsigned status, std::string_view body) {
  account_response(status, body.size());
  // More pipelined bytes are here already: this response waits to leave in
  // one write with the next ones (up to 64 KB of them).
  constexpr std::size_t max_held_back = 64 * 1024;
  const bool hold_back = buffer_.size() > 0 && keep_alive_ && !core_.registry.stopping()
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
  doc_.reset();
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
  core_.metrics.record(metric_route_, status, us);
  if (auto* log = core_.opts.access_log) {
    logging::access_entry e;
    e.remote = remote_;
    if (parser_ && parser_->is_header_done()) {
      e.method = request_.method;
      e.target = request_.target;
    }
    e.version = version_;
    e.status = status;
    e.bytes = body_bytes;
    e.duration_us = us;
    e.request_id = request_id_;
    log->record(e);
  }
}

void session::on_write(beast::error_code ec, std::size_t) {
  doc_.reset();
  if (state_ != state::writing)
    return; // force-closed
  if (ec)
    return finish();
  out_.clear();
  if (!keep_alive_ || core_.registry.stopping())
    return do_close();
  if (read_more_after_write_)
    return read_more(); // the request half parsed before the write
  do_read();
}

// ---- closing -------------------------------------------------------------------

void session::do_close() {
  state_ = state::closing;
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
  lookup_pending_ = false;
  beast::error_code ec;
  stream_.shutdown(tcp::socket::shutdown_both, ec);
  stream_.close(ec);      // cancels any pending read or write
  lookup_timer_.cancel(); // releases the timer's hold on the session
  // parser_, buffer_ and res_ stay: a cancelled operation may still use them.
}

} // namespace restcache::http::detail
