#pragma once

// Beast internals of http::server. Included only by http/session.cpp,
// http/listener.cpp and http/server.cpp: never from another header.

#include <atomic>
#include <functional>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/rate_policy.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/span_body.hpp>
#include <boost/beast/http/string_body.hpp>

#include "http/cache_gateway.hpp"
#include "http/detail/request_parser.hpp"
#include "http/http_metrics.hpp"
#include "http/responses.hpp"
#include "http/router.hpp"
#include "http/server.hpp"

namespace restcache::http::detail {

namespace beast = boost::beast;
namespace net = boost::asio;
namespace bhttp = boost::beast::http;
using tcp = net::ip::tcp;
using steady = std::chrono::steady_clock;

// Concrete executor types instead of Beast's default any_io_executor: every
// operation copies its executor, and the type-erased one costs a shared_ptr
// copy and indirect calls each time (visible in a profile under wrk). No
// strand: each io_context is run by one thread, so everything posted to a
// connection's executor runs on that thread, in order.
using executor_type = net::io_context::executor_type;
/// A plain socket: the read, write and linger limits are enforced by the
/// io thread's connection_sweep, not by a timer per operation.
using stream_type = net::basic_stream_socket<tcp, executor_type>;
using socket_type = stream_type;
using timer_type = net::basic_waitable_timer<steady, net::wait_traits<steady>, executor_type>;

class session;

/// A monotonic clock read without a system call or a precise source
/// (CLOCK_MONOTONIC_COARSE, a few ms of resolution): deadlines of seconds
/// need no better, and it is cheap enough to read on every request.
struct coarse_clock {
  using duration = std::chrono::nanoseconds;
  using rep = duration::rep;
  using period = duration::period;
  using time_point = std::chrono::time_point<coarse_clock>;
  static constexpr bool is_steady = true;
  static time_point now() noexcept;
};

/// One per io thread: every `tick` it closes the connections of its thread
/// whose deadline (read, write or linger) has passed. Instead of a timer per
/// read and per write, a connection stores a deadline per operation. Runs
/// on its io thread only; holds the connections weakly.
class connection_sweep : public std::enable_shared_from_this<connection_sweep> {
public:
  connection_sweep(net::io_context& ioc, std::chrono::milliseconds tick);
  /// On the io thread: the connection is checked from now on.
  void add(const std::shared_ptr<session>& s);
  void start();

private:
  void arm();
  void on_tick(beast::error_code ec);

  net::steady_timer timer_;
  std::chrono::milliseconds tick_;
  std::vector<std::weak_ptr<session>> sessions_;
};

/// Lets reply callbacks that outlive the server learn, safely, that it is
/// gone. A callback runs its body only while the gate is open; close() waits
/// until no callback is inside, so once it returns no callback touches a
/// session or the io_context again. Callbacks hold the gate by shared_ptr.
class callback_gate {
public:
  template <class F>
  void run(F&& f) {
    users_.fetch_add(1, std::memory_order_seq_cst);
    struct leave {
      std::atomic<int>& u;
      ~leave() { u.fetch_sub(1, std::memory_order_seq_cst); }
    } guard{users_};
    if (open_.load(std::memory_order_seq_cst))
      f();
  }
  void close() noexcept;

private:
  std::atomic<int> users_{0};
  std::atomic<bool> open_{true};
};

/// Every live session, so stop() can reach them. One mutex operation per
/// connection (not per request).
class session_registry {
public:
  /// False once stopping: the caller must close instead of serving.
  bool add(const std::shared_ptr<session>& s);
  void remove(const session* s) noexcept;
  /// Marks the server as stopping and returns the sessions alive now.
  std::vector<std::shared_ptr<session>> begin_stop();
  std::vector<std::shared_ptr<session>> snapshot();
  /// Waits until no session is left; false on timeout.
  bool wait_empty_for(std::chrono::milliseconds d);
  bool stopping() const noexcept { return stopping_.load(std::memory_order_acquire); }

private:
  std::mutex mtx_;
  std::condition_variable cv_;
  std::unordered_map<const session*, std::weak_ptr<session>> sessions_;
  std::atomic<bool> stopping_{false};
};

/// What the listener and every session share; lives as long as the server.
struct server_core {
  server_core(server_options o, cache_gateway& g);

  server_options opts;
  cache_gateway& gateway;
  http_metrics metrics;
  session_registry registry;
  std::shared_ptr<callback_gate> gate = std::make_shared<callback_gate>();
  /// Rejecting sessions (503 over max_connections) alive now.
  std::atomic<int64_t> rejecting{0};
  /// After the last response: how long to read (and discard) what the client
  /// still sends before closing, so a close does not turn into a reset.
  std::chrono::milliseconds linger;
  std::string lookup_timeout_detail;
  std::string body_limit_detail;
};

/// One HTTP connection: read a request, answer it, repeat (one at a time,
/// in order). Everything runs on the io thread that accepted it.
class session : public std::enable_shared_from_this<session> {
public:
  /// `reject`: answer 503 at once and close (over max_connections).
  session(socket_type&& socket, server_core& core, bool reject);
  ~session();
  session(const session&) = delete;
  session& operator=(const session&) = delete;

  void run();
  /// From stop(): finish the response in flight, then close; idle
  /// connections close at once.
  void begin_shutdown();
  /// From stop() after drain_timeout: answer a pending lookup 503, close
  /// everything else now.
  void force_close();
  /// From the sweep: closes the connection if its read, write or linger
  /// deadline is before `now`.
  void check_deadline(coarse_clock::time_point now);

private:
  /// `queued`: a response waits in out_ and the next pipelined request is
  /// about to be parsed from buffer_ (a posted do_read).
  enum class state : uint8_t { reading, awaiting_lookup, queued, writing, closing, closed };

  void on_run();
  /// Starts the next request: parsed from what buffer_ holds, read if short.
  void do_read();
  /// Feeds buffer_ to the parser; handles a complete request, or reads more.
  void parse_buffered();
  /// Reads more bytes of the request being parsed (out_ is empty).
  void read_more();
  void on_read(beast::error_code ec, std::size_t bytes);
  void on_read_error(beast::error_code ec);
  void handle_request();
  void reject_request(unsigned status, std::string_view detail);
  /// Enters awaiting_lookup and returns the callback that brings `Result`
  /// back onto the connection's io thread as (this->*on_done)(seq, result). The timer gives
  /// 504 if it does not come within lookup_timeout.
  template <class Result>
  inline_callback<void(Result)> await(void (session::*on_done)(uint64_t, Result));
  void start_lookup(doc_key key);
  void on_lookup(uint64_t seq, lookup_result r);
  void on_page(uint64_t seq, page_result r);
  /// A write route: token, length, media type, body, If-Match; then the gateway.
  void start_write(const route& r);
  void on_written(uint64_t seq, write_result r);
  /// X-Request-Id: the client's (when sane) or a fresh one.
  void take_request_id();
  void log_problem(unsigned status, std::string_view detail) const;
  void arm_lookup_timer();
  void on_lookup_timer(beast::error_code ec);
  void on_shutdown(bool force);

  // response building; all end in do_write()
  void begin_response(unsigned status);
  void send_body(unsigned status, std::string_view content_type, std::string_view body);
  void send_owned(unsigned status, std::string_view content_type);
  /// /ready: 200 with the checks, or 503 problem+json naming the failing ones.
  void send_readiness();
  /// Content-Length and, unless HEAD, the body (not copied: it must live
  /// until the write is done).
  void set_body(std::string_view body);
  /// A problem response up to do_write(), so a caller can add a header.
  void begin_problem(problem p);
  void send_problem(problem p, std::string_view allow = {});
  void send_doc(doc_ptr doc);
  /// A 200 with a cached document, its header built directly into header_text_.
  void send_doc_direct(doc_ptr doc);
  /// Serializes res_ (status line and fields) into header_text_ and writes it with its body.
  void do_write();
  /// The Connection header line the response needs (empty when the default applies).
  std::string_view connection_header() const noexcept;
  /// Writes header_text_ and `body`; or, while more pipelined bytes wait in
  /// buffer_, appends both to out_ and goes on with the next request.
  void write_head_and_body(unsigned status, std::string_view body);
  /// Writes out_ (the held-back responses); then `then_read_more` picks up
  /// the request being parsed, else the next one.
  void write_pending(bool then_read_more);
  /// Counts the response in /metrics and, when on, writes the access log line.
  void account_response(unsigned status, size_t body_bytes);
  void on_write(beast::error_code ec, std::size_t bytes);
  void do_close();
  void do_drain();
  void on_drain(beast::error_code ec, std::size_t bytes);
  void finish();
  bool not_modified(std::string_view etag) const;

  server_core& core_;
  stream_type stream_;
  /// When the read, write or linger in progress must be done (no limit
  /// while awaiting a lookup: the lookup timer has its own).
  coarse_clock::time_point deadline_ = coarse_clock::time_point::max();
  beast::flat_buffer buffer_;
  request_head request_;                  ///< the request being answered (reused)
  std::optional<request_parser> parser_;   ///< reads into request_
  bhttp::response<bhttp::span_body<const char>> res_;
  std::string owned_body_; ///< body of a response that is not a cached doc
  std::string header_text_; ///< the response's status line and header, kept for its capacity
  /// Responses to pipelined requests, held back to leave in one write (a
  /// copy: their documents need not be kept).
  std::string out_;
  bool read_more_after_write_ = false; ///< on_write: a request is half parsed
  doc_ptr doc_;            ///< the cached doc res_ points into, held until written
  timer_type lookup_timer_;
  steady::time_point lookup_deadline_{};
  uint64_t lookup_seq_ = 0;
  doc_key key_{};
  write_op write_op_ = write_op::create_dept; ///< the write in flight
  std::string request_id_;
  std::string remote_;            ///< the client's address, kept only for the access log
  steady::time_point started_{};  ///< when the request was read (request duration)
  std::size_t drained_ = 0;
  unsigned version_ = 11;
  state state_ = state::reading;
  bool reject_;
  uint8_t metric_route_ = 0; ///< the request's route as /metrics counts it
  bool head_ = false;
  bool gzip_ = false; ///< the request accepts Content-Encoding: gzip
  uint8_t random_tries_ = 0; ///< /depts/random: ids tried (one deleted meanwhile is retried)
  bool keep_alive_ = false;
  bool lookup_pending_ = false;
  bool timer_armed_ = false;
};

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
  void start_session(socket_type&& socket, bool reject);

  net::io_context& ioc_;
  server_core& core_;
  std::shared_ptr<connection_sweep> sweep_;
  tcp::acceptor acceptor_;
  net::steady_timer retry_timer_;
  uint16_t port_ = 0;
};

} // namespace restcache::http::detail
