#pragma once

// Small text helpers shared by the layers (header values, config lines).

#include <cstddef>
#include <string_view>

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
