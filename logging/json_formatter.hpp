#pragma once

// log.format=json: one JSON object per line,
// {"time":"2026-11-30T09:28:12.123Z","level":"info","thread":1234,"msg":"..."}.

#include <spdlog/formatter.h>

#include <memory>
#include <string>
#include <string_view>

namespace restcache::logging {

class json_formatter final : public spdlog::formatter {
public:
  void format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& dest) override;
  std::unique_ptr<spdlog::formatter> clone() const override;
};

/// Appends `s` as the inside of a JSON string (quotes, backslashes and
/// control characters escaped; other bytes as they are).
void append_json_escaped(std::string& out, std::string_view s);

/// "2026-11-30T09:28:12.123Z" for a time since the epoch in milliseconds;
/// the seconds part is formatted once per second per thread.
void append_utc_time(std::string& out, int64_t epoch_ms);

} // namespace restcache::logging
