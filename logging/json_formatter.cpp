// SPDX-License-Identifier: Apache-2.0
#include "logging/json_formatter.hpp"

#include <spdlog/details/log_msg.h>

#include <chrono>
#include <cstdio>
#include <ctime>

namespace restcache::logging {

size_t utf8_sequence_length(std::string_view s, size_t i) noexcept {
  auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  auto cont = [&](size_t k) { return k < s.size() && (byte(k) & 0xC0) == 0x80; };
  unsigned char b = byte(i);
  if (b < 0x80)
    return 1;
  if (b >= 0xC2 && b <= 0xDF)
    return cont(i + 1) ? 2 : 0;
  if (b >= 0xE0 && b <= 0xEF) {
    if (!cont(i + 1) || !cont(i + 2))
      return 0;
    unsigned char b1 = byte(i + 1);
    if ((b == 0xE0 && b1 < 0xA0) || (b == 0xED && b1 > 0x9F)) // overlong, or a UTF-16 surrogate
      return 0;
    return 3;
  }
  if (b >= 0xF0 && b <= 0xF4) {
    if (!cont(i + 1) || !cont(i + 2) || !cont(i + 3))
      return 0;
    unsigned char b1 = byte(i + 1);
    if ((b == 0xF0 && b1 < 0x90) || (b == 0xF4 && b1 > 0x8F)) // overlong, or past U+10FFFF
      return 0;
    return 4;
  }
  return 0;
}

void append_json_escaped(std::string& out, std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    char c = s[i];
    auto u = static_cast<unsigned char>(c);
    if (u >= 0x80) {
      // JSON text is UTF-8: a byte that starts no valid sequence would make
      // the whole line unreadable to a JSON parser.
      if (auto n = utf8_sequence_length(s, i); n > 0) {
        out.append(s.data() + i, n);
        i += n;
      } else {
        out += "\\ufffd";
        ++i;
      }
      continue;
    }
    ++i;
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (u < 0x20 || u == 0x7f) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(u));
          out += buf;
        } else {
          out += c;
        }
    }
  }
}

void append_utc_time(std::string& out, int64_t epoch_ms) {
  thread_local int64_t cached_second = -1;
  thread_local char cached[24]; // "2026-11-30T09:28:12."
  int64_t second = epoch_ms / 1000;
  if (second != cached_second) {
    std::time_t t = static_cast<std::time_t>(second);
    std::tm tm{};
    gmtime_r(&t, &tm);
    std::strftime(cached, sizeof cached, "%Y-%m-%dT%H:%M:%S.", &tm);
    cached_second = second;
  }
  out += cached;
  auto ms = static_cast<int>(epoch_ms % 1000);
  out += static_cast<char>('0' + ms / 100);
  out += static_cast<char>('0' + ms / 10 % 10);
  out += static_cast<char>('0' + ms % 10);
  out += 'Z';
}

void json_formatter::format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& dest) {
  std::string line = "{\"time\":\"";
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(msg.time.time_since_epoch()).count();
  append_utc_time(line, ms);
  line += "\",\"level\":\"";
  auto level = spdlog::level::to_string_view(msg.level);
  line.append(level.data(), level.size());
  line += "\",\"thread\":";
  line += std::to_string(msg.thread_id);
  line += ",\"msg\":\"";
  append_json_escaped(line, std::string_view{msg.payload.data(), msg.payload.size()});
  line += "\"}\n";
  dest.append(line.data(), line.data() + line.size());
}

std::unique_ptr<spdlog::formatter> json_formatter::clone() const {
  return std::make_unique<json_formatter>();
}

} // namespace restcache::logging
