#pragma once

// Byte layouts of the LMDB tier. Plain C++ (no LMDB, no CAF) so the codec can
// be tested and fuzzed on its own.
//
// records key   : 1 byte doc_kind + 4 bytes big-endian id (memcmp order = kind, then id;
//                 ids are positive database serials, a negative id would sort last)
// records value : header (27 bytes) + etag bytes + body bytes
//   [0]      codec version (value_codec_version)
//   [1,9)    u64 BE seq        change-seq / fill-seq of the document
//   [9,17)   u64 BE write_seq  position in write_order, so a replace or an
//                              eviction finds its write_order entry
//   [17,19)  u16 BE etag length
//   [19,23)  u32 BE body length (explicit, so a truncated value is detected)
//   [23,27)  u32 BE checksum of [0,23) + etag + body (a garbled value is not served)
// write_order   : key u64 BE write_seq -> value = records key (5 bytes)
// meta "history": u64 BE system id + u32 BE database OID + u32 BE timeline
//                 + the database name's bytes (the history the records came from)

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "messages/cache_types.hpp"
#include "messages/history.hpp"

namespace restcache::lmdb {

inline constexpr uint8_t value_codec_version = 1;
inline constexpr size_t key_size = 5;
inline constexpr size_t value_header_size = 27;
inline constexpr size_t max_etag_size = 0xffff;

using key_bytes = std::array<char, key_size>;
using u64_bytes = std::array<char, 8>;

key_bytes encode_key(doc_key k) noexcept;
/// nullopt unless exactly 5 bytes with a known doc_kind.
std::optional<doc_key> decode_key(std::string_view b) noexcept;

u64_bytes encode_u64(uint64_t v) noexcept;
/// nullopt unless exactly 8 bytes.
std::optional<uint64_t> decode_u64(std::string_view b) noexcept;

std::string encode_history(const history_identity& id);
/// nullopt unless at least the 16 fixed bytes.
std::optional<history_identity> decode_history(std::string_view b);

/// Size of the encoded value (header + etag + body).
size_t encoded_value_size(std::string_view etag, std::string_view body) noexcept;

/// Writes the value into out[0, encoded_value_size) (e.g. space reserved with
/// MDB_RESERVE, which saves a copy). Throws std::length_error for an etag longer
/// than 65535 bytes or a body longer than 4 GiB - 1.
void encode_value_to(char* out, uint64_t seq, uint64_t write_seq, std::string_view etag,
                     std::string_view body);
std::string encode_value(uint64_t seq, uint64_t write_seq, std::string_view etag,
                         std::string_view body);

/// A decoded value; etag and body point into the decoded bytes.
struct value_view {
  uint64_t seq = 0;
  uint64_t write_seq = 0;
  std::string_view etag;
  std::string_view body;
};

/// Why a value did not decode.
enum class decode_error : uint8_t { none, too_short, bad_version, bad_length, bad_checksum };

/// Strict: the version must match, the lengths must add up to exactly the
/// value's size and the checksum must match. Never yields a partial document.
decode_error decode_value(std::string_view in, value_view& out) noexcept;
std::optional<value_view> decode_value(std::string_view in) noexcept;

const char* to_string(decode_error e) noexcept;

} // namespace restcache::lmdb
