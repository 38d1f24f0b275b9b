// SPDX-License-Identifier: Apache-2.0
#pragma once

// Document kinds declared in a TOML file rather than in C++: each [[kind]]
// becomes a catalogue entry (messages/doc_catalogue.hpp). What can be
// checked without the database is checked here, each refusal naming the
// file, the line and the kind; docs/declarations.md describes the format.

#include <string>
#include <string_view>
#include <vector>

#include "messages/doc_catalogue.hpp"

namespace restcache::declarations {

/// The format this build reads (the file's `format`).
inline constexpr int64_t declaration_format = 1;

/// The longest `ttl` a kind may have, in seconds (30 days): a longer one is
/// more likely a mistake of unit than a wish.
inline constexpr int64_t max_ttl_seconds = 30 * 86'400;

/// What a declaration file declares, or why it cannot be taken.
struct declared_kinds {
  std::vector<doc_kind_entry> kinds; ///< in the file's order (their ids follow it); empty when refused
  /// "ORIGIN:LINE: kind 'NAME': what is wrong", each on its own; none when taken.
  std::vector<std::string> errors;
  /// The text they were read from (what restcache-load applies to a
  /// database, and what an instance compares with it).
  std::string source;

  bool ok() const noexcept { return errors.empty(); }
  /// The errors, one per line.
  std::string error_text() const;
};

/// Reads declarations from TOML text; `origin` names it in errors (a path).
declared_kinds parse_declarations(std::string_view toml, std::string_view origin);

/// Reads the declaration file at `path` (an unreadable file is an error).
declared_kinds read_declaration_file(const std::string& path);

} // namespace restcache::declarations
