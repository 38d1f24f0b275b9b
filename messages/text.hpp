// SPDX-License-Identifier: Apache-2.0
#pragma once

// Small text helpers shared by the layers (header values, config lines).

#include <charconv>
#include <cstddef>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

namespace restcache {

/// `s` without the leading and trailing characters in `chars` (by default
/// HTTP's optional whitespace: space and tab).
inline std::string_view trim(std::string_view s, std::string_view chars = " \t") noexcept {
  auto b = s.find_first_not_of(chars);
  if (b == std::string_view::npos)
    return {};
  auto e = s.find_last_not_of(chars);
  return s.substr(b, e - b + 1);
}

/// The whole of `s` as an integer; false for anything else (trailing text,
/// a sign the type has not, a value out of its range).
template <class Int>
bool parse_whole(std::string_view s, Int& out) noexcept {
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc{} && end == s.data() + s.size();
}

/// Splits off the text up to the next `sep` (or all of it) and moves `s`
/// past the separator.
inline std::string_view next_part(std::string_view& s, char sep) noexcept {
  auto at = s.find(sep);
  auto field = s.substr(0, at);
  s = at == std::string_view::npos ? std::string_view{} : s.substr(at + 1);
  return field;
}

/// The parts of `s` between each two `sep` (none for ""; an empty part
/// between two separators in a row).
inline std::vector<std::string> split(std::string_view s, char sep) {
  std::vector<std::string> out;
  while (!s.empty())
    out.emplace_back(next_part(s, sep));
  return out;
}

/// `parts` with `sep` between each two ("a, b, c"; "" for none).
inline std::string join(const std::vector<std::string>& parts, std::string_view sep) {
  std::string out;
  for (const auto& p : parts) {
    if (!out.empty())
      out += sep;
    out += p;
  }
  return out;
}

/// ASCII case-insensitive equality (header names, tokens).
inline bool iequals(std::string_view a, std::string_view b) noexcept {
  auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
  if (a.size() != b.size())
    return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (lower(a[i]) != lower(b[i]))
      return false;
  return true;
}

} // namespace restcache
