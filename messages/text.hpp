#pragma once

// Small text helpers shared by the layers (header values, config lines).

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

} // namespace restcache
