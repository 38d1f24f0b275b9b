// SPDX-License-Identifier: Apache-2.0
#pragma once

// What a shard keeps of a fill's answer (one key read from PostgreSQL),
// decided from what is known of the read and of the key's kind. The shard
// carries it out (stores, answers, counts); the rule itself is plain C++,
// tested on its own.

#include <cstdint>

namespace restcache {

enum class fill_keeping : uint8_t {
  nothing,           ///< answered only: an error, or a read older than the key's last change
  stale_instead,     ///< an error answered with the copy stale-if-error allows
  over_cap,          ///< answered, not kept: larger than its kind's max_bytes
  store,             ///< kept (in memory, and in LMDB where the kind goes there)
  remember_missing,  ///< a 404 kept as a negative entry
  drop_older_copies, ///< read while the kind is bypassed: older copies in memory or LMDB go
};

/// What the read brought.
struct fill_read {
  bool current = false;    ///< no change of the key was applied since the read was sent
  bool has_doc = false;    ///< a document (else an error, or not found)
  bool not_found = false;  ///< the key has no row
  bool stale_copy = false; ///< an error for which stale-if-error has a copy to answer
};

/// What the key's kind allows.
struct fill_kind_rules {
  bool within_cap = true;         ///< the document fits its kind's max_bytes
  bool uses_memory = false;       ///< the memory tier is on
  bool remembers_missing = false; ///< its kind keeps negative entries (where memory is on)
  bool bypassed = false;          ///< its kind is bypassed now
};

/// The first that applies: a stale copy for an error; a document read
/// before the key's last change is answered only (a newer read may already
/// be kept); one over its cap is answered only; a current document is kept,
/// a current 404 remembered; a read while bypassed removes older copies (a
/// later stale-if-error must not answer one).
fill_keeping keeping_of(const fill_read& read, const fill_kind_rules& kind) noexcept;

const char* to_string(fill_keeping k) noexcept;

} // namespace restcache
