// SPDX-License-Identifier: Apache-2.0
#pragma once

// What the batch writer writes to: the LMDB tier (persistence/lmdb adapts to
// this), or a fake in tests. Calls are blocking and come from the writer's
// own (detached) thread only.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "messages/cache_types.hpp"
#include "messages/feed_position.hpp"
#include "messages/history.hpp"

namespace restcache {

/// A document for the second tier, with the change sequence it is as new as.
struct tier_record {
  doc_key key;
  doc_ptr doc;
  uint64_t seq = 0;
};

class record_store {
public:
  virtual ~record_store() = default;

  /// One write transaction: `deletes` first, then the records whose
  /// documents hold one of `changed_rows` (cached_doc::rows), then `puts`,
  /// and the replay watermark when given (so it never runs ahead of the
  /// deletes it stands for). Throws on failure (nothing of the call is then
  /// visible).
  virtual void write(const std::vector<tier_record>& puts, const std::vector<doc_key>& deletes,
                     const std::vector<std::string>& changed_rows, std::optional<replay_watermark> watermark) = 0;

  /// Drops every record in one transaction (the change log cannot tell what
  /// changed); sets the watermark when given, and the identity of the history
  /// the records to come belong to when given. Throws on failure.
  virtual void clear(std::optional<replay_watermark> watermark, const std::optional<history_identity>& history) = 0;

  /// Drops every record of the kinds in the set (kind_bit), with what the
  /// store keeps beside them; the other kinds' stay. May take several
  /// transactions: a crash in between leaves some, which the catalog
  /// fingerprint that comes after the drop (and so was not stored) drops at
  /// the next start. Throws on failure.
  virtual void erase_kinds(uint64_t kinds) = 0;

  /// What the store has to report since it was last asked (a budget it had
  /// to lower, say), for the writer's log; empty when nothing.
  virtual std::string take_notice() { return {}; }
};

/// How a cache shard reads the second tier: one reader per shard (it keeps a
/// reusable read snapshot), called from that shard only. A read never takes
/// a write lock.
class tier_reader {
public:
  virtual ~tier_reader() = default;

  /// The stored document for the key, or nullptr when absent (or garbled).
  virtual doc_ptr get(const doc_key& key) = 0;
};

} // namespace restcache
