#pragma once

// Reading the change stream the triggers write (schema.sql): parsing
// notifications, replaying the change log from a watermark, taking watermark
// marks, pruning. Blocking libpq calls; the notify listener runs them on its
// own connection thread. Plain C++ (no CAF, no Beast).

#include <chrono>
#include <cstdint>
#include <optional>
#include <string_view>

#include "messages/cache_types.hpp"
#include "messages/history.hpp"
#include "persistence/pg/connection.hpp"
#include "persistence/pg/schema.hpp" // change_channel

namespace restcache::pg {

/// "<entity>:<id>:<seq>[:<us>]" as the triggers send it; nullopt when malformed
/// or of an unknown entity.
std::optional<key_change> parse_change(std::string_view payload);

/// "truncate:0:<seq>[:<us>]" as the TRUNCATE triggers send it: the sequence;
/// nullopt for anything else.
std::optional<uint64_t> parse_truncate(std::string_view payload);

/// "mark:<token>" as send_mark sends it; nullopt for anything else.
std::optional<uint64_t> parse_mark(std::string_view payload);

struct replay_result {
  change_batch changes;   ///< every entry of a transaction not known complete at the watermark
  bool truncated = false; ///< among them a TRUNCATE: both tiers must be dropped
  bool complete = true;   ///< false: the log was pruned past the watermark (or too many entries)
  uint64_t horizon = 0;   ///< change_log_horizon.pruned_below
};

/// The change-log entries of transactions with xid >= `watermark` (or, when
/// at least `digest_from` are due, the keys of a digest that covers them:
/// restcache_replay in schema.sql), then the pruning horizon. Incomplete
/// when the horizon is not below the watermark (entries the reader needs may
/// be gone), or when more than `limit` entries would come back (the caller
/// drops its tiers instead).
replay_result read_changes_since(connection& c, uint64_t watermark, size_t limit, size_t digest_from);

/// The identity of the history the connection reaches (cluster, database,
/// timeline) and its next transaction id, in one statement that assigns no
/// xid. On a standby the timeline is the last checkpoint's.
live_history read_history(connection& c);

/// The session's own channel for its marks ("restcache_mark_<backend pid>"):
/// a mark on the shared change channel would wake every listening instance,
/// N instances marking every interval N^2 deliveries. One notification queue
/// carries every channel in commit order, so a mark on its own channel still
/// arrives behind every change that committed before it.
std::string mark_channel(connection& c);

/// Takes the xmin of a fresh snapshot and, in the same transaction, notifies
/// "mark:<token>" on the session's mark channel (which it must LISTEN to).
/// Every transaction with an xid below the returned xmin had committed (or
/// aborted) before, so its notifications are in the queue ahead of the mark:
/// once the listener has received the mark and applied what came before it,
/// the xmin is a safe replay watermark.
uint64_t send_mark(connection& c, uint64_t token);

/// Deletes change-log entries older than `retention` whose transaction is
/// below `below` (never one the caller has not applied), at most `limit`, and
/// raises the horizon over them. Returns the entries deleted.
int64_t prune_changes(connection& c, std::chrono::seconds retention, uint64_t below, int64_t limit);

} // namespace restcache::pg
