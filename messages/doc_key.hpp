// SPDX-License-Identifier: Apache-2.0
#pragma once

// What names one cached document: its kind (an id the runtime catalogue
// gives out) and its key, a small typed byte string whose hash is computed
// once, when the key is made.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace restcache {

/// A registered kind: its place in the runtime catalogue, from 1 (0 is no
/// kind). Stored as the first byte of an LMDB key.
enum class doc_kind : uint8_t {};

/// The type of a kind's key column, which decides how a key is spelled in a
/// path, in the change log and in a statement's parameter.
enum class key_type : uint8_t {
  int4, ///< positive integer up to 2147483647
  int8, ///< positive integer up to 9223372036854775807
  text, ///< UTF-8, 1 to max_text_key_bytes bytes, no control characters
  uuid, ///< 16 bytes; spelled in its canonical lowercase 8-4-4-4-12 form
};

/// Whether keys of the type are integers (held and compared as numbers).
constexpr bool is_integer(key_type type) noexcept {
  return type == key_type::int4 || type == key_type::int8;
}

/// The longest text key: an LMDB key (a kind byte and the key) then stays
/// well under LMDB's 511-byte limit, so no key needs hashing to fit.
inline constexpr size_t max_text_key_bytes = 255;

class doc_key {
public:
  /// No kind, id 0.
  doc_key() noexcept : doc_key(doc_kind{}, 0) {}
  /// A key of an integer kind (int4 or int8): no allocation.
  doc_key(doc_kind kind, int64_t id) noexcept;
  /// A key of a text or uuid kind: its bytes (the text's, or the uuid's
  /// 16); throws std::length_error past max_text_key_bytes. Up to 16 bytes
  /// are held in the key itself, longer ones in one shared allocation.
  static doc_key of_bytes(doc_kind kind, std::string_view bytes);

  doc_kind kind() const noexcept { return kind_; }
  /// The same key of another kind (of the same key space).
  doc_key of_kind(doc_kind kind) const { return integer_ ? doc_key{kind, id()} : of_bytes(kind, bytes()); }
  /// True for a key made from an integer.
  bool is_integer() const noexcept { return integer_; }
  /// The integer of an integer key; 0 for others.
  int64_t id() const noexcept;
  /// The key's bytes: an integer's 8 big-endian bytes with the sign bit
  /// flipped (so bytes order as numbers do), else the bytes it was made of.
  std::string_view bytes() const noexcept { return {size_ <= inline_capacity ? inline_ : heap_.get(), size_}; }
  /// Spread over 64 bits; the same on every instance and run.
  uint64_t hash() const noexcept { return hash_; }
  /// Bytes held outside the key itself (a long text key's).
  size_t heap_bytes() const noexcept { return size_ <= inline_capacity ? 0 : size_; }

  friend bool operator==(const doc_key& a, const doc_key& b) noexcept {
    if (a.hash_ != b.hash_ || a.kind_ != b.kind_ || a.integer_ != b.integer_ || a.size_ != b.size_)
      return false;
    return a.size_ <= inline_capacity ? same_inline(a, b) : a.bytes() == b.bytes();
  }

private:
  static constexpr uint16_t inline_capacity = 16;
  struct bytes_tag {};
  /// A key of bytes, its size, bytes and hash set by of_bytes.
  doc_key(doc_kind kind, bytes_tag) noexcept : kind_(kind), integer_(false) {}
  /// The inline bytes compared as two words (unused bytes are zero).
  static bool same_inline(const doc_key& a, const doc_key& b) noexcept {
    uint64_t x[2], y[2];
    __builtin_memcpy(x, a.inline_, 16);
    __builtin_memcpy(y, b.inline_, 16);
    return ((x[0] ^ y[0]) | (x[1] ^ y[1])) == 0;
  }

  uint64_t hash_ = 0;
  std::shared_ptr<const char[]> heap_; ///< bytes past inline_capacity
  char inline_[inline_capacity] = {};
  uint16_t size_ = 0;
  doc_kind kind_{};
  bool integer_ = true;
};

struct doc_key_hash {
  size_t operator()(const doc_key& k) const noexcept { return static_cast<size_t>(k.hash()); }
};

/// The shard that owns `key` among `shard_count`: the one place that decides
/// it (the edge routes lookups with it, the listener fans changes out with
/// it, the inspector asks the same shard).
inline size_t shard_index(const doc_key& key, size_t shard_count) noexcept {
  return static_cast<size_t>(key.hash() % shard_count);
}

/// Why a key's text is not a key of its type.
enum class key_error : uint8_t {
  none = 0,
  empty,        ///< ""
  sign,         ///< an integer with a leading '-' or '+'
  space,        ///< an integer with a space or tab
  non_digit,    ///< an integer with anything else that is not 0-9
  overflow,     ///< an integer past its type's range
  zero,         ///< 0 (integer keys are positive)
  leading_zero, ///< "077": one key, one spelling
  too_long,     ///< a text key over max_text_key_bytes
  bad_text,     ///< a text key with control characters or bytes that are not UTF-8
  bad_uuid,     ///< not a uuid in canonical lowercase form
};

/// An integer key of `type` (int4 or int8) in its one spelling: decimal
/// digits, no sign, no leading zero, positive, within the type's range.
key_error parse_integer_key(key_type type, std::string_view text, int64_t& out) noexcept;
/// Whether `text` may be a text key (1 to max_text_key_bytes bytes of UTF-8
/// without control characters).
key_error check_text_key(std::string_view text) noexcept;
/// A uuid in canonical lowercase form as its 16 bytes.
key_error parse_uuid_key(std::string_view text, char (&out)[16]) noexcept;

/// The key of `kind` (of key type `type`) that `text` spells: an integer in
/// decimal digits in its one spelling, a text key as it is, a uuid in its
/// canonical lowercase form. The text is already unescaped (a path's
/// percent-decoding is the router's).
key_error parse_key(key_type type, doc_kind kind, std::string_view text, doc_key& out);

/// The key's spelling, as parse_key reads it ("7", "a b", "0f1e...").
std::string key_spelling(key_type type, const doc_key& key);

/// Problem-detail text for a key error of a key of `type` (static text).
std::string_view to_detail(key_error e, key_type type) noexcept;

/// The name of a key type as declarations spell it ("int4").
std::string_view key_type_name(key_type type) noexcept;

} // namespace restcache
