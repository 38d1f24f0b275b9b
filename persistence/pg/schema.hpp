#pragma once

// The schema of persistence/pg/schema.sql: master–detail tables, the change
// log, the watched keys and the triggers generated from them, and the
// recorded schema version.

#include <optional>
#include <string_view>

#include "messages/cache_types.hpp"
#include "persistence/pg/connection.hpp"

namespace restcache::pg {

/// The text of schema.sql, compiled in (see schema_sql.cpp.in).
extern const char* const schema_sql;

/// The version schema.sql records in restcache_schema.
inline constexpr int schema_version = 8;

/// Applies schema.sql; idempotent (safe on an existing schema, safe
/// concurrently thanks to an advisory lock). Returns the recorded version.
int ensure_schema(connection& c);

/// The version recorded in the database, or 0 when no schema is present.
int installed_schema_version(connection& c);

/// Removes what restcache installed (the watched tables' triggers, the
/// functions, the change log, its horizon, the watched keys, the recorded
/// version) and keeps dept and emp with their rows. One transaction; safe when nothing is installed.
void uninstall_schema(connection& c);

/// The change log's size: bytes of the table with its indexes, and the age
/// in seconds of its oldest entry (0 when empty).
struct change_log_size {
  int64_t bytes = 0;
  double oldest_age_s = 0;
};
change_log_size measure_change_log(connection& c);

} // namespace restcache::pg
