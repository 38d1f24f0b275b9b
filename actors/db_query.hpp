// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>

#include "actors/actors.hpp"

namespace restcache {

struct db_query_state {
  static inline const char* name = "db_query";
  db_lease lease; ///< held from borrow until the outcome arrives
  int tries = 1; ///< reads sent so far (at most max_read_tries)
};

/// Reads of one fill: the first, and two more on connections borrowed again
/// (a terminated session's neighbours may still look up to the pool when the
/// first retry borrows one).
inline constexpr int max_read_tries = 3;

/// Whether a read that failed with `e` is worth once more on another
/// connection: its session ended under it (a terminated backend, a server
/// restart, or renewed by the driver because its prepared statements went
/// stale when a column changed type). A column that is missing (db_schema)
/// is not: another connection would answer the same.
bool read_worth_retrying(rc_error e) noexcept;

/// Borrows a connection from `pool`, fetches the document for `key`, gives
/// the connection back and sends `filled(key, fill_id, outcome)` to `shard`;
/// a read_worth_retrying failure is tried again on a connection borrowed
/// again, up to max_read_tries reads (within the shard's fill deadline).
db_query_actor::behavior_type db_query(db_query_actor::stateful_pointer<db_query_state> self,
                                       db_pool_actor pool, cache_shard_actor shard, doc_key key,
                                       uint64_t fill_id);

} // namespace restcache
