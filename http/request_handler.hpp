// SPDX-License-Identifier: Apache-2.0
#pragma once

// What restcache answers to a request, apart from the socket: route, the
// write token, media types and bodies of writes, conditional requests, gzip,
// and the reply each gateway answer becomes. A session parses a request,
// asks the handler, calls the gateway when the handler says so, and writes
// the reply; tests call it without sockets. No Beast here.

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "http/action_routes.hpp"
#include "http/cache_gateway.hpp"
#include "http/reply.hpp"
#include "http/request.hpp"
#include "http/responses.hpp"
#include "http/router.hpp"
#include "messages/cache_types.hpp"
#include "messages/ip_address.hpp"

namespace restcache::http {

struct server_options;
struct http_metrics;
class credential_throttle;

/// What the request waits for once the handler has looked at it.
enum class next_step : uint8_t {
  reply,     ///< the reply is ready: write it
  lookup,    ///< gateway.lookup of `key` (lookup_gzip when `gzip`, refill when `refill`)
  action,    ///< run `work` (an action route's), then on_action with its answer
};

/// One request across its steps: what the handler decided from the request
/// and must remember until the gateway answers.
struct request_state {
  const request_head* request = nullptr; ///< lives until the reply is written
  std::string request_id;  ///< the client's X-Request-Id when sane, else a fresh one
  unsigned version = 11;   ///< 10 or 11
  bool keep_alive = false;
  bool head = false;       ///< HEAD: the header only
  bool gzip = false;       ///< the client accepts Content-Encoding: gzip
  bool refill = false;     ///< the client sent no-cache: gateway.refill instead of a lookup
  uint8_t metric_route = 0; ///< the route as /metrics counts it
  /// The client's address as a per-client limit counts it (its
  /// client_key(), set once by the connection): failed credentials are
  /// slowed per address. None: not slowed (an exempt client).
  const ip_address* client = nullptr;
  uint8_t action = 0;       ///< an action route: its id
  /// An action's answers that named a document (one gone meanwhile is asked
  /// for again, a few times).
  uint8_t action_tries = 0;
  int64_t action_key = 0;  ///< a keyed action's key
  doc_key key{};           ///< next_step::lookup
  std::function<void(action_callback)> work; ///< next_step::action (moved out by the caller)
};

class request_handler {
public:
  /// `throttle`: slows failed credentials per client address (none: not slowed).
  request_handler(const server_options& opts, cache_gateway& gateway, http_metrics& metrics,
                  credential_throttle* throttle = nullptr);

  /// A request whose header is complete and that announces a body (or an
  /// Expect): whether the body may be read. It may only for a write that
  /// takes one and passes the credentials, the Host check and the media type:
  /// otherwise `out` is the refusal and the connection closes after it
  /// (the body is never read). An Expect other than 100-continue is 417.
  bool admit_body(const request_head& req, bool announces_body, request_state& st, reply& out) const;
  /// A request whose header and body are complete. `keep_alive`: what its
  /// framing allows (and the server not stopping).
  next_step start(const request_head& req, bool keep_alive, request_state& st, reply& out) const;
  /// The lookup's answer: the document, a problem, or, when an action drew
  /// a key whose document is gone meanwhile, the action again.
  next_step on_lookup(lookup_result r, request_state& st, reply& out) const;
  /// An action's answer: a problem, a body, or a document to look up.
  next_step on_action(action_answer a, request_state& st, reply& out) const;

  /// A problem+json reply (logged: 5xx as warnings, the client's mistakes at
  /// debug), with an Allow field when given.
  void problem_reply(problem p, const request_state& st, reply& out, std::string_view allow = {}) const;

  /// The 503 of a connection over max_connections, answered before any
  /// request is read: sets `st` for it (HTTP/1.1, closing, a fresh request id).
  void over_limit_reply(request_state& st, reply& out) const;
  /// `p` for a connection refused before any request is read (as over_limit_reply).
  void refused_connection_reply(problem p, request_state& st, reply& out) const;

  /// The request id to answer with, into `id`: the client's X-Request-Id when it is
  /// 1..128 of [A-Za-z0-9._:-] (it goes into a header and the log as is),
  /// else a fresh random one.
  static void take_request_id(const request_head& req, std::string& id);
  /// 15 random hex digits into `id`.
  static void fresh_request_id(std::string& id);

private:
  /// What every answer needs of the request: its id, version and framing.
  void begin(const request_head& req, bool keep_alive, request_state& st) const;
  /// True, with the refusal in `out`, when a write may not go on: writes
  /// closed (403), the token missing or wrong (401), or, with writes open,
  /// a Host outside http.allowed-hosts (403).
  bool refuse_write(const request_head& req, request_state& st, reply& out) const;
  /// Whether the request carries the write token; if not, `out` is the
  /// refusal: 401 (`detail`), or 429 while the client's address has failed
  /// too often (the token is then not compared at all).
  bool token_passes(const request_head& req, std::string_view detail, const request_state& st, reply& out) const;
  /// 308 to the document's one spelling (route::spelled_otherwise), with
  /// the request's query string: nothing is cached under another one.
  void canonical_redirect(const route& r, std::string_view query, const request_state& st, reply& out) const;
  next_step start_action(const request_head& req, const route& r, request_state& st, reply& out) const;
  /// Asks the gateway to start the action of `st` with `call`.
  next_step run_action(const action_call& call, request_state& st, reply& out) const;
  /// `how` and `age_s`: the lookup's Cache-Status and, when stale, its Age.
  void document_reply(doc_ptr doc, cache_status how, uint32_t age_s, const request_state& st, reply& out) const;
  void readiness_reply(const request_state& st, reply& out) const;
  /// Content-Length of `body`, and the body itself unless HEAD (not copied:
  /// it must live until written).
  static void set_body(std::string_view body, const request_state& st, reply& out);
  /// A reply of `status` with the content type and out.owned_body.
  static void owned_reply(unsigned status, std::string_view content_type, const request_state& st, reply& out);

  const server_options& opts_;
  cache_gateway& gateway_;
  http_metrics& metrics_;
  credential_throttle* throttle_;
};

} // namespace restcache::http
