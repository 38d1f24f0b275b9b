// SPDX-License-Identifier: Apache-2.0
#pragma once

// restcache's DDL on the watched tables (triggers, identities, the
// publication) takes their locks while their writers run. A writer holding
// one of them and waiting for another this DDL holds would deadlock with
// it, and PostgreSQL might abort the writer: so the DDL waits for a lock
// less than the deadlock check's delay, gives up first, and tries again.

#include <functional>

#include "persistence/pg/connection.hpp"

namespace restcache::pg {

/// Starts such a transaction: under the schema lock (two installs at once
/// would deadlock each other), lock_timeout half of deadlock_timeout (10 to
/// 200 ms), notices of "does not exist, skipping" silenced.
void begin_yielding_ddl(connection& c);
/// Runs `attempt` (which begins with begin_yielding_ddl) again while it
/// gave up for a writer, for up to 30 s: a writer is never the one to fail.
void yielding_to_writers(const std::function<void()>& attempt);

} // namespace restcache::pg
