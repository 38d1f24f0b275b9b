// SPDX-License-Identifier: Apache-2.0
#include "http/request_handler.hpp"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <charconv>
#include <chrono>
#include <random>

#include <spdlog/spdlog.h>

#include "http/address_limits.hpp"
#include "http/gzip.hpp"
#include "messages/doc_catalogue.hpp"
#include "http/http_metrics.hpp"
#include "http/server.hpp"
#include "messages/document_gzip.hpp"
#include "messages/text.hpp"

namespace restcache::http {

namespace {

bool sane_request_id(std::string_view id) noexcept {
  if (id.empty() || id.size() > 128)
    return false;
  for (char c : id)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-' || c == ':'))
      return false;
  return true;
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

/// `Authorization: Bearer <token>` carrying `secret` (the scheme in any
/// case, RFC 9110 11.1; spaces around the token ignored).
bool bearer_matches(const request_head& req, std::string_view secret) noexcept {
  if (!req.has_authorization)
    return false;
  auto given = trim(req.authorization);
  auto space = given.find(' ');
  if (space == std::string_view::npos || !iequals(given.substr(0, space), "Bearer"))
    return false;
  return same_secret(trim(given.substr(space + 1)), secret);
}

/// The Host field's name without its port, as sent ("[::1]" keeps brackets).
std::string_view host_name(std::string_view host) noexcept {
  host = trim(host);
  if (host.starts_with('[')) {
    auto close = host.find(']');
    return close == std::string_view::npos ? host : host.substr(0, close + 1);
  }
  return host.substr(0, host.find(':'));
}

bool host_allowed(const request_head& req, const std::vector<std::string>& allowed) noexcept {
  if (req.host_fields != 1)
    return false;
  auto name = host_name(req.host);
  for (auto& a : allowed)
    if (a == "*" || iequals(a, name))
      return true;
  return false;
}

/// Whether the route is one of those routing itself refuses (400, 404, 405).
bool is_routing_error(route_kind k) noexcept {
  return k == route_kind::bad_request || k == route_kind::not_found || k == route_kind::method_not_allowed;
}

std::string length_text(size_t n) {
  char digits[24];
  auto [end, ec] = std::to_chars(digits, digits + sizeof digits, n);
  return std::string(digits, end);
}

/// The Cache-Status field (none for none) and, for a stale answer, Age.
void add_cache_status(cache_status how, uint32_t age_s, reply& out) {
  if (how == cache_status::none)
    return;
  out.add("Cache-Status", cache_status_field(how));
  if (how == cache_status::stale_if_error)
    out.add("Age", length_text(age_s));
}

} // namespace

request_handler::request_handler(const server_options& opts, cache_gateway& gateway, http_metrics& metrics,
                                 credential_throttle* throttle)
  : opts_(opts), gateway_(gateway), metrics_(metrics), throttle_(throttle) {
}

void request_handler::fresh_request_id(std::string& id) {
  // On every request without an id: 15 hex digits (60 random bits), no
  // formatting call, and short enough for the string's inline buffer of 15
  // characters (16 digits allocated on every request).
  thread_local std::mt19937_64 rng{std::random_device{}()};
  uint64_t v = rng();
  static constexpr char hex[] = "0123456789abcdef";
  constexpr size_t digits = 15;
  static_assert(digits < sizeof(std::string));
  char text[digits];
  for (size_t i = digits; i-- > 0; v >>= 4)
    text[i] = hex[v & 15];
  id.assign(text, digits);
}

void request_handler::take_request_id(const request_head& req, std::string& id) {
  if (req.has_request_id && sane_request_id(req.request_id))
    id = req.request_id;
  else
    fresh_request_id(id);
}

void request_handler::begin(const request_head& req, bool keep_alive, request_state& st) const {
  st.request = &req;
  st.action_tries = 0;
  st.version = req.version == 10 ? 10 : 11;
  st.keep_alive = keep_alive;
  take_request_id(req, st.request_id);
}

bool request_handler::admit_body(const request_head& req, bool announces_body, request_state& st,
                                 reply& out) const {
  // keep_alive is left as it is while admitted: it may still be read for an
  // answer held back before this request. A refused body is never read, so
  // the connection closes after the refusal.
  begin(req, st.keep_alive, st);
  auto refused = [&] {
    st.keep_alive = false;
    return false;
  };
  if (req.has_expect && !iequals(trim(req.expect), "100-continue")) {
    st.metric_route = unrouted_metric_route;
    problem_reply(make_problem(417, "the only expectation understood is Expect: 100-continue"), st, out);
    return refused();
  }
  if (!announces_body)
    return true;
  const route r = parse_route(req.method, req.target);
  st.metric_route = static_cast<uint8_t>(metric_route_of(r));
  st.head = r.head;
  if (is_routing_error(r.kind)) {
    start(req, false, st, out); // the same 400, 404 or 405 as without a body
    return refused();
  }
  if (r.kind != route_kind::action || !action_routes().routes[r.action].takes_body) {
    problem_reply(make_problem(413, "this request takes no body"), st, out);
    return refused();
  }
  if (refuse_write(req, st, out))
    return refused();
  if (!req.has_content_type || !is_json_media_type(req.content_type)) {
    problem_reply(make_problem(415, "the body must be application/json"), st, out);
    return refused();
  }
  return true;
}

bool request_handler::token_passes(const request_head& req, std::string_view detail, const request_state& st,
                                   reply& out) const {
  const bool slowed = throttle_ && st.client;
  const auto now = slowed ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point{};
  if (slowed && !throttle_->may_try(*st.client, now)) {
    metrics_.credentials_throttled.fetch_add(1, std::memory_order_relaxed);
    problem_reply(make_problem(429, "too many wrong credentials from this address: one more may be tried each "
                                    "second"),
                  st, out);
    return false;
  }
  if (bearer_matches(req, opts_.write_token))
    return true;
  // A wrong token is a guess; none at all (a client that forgot it) is not.
  if (slowed && req.has_authorization)
    throttle_->failed(*st.client, now);
  problem_reply(make_problem(401, detail), st, out);
  out.add("WWW-Authenticate", "Bearer realm=\"restcache\"");
  return false;
}

void request_handler::canonical_redirect(const route& r, std::string_view query, const request_state& st,
                                         reply& out) const {
  char segment[max_key_segment_bytes];
  auto n = canonical_key_segment(r.kind_key, r.key_text(), segment);
  std::string location{r.kind_route};
  location.append(segment, n);
  if (!query.empty())
    location.append("?").append(query);
  problem_reply(make_problem(308, "a document has one spelling of its key; its path is " + location), st, out);
  out.add("Location", location);
}

bool request_handler::refuse_write(const request_head& req, request_state& st, reply& out) const {
  if (opts_.writes_closed) {
    problem_reply(make_problem(403, "writes are closed on this instance (http.writes=closed)"), st, out);
    return true;
  }
  if (!opts_.write_token.empty())
    return !token_passes(req, "writes need Authorization: Bearer <the write token>", st, out);
  if (host_allowed(req, opts_.allowed_hosts))
    return false;
  problem_reply(make_problem(403, "writes without a token are taken only with a Host named in "
                                  "http.allowed-hosts (by default loopback names)"),
                st, out);
  return true;
}

next_step request_handler::start(const request_head& req, bool keep_alive, request_state& st, reply& out) const {
  begin(req, keep_alive, st);
  st.gzip = req.has_accept_encoding && accepts_gzip(req.accept_encoding);
  st.refill = opts_.honour_no_cache && (req.has_cache_control || req.has_pragma)
              && forbids_stored_answer(req.has_cache_control, req.cache_control, req.has_pragma, req.pragma);
  const route r = parse_route(req.method, req.target);
  st.metric_route = static_cast<uint8_t>(metric_route_of(r));
  st.head = r.head;
  switch (r.kind) {
    case route_kind::document:
      if (r.spelled_otherwise) {
        canonical_redirect(r, query_of(req.target), st, out);
        return next_step::reply;
      }
      st.key = key_of(r);
      return next_step::lookup;
    case route_kind::action:
      return start_action(req, r, st, out);
    case route_kind::health:
      out.status = 200;
      out.add("Content-Type", content_type_json);
      set_body(health_body, st, out);
      return next_step::reply;
    case route_kind::ready:
      readiness_reply(st, out);
      return next_step::reply;
    case route_kind::metrics:
      if (opts_.metrics_need_token && !token_passes(req, "/metrics needs Authorization: Bearer <the write token>", st, out))
        return next_step::reply;
      out.owned_body = gateway_.metrics_text();
      owned_reply(200, content_type_metrics, st, out);
      return next_step::reply;
    case route_kind::openapi:
      out.status = 200;
      out.add("Content-Type", content_type_json);
      set_body(opts_.openapi, st, out);
      return next_step::reply;
    case route_kind::bad_request:
      problem_reply(make_problem(400, r.detail), st, out);
      return next_step::reply;
    case route_kind::method_not_allowed:
      problem_reply(make_problem(405, r.detail), st, out, r.allow);
      return next_step::reply;
    case route_kind::not_found:
      problem_reply(make_problem(404, r.detail), st, out);
      return next_step::reply;
  }
  problem_reply(make_problem(rc_error::internal), st, out);
  return next_step::reply;
}

next_step request_handler::start_action(const request_head& req, const route& r, request_state& st,
                                        reply& out) const {
  const action_route& action = action_routes().routes[r.action];
  st.action = r.action;
  st.action_key = r.id;
  if (action.writes && refuse_write(req, st, out))
    return next_step::reply;
  action_call call;
  call.id = r.id;
  call.query = query_of(req.target);
  if (req.has_if_match)
    call.if_match = identity_etags(req.if_match); // a gzip ETag names the same document
  if (action.takes_body) {
    if (!req.body_framed) {
      problem_reply(make_problem(411, "a write needs a body with Content-Length (or chunked)"), st, out);
      return next_step::reply;
    }
    if (!req.has_content_type || !is_json_media_type(req.content_type)) {
      problem_reply(make_problem(415, "the body must be application/json"), st, out);
      return next_step::reply;
    }
    call.body = req.body;
  }
  return run_action(call, st, out);
}

next_step request_handler::run_action(const action_call& call, request_state& st, reply& out) const {
  auto started = gateway_.start_action(st.action, call);
  if (started.work) {
    st.work = std::move(started.work);
    return next_step::action;
  }
  return on_action(std::move(started.answer), st, out);
}

next_step request_handler::on_action(action_answer a, request_state& st, reply& out) const {
  if (a.error != rc_error::none) {
    problem_reply(make_problem(a.error, a.detail), st, out);
    return next_step::reply;
  }
  if (a.document) {
    st.key = std::move(*a.document);
    st.action_tries = a.ask_again_if_missing ? static_cast<uint8_t>(st.action_tries + 1) : 0;
    return next_step::lookup;
  }
  if (!a.applied)
    spdlog::warn("request {}: write committed, but its invalidation was not confirmed in time", st.request_id);
  out.status = a.status;
  if (!a.location.empty())
    out.add("Location", a.location);
  if (a.status == 204)
    return next_step::reply;
  out.owned_body = std::move(a.body);
  const bool gz = a.compressible && st.gzip && out.owned_body.size() >= gzip_min_bytes;
  if (gz)
    out.owned_body = gzip_compress(out.owned_body);
  out.add("Content-Type", content_type_json);
  if (a.compressible)
    out.add("Vary", "Accept-Encoding");
  if (gz)
    out.add("Content-Encoding", "gzip");
  set_body(out.owned_body, st, out);
  return next_step::reply;
}

next_step request_handler::on_lookup(lookup_result r, request_state& st, reply& out) const {
  if (r.error == rc_error::none && r.doc) {
    document_reply(std::move(r.doc), r.status, r.age_s, st, out);
    return next_step::reply;
  }
  rc_error e = r.error == rc_error::none ? rc_error::internal : r.error;
  if (e == rc_error::not_found && st.action_tries > 0 && st.action_tries < 4) {
    // The action picked its key from what it knew (a set of ids refreshed
    // now and then): one deleted since is asked for again, not answered 404
    // to a request for "any document".
    action_call again;
    again.id = st.action_key;
    if (st.request)
      again.query = query_of(st.request->target);
    return run_action(again, st, out);
  }
  if (e == rc_error::not_found) {
    const auto& kind = doc_kind_info(st.key.kind());
    std::string detail = kind.noun + " " + key_spelling(kind.key, st.key) + " does not exist";
    problem_reply(make_problem(e, detail), st, out);
    add_cache_status(r.status, 0, out);
    return next_step::reply;
  }
  if (e == rc_error::db_schema) {
    // Names what is missing when the drift check has seen it (within
    // changelog.drift-interval of the change); never the SQL.
    auto why = gateway_.drift_detail(st.key.kind());
    problem_reply(make_problem(e, "the database no longer has what " + doc_kind_info(st.key.kind()).name
                                    + " documents are read from: "
                                    + (why.empty() ? std::string{"details are in the server log"} : why)),
                  st, out);
    return next_step::reply;
  }
  if (e == rc_error::db_unavailable) {
    // The cause as far as this instance knows it: no connection up (the
    // pool waited out its reconnect grace), or connections that are up but
    // whose sessions ended under every try of this read.
    bool connected = true;
    for (const auto& c : gateway_.readiness())
      if (c.name == "database")
        connected = c.ok;
    problem_reply(make_problem(e, connected ? "the database ended the session of every try of this read (a terminated "
                                              "backend, a restart or a failover under way); retry later"
                                            : "no connection to the database is up (it cannot be reached or is "
                                              "restarting; none came back within db.reconnect-grace-ms); retry later"),
                  st, out);
    return next_step::reply;
  }
  problem_reply(make_problem(e), st, out);
  return next_step::reply;
}

void request_handler::document_reply(doc_ptr doc, cache_status how, uint32_t age_s, const request_state& st,
                                     reply& out) const {
  const bool gz = st.gzip && doc->body.size() >= gzip_min_bytes;
  // The variant the shard keeps with the document; else (a document from
  // LMDB or a fill, or a gateway without variants) compressed here.
  const encoded_variant* kept = gz ? doc->gzip() : nullptr;
  std::string gz_etag;
  if (gz && !kept)
    gz_etag = gzip_etag(doc->etag);
  std::string_view etag = !gz ? std::string_view{doc->etag} : kept ? std::string_view{kept->etag} : std::string_view{gz_etag};
  // Several If-None-Match fields were joined into one list, which is what
  // they mean (RFC 9110 5.3).
  if (st.request && st.request->has_if_none_match && if_none_match_matches(st.request->if_none_match, etag)) {
    metrics_.not_modified.fetch_add(1, std::memory_order_relaxed);
    out.status = 304;
    out.add("ETag", etag);
    out.add("Cache-Control", cache_control_documents);
    out.add("Vary", "Accept-Encoding");
    add_cache_status(how, age_s, out);
    return;
  }
  // A stale answer carries its Age: the field list, not the fixed header.
  if (!gz && how != cache_status::stale_if_error) {
    out.status = 200;
    out.form = reply::shape::document;
    out.cache_result = how;
    out.body = st.head ? std::string_view{} : std::string_view{doc->body};
    out.doc = std::move(doc);
    return;
  }
  out.status = 200;
  out.add("Content-Type", content_type_json);
  out.add("ETag", etag);
  out.add("Cache-Control", cache_control_documents);
  out.add("Vary", "Accept-Encoding");
  add_cache_status(how, age_s, out);
  if (!gz) {
    set_body(doc->body, st, out);
    out.doc = std::move(doc);
    return;
  }
  out.add("Content-Encoding", "gzip");
  if (kept) {
    set_body(kept->body, st, out); // no copy: out.doc keeps its variant alive
    out.doc = std::move(doc);
    return;
  }
  out.owned_body = gzip_compress(doc->body);
  set_body(out.owned_body, st, out);
}

void request_handler::readiness_reply(const request_state& st, reply& out) const {
  // {"database":"up","listener":"caught up",...}: in both answers, so a
  // probe's log says which condition failed.
  std::string checks = "{", failing;
  for (auto& c : gateway_.readiness()) {
    if (checks.size() > 1)
      checks += ',';
    checks += '"' + c.name + "\":\"" + c.state + '"';
    if (!c.ok)
      failing += (failing.empty() ? "" : ", ") + c.name + " " + c.state;
  }
  checks += '}';
  if (failing.empty()) {
    out.owned_body = R"({"status":"ready","checks":)" + checks + "}";
    return owned_reply(200, content_type_json, st, out);
  }
  auto p = make_problem(503, "not ready: " + failing);
  p.body.insert(p.body.size() - 1, ",\"checks\":" + checks); // an extension member (RFC 9457)
  problem_reply(std::move(p), st, out);
}

namespace {

/// Whether a 5xx answer may be logged now: at most 20 a second, so an
/// overload or a connection flood (thousands of 503s a second) costs a few
/// log lines and a count, not a line each.
bool server_error_loggable() {
  using clock = std::chrono::steady_clock;
  constexpr int per_second = 20;
  static std::atomic<int64_t> window{0};
  static std::atomic<int> logged{0};
  static std::atomic<uint64_t> suppressed{0};
  auto now_s = std::chrono::duration_cast<std::chrono::seconds>(clock::now().time_since_epoch()).count();
  auto seen = window.load(std::memory_order_relaxed);
  if (seen != now_s && window.compare_exchange_strong(seen, now_s, std::memory_order_relaxed)) {
    logged.store(0, std::memory_order_relaxed);
    if (auto n = suppressed.exchange(0, std::memory_order_relaxed); n > 0)
      spdlog::warn("{} more 5xx answers were not logged in the last second(s) (restcache_http_requests_total counts them)", n);
  }
  if (logged.fetch_add(1, std::memory_order_relaxed) < per_second)
    return true;
  suppressed.fetch_add(1, std::memory_order_relaxed);
  return false;
}

} // namespace

void request_handler::problem_reply(problem p, const request_state& st, reply& out, std::string_view allow) const {
  // Errors of the server (5xx) are warnings; a client's mistakes are debug.
  if (p.status >= 500) {
    if (server_error_loggable())
      spdlog::warn("request {}: {} {}", st.request_id, p.status, p.body);
  } else {
    spdlog::debug("request {}: {} {}", st.request_id, p.status, p.body);
  }
  out.owned_body = std::move(p.body);
  out.status = p.status;
  if (p.retry_after)
    out.add("Retry-After", retry_after_seconds);
  out.add("Content-Type", content_type_problem);
  set_body(out.owned_body, st, out);
  if (!allow.empty())
    out.add("Allow", allow);
}

void request_handler::over_limit_reply(request_state& st, reply& out) const {
  refused_connection_reply(make_problem(503, "too many open connections; retry later"), st, out);
}

void request_handler::refused_connection_reply(problem p, request_state& st, reply& out) const {
  st.version = 11;
  st.keep_alive = false;
  st.head = false;
  st.metric_route = unrouted_metric_route;
  if (st.request_id.empty())
    fresh_request_id(st.request_id);
  problem_reply(std::move(p), st, out);
}

void request_handler::set_body(std::string_view body, const request_state& st, reply& out) {
  out.fields.push_back({"Content-Length", length_text(body.size())});
  out.body = st.head ? std::string_view{} : body;
}

void request_handler::owned_reply(unsigned status, std::string_view content_type, const request_state& st,
                                  reply& out) {
  out.status = status;
  out.add("Content-Type", content_type);
  set_body(out.owned_body, st, out);
}

} // namespace restcache::http
