// SPDX-License-Identifier: Apache-2.0
#pragma once

// Byte layouts of the LMDB tier. Plain C++ (no LMDB, no CAF) so the codec can
// be tested and fuzzed on its own.
//
// records key   : 1 byte doc_kind + the key's bytes (doc_key::bytes: an integer's 8
//                 big-endian bytes, sign bit flipped, so memcmp order = kind, then
//                 number; a text key's UTF-8 bytes; a uuid's 16), 2 to 256 bytes:
//                 under LMDB's 511-byte limit without hashing
// records value : header (31 bytes) + etag bytes + body bytes + rows bytes
//   [0]      codec version (value_codec_version)
//   [1,9)    u64 BE seq        change-seq / fill-seq of the document
//   [9,17)   u64 BE write_seq  position in write_order, so a replace or an
//                              eviction finds its write_order entry
//   [17,19)  u16 BE etag length
//   [19,23)  u32 BE body length (explicit, so a truncated value is detected)
//   [23,27)  u32 BE rows length: the document's table rows (cached_doc::rows),
//            each a u32 BE length and its bytes
//   [27,31)  u32 BE checksum of [0,27) + etag + body + rows (a garbled value is not served)
// write_order   : key u64 BE write_seq -> value = records key
// rows          : key u64 BE XXH3 of a row (row_hash) + records key -> empty: the
//                 records holding each row (a collision only drops one more)
// meta "kinds"  : per kind: u8 id + u64 BE fingerprint (kind_fingerprint) + u8 name
//                 length + the name's bytes (what wrote the records of each kind id)
// meta "history": u64 BE system id + u32 BE database OID + u32 BE timeline
//                 + the database name's bytes (the history the records came from)

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "messages/cache_types.hpp"
#include "messages/history.hpp"

namespace restcache::lmdb {

inline constexpr uint8_t value_codec_version = 2;
/// The longest records key: the kind byte and the longest text key.
inline constexpr size_t max_key_size = 1 + max_text_key_bytes;
inline constexpr size_t value_header_size = 31;
inline constexpr size_t max_etag_size = 0xffff;

/// A records key, held without allocating.
class key_bytes {
public:
  /// The bytes of a stored key; nullopt when empty or longer than any key.
  static std::optional<key_bytes> of(std::string_view raw) noexcept;
  std::string_view view() const noexcept { return {bytes_.data(), size_}; }
  size_t size() const noexcept { return size_; }

private:
  friend key_bytes encode_key(const doc_key& k) noexcept;
  std::array<char, max_key_size> bytes_;
  uint16_t size_ = 0;
};
using u64_bytes = std::array<char, 8>;

key_bytes encode_key(const doc_key& k) noexcept;
/// nullopt unless a kind the catalogue has, followed by a key of its key
/// type (8 bytes for an integer kind, 16 for a uuid, 1 to 255 for text).
std::optional<doc_key> decode_key(std::string_view b);

u64_bytes encode_u64(uint64_t v) noexcept;
/// nullopt unless exactly 8 bytes.
std::optional<uint64_t> decode_u64(std::string_view b) noexcept;

/// A kind as a file knows it: the id its records carry, and what wrote them.
struct registered_kind {
  uint8_t id = 0;
  uint64_t fingerprint = 0;
  std::string name;
  friend bool operator==(const registered_kind&, const registered_kind&) = default;
};

std::string encode_kind_registry(const std::vector<registered_kind>& kinds);
/// nullopt unless a whole number of well-formed entries.
std::optional<std::vector<registered_kind>> decode_kind_registry(std::string_view b);

std::string encode_history(const history_identity& id);
/// nullopt unless at least the 16 fixed bytes.
std::optional<history_identity> decode_history(std::string_view b);

/// Size of the encoded value (header + etag + body + rows).
size_t encoded_value_size(std::string_view etag, std::string_view body,
                          const std::vector<std::string>& rows = {}) noexcept;

/// Writes the value into out[0, encoded_value_size) (e.g. space reserved with
/// MDB_RESERVE, which saves a copy). Throws std::length_error for an etag longer
/// than 65535 bytes or a body longer than 4 GiB - 1.
void encode_value_to(char* out, uint64_t seq, uint64_t write_seq, std::string_view etag,
                     std::string_view body, const std::vector<std::string>& rows = {});
std::string encode_value(uint64_t seq, uint64_t write_seq, std::string_view etag,
                         std::string_view body, const std::vector<std::string>& rows = {});

/// A decoded value; etag and body point into the decoded bytes.
struct value_view {
  uint64_t seq = 0;
  uint64_t write_seq = 0;
  std::string_view etag;
  std::string_view body;
  std::string_view rows; ///< encoded: each_row() reads them
};

/// Calls f(row) for each row of a decoded value's rows.
template <class F>
void each_row(std::string_view rows, F&& f) {
  while (rows.size() >= 4) {
    size_t n = (size_t(uint8_t(rows[0])) << 24) | (size_t(uint8_t(rows[1])) << 16) | (size_t(uint8_t(rows[2])) << 8)
               | size_t(uint8_t(rows[3]));
    if (n > rows.size() - 4)
      return; // checked at decode: never for a value that decoded
    f(rows.substr(4, n));
    rows.remove_prefix(4 + n);
  }
}

/// The rows key prefix of a row: its 64-bit XXH3, big-endian.
u64_bytes row_hash(std::string_view row) noexcept;

/// Why a value did not decode.
enum class decode_error : uint8_t { none, too_short, bad_version, bad_length, bad_checksum };

/// Strict: the version must match, the lengths must add up to exactly the
/// value's size and the checksum must match. Never yields a partial document.
decode_error decode_value(std::string_view in, value_view& out) noexcept;
std::optional<value_view> decode_value(std::string_view in) noexcept;

const char* to_string(decode_error e) noexcept;

} // namespace restcache::lmdb
