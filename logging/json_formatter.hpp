// SPDX-License-Identifier: Apache-2.0
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

/// The length of the valid UTF-8 sequence that starts at s[i] (1 for
/// ASCII), or 0 when the bytes there are not one (a stray continuation
/// byte, a truncated, overlong or surrogate sequence, past U+10FFFF).
size_t utf8_sequence_length(std::string_view s, size_t i) noexcept;

/// Appends `s` as the inside of a JSON string: quotes, backslashes and
/// control characters escaped, valid UTF-8 as it is, and each byte that is
/// not valid UTF-8 as U+FFFD, so the line always parses.
void append_json_escaped(std::string& out, std::string_view s);

/// "2026-11-30T09:28:12.123Z" for a time since the epoch in milliseconds;
/// the seconds part is formatted once per second per thread.
void append_utc_time(std::string& out, int64_t epoch_ms);

} // namespace restcache::logging
