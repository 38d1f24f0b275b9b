// SPDX-License-Identifier: Apache-2.0
#pragma once

// A request as the server reads it: the request line, the few fields it
// looks at, the body. Filled by the parser (http/detail/request_parser.hpp),
// read by the request handler. No Beast here.

#include <string>

namespace restcache::http {

/// What a request brought, kept by the connection from one request to the
/// next so the strings keep their capacity.
struct request_head {
  std::string method;
  std::string target;
  unsigned version = 11;
  std::string request_id;      ///< X-Request-Id, the first one
  std::string accept_encoding; ///< every Accept-Encoding, joined with ", "
  std::string if_none_match;   ///< every If-None-Match, joined with ", "
  std::string if_match;        ///< every If-Match, joined with ", "
  std::string authorization;   ///< the first one
  std::string content_type;    ///< the first one
  std::string cache_control;   ///< every Cache-Control, joined with ", "
  std::string pragma;          ///< every Pragma, joined with ", "
  std::string host;            ///< the first Host (kept only for methods that may write)
  unsigned host_fields = 0;    ///< how many Host fields came (HTTP/1.1 needs exactly one)
  std::string expect;          ///< every Expect, joined with ", "
  /// The header announced a body (Content-Length or chunked); set by the
  /// session once the request is complete.
  bool body_framed = false;
  bool has_request_id = false, has_accept_encoding = false, has_if_none_match = false, has_if_match = false,
       has_authorization = false, has_content_type = false, has_cache_control = false, has_pragma = false,
       has_expect = false;
  std::string body;

  void clear() noexcept {
    method.clear();
    target.clear();
    version = 11;
    request_id.clear();
    accept_encoding.clear();
    if_none_match.clear();
    if_match.clear();
    authorization.clear();
    content_type.clear();
    cache_control.clear();
    pragma.clear();
    host.clear();
    host_fields = 0;
    expect.clear();
    has_request_id = has_accept_encoding = has_if_none_match = has_if_match = has_authorization =
      has_content_type = has_cache_control = has_pragma = has_expect = false;
    body_framed = false;
    body.clear();
  }
};

} // namespace restcache::http
