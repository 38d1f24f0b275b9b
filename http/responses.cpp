// SPDX-License-Identifier: Apache-2.0
#include "http/responses.hpp"

#include <charconv>

#include "messages/document_encoder.hpp"
#include "messages/text.hpp"

namespace restcache::http {

unsigned http_status_of(rc_error e) noexcept {
  switch (e) {
    case rc_error::none: return 200;
    case rc_error::not_found: return 404;
    case rc_error::bad_request: return 400;
    case rc_error::db_unavailable: return 503;
    case rc_error::db_timeout: return 504;
    case rc_error::overloaded: return 503;
    case rc_error::internal: return 500;
    case rc_error::conflict: return 409;
    case rc_error::precondition_failed: return 412;
    case rc_error::unprocessable: return 422;
    case rc_error::too_large: return 413;
    case rc_error::db_schema: return 503;
  }
  return 500;
}

std::string_view default_detail(rc_error e) noexcept {
  switch (e) {
    case rc_error::none: return "";
    case rc_error::not_found: return "the requested resource does not exist";
    case rc_error::bad_request: return "the request is malformed";
    case rc_error::db_unavailable: return "the database is unavailable; retry later";
    case rc_error::db_timeout: return "the database did not answer in time";
    case rc_error::overloaded: return "the server is overloaded; retry later";
    case rc_error::internal: return "internal error; details are in the server log";
    case rc_error::conflict: return "the resource exists already";
    case rc_error::precondition_failed: return "the document changed: its ETag no longer matches If-Match";
    case rc_error::unprocessable: return "the request breaks a rule of the data";
    case rc_error::too_large: return "the request is larger than the server accepts";
    case rc_error::db_schema: return "the database no longer has what this document is read from; details are in the server log";
  }
  return "internal error; details are in the server log";
}

std::string_view status_title(unsigned status) noexcept {
  switch (status) {
    case 200: return "OK";
    case 304: return "Not Modified";
    case 308: return "Permanent Redirect";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 408: return "Request Timeout";
    case 409: return "Conflict";
    case 411: return "Length Required";
    case 412: return "Precondition Failed";
    case 413: return "Content Too Large";
    case 414: return "URI Too Long";
    case 415: return "Unsupported Media Type";
    case 417: return "Expectation Failed";
    case 422: return "Unprocessable Content";
    case 428: return "Precondition Required";
    case 429: return "Too Many Requests";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    case 502: return "Bad Gateway";
    case 503: return "Service Unavailable";
    case 504: return "Gateway Timeout";
    case 505: return "HTTP Version Not Supported";
  }
  return "Unknown";
}

bool carries_retry_after(unsigned status) noexcept {
  // 429: the client's address may try again within a second (a failed
  // credential's turn, or a connection place).
  return status == 503 || status == 429;
}

void append_problem_json(std::string& out, unsigned status, std::string_view detail) {
  out += R"({"type":"about:blank","title":)";
  append_json_string(out, status_title(status));
  out += R"(,"status":)";
  char digits[16];
  auto [end, ec] = std::to_chars(digits, digits + sizeof digits, status);
  (void)ec; // 16 bytes always suffice for an unsigned
  out.append(digits, end);
  out += R"(,"detail":)";
  append_json_string(out, detail);
  out += '}';
}

std::string problem_json(unsigned status, std::string_view detail) {
  std::string out;
  out.reserve(96 + detail.size());
  append_problem_json(out, status, detail);
  return out;
}

problem make_problem(unsigned status, std::string_view detail) {
  return problem{status, problem_json(status, detail), carries_retry_after(status)};
}

problem make_problem(rc_error e, std::string_view detail) {
  return make_problem(http_status_of(e), detail.empty() ? default_detail(e) : detail);
}

namespace {

constexpr bool is_ows(char c) noexcept {
  return c == ' ' || c == '\t';
}

/// The opaque-tag of an entity-tag (quotes included), W/ stripped.
constexpr std::string_view opaque_tag(std::string_view etag) noexcept {
  if (etag.size() >= 2 && etag[0] == 'W' && etag[1] == '/')
    etag.remove_prefix(2);
  return etag;
}

} // namespace

bool if_none_match_matches(std::string_view v, std::string_view etag) noexcept {
  const std::string_view current = opaque_tag(etag);
  size_t i = 0;
  const size_t n = v.size();
  while (i < n) {
    // skip separators
    while (i < n && (is_ows(v[i]) || v[i] == ','))
      ++i;
    if (i >= n)
      break;
    if (v[i] == '*') {
      size_t j = i + 1;
      while (j < n && is_ows(v[j]))
        ++j;
      if (j >= n || v[j] == ',')
        return true;
      i = j;
      continue; // malformed; the skip below moves on
    }
    if (v.size() - i >= 2 && v[i] == 'W' && v[i + 1] == '/')
      i += 2;
    if (i < n && v[i] == '"') {
      auto close = v.find('"', i + 1);
      if (close == std::string_view::npos)
        return false; // unterminated: nothing after it can be parsed
      std::string_view tag = v.substr(i, close + 1 - i);
      if (!current.empty() && tag == current)
        return true;
      i = close + 1;
    }
    // skip to the next list member (also skips malformed members)
    while (i < n && v[i] != ',')
      ++i;
  }
  return false;
}

namespace {

/// True when the comma-separated directive list holds no-cache or max-age=0.
bool lists_no_cache(std::string_view v) noexcept {
  while (!v.empty()) {
    auto comma = v.find(',');
    auto d = trim(v.substr(0, comma));
    v = comma == std::string_view::npos ? std::string_view{} : v.substr(comma + 1);
    auto eq = d.find('=');
    auto name = d.substr(0, eq);
    if (eq == std::string_view::npos) {
      if (iequals(name, "no-cache"))
        return true;
      continue;
    }
    auto arg = d.substr(eq + 1);
    if (arg.size() >= 2 && arg.front() == '"' && arg.back() == '"')
      arg = arg.substr(1, arg.size() - 2);
    if (iequals(name, "max-age") && !arg.empty() && arg.find_first_not_of('0') == std::string_view::npos)
      return true;
  }
  return false;
}

} // namespace

bool forbids_stored_answer(bool has_cache_control, std::string_view cache_control, bool has_pragma,
                           std::string_view pragma) noexcept {
  if (has_cache_control)
    return lists_no_cache(cache_control);
  return has_pragma && lists_no_cache(pragma);
}

} // namespace restcache::http
