// SPDX-License-Identifier: Apache-2.0
#include "messages/doc_key.hpp"

#include <algorithm>
#include <cstring>
#include <limits>
#include <stdexcept>

namespace restcache {

namespace {

uint64_t splitmix(uint64_t x) noexcept {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

constexpr uint64_t sign_bit = uint64_t{1} << 63;

/// Whether `s` is UTF-8 (no overlong forms or surrogates, what a PostgreSQL
/// UTF8 database accepts as text) without control characters: NUL is no
/// text's, and the change log's digests separate keys with U+001F.
bool valid_text(std::string_view s) noexcept {
  size_t i = 0;
  while (i < s.size()) {
    auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x20)
      return false;
    if (c < 0x80) {
      ++i;
      continue;
    }
    size_t n = 0;
    uint32_t cp = 0, min = 0;
    if ((c & 0xe0) == 0xc0) {
      n = 1, cp = c & 0x1f, min = 0x80;
    } else if ((c & 0xf0) == 0xe0) {
      n = 2, cp = c & 0x0f, min = 0x800;
    } else if ((c & 0xf8) == 0xf0) {
      n = 3, cp = c & 0x07, min = 0x10000;
    } else {
      return false;
    }
    if (i + n >= s.size())
      return false;
    for (size_t k = 1; k <= n; ++k) {
      auto d = static_cast<unsigned char>(s[i + k]);
      if ((d & 0xc0) != 0x80)
        return false;
      cp = (cp << 6) | (d & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
      return false;
    i += n + 1;
  }
  return true;
}

int hex_value(char c) noexcept {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  return -1; // uppercase too: one spelling
}

} // namespace

key_error parse_integer_key(key_type type, std::string_view s, int64_t& out) noexcept {
  const int64_t max = type == key_type::int4 ? int64_t{std::numeric_limits<int32_t>::max()}
                                             : std::numeric_limits<int64_t>::max();
  if (s.empty())
    return key_error::empty;
  if (s.front() == '-' || s.front() == '+')
    return key_error::sign;
  for (char c : s)
    if (c == ' ' || c == '\t')
      return key_error::space;
  for (char c : s)
    if (c < '0' || c > '9')
      return key_error::non_digit;
  if (s.size() > 1 && s.front() == '0')
    return key_error::leading_zero;
  const int64_t max_tens = max / 10, max_last = max % 10;
  int64_t v = 0;
  for (char c : s) {
    int digit = c - '0';
    if (v > max_tens || (v == max_tens && digit > max_last)) // checked before it can overflow
      return key_error::overflow;
    v = v * 10 + digit;
  }
  if (v == 0)
    return key_error::zero;
  out = v;
  return key_error::none;
}

key_error check_text_key(std::string_view text) noexcept {
  if (text.empty())
    return key_error::empty;
  if (text.size() > max_text_key_bytes)
    return key_error::too_long;
  return valid_text(text) ? key_error::none : key_error::bad_text;
}

key_error parse_uuid_key(std::string_view text, char (&out)[16]) noexcept {
  if (text.empty())
    return key_error::empty;
  if (text.size() != 36)
    return key_error::bad_uuid;
  size_t n = 0;
  for (size_t i = 0; i < 36;) {
    if (i == 8 || i == 13 || i == 18 || i == 23) {
      if (text[i] != '-')
        return key_error::bad_uuid;
      ++i;
      continue;
    }
    int hi = hex_value(text[i]), lo = hex_value(text[i + 1]);
    if (hi < 0 || lo < 0)
      return key_error::bad_uuid;
    out[n++] = static_cast<char>(hi * 16 + lo);
    i += 2;
  }
  return key_error::none;
}

doc_key::doc_key(doc_kind kind, int64_t id) noexcept : size_(8), kind_(kind), integer_(true) {
  auto be = __builtin_bswap64(static_cast<uint64_t>(id) ^ sign_bit); // big-endian: bytes order as numbers
  std::memcpy(inline_, &be, 8);
  // The same spread as keys had when they were (kind, int32): a positive
  // id lands on the shard it always did.
  hash_ = splitmix((uint64_t(kind) << 32) ^ static_cast<uint64_t>(id));
}

doc_key doc_key::of_bytes(doc_kind kind, std::string_view bytes) {
  if (bytes.size() > max_text_key_bytes)
    throw std::length_error("a key is at most 255 bytes");
  doc_key k{kind, bytes_tag{}}; // inline_ zeroed: same_inline compares all 16 bytes
  k.size_ = static_cast<uint16_t>(bytes.size());
  if (bytes.size() <= inline_capacity) {
    std::copy(bytes.begin(), bytes.end(), k.inline_);
  } else {
    auto heap = std::make_shared<char[]>(bytes.size());
    std::copy(bytes.begin(), bytes.end(), heap.get());
    k.heap_ = std::move(heap);
  }
  // FNV-1a over the bytes, seeded by the kind, then mixed.
  uint64_t h = 0xcbf29ce484222325ULL ^ (uint64_t(kind) << 56);
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  k.hash_ = splitmix(h);
  return k;
}

int64_t doc_key::id() const noexcept {
  if (!integer_)
    return 0;
  uint64_t be;
  std::memcpy(&be, inline_, 8);
  return static_cast<int64_t>(__builtin_bswap64(be) ^ sign_bit);
}

key_error parse_key(key_type type, doc_kind kind, std::string_view text, doc_key& out) {
  switch (type) {
    case key_type::int4:
    case key_type::int8: {
      int64_t v = 0;
      auto e = parse_integer_key(type, text, v);
      if (e == key_error::none)
        out = doc_key{kind, v};
      return e;
    }
    case key_type::text: {
      auto e = check_text_key(text);
      if (e == key_error::none)
        out = doc_key::of_bytes(kind, text);
      return e;
    }
    case key_type::uuid: {
      char b[16];
      auto e = parse_uuid_key(text, b);
      if (e == key_error::none)
        out = doc_key::of_bytes(kind, {b, 16});
      return e;
    }
  }
  return key_error::empty;
}

std::string key_spelling(key_type type, const doc_key& key) {
  if (key.is_integer())
    return std::to_string(key.id());
  if (type != key_type::uuid)
    return std::string{key.bytes()};
  constexpr char digits[] = "0123456789abcdef";
  std::string out;
  out.reserve(36);
  size_t i = 0;
  for (unsigned char c : key.bytes()) {
    if (i == 4 || i == 6 || i == 8 || i == 10)
      out += '-';
    out += digits[c >> 4];
    out += digits[c & 15];
    ++i;
  }
  return out;
}

std::string_view to_detail(key_error e, key_type type) noexcept {
  switch (e) {
    case key_error::none: return "";
    case key_error::empty:
      return type == key_type::text ? "key is empty"
             : type == key_type::uuid ? "key is empty: expected a uuid"
                                      : "id is empty: expected a positive integer in decimal digits";
    case key_error::sign: return "id must not carry a sign: expected a positive integer in decimal digits";
    case key_error::space: return "id must not contain spaces";
    case key_error::non_digit: return "id must contain only the decimal digits 0-9";
    case key_error::overflow:
      return type == key_type::int4 ? "id is out of range: the largest id is 2147483647"
                                    : "id is out of range: the largest id is 9223372036854775807";
    case key_error::zero: return "id must be positive";
    case key_error::leading_zero: return "id must be written without leading zeros";
    case key_error::too_long: return "key is longer than 255 bytes";
    case key_error::bad_text: return "key must be UTF-8 without control characters";
    case key_error::bad_uuid: return "key must be a uuid in lowercase 8-4-4-4-12 form";
  }
  return "key is invalid";
}

std::string_view key_type_name(key_type type) noexcept {
  switch (type) {
    case key_type::int4: return "int4";
    case key_type::int8: return "int8";
    case key_type::text: return "text";
    case key_type::uuid: return "uuid";
  }
  return "";
}

} // namespace restcache
