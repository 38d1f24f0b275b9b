// SPDX-License-Identifier: Apache-2.0
#pragma once

// The declaration file applied to a database (schema.sql's
// restcache_declarations): what every instance on it serves. restcache-load
// stores a file's text when it installs its kinds; a daemon reads it at
// start and its listener compares the digest at every drift check.

#include <optional>
#include <string>
#include <string_view>

#include "persistence/pg/connection.hpp"

namespace restcache::pg {

struct stored_declarations {
  std::string source;     ///< the file's text
  std::string digest;     ///< declarations_digest(source)
  std::string origin;     ///< the path it was read from
  std::string applied_at; ///< when, as PostgreSQL writes a timestamptz
};

/// What instances compare: XXH3-64 of the text in hex (the ETag's hash).
std::string declarations_digest(std::string_view source);

/// The applied declarations; nullopt when none were applied (or the schema
/// predates them).
std::optional<stored_declarations> read_stored_declarations(connection& c);

/// The digest of the applied declarations; nullopt when none were applied.
std::optional<std::string> stored_declarations_digest(connection& c);

/// Records `source` (read from `origin`) as the applied declarations, in
/// place of any before. Call inside the transaction that installs its kinds.
void store_declarations(connection& c, std::string_view source, std::string_view origin);

} // namespace restcache::pg
