// SPDX-License-Identifier: Apache-2.0
#pragma once

// A document restcache-freshness checks: a kind of the installed catalogue
// and its key's spelling. Nothing here knows a kind: the path comes from the
// kind's route and the truth from its own statement and plan.

#include <compare>
#include <optional>
#include <string>

#include "persistence/pg/connection.hpp"

namespace restcache::freshness {

struct checked_doc {
  std::string kind;
  std::string key;

  auto operator<=>(const checked_doc&) const = default;
  /// "kind:key", for messages.
  std::string name() const { return kind + ":" + key; }
  /// The kind's route followed by the key, percent-encoded where a path
  /// segment needs it.
  std::string target() const;
};

/// The document as the daemon would encode it now, by its kind's statement
/// and plan (pg::read_document, what a fill runs); nullopt: no such document
/// (404). Throws std::runtime_error for a kind not installed or a key it
/// cannot take.
std::optional<std::string> truth(pg::connection& c, const checked_doc& doc);

} // namespace restcache::freshness
