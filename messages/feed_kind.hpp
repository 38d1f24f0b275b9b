// SPDX-License-Identifier: Apache-2.0
#pragma once

// Which change feed a database's instances follow (persistence/pg/
// schema.sql, restcache_feed): the generated row triggers appending to the
// change log, or each instance's logical replication slot on the WAL. A
// property of the database, chosen by restcache-load --feed; an instance's
// changelog.feed follows it (automatic) or requires one.

#include <cstdint>
#include <optional>
#include <string_view>

namespace restcache {

enum class feed_kind : uint8_t { triggers, wal };

/// What changelog.feed and restcache-load --feed accept: a feed, or auto.
enum class feed_choice : uint8_t { automatic, triggers, wal };

inline const char* to_string(feed_kind f) noexcept { return f == feed_kind::wal ? "wal" : "triggers"; }

inline std::optional<feed_kind> parse_feed_kind(std::string_view s) noexcept {
  if (s == "triggers")
    return feed_kind::triggers;
  if (s == "wal")
    return feed_kind::wal;
  return std::nullopt;
}

inline std::optional<feed_choice> parse_feed_choice(std::string_view s) noexcept {
  if (s == "auto")
    return feed_choice::automatic;
  if (auto f = parse_feed_kind(s))
    return *f == feed_kind::wal ? feed_choice::wal : feed_choice::triggers;
  return std::nullopt;
}

} // namespace restcache
