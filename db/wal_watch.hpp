// SPDX-License-Identifier: Apache-2.0
#pragma once

// The reader of a WAL feed session (own slot or relay leader): the tables
// the kinds read, by their catalog names, with their partitions and
// inheriting tables (those made later are looked up as their Relation
// messages come, on `c`, which must outlive the reader).

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "messages/doc_catalogue.hpp"
#include "persistence/pg/connection.hpp"
#include "persistence/pg/wal_changes.hpp"
#include "persistence/pg/wal_stream.hpp"

namespace restcache {

/// Each watched table's replica identity columns as the first session
/// found them ("schema.table" -> columns): the documents name their rows by
/// these, so a key changed since names no row and its kinds are dropped
/// rather than missed. Filled by watch_reader as tables are first seen.
using identities_at_start = std::map<std::string, std::vector<std::string>>;

/// Opens a session's stream; a slot's creation that waits past
/// o.create_wait says in the log which transactions it waits for (read on
/// `c`) before the exception goes on: the session ends, uncached, and the
/// next one tries again.
pg::wal_stream open_stream(pg::connection& c, const pg::wal_stream_options& o);

/// One round of a WAL session: waits for a first message (up to a second
/// inside a transaction, 50 ms between), then takes every commit that
/// completes within `window` of the first one taken, up to `max_keys` keys
/// or 4,096 commits. `take(commit)` says how many keys the commit adds, or
/// nullopt to leave it out (relayed already). Each round costs the session
/// a snapshot read and a write or a wake of the actor, so one per commit
/// would cost several times the CPU (docs/benchmarks.md).
std::vector<pg::wal_commit> read_round(pg::wal_stream& stream, pg::wal_change_reader& reader,
                                       std::chrono::milliseconds window, size_t max_keys,
                                       const std::function<std::optional<size_t>(const pg::wal_commit&)>& take);

/// `keep_log_keys`: the commits keep their keys' text (the relay writes it).
pg::wal_change_reader watch_reader(pg::connection& c, const std::vector<watched_table>& watched,
                                   identities_at_start& identities, bool keep_log_keys = false);

} // namespace restcache
