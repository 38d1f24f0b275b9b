// SPDX-License-Identifier: Apache-2.0
#pragma once

// The request parser of http::server: Beast's basic_parser, keeping only what
// the server reads (the request line, the handful of fields it looks at, the
// body). Beast's request_parser<string_body> stores every field in a
// basic_fields list, one allocation each, and looks Connection up again for
// keep_alive(): about a quarter of the instructions of a memory hit.
// Included only by http/session.cpp.

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>

#include <boost/beast/http/basic_parser.hpp>
#include <boost/beast/http/field.hpp>
#include <boost/beast/http/verb.hpp>

#include "http/body_budget.hpp"
#include "http/request.hpp"
#include "messages/text.hpp"

namespace restcache::http::detail {

/// Parses one request into a request_head (which must outlive it).
class request_parser final : public boost::beast::http::basic_parser<true> {
public:
  /// `reservation`: the connection's share of the body budget, which the
  /// body's buffer grows against as its bytes arrive.
  request_parser(request_head& head, body_reservation& reservation) : head_(head), reservation_(reservation) {
    head_.clear();
  }

  /// Why the header was refused by the checks Beast does not make (RFC 9112
  /// framing and Host), when put() failed for that: the status and a detail.
  struct refusal {
    unsigned status = 0;
    std::string_view detail;
  };
  const refusal& refused() const noexcept { return refused_; }

  /// Beast's body limit, kept here too: it also caps how far a chunked
  /// body's buffer grows.
  void set_body_limit(std::uint64_t n) {
    body_limit_ = static_cast<size_t>(n);
    body_limit(n);
  }

private:
  using error_code = boost::beast::error_code;
  using field = boost::beast::http::field;

  static void join(std::string& to, bool& seen, std::string_view value) {
    if (seen)
      to += ", ";
    to.append(value.data(), value.size());
    seen = true;
  }
  static void first(std::string& to, bool& seen, std::string_view value) {
    if (!seen)
      to.assign(value.data(), value.size());
    seen = true;
  }

  void on_request_impl(boost::beast::http::verb, std::string_view method, std::string_view target, int version,
                       error_code&) override {
    head_.method.assign(method.data(), method.size());
    head_.target.assign(target.data(), target.size());
    head_.version = static_cast<unsigned>(version);
    // Host is read only by writes (the allow list): a read only counts it.
    keep_host_ = method != "GET" && method != "HEAD";
  }
  void on_response_impl(int, std::string_view, int, error_code&) override {}

  void on_field_impl(field name, std::string_view name_string, std::string_view value, error_code&) override {
    switch (name) {
      case field::accept_encoding: return join(head_.accept_encoding, head_.has_accept_encoding, value);
      case field::if_none_match: return join(head_.if_none_match, head_.has_if_none_match, value);
      case field::if_match: return join(head_.if_match, head_.has_if_match, value);
      case field::authorization: return first(head_.authorization, head_.has_authorization, value);
      case field::host:
        if (head_.host_fields++ == 0 && keep_host_)
          head_.host.assign(value.data(), value.size());
        return;
      case field::content_type: return first(head_.content_type, head_.has_content_type, value);
      case field::cache_control:
      case field::pragma:
      case field::expect:
      case field::transfer_encoding:
      case field::unknown:
        return on_rarer_field(name, name_string, value);
      default:
        return; // Connection, Content-Length and Transfer-Encoding: basic_parser keeps what it needs
    }
  }

  // Out of line: with these cases in it, on_field_impl grew past what GCC
  // inlines into Beast's field loop (+108 instructions a request, callgrind).
  [[gnu::noinline]] void on_rarer_field(field name, std::string_view name_string, std::string_view value) {
    switch (name) {
      case field::cache_control: return join(head_.cache_control, head_.has_cache_control, value);
      case field::pragma: return join(head_.pragma, head_.has_pragma, value);
      case field::expect: return join(head_.expect, head_.has_expect, value);
      case field::transfer_encoding: {
        // Beast takes a body as chunked only when chunked is the last coding
        // and else reads none, so what follows would be parsed as the next
        // request: remembered here and refused in on_header_impl.
        ++transfer_encodings_;
        auto last = value.rfind(',');
        last_coding_chunked_ = iequals(trim(last == std::string_view::npos ? value : value.substr(last + 1)), "chunked");
        only_chunked_ = transfer_encodings_ == 1 && iequals(trim(value), "chunked");
        return;
      }
      default:
        // Beast knows no X-Request-Id: compare the name.
        if (boost::beast::iequals(name_string, "X-Request-Id"))
          first(head_.request_id, head_.has_request_id, value);
        return;
    }
  }

  void on_header_impl(error_code& ec) override {
    // RFC 9112 6.1: a request whose last transfer coding is not chunked
    // cannot be framed (400, and the connection closed); codings before
    // chunked are ones restcache does not implement (501).
    if (transfer_encodings_ > 0 && !only_chunked_) {
      refused_ = last_coding_chunked_
                   ? refusal{501, "only the chunked transfer coding is implemented"}
                   : refusal{400, "Transfer-Encoding must end with chunked: the body cannot be framed"};
      ec = boost::beast::http::error::bad_transfer_encoding;
      return;
    }
    // RFC 9112 3.2: an HTTP/1.1 request needs exactly one Host field.
    if (head_.version == 11 && head_.host_fields != 1) {
      refused_ = refusal{400, head_.host_fields == 0 ? "an HTTP/1.1 request needs a Host field"
                                                       : "a request may carry only one Host field"};
      ec = boost::beast::http::error::bad_field;
    }
  }

  void on_body_init_impl(const boost::optional<std::uint64_t>& length, error_code&) override {
    // Grown as the bytes come, never past what was announced.
    body_cap_ = length ? static_cast<size_t>(*length) : body_limit_;
  }
  std::size_t on_body_impl(std::string_view body, error_code& ec) override { return append_body(body, ec); }
  void on_chunk_header_impl(std::uint64_t, std::string_view, error_code&) override {}
  std::size_t on_chunk_body_impl(std::uint64_t, std::string_view body, error_code& ec) override {
    return append_body(body, ec);
  }

  /// A body's buffer grows against the body budget as its bytes arrive,
  /// doubling (from 4 KiB, up to what was announced): the share is what
  /// the buffer may hold, not only what it holds.
  std::size_t append_body(std::string_view body, error_code& ec) {
    auto need = head_.body.size() + body.size();
    auto held = static_cast<size_t>(reservation_.bytes());
    if (need > held) {
      auto cap = std::max(need, std::min<size_t>(std::max<size_t>(2 * held, 4096), body_cap_));
      if (!reservation_.grow(static_cast<int64_t>(cap - held))) {
        refused_ = refusal{503, body_budget_refusal};
        ec = boost::beast::http::error::body_limit;
        return 0;
      }
      if (cap > head_.body.capacity())
        head_.body.reserve(cap);
    }
    head_.body.append(body.data(), body.size());
    return body.size();
  }
  void on_finish_impl(error_code&) override {}

  request_head& head_;
  body_reservation& reservation_;
  refusal refused_;
  bool keep_host_ = false;          ///< the method may write: Host is kept
  unsigned transfer_encodings_ = 0; ///< Transfer-Encoding fields seen
  bool last_coding_chunked_ = false;
  bool only_chunked_ = false;       ///< one field, exactly "chunked"
  size_t body_limit_ = 0;
  size_t body_cap_ = 0; ///< what the body's buffer may grow to: its announced length, else body_limit_
};

} // namespace restcache::http::detail
