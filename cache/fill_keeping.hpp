// SPDX-License-Identifier: Apache-2.0
#pragma once

// What a shard keeps of a fill's answer (one key read from PostgreSQL),
// decided from what is known of the read and of the key's kind. The shard
// carries it out (stores, answers, counts); the rule itself is plain C++,
// tested on its own.

#include <cstdint>

#include "messages/errors.hpp"

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

/// Reads of one fill: the first, and two more on connections borrowed again
/// (a terminated session's neighbours may still look up to the pool when the
/// first retry borrows one).
inline constexpr int max_read_tries = 3;

/// Whether a fill whose read number `tries` failed with `error` reads again
/// on another connection: its session ended under it (a terminated backend,
/// a server restart, or renewed by the driver because its prepared
/// statements went stale when a column changed type), and it has reads
/// left. A column that is missing (db_schema) is not read again: another
/// connection would answer the same.
bool reads_again(rc_error error, int tries) noexcept;

} // namespace restcache
