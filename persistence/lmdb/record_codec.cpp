// SPDX-License-Identifier: Apache-2.0
#include "persistence/lmdb/record_codec.hpp"

#include <cstring>

// Header-only: the functions are compiled in here, no library to link.
#define XXH_INLINE_ALL
#include <xxhash.h>
#include <stdexcept>

#include "messages/doc_catalogue.hpp"

namespace restcache::lmdb {

namespace {

void put_be(char* out, uint64_t v, int bytes) noexcept {
  for (int i = bytes - 1; i >= 0; --i, v >>= 8)
    out[i] = char(v & 0xff);
}

uint64_t get_be(const char* in, int bytes) noexcept {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i)
    v = (v << 8) | uint8_t(in[i]);
  return v;
}

// A word-at-a-time multiply/rotate hash: detects garbling at ~0.2 ns/byte, far
// cheaper than FNV-1a's byte loop on a 1.5 KB value. Not cryptographic.
struct hasher {
  uint64_t h = 0x9e3779b97f4a7c15ULL;
  void add(std::string_view s) noexcept {
    const char* p = s.data();
    size_t n = s.size();
    for (; n >= 8; p += 8, n -= 8) {
      uint64_t w;
      std::memcpy(&w, p, 8);
      mix(w);
    }
    uint64_t tail = 0;
    std::memcpy(&tail, p, n);
    mix(tail ^ (uint64_t(n) << 56));
  }
  void mix(uint64_t w) noexcept {
    h = (h ^ w) * 0xbf58476d1ce4e5b9ULL;
    h = (h << 31) | (h >> 33);
  }
  uint32_t finish() noexcept {
    uint64_t x = h;
    x = (x ^ (x >> 30)) * 0x94d049bb133111ebULL;
    return uint32_t(x ^ (x >> 31));
  }
};

uint32_t checksum(std::string_view header, std::string_view etag, std::string_view body,
                  std::string_view rows) noexcept {
  hasher h;
  h.add(header);
  h.add(etag);
  h.add(body);
  h.add(rows);
  return h.finish();
}

size_t rows_size(const std::vector<std::string>& rows) noexcept {
  size_t n = 0;
  for (const auto& r : rows)
    n += 4 + r.size();
  return n;
}

} // namespace

std::string encode_kind_registry(const std::vector<registered_kind>& kinds) {
  std::string out;
  for (const auto& k : kinds) {
    auto name = std::string_view{k.name}.substr(0, 255);
    char head[10];
    head[0] = char(k.id);
    put_be(head + 1, k.fingerprint, 8);
    head[9] = char(name.size());
    out.append(head, sizeof head);
    out += name;
  }
  return out;
}

std::optional<std::vector<registered_kind>> decode_kind_registry(std::string_view b) {
  std::vector<registered_kind> out;
  while (!b.empty()) {
    if (b.size() < 10)
      return std::nullopt;
    registered_kind k;
    k.id = uint8_t(b[0]);
    k.fingerprint = get_be(b.data() + 1, 8);
    size_t n = uint8_t(b[9]);
    if (b.size() < 10 + n)
      return std::nullopt;
    k.name = std::string{b.substr(10, n)};
    out.push_back(std::move(k));
    b.remove_prefix(10 + n);
  }
  return out;
}

std::string encode_history(const history_identity& id) {
  std::string out(16, '\0');
  put_be(out.data(), id.system_id, 8);
  put_be(out.data() + 8, id.database_oid, 4);
  put_be(out.data() + 12, id.timeline, 4);
  out += id.database_name;
  return out;
}

std::optional<history_identity> decode_history(std::string_view b) {
  if (b.size() < 16)
    return std::nullopt;
  history_identity id;
  id.system_id = get_be(b.data(), 8);
  id.database_oid = static_cast<uint32_t>(get_be(b.data() + 8, 4));
  id.timeline = static_cast<uint32_t>(get_be(b.data() + 12, 4));
  id.database_name = std::string{b.substr(16)};
  return id;
}

std::optional<key_bytes> key_bytes::of(std::string_view raw) noexcept {
  if (raw.empty() || raw.size() > max_key_size)
    return std::nullopt;
  key_bytes out;
  std::memcpy(out.bytes_.data(), raw.data(), raw.size());
  out.size_ = static_cast<uint16_t>(raw.size());
  return out;
}

key_bytes encode_key(const doc_key& k) noexcept {
  key_bytes out;
  auto b = k.bytes(); // at most max_text_key_bytes (doc_key::of_bytes checks)
  out.bytes_[0] = char(k.kind());
  std::memcpy(out.bytes_.data() + 1, b.data(), b.size());
  out.size_ = static_cast<uint16_t>(1 + b.size());
  return out;
}

std::optional<doc_key> decode_key(std::string_view b) {
  if (b.size() < 2 || b.size() > max_key_size)
    return std::nullopt;
  const auto* kind = find_doc_kind(uint8_t(b[0]));
  if (kind == nullptr)
    return std::nullopt;
  auto bytes = b.substr(1);
  switch (kind->key) {
    case key_type::int4:
    case key_type::int8: {
      if (bytes.size() != 8)
        return std::nullopt;
      auto id = static_cast<int64_t>(get_be(bytes.data(), 8) ^ (uint64_t{1} << 63));
      doc_key k{kind->kind, id};
      return k;
    }
    case key_type::uuid:
      if (bytes.size() != 16)
        return std::nullopt;
      return doc_key::of_bytes(kind->kind, bytes);
    case key_type::text:
      return doc_key::of_bytes(kind->kind, bytes);
  }
  return std::nullopt;
}

u64_bytes encode_u64(uint64_t v) noexcept {
  u64_bytes out;
  put_be(out.data(), v, 8);
  return out;
}

std::optional<uint64_t> decode_u64(std::string_view b) noexcept {
  if (b.size() != 8)
    return std::nullopt;
  return get_be(b.data(), 8);
}

size_t encoded_value_size(std::string_view etag, std::string_view body,
                          const std::vector<std::string>& rows) noexcept {
  return value_header_size + etag.size() + body.size() + rows_size(rows);
}

void encode_value_to(char* out, uint64_t seq, uint64_t write_seq, std::string_view etag,
                     std::string_view body, const std::vector<std::string>& rows) {
  if (etag.size() > max_etag_size)
    throw std::length_error("lmdb record: etag longer than 65535 bytes");
  if (body.size() > 0xffffffffULL)
    throw std::length_error("lmdb record: body longer than 4 GiB");
  const size_t rows_bytes = rows_size(rows);
  if (rows_bytes > 0xffffffffULL)
    throw std::length_error("lmdb record: rows longer than 4 GiB");
  char* r = out + value_header_size + etag.size() + body.size();
  for (const auto& row : rows) {
    put_be(r, row.size(), 4);
    std::memcpy(r + 4, row.data(), row.size());
    r += 4 + row.size();
  }
  out[0] = char(value_codec_version);
  put_be(out + 1, seq, 8);
  put_be(out + 9, write_seq, 8);
  put_be(out + 17, etag.size(), 2);
  put_be(out + 19, body.size(), 4);
  put_be(out + 23, rows_bytes, 4);
  std::memcpy(out + value_header_size, etag.data(), etag.size());
  std::memcpy(out + value_header_size + etag.size(), body.data(), body.size());
  put_be(out + 27,
         checksum({out, 27}, etag, body, {out + value_header_size + etag.size() + body.size(), rows_bytes}), 4);
}

std::string encode_value(uint64_t seq, uint64_t write_seq, std::string_view etag,
                         std::string_view body, const std::vector<std::string>& rows) {
  std::string out(encoded_value_size(etag, body, rows), '\0');
  encode_value_to(out.data(), seq, write_seq, etag, body, rows);
  return out;
}

u64_bytes row_hash(std::string_view row) noexcept {
  return encode_u64(XXH3_64bits(row.data(), row.size()));
}

decode_error decode_value(std::string_view in, value_view& out) noexcept {
  if (in.size() < value_header_size)
    return decode_error::too_short;
  const char* p = in.data();
  if (uint8_t(p[0]) != value_codec_version)
    return decode_error::bad_version;
  size_t etag_len = get_be(p + 17, 2);
  size_t body_len = get_be(p + 19, 4);
  size_t rows_len = get_be(p + 23, 4);
  if (in.size() != value_header_size + etag_len + body_len + rows_len)
    return decode_error::bad_length;
  std::string_view etag{p + value_header_size, etag_len};
  std::string_view body{p + value_header_size + etag_len, body_len};
  std::string_view rows{p + value_header_size + etag_len + body_len, rows_len};
  if (checksum({p, 27}, etag, body, rows) != uint32_t(get_be(p + 27, 4)))
    return decode_error::bad_checksum;
  for (auto rest = rows; !rest.empty();) { // each length within the rows
    if (rest.size() < 4 || get_be(rest.data(), 4) > rest.size() - 4)
      return decode_error::bad_length;
    rest.remove_prefix(4 + get_be(rest.data(), 4));
  }
  out = value_view{get_be(p + 1, 8), get_be(p + 9, 8), etag, body, rows};
  return decode_error::none;
}

std::optional<value_view> decode_value(std::string_view in) noexcept {
  value_view v;
  if (decode_value(in, v) != decode_error::none)
    return std::nullopt;
  return v;
}

const char* to_string(decode_error e) noexcept {
  switch (e) {
    case decode_error::none: return "none";
    case decode_error::too_short: return "too_short";
    case decode_error::bad_version: return "bad_version";
    case decode_error::bad_length: return "bad_length";
    case decode_error::bad_checksum: return "bad_checksum";
  }
  return "unknown";
}

} // namespace restcache::lmdb
