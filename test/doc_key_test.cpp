// SPDX-License-Identifier: Apache-2.0
#define CAF_SUITE doc_key
#include "messages/doc_key.hpp"

#include <caf/test/dsl.hpp>

#include <random>
#include <set>
#include <string>

#include "messages/key_comparison.hpp"

using namespace restcache;

namespace {

constexpr doc_kind one{1}, two{2};

/// The shard hash keys had when a key was (kind, int32): a positive id
/// must stay on its shard, or an upgrade moves every cached document.
uint64_t int32_era_hash(doc_kind kind, int32_t id) {
  uint64_t x = (uint64_t(kind) << 32) ^ uint32_t(id);
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

} // namespace

CAF_TEST(an integer key keeps the hash of the int32 era and orders its bytes as numbers) {
  for (int32_t id : {1, 7, 4096, 2147483647})
    CAF_CHECK_EQUAL(doc_key(one, id).hash(), int32_era_hash(one, id));
  CAF_CHECK(doc_key(one, 5).bytes() < doc_key(one, 6).bytes());
  CAF_CHECK(doc_key(one, 255).bytes() < doc_key(one, 256).bytes());
  CAF_CHECK(doc_key(one, -1).bytes() < doc_key(one, 0).bytes());
  CAF_CHECK(doc_key(one, 2147483647).bytes() < doc_key(one, int64_t{1} << 40).bytes());
  CAF_CHECK_EQUAL(doc_key(one, int64_t{1} << 40).id(), int64_t{1} << 40);
  CAF_CHECK_EQUAL(doc_key(one, -9).id(), -9);
  CAF_CHECK(doc_key(one, 5).is_integer());
  CAF_CHECK_EQUAL(doc_key(one, 5).heap_bytes(), 0u);
}

CAF_TEST(keys are equal by kind and bytes and carry a kind change) {
  CAF_CHECK(doc_key(one, 5) == doc_key(one, 5));
  CAF_CHECK(!(doc_key(one, 5) == doc_key(two, 5)));
  CAF_CHECK(doc_key(one, 5).of_kind(two) == doc_key(two, 5));
  auto t = doc_key::of_bytes(one, "a/b c");
  CAF_CHECK(t == doc_key::of_bytes(one, "a/b c"));
  CAF_CHECK(!(t == doc_key::of_bytes(two, "a/b c")));
  CAF_CHECK(t.of_kind(two) == doc_key::of_bytes(two, "a/b c"));
  CAF_CHECK(!t.is_integer());
  // Eight bytes of text are not the integer with those bytes.
  const doc_key five{one, 5}; // bytes() points into the key: it must outlive them
  CAF_CHECK(!(doc_key::of_bytes(one, five.bytes()) == five));
  CAF_CHECK_EQUAL(doc_key::of_bytes(one, std::string(16, 'x')).heap_bytes(), 0u);
  CAF_CHECK_EQUAL(doc_key::of_bytes(one, std::string(17, 'x')).heap_bytes(), 17u);
  auto long_key = doc_key::of_bytes(one, std::string(200, 'x'));
  auto copy = long_key;
  CAF_CHECK(copy == long_key);
  CAF_CHECK(!(copy == doc_key::of_bytes(one, std::string(199, 'x') + "y")));
  CAF_CHECK(!(doc_key::of_bytes(one, "ab") == doc_key::of_bytes(one, "abc")));
  CAF_CHECK_EQUAL(doc_key::of_bytes(one, std::string(max_text_key_bytes, 'x')).bytes().size(), max_text_key_bytes);
  bool threw = false;
  try {
    doc_key::of_bytes(one, std::string(max_text_key_bytes + 1, 'x'));
  } catch (const std::length_error&) {
    threw = true;
  }
  CAF_CHECK(threw);
}

CAF_TEST(text keys spread over shards) {
  std::set<size_t> shards;
  for (int i = 0; i < 64; ++i)
    shards.insert(shard_index(doc_key::of_bytes(one, "key-" + std::to_string(i)), 8));
  CAF_CHECK_EQUAL(shards.size(), 8u);
}

CAF_TEST(integer keys have one spelling within their type) {
  doc_key k;
  CAF_CHECK(parse_key(key_type::int4, one, "42", k) == key_error::none);
  CAF_CHECK(k == doc_key(one, 42));
  CAF_CHECK(parse_key(key_type::int4, one, "2147483647", k) == key_error::none);
  CAF_CHECK(parse_key(key_type::int4, one, "2147483648", k) == key_error::overflow);
  CAF_CHECK(parse_key(key_type::int8, one, "2147483648", k) == key_error::none);
  CAF_CHECK_EQUAL(k.id(), 2147483648);
  CAF_CHECK(parse_key(key_type::int8, one, "9223372036854775807", k) == key_error::none);
  CAF_CHECK(parse_key(key_type::int8, one, "9223372036854775808", k) == key_error::overflow);
  CAF_CHECK(parse_key(key_type::int8, one, "99999999999999999999999", k) == key_error::overflow);
  CAF_CHECK(parse_key(key_type::int4, one, "", k) == key_error::empty);
  CAF_CHECK(parse_key(key_type::int4, one, "-1", k) == key_error::sign);
  CAF_CHECK(parse_key(key_type::int4, one, "1 ", k) == key_error::space);
  CAF_CHECK(parse_key(key_type::int4, one, "1a", k) == key_error::non_digit);
  CAF_CHECK(parse_key(key_type::int4, one, "0", k) == key_error::zero);
  CAF_CHECK(parse_key(key_type::int4, one, "01", k) == key_error::leading_zero);
  CAF_CHECK_EQUAL(to_detail(key_error::overflow, key_type::int4), "id is out of range: the largest id is 2147483647");
  std::mt19937 rng{3};
  for (int i = 0; i < 5000; ++i) {
    std::string text;
    for (size_t n = 1 + rng() % 20; n > 0; --n)
      text += char('0' + rng() % 10);
    if (parse_key(key_type::int8, one, text, k) == key_error::none)
      CAF_CHECK_EQUAL(key_spelling(key_type::int8, k), text);
  }
}

CAF_TEST(text keys are UTF-8 without control characters and bounded) {
  doc_key k;
  CAF_CHECK(parse_key(key_type::text, one, "ünïcode/with space:and%", k) == key_error::none);
  CAF_CHECK_EQUAL(key_spelling(key_type::text, k), "ünïcode/with space:and%");
  CAF_CHECK(parse_key(key_type::text, one, "", k) == key_error::empty);
  CAF_CHECK(parse_key(key_type::text, one, std::string(256, 'a'), k) == key_error::too_long);
  CAF_CHECK(parse_key(key_type::text, one, std::string(255, 'a'), k) == key_error::none);
  CAF_CHECK(parse_key(key_type::text, one, std::string("a\0b", 3), k) == key_error::bad_text);
  CAF_CHECK(parse_key(key_type::text, one, "a\x1f" "b", k) == key_error::bad_text); // the digests' separator
  CAF_CHECK(parse_key(key_type::text, one, "\xff", k) == key_error::bad_text);
  CAF_CHECK(parse_key(key_type::text, one, "\xc0\xaf", k) == key_error::bad_text);     // overlong '/'
  CAF_CHECK(parse_key(key_type::text, one, "\xed\xa0\x80", k) == key_error::bad_text); // a surrogate
  CAF_CHECK(parse_key(key_type::text, one, "\xe2\x82", k) == key_error::bad_text);     // cut short
  CAF_CHECK(parse_key(key_type::text, one, "\xf0\x9f\x98\x80", k) == key_error::none);
}

CAF_TEST(uuid keys are 16 bytes spelled in canonical lowercase form) {
  doc_key k;
  const std::string u = "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0";
  CAF_REQUIRE(parse_key(key_type::uuid, one, u, k) == key_error::none);
  CAF_CHECK_EQUAL(k.bytes().size(), 16u);
  CAF_CHECK_EQUAL(static_cast<unsigned char>(k.bytes()[0]), 0x0fu);
  CAF_CHECK_EQUAL(key_spelling(key_type::uuid, k), u);
  CAF_CHECK(parse_key(key_type::uuid, one, "0F1E2D3C-4B5A-6978-8796-A5B4C3D2E1F0", k) == key_error::bad_uuid);
  CAF_CHECK(parse_key(key_type::uuid, one, "0f1e2d3c4b5a69788796a5b4c3d2e1f0", k) == key_error::bad_uuid);
  CAF_CHECK(parse_key(key_type::uuid, one, "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1fg", k) == key_error::bad_uuid);
  CAF_CHECK(parse_key(key_type::uuid, one, "", k) == key_error::empty);
}

CAF_TEST(text keys compared without case or trailing blanks have one spelling) {
  auto canonical = [](key_comparison cmp, std::string key) {
    key.resize(canonicalise_text_key(cmp, key.data(), key.size()));
    return key;
  };
  const key_comparison bytes{}, citext{true, false}, bpchar{false, true};
  CAF_CHECK_EQUAL(canonical(bytes, "Cc5 "), "Cc5 ");
  CAF_CHECK_EQUAL(canonical(citext, "Cc5 "), "cc5 ");
  CAF_CHECK_EQUAL(canonical(citext, "\xc3\x9c" "BER"), "\xc3\x9c" "ber"); // only ASCII is lowered
  CAF_CHECK_EQUAL(canonical(bpchar, "c6  "), "c6");
  CAF_CHECK_EQUAL(canonical(bpchar, " c6"), " c6");  // leading blanks count
  CAF_CHECK_EQUAL(canonical(bpchar, "   "), "   "); // blanks only: its own spelling, never kept
  CAF_CHECK(cacheable_text_key(citext, "cc5"));
  CAF_CHECK(!cacheable_text_key(citext, "Cc5"));               // not canonical
  CAF_CHECK(!cacheable_text_key(citext, "\xc3\xbc" "ber"));    // the database's lower() decides
  CAF_CHECK(cacheable_text_key(bpchar, "c6"));
  CAF_CHECK(!cacheable_text_key(bpchar, "c6 "));
  CAF_CHECK(cacheable_text_key(bytes, "\xc3\x9c" "BER "));
  // Published per kind: parse_canonical_key and cacheable_key follow it.
  const doc_kind kind{42};
  CAF_CHECK(key_comparison_of(kind) == bytes);
  set_key_comparison(kind, citext);
  doc_key k;
  CAF_REQUIRE_EQUAL(parse_canonical_key(key_type::text, kind, "CC5", k), key_error::none);
  CAF_CHECK_EQUAL(k.bytes(), "cc5");
  CAF_CHECK(cacheable_key(k));
  CAF_CHECK(!cacheable_key(doc_key::of_bytes(kind, "CC5")));
  CAF_CHECK(cacheable_key(doc_key{kind, 7})); // integer keys are compared as numbers
  set_key_comparison(kind, bytes);
  CAF_CHECK(cacheable_key(doc_key::of_bytes(kind, "CC5")));
}
