#include "persistence/lmdb/record_codec.hpp"

#include <cstring>
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

uint32_t checksum(std::string_view header, std::string_view etag, std::string_view body) noexcept {
  hasher h;
  h.add(header);
  h.add(etag);
  h.add(body);
  return h.finish();
}

} // namespace

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

key_bytes encode_key(doc_key k) noexcept {
  key_bytes out;
  out[0] = char(k.kind);
  put_be(out.data() + 1, uint32_t(k.id), 4);
  return out;
}

std::optional<doc_key> decode_key(std::string_view b) noexcept {
  if (b.size() != key_size)
    return std::nullopt;
  auto kind = uint8_t(b[0]);
  if (!find_doc_kind(kind))
    return std::nullopt;
  return doc_key{doc_kind(kind), int32_t(uint32_t(get_be(b.data() + 1, 4)))};
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

size_t encoded_value_size(std::string_view etag, std::string_view body) noexcept {
  return value_header_size + etag.size() + body.size();
}

void encode_value_to(char* out, uint64_t seq, uint64_t write_seq, std::string_view etag,
                     std::string_view body) {
  if (etag.size() > max_etag_size)
    throw std::length_error("lmdb record: etag longer than 65535 bytes");
  if (body.size() > 0xffffffffULL)
    throw std::length_error("lmdb record: body longer than 4 GiB");
  out[0] = char(value_codec_version);
  put_be(out + 1, seq, 8);
  put_be(out + 9, write_seq, 8);
  put_be(out + 17, etag.size(), 2);
  put_be(out + 19, body.size(), 4);
  put_be(out + 23, checksum({out, 23}, etag, body), 4);
  std::memcpy(out + value_header_size, etag.data(), etag.size());
  std::memcpy(out + value_header_size + etag.size(), body.data(), body.size());
}

std::string encode_value(uint64_t seq, uint64_t write_seq, std::string_view etag,
                         std::string_view body) {
  std::string out(encoded_value_size(etag, body), '\0');
  encode_value_to(out.data(), seq, write_seq, etag, body);
  return out;
}

decode_error decode_value(std::string_view in, value_view& out) noexcept {
  if (in.size() < value_header_size)
    return decode_error::too_short;
  const char* p = in.data();
  if (uint8_t(p[0]) != value_codec_version)
    return decode_error::bad_version;
  size_t etag_len = get_be(p + 17, 2);
  size_t body_len = get_be(p + 19, 4);
  if (in.size() != value_header_size + etag_len + body_len)
    return decode_error::bad_length;
  std::string_view etag{p + value_header_size, etag_len};
  std::string_view body{p + value_header_size + etag_len, body_len};
  if (checksum({p, 23}, etag, body) != uint32_t(get_be(p + 23, 4)))
    return decode_error::bad_checksum;
  out = value_view{get_be(p + 1, 8), get_be(p + 9, 8), etag, body};
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
