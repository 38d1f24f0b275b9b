// SPDX-License-Identifier: Apache-2.0
#pragma once

// The two passes every encoder writes a document in: size_sink measures it
// exactly, then write_sink writes it into a string of that size with plain
// stores (no capacity check per piece). For the encoders' own files.

#include <cassert>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace restcache::json_sink {

/// Bytes s takes as a JSON string body (without the quotes).
inline size_t escaped_size(std::string_view s) noexcept {
  size_t n = s.size();
  for (unsigned char c : s)
    if (c < 0x20 || c == '"' || c == '\\')
      n += (c == '"' || c == '\\' || c == '\n' || c == '\r' || c == '\t' || c == '\b' || c == '\f') ? 1 : 5;
  return n;
}

inline size_t decimal_size(int64_t v) noexcept {
  uint64_t u = v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
  size_t n = v < 0 ? 2 : 1;
  while (u >= 10) {
    u /= 10;
    ++n;
  }
  return n;
}

struct size_sink {
  size_t n = 0;
  void raw(std::string_view s) noexcept { n += s.size(); }
  void ch(char) noexcept { ++n; }
  void integer(int64_t v) noexcept { n += decimal_size(v); }
  void string(std::string_view s) noexcept { n += escaped_size(s) + 2; }
};

struct write_sink {
  char* p;
  void raw(std::string_view s) noexcept {
    std::memcpy(p, s.data(), s.size());
    p += s.size();
  }
  void ch(char c) noexcept { *p++ = c; }
  void integer(int64_t v) noexcept { p = std::to_chars(p, p + 20, v).ptr; }
  void string(std::string_view s) noexcept {
    static constexpr char hex[] = "0123456789abcdef";
    *p++ = '"';
    size_t run = 0; // start of the pending run of characters needing no escape
    for (size_t i = 0; i < s.size(); ++i) {
      auto c = static_cast<unsigned char>(s[i]);
      if (c >= 0x20 && c != '"' && c != '\\')
        continue;
      raw(s.substr(run, i - run));
      run = i + 1;
      *p++ = '\\';
      switch (c) {
        case '"': *p++ = '"'; break;
        case '\\': *p++ = '\\'; break;
        case '\n': *p++ = 'n'; break;
        case '\r': *p++ = 'r'; break;
        case '\t': *p++ = 't'; break;
        case '\b': *p++ = 'b'; break;
        case '\f': *p++ = 'f'; break;
        default:
          raw("u00");
          *p++ = hex[c >> 4];
          *p++ = hex[c & 0xf];
      }
    }
    raw(s.substr(run));
    *p++ = '"';
  }
};

/// Measures, then writes: `put` is called with each sink in turn.
template <class Put>
std::string encode(Put put) {
  size_sink size;
  put(size);
  std::string out(size.n, '\0');
  write_sink w{out.data()};
  put(w);
  assert(w.p == out.data() + out.size());
  return out;
}


} // namespace restcache::json_sink
