// SPDX-License-Identifier: Apache-2.0
#include "http/gzip.hpp"

#include "messages/text.hpp"

#include <cctype>

namespace restcache::http {

namespace {

/// q of a coding's parameters ("q=0.5"); 1 when absent, 0 when malformed.
double quality(std::string_view params) noexcept {
  while (!params.empty()) {
    auto semi = params.find(';');
    auto p = trim(params.substr(0, semi));
    params = semi == std::string_view::npos ? std::string_view{} : params.substr(semi + 1);
    if (p.size() >= 2 && (p[0] == 'q' || p[0] == 'Q') && p[1] == '=') {
      auto v = p.substr(2);
      if (v.empty() || (v[0] != '0' && v[0] != '1'))
        return 0;
      // "0", "0.0", "0.000": zero; anything else in 0..1 counts as accepted.
      for (char c : v.substr(1))
        if (c != '.' && c != '0')
          return 1;
      return v[0] == '1' ? 1 : 0;
    }
  }
  return 1;
}

} // namespace

bool accepts_gzip(std::string_view value) noexcept {
  bool star = false, gzip = false, gzip_named = false;
  while (!value.empty()) {
    auto comma = value.find(',');
    auto item = value.substr(0, comma);
    value = comma == std::string_view::npos ? std::string_view{} : value.substr(comma + 1);
    auto semi = item.find(';');
    auto coding = trim(item.substr(0, semi));
    auto q = quality(semi == std::string_view::npos ? std::string_view{} : item.substr(semi + 1));
    if (iequals(coding, "gzip") || iequals(coding, "x-gzip")) {
      gzip_named = true;
      gzip = q > 0;
    } else if (coding == "*") {
      star = q > 0;
    }
  }
  return gzip_named ? gzip : star;
}

std::string identity_etags(std::string_view if_match) {
  std::string out{if_match};
  for (size_t at = 0; (at = out.find("-gz\"", at)) != std::string::npos;)
    out.erase(at, 3);
  return out;
}

} // namespace restcache::http
