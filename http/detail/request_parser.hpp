#pragma once

// The request parser of http::server: Beast's basic_parser, keeping only what
// the server reads (the request line, the handful of fields it looks at, the
// body). Beast's request_parser<string_body> stores every field in a
// basic_fields list, one allocation each, and looks Connection up again for
// keep_alive(): about a quarter of the instructions of a memory hit.
// Included only by http/session.cpp.

#include <cstdint>
#include <string>
#include <string_view>

#include <boost/beast/http/basic_parser.hpp>
#include <boost/beast/http/field.hpp>
#include <boost/beast/http/verb.hpp>

#include "http/request.hpp"

namespace restcache::http::detail {

/// Parses one request into a request_head (which must outlive it).
class request_parser final : public boost::beast::http::basic_parser<true> {
public:
  explicit request_parser(request_head& head) : head_(head) { head_.clear(); }

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
  }
  void on_response_impl(int, std::string_view, int, error_code&) override {}

  void on_field_impl(field name, std::string_view name_string, std::string_view value, error_code&) override {
    switch (name) {
      case field::accept_encoding: return join(head_.accept_encoding, head_.has_accept_encoding, value);
      case field::if_none_match: return join(head_.if_none_match, head_.has_if_none_match, value);
      case field::if_match: return join(head_.if_match, head_.has_if_match, value);
      case field::authorization: return first(head_.authorization, head_.has_authorization, value);
      case field::content_type: return first(head_.content_type, head_.has_content_type, value);
      case field::cache_control:
      case field::pragma:
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
      default:
        // Beast knows no X-Request-Id: compare the name.
        if (boost::beast::iequals(name_string, "X-Request-Id"))
          first(head_.request_id, head_.has_request_id, value);
        return;
    }
  }

  void on_header_impl(error_code&) override {}

  void on_body_init_impl(const boost::optional<std::uint64_t>& length, error_code&) override {
    if (length)
      head_.body.reserve(static_cast<size_t>(*length)); // within body_limit: basic_parser checked it
  }
  std::size_t on_body_impl(std::string_view body, error_code&) override {
    head_.body.append(body.data(), body.size());
    return body.size();
  }
  void on_chunk_header_impl(std::uint64_t, std::string_view, error_code&) override {}
  std::size_t on_chunk_body_impl(std::uint64_t, std::string_view body, error_code&) override {
    head_.body.append(body.data(), body.size());
    return body.size();
  }
  void on_finish_impl(error_code&) override {}

  request_head& head_;
};

} // namespace restcache::http::detail
