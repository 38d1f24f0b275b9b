// SPDX-License-Identifier: Apache-2.0
#pragma once

// How far the change feed has been applied, as the listener reads it: a
// snapshot of the database's transactions. Every change of a transaction
// below xmin is applied; so is every change of a transaction below xmax that
// is not listed in xip. A replay from it reads only the transactions the
// snapshot could not see (xid in xip, or xid >= xmax), so a transaction left
// open or prepared, which holds xmin back, does not make every replay read
// everything written since it began. Plain data, as pg_snapshot prints it
// ("xmin:xmax:xip,xip,...").

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace restcache {

struct feed_position {
  uint64_t xmin = 0;
  uint64_t xmax = 0;
  std::vector<uint64_t> xip; ///< in progress, between xmin and xmax
  friend bool operator==(const feed_position&, const feed_position&) = default;
};

/// "xmin:xmax:xip,xip,..." (the same text as PostgreSQL's pg_snapshot).
std::string to_text(const feed_position& p);
/// nullopt when malformed (xmax below xmin, a trailing comma, ...).
std::optional<feed_position> parse_feed_position(std::string_view text);

/// One change-log entry the tiers have applied, as a witness of the history
/// they hold: after a reconnect the log must still hold its transaction (the
/// same start time under its xid), or have pruned past it. A database taken back
/// to an older copy lacks it, or holds another transaction under its xid,
/// however many transactions ran since.
struct log_witness {
  uint64_t xid = 0;
  uint64_t seq = 0;
  int64_t us = 0; ///< the writing transaction's start, microseconds since the epoch
  friend bool operator==(const log_witness&, const log_witness&) = default;
};
/// "xid:seq:us".
std::string to_text(const log_witness& w);
std::optional<log_witness> parse_log_witness(std::string_view text);

/// A replay watermark as the tiers store it: xmin (what pruning, the history
/// rule and the metrics read) and, when known, the position it was taken at
/// and a witness entry (their texts; empty: not known).
struct replay_watermark {
  uint64_t xmin = 0;
  std::string position;
  std::string witness;
  std::string catalog; ///< the catalog fingerprint the records were kept under (pg/catalog_drift.hpp)
  replay_watermark() = default;
  replay_watermark(uint64_t x) : xmin(x) {} // NOLINT: a bare xmin is a watermark without a position
  replay_watermark(uint64_t x, std::string pos, std::string wit = {}, std::string cat = {})
    : xmin(x), position(std::move(pos)), witness(std::move(wit)), catalog(std::move(cat)) {}
};

} // namespace restcache
