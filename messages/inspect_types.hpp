// SPDX-License-Identifier: Apache-2.0
#pragma once

// What the inspector actor answers restcache-inspect (another process): plain,
// serializable reports. Every type here has an inspect() overload; they cross
// the process boundary through messages/inspect_wire.hpp.

#include <caf/fwd.hpp>
#include <caf/meta/type_name.hpp>

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "messages/cache_types.hpp"

namespace restcache {

/// One thing an actor holds, as a name and a rendered value ("entries", "42").
struct report_field {
  std::string name;
  std::string value;
  friend bool operator==(const report_field&, const report_field&) = default;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, report_field& x) {
  return f(caf::meta::type_name("restcache::report_field"), x.name, x.value);
}

/// One long-lived actor as it describes itself.
struct actor_report {
  std::string name;  ///< the inspector's name for it: shard-0, db-pool, ...
  uint64_t id = 0;   ///< CAF actor id
  /// Messages waiting in its mailbox when it answered; -1 when it did not answer.
  int64_t mailbox = -1;
  /// False when the actor did not answer in time (or is gone); `note` says why.
  bool answered = false;
  std::string note;
  /// What it holds, in a fixed order per actor kind.
  std::vector<report_field> holds;

  /// Appends a field.
  template <class T>
  actor_report& add(std::string field, const T& value) {
    if constexpr (std::is_convertible_v<const T&, std::string>)
      holds.push_back({std::move(field), std::string{value}});
    else if constexpr (std::is_same_v<T, bool>)
      holds.push_back({std::move(field), value ? "yes" : "no"});
    else
      holds.push_back({std::move(field), std::to_string(value)});
    return *this;
  }
  /// The value of a field, or "" when absent.
  std::string get(const std::string& field) const {
    for (auto& h : holds)
      if (h.name == field)
        return h.value;
    return {};
  }
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, actor_report& x) {
  return f(caf::meta::type_name("restcache::actor_report"), x.name, x.id, x.mailbox, x.answered,
           x.note, x.holds);
}

/// One cached document of a key, as the shard that owns it sees it.
struct key_report {
  std::string key;    ///< e.g. "deptemps:42" (the document kind and the id)
  std::string shard;  ///< the owning shard: "shard-1"
  bool in_memory = false;
  int64_t memory_bytes = 0;   ///< body bytes of the cached copy
  std::string etag;           ///< its ETag
  bool tier_enabled = false;  ///< the shard reads an LMDB tier (cache.mode tiered or lmdb)
  bool in_lmdb = false;       ///< the shard's tier reader finds a record now
  int64_t lmdb_bytes = 0;     ///< body bytes of that record
  bool fill_in_flight = false;
  /// Invalidated, and the delete from LMDB not yet confirmed by the batch
  /// writer (or a clear in flight): the shard does not read the key from LMDB.
  bool shielded = false;
  /// The change sequence the cached copy (or the fill in flight) is known to
  /// reflect: the shard's applied change sequence when the document was read
  /// (fill start, populate, or LMDB read). 0 when nothing is cached or in flight.
  uint64_t doc_seq = 0;
  /// The highest change sequence this shard has applied (invalidations); every
  /// copy the shard holds is current up to it.
  uint64_t shard_applied_seq = 0;

  bool cached() const noexcept { return in_memory || in_lmdb; }
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, key_report& x) {
  return f(caf::meta::type_name("restcache::key_report"), x.key, x.shard, x.in_memory,
           x.memory_bytes, x.etag, x.tier_enabled, x.in_lmdb, x.lmdb_bytes, x.fill_in_flight,
           x.shielded, x.doc_seq, x.shard_applied_seq);
}

/// The documents an inspected key names: one key per kind.
struct inspected_key {
  std::vector<doc_key> keys;
};

/// "<name>:<key>" to the documents it names: a change-log key space
/// ("dept:42") names every kind of that space, else a kind's name
/// ("deptemps:42") names that kind. The key is spelled as in a path, not
/// escaped; false with `why` when it is no key of the kind's type.
bool parse_inspected_key(const std::string& text, inspected_key& key, std::string& why);

/// What --key takes, for usage lines: "<space or kind>:<id>" with the
/// catalogue's names.
std::string inspected_key_names();

/// Renders the reports as the table restcache-inspect prints: name, actor id,
/// mailbox, then what each holds.
std::string render_actor_table(const std::vector<actor_report>& reports);

/// Renders a key's reports (one per document kind) as restcache-inspect
/// prints them.
std::string render_key_reports(const std::string& key, const std::vector<key_report>& reports);

} // namespace restcache
