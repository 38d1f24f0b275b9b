// SPDX-License-Identifier: Apache-2.0
#pragma once

// Which spellings of a text key are one document. A key space's keys are
// compared as the database compares its statement's $1 with them: byte for
// byte for text, but without case for citext and without trailing blanks for
// char(n). Cached under the spelling a request or the change log happens to
// use, one row would have an entry per spelling, and a change (logged as the
// row's own spelling) would drop only one of them. So every text key is
// canonicalised, at the edge, in the change feed and in populate, to one
// spelling per row: trailing blanks dropped for char(n), ASCII letters lowered
// for citext. A citext key with a letter beyond ASCII has no spelling
// restcache can vouch for (the database's lower() decides, and may map it
// onto an ASCII key: the Kelvin sign onto k): such a request is answered from
// PostgreSQL and never kept, and such a logged change drops its key space.
//
// How each kind compares is found by the planner's check (kind_check.hpp)
// and published here before the listener lets the tiers serve; until then
// every kind compares bytes, which bypassed tiers never keep.

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "messages/doc_key.hpp"

namespace restcache {

struct key_comparison {
  bool ignore_case = false;     ///< citext: ASCII letters compared without case
  bool trailing_blanks = false; ///< char(n): trailing blanks insignificant
  bool operator==(const key_comparison&) const = default;
};

/// How keys of `kind` are compared now (bytes until published).
key_comparison key_comparison_of(doc_kind kind) noexcept;
/// Publishes how keys of `kind` are compared (the listener, from the check).
void set_key_comparison(doc_kind kind, key_comparison cmp) noexcept;

/// Rewrites the `n` bytes at `key` into their canonical spelling under `cmp`
/// and returns its length: ASCII upper case lowered, trailing blanks dropped
/// (not all of them: a key of blanks only keeps its own spelling, which
/// cacheable_text_key then refuses).
size_t canonicalise_text_key(key_comparison cmp, char* key, size_t n) noexcept;

/// Whether a key spelled `key` may be kept: it is canonical under `cmp`, and
/// no letter in it is one the database may compare otherwise (a byte past
/// ASCII in a key compared without case).
bool cacheable_text_key(key_comparison cmp, std::string_view key) noexcept;

/// Whether a key of any type may be kept under how its kind compares now.
inline bool cacheable_key(const doc_key& key) noexcept {
  if (key.is_integer())
    return true;
  auto cmp = key_comparison_of(key.kind());
  return (!cmp.ignore_case && !cmp.trailing_blanks) || cacheable_text_key(cmp, key.bytes());
}

/// parse_key, with a text key canonicalised under how its kind compares.
key_error parse_canonical_key(key_type type, doc_kind kind, std::string_view text, doc_key& out);

} // namespace restcache
