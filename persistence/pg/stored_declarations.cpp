// SPDX-License-Identifier: Apache-2.0
#include "persistence/pg/stored_declarations.hpp"

#include "messages/document_encoder.hpp"

namespace restcache::pg {

namespace {

/// Whether the table exists: a database of an older schema has none.
bool has_table(connection& c) {
  return c.exec("SELECT to_regclass('restcache_declarations') IS NOT NULL").text(0, 0) == "t";
}

} // namespace

std::string declarations_digest(std::string_view source) {
  auto etag = strong_etag(source); // "0123456789abcdef", quoted
  return etag.substr(1, etag.size() - 2);
}

std::optional<stored_declarations> read_stored_declarations(connection& c) {
  if (!has_table(c))
    return std::nullopt;
  auto r = c.exec("SELECT source, digest, origin, applied_at::text FROM restcache_declarations");
  if (r.rows() == 0)
    return std::nullopt;
  return stored_declarations{std::string{r.text(0, 0)}, std::string{r.text(0, 1)}, std::string{r.text(0, 2)},
                             std::string{r.text(0, 3)}};
}

std::optional<std::string> stored_declarations_digest(connection& c) {
  if (!has_table(c))
    return std::nullopt;
  auto r = c.exec("SELECT digest FROM restcache_declarations");
  if (r.rows() == 0)
    return std::nullopt;
  return std::string{r.text(0, 0)};
}

void store_declarations(connection& c, std::string_view source, std::string_view origin) {
  c.exec_params("INSERT INTO restcache_declarations (source, digest, origin) VALUES ($1, $2, $3)"
                " ON CONFLICT (one) DO UPDATE SET source = EXCLUDED.source, digest = EXCLUDED.digest,"
                " origin = EXCLUDED.origin, applied_at = now()",
                {std::string{source}, declarations_digest(source), std::string{origin}});
}

} // namespace restcache::pg
