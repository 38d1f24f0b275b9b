// SPDX-License-Identifier: Apache-2.0
#include "messages/key_comparison.hpp"

#include <array>
#include <atomic>
#include <string>

namespace restcache {

namespace {

// One byte per kind id: bit 0 ignore_case, bit 1 trailing_blanks. Read on
// every request of a text kind, so relaxed: a kind's comparison is published
// before the tiers it concerns serve (the listener's mark follows it).
std::array<std::atomic<uint8_t>, 256> comparisons{};

} // namespace

key_comparison key_comparison_of(doc_kind kind) noexcept {
  auto bits = comparisons[static_cast<uint8_t>(kind)].load(std::memory_order_relaxed);
  return {(bits & 1) != 0, (bits & 2) != 0};
}

void set_key_comparison(doc_kind kind, key_comparison cmp) noexcept {
  comparisons[static_cast<uint8_t>(kind)].store(
    static_cast<uint8_t>((cmp.ignore_case ? 1 : 0) | (cmp.trailing_blanks ? 2 : 0)), std::memory_order_release);
}

size_t canonicalise_text_key(key_comparison cmp, char* key, size_t n) noexcept {
  if (cmp.ignore_case)
    for (size_t i = 0; i < n; ++i)
      if (key[i] >= 'A' && key[i] <= 'Z')
        key[i] = static_cast<char>(key[i] - 'A' + 'a');
  if (cmp.trailing_blanks) {
    size_t end = n;
    while (end > 0 && key[end - 1] == ' ')
      --end;
    if (end > 0)
      n = end;
  }
  return n;
}

bool cacheable_text_key(key_comparison cmp, std::string_view key) noexcept {
  if (cmp.trailing_blanks && !key.empty() && key.back() == ' ')
    return false;
  if (cmp.ignore_case)
    for (char c : key)
      if ((c >= 'A' && c <= 'Z') || static_cast<unsigned char>(c) >= 0x80)
        return false;
  return true;
}

key_error parse_canonical_key(key_type type, doc_kind kind, std::string_view text, doc_key& out) {
  auto cmp = key_comparison_of(kind);
  if (type != key_type::text || (!cmp.ignore_case && !cmp.trailing_blanks))
    return parse_key(type, kind, text, out);
  std::string canonical{text};
  canonical.resize(canonicalise_text_key(cmp, canonical.data(), canonical.size()));
  return parse_key(type, kind, canonical, out);
}

} // namespace restcache
