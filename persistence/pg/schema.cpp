#include "persistence/pg/schema.hpp"

namespace restcache::pg {

namespace {

/// After a failed statement inside an explicit transaction the session is in
/// an aborted transaction block; end it so the connection stays usable.
void rollback_if_in_transaction(connection& c) noexcept {
  if (!c.ok())
    return;
  auto st = PQtransactionStatus(c.get());
  if (st == PQTRANS_INERROR || st == PQTRANS_INTRANS) {
    try {
      c.exec("ROLLBACK");
    } catch (...) {
      // The connection broke meanwhile; the caller sees the first error.
    }
  }
}

} // namespace

int ensure_schema(connection& c) {
  if (c.ok() && PQtransactionStatus(c.get()) != PQTRANS_IDLE)
    throw error("ensure_schema: the connection is inside a transaction; "
                "schema.sql runs its own (BEGIN ... COMMIT)");
  try {
    // schema.sql is one transaction (BEGIN ... COMMIT) under an advisory lock;
    // PQexec runs its statements in order and stops at the first error.
    c.exec(schema_sql);
  } catch (error& e) {
    rollback_if_in_transaction(c);
    error wrapped{"applying schema.sql failed: " + std::string{e.what()}, e.sqlstate()};
    wrapped.set_connection_lost(e.connection_lost());
    throw wrapped;
  }
  // Read back what the database records (a newer schema may be present).
  auto version = installed_schema_version(c);
  if (version < schema_version)
    throw error("schema.sql applied but restcache_schema records version "
                + std::to_string(version) + ", expected "
                + std::to_string(schema_version));
  return version;
}

int installed_schema_version(connection& c) {
  // to_regclass answers NULL instead of failing when the table does not
  // exist, so no statement fails and no transaction is left aborted. Both
  // queries are constant text; they run once per start, so they are not
  // worth a prepared statement.
  auto r = c.exec("SELECT to_regclass('restcache_schema') IS NOT NULL");
  if (r.rows() != 1 || r.text(0, 0) != "t")
    return 0;
  auto v = c.exec("SELECT coalesce(max(version), 0) FROM restcache_schema");
  if (v.rows() != 1)
    return 0;
  return static_cast<int>(v.int64(0, 0));
}

} // namespace restcache::pg
