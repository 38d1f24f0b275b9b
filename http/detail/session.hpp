// SPDX-License-Identifier: Apache-2.0
#pragma once

// One HTTP connection of http::server: the socket state machine. Beast
// internals: included only by http/*.cpp, never from another header.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include <boost/beast/core/flat_buffer.hpp>

#include "http/body_budget.hpp"
#include "http/detail/connections.hpp"
#include "http/detail/request_parser.hpp"
#include "http/reply.hpp"
#include "http/request_handler.hpp"

namespace restcache::http::detail {

namespace bhttp = boost::beast::http;

/// One HTTP connection: read a request, answer it, repeat (one at a time,
/// in order). Everything runs on the io thread that accepted it.
class session : public std::enable_shared_from_this<session>, public sheddable {
public:
  /// `reject`: answer 503 at once and close (over max_connections).
  /// `peer`: the address it was accepted from.
  session(socket_type&& socket, const ip_address& peer, server_core& core, bool reject);
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
  /// From address_slots, on any thread: a newer connection of the same
  /// client needs the place. Closes now when idle or receiving, else after
  /// the answer in hand.
  void shed() override;

private:
  /// `queued`: a response waits in out_ and the next pipelined request is
  /// about to be parsed from buffer_ (a posted do_read).
  enum class state : uint8_t { reading, awaiting_lookup, queued, writing, closing, closed };

  void on_run();
  void on_shed();
  /// Unless the client is exempt: takes its place in core_.slots and lets
  /// its wrong tokens be slowed. False when refused (429 sent).
  bool limit_per_address();
  /// From a trusted balancer: takes the PROXY v2 header at the start of
  /// buffer_ (or learns there is none). False when the connection answered
  /// (a bad header, the client's address at its cap) or reads more.
  bool take_proxy_header();
  /// Starts the next request: parsed from what buffer_ holds, read if short.
  void do_read();
  /// Feeds buffer_ to the parser; handles a complete request, or reads more.
  void parse_buffered();
  /// Reads more bytes of the request being parsed (out_ is empty).
  void read_more();
  /// Drops the empty lines before a request line; false while a CR waits
  /// for its LF.
  bool skip_empty_lines();
  /// The header is in: refuses the request, or lets its body be read
  /// (taking its share of the body budget, and answering 100 Continue to a
  /// client that waits for it). False when it answered or is writing.
  bool admit_body();
  /// The deadline of the request being read, set on first use.
  coarse_clock::time_point request_deadline();
  void on_read(beast::error_code ec, std::size_t bytes);
  void on_read_error(beast::error_code ec);
  /// A chunk header or trailer longer than a header may be: 400 or 431,
  /// and the connection closed.
  void reject_unbounded_chunk_line();
  void handle_request();
  /// Carries out what the handler said: write the reply, or ask the gateway.
  void proceed(next_step next);
  void reject_request(unsigned status, std::string_view detail);
  /// Enters awaiting_lookup and returns the callback that brings `Result`
  /// back onto the connection's io thread as (this->*on_done)(seq, result).
  /// The timer gives 504 if it does not come within lookup_timeout.
  template <class Result>
  inline_callback<void(Result)> await(void (session::*on_done)(uint64_t, Result));
  void start_lookup();
  void on_lookup(uint64_t seq, lookup_result r);
  void on_action(uint64_t seq, http::action_answer a);
  /// True (and the request no longer pending) when the answer is the one awaited.
  bool take_answer(uint64_t seq) noexcept;
  void arm_lookup_timer();
  void on_lookup_timer(beast::error_code ec);
  void on_shutdown(bool force);

  /// Answers with a problem the connection itself decided (a refused
  /// request, a timeout, shutdown).
  void send_problem(problem p);
  /// Serializes reply_'s status line and header and writes it with its body.
  void send_reply();
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

  server_core& core_;
  stream_type stream_;
  /// When the read, write or linger in progress must be done (no limit
  /// while awaiting a lookup: the lookup timer has its own).
  coarse_clock::time_point deadline_ = coarse_clock::time_point::max();
  coarse_clock::time_point idle_deadline_{};    ///< from the end of the last answer (keep-alive)
  coarse_clock::time_point request_deadline_{}; ///< from the request's first byte (unset: not needed yet)
  body_reservation body_;                       ///< this request's share of the body budget
  beast::flat_buffer buffer_;
  request_head request_;                 ///< the request being answered (reused)
  std::optional<request_parser> parser_; ///< reads into request_
  request_state st_;                     ///< what the handler keeps across the request's steps
  reply reply_;                          ///< the answer being written (reused)
  std::string header_text_; ///< the response's status line and header, kept for its capacity
  /// Responses to pipelined requests, held back to leave in one write (a
  /// copy: their documents need not be kept).
  std::string out_;
  bool read_more_after_write_ = false; ///< on_write: a request is half parsed
  timer_type lookup_timer_;
  steady::time_point lookup_deadline_{};
  uint64_t lookup_seq_ = 0;
  std::string remote_;            ///< the client's address, kept only for the access log
  ip_address client_;             ///< the peer, or the client a trusted balancer named
  ip_address slot_key_{};         ///< where a place in core_.slots was taken
  steady::time_point started_{};  ///< when the request was read (request duration)
  std::size_t drained_ = 0;
  state state_ = state::reading;
  bool reject_;
  bool lookup_pending_ = false;
  bool timer_armed_ = false;
  bool request_started_ = false; ///< a byte of the request being read has arrived
  bool header_checked_ = false;  ///< admit_body() has seen this request's header
  bool slot_taken_ = false;      ///< a place in core_.slots is held (given back by the destructor)
  bool proxy_pending_ = false;   ///< from a trusted balancer: its PROXY header not yet read
  bool shed_pending_ = false;    ///< shed while answering: close after this answer
};

} // namespace restcache::http::detail
