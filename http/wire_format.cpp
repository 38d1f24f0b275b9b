// SPDX-License-Identifier: Apache-2.0
#include "http/wire_format.hpp"

#include <array>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <ctime>

#include <boost/beast/http/status.hpp>

#include "http/responses.hpp"

namespace restcache::http {

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

std::string_view connection_line(unsigned version, bool keep_alive) noexcept {
  if (version == 10 && keep_alive)
    return "Connection: keep-alive\r\n";
  if (version != 10 && !keep_alive)
    return "Connection: close\r\n";
  return {};
}

namespace {

/// A cached document's header: the same constant lines for every document
/// plus the ETag, length, date and request id. Copied into place with
/// lengths known here, not appended piece by piece (each append measured
/// its literal and checked the capacity); Beast's generic serializer cost
/// about a third of the instructions of a memory hit.
void serialize_document_head(std::string& out, const reply& r, unsigned version, std::string_view request_id,
                             bool keep_alive) {
  // The constant lines, ending with the Cache-Status line of each status
  // (none for none): one copy per answer.
  static const auto fixed_for = [] {
    const std::string common = "Server: " + std::string{server_name} + "\r\nContent-Type: "
                               + std::string{content_type_json} + "\r\nCache-Control: "
                               + std::string{cache_control_documents} + "\r\nVary: Accept-Encoding\r\n";
    std::array<std::string, cache_status_count> lines;
    for (size_t i = 0; i < cache_status_count; ++i)
      lines[i] = common
                 + (i == 0 ? std::string{}
                           : "Cache-Status: " + std::string{cache_status_field(static_cast<cache_status>(i))} + "\r\n");
    return lines;
  }();
  const std::string& fixed = fixed_for[static_cast<size_t>(r.cache_result)];
  const std::string_view date = http_date();
  char length[24];
  auto [length_end, ec] = std::to_chars(length, length + sizeof length, r.doc->body.size());
  const std::string_view connection = connection_line(version, keep_alive);
  const std::string_view etag = r.doc->etag;
  constexpr std::string_view status_line = "HTTP/1.1 200 OK\r\n";
  out.resize(status_line.size() + fixed.size() + 6 + etag.size() + 18
             + static_cast<size_t>(length_end - length) + 8 + date.size() + 16 + request_id.size() + 2
             + connection.size() + 2);
  char* p = out.data();
  auto put = [&p](std::string_view s) {
    if (s.empty())
      return; // memcpy from an empty view's null data is undefined
    std::memcpy(p, s.data(), s.size());
    p += s.size();
  };
  put(version == 10 ? "HTTP/1.0 200 OK\r\n" : status_line);
  put(fixed);
  put("ETag: ");
  put(etag);
  put("\r\nContent-Length: ");
  put({length, static_cast<size_t>(length_end - length)});
  put("\r\nDate: ");
  put(date);
  put("\r\nX-Request-Id: ");
  put(request_id);
  put("\r\n");
  put(connection);
  put("\r\n");
}

} // namespace

void serialize_head(std::string& out, const reply& r, unsigned version, std::string_view request_id,
                    bool keep_alive) {
  if (r.form == reply::shape::document)
    return serialize_document_head(out, r, version, request_id, keep_alive);
  out.clear();
  out += version == 10 ? "HTTP/1.0 " : "HTTP/1.1 ";
  char digits[8];
  auto [end, ec] = std::to_chars(digits, digits + sizeof digits, r.status);
  out.append(digits, end);
  out += ' ';
  // Beast's reason phrases, as its serializer wrote them.
  auto reason = boost::beast::http::obsolete_reason(boost::beast::http::int_to_status(r.status));
  out.append(reason.data(), reason.size());
  out += "\r\nServer: ";
  out += server_name;
  out += "\r\nDate: ";
  out += http_date();
  out += "\r\nX-Request-Id: ";
  out += request_id;
  out += "\r\n";
  for (auto& f : r.fields) {
    out += f.name;
    out += ": ";
    out += f.value;
    out += "\r\n";
  }
  out += connection_line(version, keep_alive);
  out += "\r\n";
}

} // namespace restcache::http
