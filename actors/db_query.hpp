// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>

#include "actors/actors.hpp"

namespace restcache {

struct db_query_state {
  static inline const char* name = "db_query";
  db_lease lease; ///< held from borrow until the outcome arrives
};

/// Borrows a connection from `pool`, fetches the document for `key`, gives
/// the connection back and sends `filled(key, fill_id, outcome)` to `shard`.
db_query_actor::behavior_type db_query(db_query_actor::stateful_pointer<db_query_state> self,
                                       db_pool_actor pool, cache_shard_actor shard, doc_key key,
                                       uint64_t fill_id);

} // namespace restcache
