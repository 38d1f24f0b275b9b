#include "logging/json_formatter.hpp"

#include <spdlog/details/log_msg.h>

#include <chrono>
#include <cstdio>
#include <ctime>

namespace restcache::logging {

void append_json_escaped(std::string& out, std::string_view s) {
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(c)));
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
