#pragma once

// The rules the daemon applies before it serves: the schema, the LMDB tier
// it may trust, the process limits. Apart from the daemon so tests can run
// them.

#include <memory>
#include <string>

#include "config/options.hpp"

namespace restcache::lmdb {
class store;
} // namespace restcache::lmdb

namespace restcache::startup {

/// Raises the soft open-file limit to the hard one: 4096 concurrent clients
/// need more descriptors than the usual soft limit.
void raise_open_file_limit();

enum class schema_action {
  applied,     ///< the database had no or an older schema: schema.sql was applied
  current,     ///< the schema is this build's
  newer,       ///< the database's schema is newer than this build's (a warning)
  unreachable, ///< not fatal: the pool keeps reconnecting, /ready says not ready
};

/// Applies schema.sql when the database has no or an older schema; logs
/// what it found.
schema_action check_schema(const std::string& dsn);

/// Opens the LMDB tier at lmdb.path. Records without a replay watermark are
/// dropped: they cannot be checked against the change log. Throws
/// std::runtime_error naming lmdb.path when the file cannot be opened.
std::shared_ptr<lmdb::store> open_lmdb_tier(const daemon_options& o);

} // namespace restcache::startup
