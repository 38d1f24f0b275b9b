// SPDX-License-Identifier: Apache-2.0
#pragma once

// When a transaction decoded from the WAL can be acted on: its commit record
// is written (and decoded) a moment before other sessions see it, longer
// under synchronous replication, which holds it until a standby confirms.
// Dropping a document before then lets a fill read the old row again.

#include <chrono>
#include <cstdint>
#include <functional>
#include <vector>

#include "persistence/pg/connection.hpp"

namespace restcache::pg {

/// The 64-bit xid of a 32-bit one from the WAL, by the epoch of a
/// snapshot's xmax it is near (a transaction that just committed).
uint64_t full_xid(uint32_t xid, uint64_t near) noexcept;

/// Waits until every transaction `xids` names (top-level xids of commits
/// decoded from the WAL) is visible to a new snapshot; returns the xmax of
/// the snapshot that saw them (their epoch). `pause(d)` sleeps between
/// tries and returns false when the caller is stopping (then this throws).
uint64_t wait_visible(connection& c, const std::vector<uint32_t>& xids,
                      const std::function<bool(std::chrono::milliseconds)>& pause);

} // namespace restcache::pg
