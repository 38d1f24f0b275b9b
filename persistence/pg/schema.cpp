// SPDX-License-Identifier: Apache-2.0
#include "persistence/pg/schema.hpp"

#include <algorithm>
#include <cstdlib>
#include <string>

#include "messages/doc_catalogue.hpp"
#include "persistence/pg/yielding_ddl.hpp"

namespace restcache::pg {

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
  watch_catalogue_keys(c);
  // Read back what the database records (a newer schema may be present).
  auto version = installed_schema_version(c);
  if (version < schema_version)
    throw error("schema.sql applied but restcache_schema records version "
                + std::to_string(version) + ", expected "
                + std::to_string(schema_version));
  return version;
}

int watch_keys(connection& c, const std::vector<watch_row>& rows) {
  if (rows.empty())
    return 0;
  // Installing triggers locks the watched tables while their writers run:
  // it yields to them (persistence/pg/yielding_ddl.hpp).
  int added = 0;
  yielding_to_writers([&] {
    begin_yielding_ddl(c);
    added = 0;
    int removed = 0;
    try {
      for (const auto& [table, space, column] : rows)
        added += c.exec_params("INSERT INTO restcache_watched_key (table_schema, table_name, key_space, key_column,"
                               " key_attnum) SELECT current_schema(), $1::text, $2::text, $3::text, (SELECT a.attnum FROM pg_attribute a"
                               " WHERE a.attrelid = to_regclass(format('%I.%I', current_schema(), $1::text))"
                               " AND a.attname = $3::text AND a.attnum > 0 AND NOT a.attisdropped)"
                               " ON CONFLICT DO NOTHING RETURNING 1",
                               {table, space, column})
                   .rows();
      // A key column of these tables that is gone (renamed or dropped) and
      // that these rows no longer name: its trigger would log the whole table
      // on every write for want of it. A key still named stays (its kinds are
      // refused, or bypassed as drift, until the column is back).
      auto gone = c.exec("SELECT w.table_name, w.key_space, w.key_column FROM restcache_watched_key w"
                         " WHERE w.table_schema = current_schema()"
                         "   AND to_regclass(format('%I.%I', w.table_schema, w.table_name)) IS NOT NULL"
                         "   AND NOT EXISTS (SELECT 1 FROM pg_attribute a"
                         "                    WHERE a.attrelid = to_regclass(format('%I.%I', w.table_schema, w.table_name))"
                         "                      AND a.attname = w.key_column AND a.attnum > 0 AND NOT a.attisdropped)");
      for (int i = 0; i < gone.rows(); ++i) {
        watch_row row{std::string{gone.text(i, 0)}, std::string{gone.text(i, 1)}, std::string{gone.text(i, 2)}};
        auto same_table = [&](const watch_row& r) { return r[0] == row[0]; };
        if (std::none_of(rows.begin(), rows.end(), same_table) || std::find(rows.begin(), rows.end(), row) != rows.end())
          continue;
        removed += c.exec_params("DELETE FROM restcache_watched_key WHERE table_schema = current_schema()"
                                 " AND table_name = $1 AND key_space = $2 AND key_column = $3 RETURNING 1",
                                 {row[0], row[1], row[2]})
                     .rows();
      }
      if (added > 0 || removed > 0)
        c.exec("SELECT restcache_install_triggers()");
      c.exec("COMMIT");
    } catch (...) {
      rollback_if_in_transaction(c);
      throw;
    }
  });
  return added;
}

std::vector<watch_row> catalogue_watch_rows() {
  std::vector<watch_row> rows;
  for (const auto& table : watched_tables())
    for (const auto& key : table.keys) {
      auto colon = key.find(':');
      if (colon != std::string::npos)
        rows.push_back({table.name, key.substr(0, colon), key.substr(colon + 1)});
    }
  return rows;
}

int watch_catalogue_keys(connection& c) {
  return watch_keys(c, catalogue_watch_rows());
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

void uninstall_schema(connection& c) {
  // The advisory lock of schema.sql: not while another process applies it.
  // DROP ... IF EXISTS throughout, so a partial or absent install is fine.
  static const char* const uninstall_sql =
    "BEGIN;"
    "SET LOCAL client_min_messages = warning;"
    "SELECT pg_advisory_xact_lock(7310593858020254568);"
    // First the event triggers: they would log the uninstall's own DDL.
    "DROP EVENT TRIGGER IF EXISTS restcache_ddl_end;"
    "DROP EVENT TRIGGER IF EXISTS restcache_ddl_drop;"
    // The triggers as the watched keys generated them; then version 6's, by
    // name, should a database still hold them.
    "DO $do$ BEGIN"
    "  IF to_regprocedure('restcache_remove_triggers()') IS NOT NULL THEN"
    "    PERFORM restcache_remove_triggers();"
    "  END IF;"
    "  IF to_regclass('dept') IS NOT NULL THEN"
    "    DROP TRIGGER IF EXISTS restcache_dept_changed ON dept;"
    "    DROP TRIGGER IF EXISTS restcache_dept_truncated ON dept;"
    "  END IF;"
    "  IF to_regclass('emp') IS NOT NULL THEN"
    "    DROP TRIGGER IF EXISTS restcache_emp_changed ON emp;"
    "    DROP TRIGGER IF EXISTS restcache_emp_truncated ON emp;"
    "  END IF;"
    "END $do$;"
    // The replica identities the WAL feed changed, as they were found.
    "DO $do$ DECLARE r record; BEGIN"
    "  IF to_regclass('restcache_replica_identity') IS NOT NULL THEN"
    "    FOR r IN SELECT * FROM restcache_replica_identity LOOP"
    "      CONTINUE WHEN to_regclass(format('%I.%I', r.table_schema, r.table_name)) IS NULL;"
    "      EXECUTE format('ALTER TABLE %I.%I REPLICA IDENTITY %s', r.table_schema, r.table_name,"
    "                     CASE r.original WHEN 'n' THEN 'NOTHING' WHEN 'f' THEN 'FULL'"
    "                       WHEN 'i' THEN 'USING INDEX ' || quote_ident(r.original_index) ELSE 'DEFAULT' END);"
    "    END LOOP;"
    "  END IF;"
    "END $do$;"
    "DROP FUNCTION IF EXISTS restcache_replay_keys(xid8, bigint, int), restcache_digest_for(xid8, int),"
    "  restcache_replay(xid8, bigint, int), restcache_usable_digest(xid8, int),"
    "  restcache_install_triggers(), restcache_remove_triggers(), restcache_trigger_function(text, text),"
    "  restcache_trigger_source(text, text), restcache_truncated_source(), restcache_define_function(text, text),"
    "  restcache_event_triggers(), restcache_ddl_logged(), restcache_log_table(),"
    "  restcache_function_as_generated(oid, text), restcache_ddl_followed(), restcache_define_trigger_functions(),"
    "  restcache_descendant_triggers(bool), restcache_descendants(regclass), restcache_remove_row_triggers(),"
    "  restcache_feed(), restcache_log_keys(text[]), restcache_publish_watched(), restcache_identity_usable(regclass),"
    "  restcache_unpublish_unusable(), restcache_triggers_logged(pg_snapshot, pg_snapshot),"
    "  restcache_retire_triggers();"
    "DROP TABLE IF EXISTS change_log, change_log_horizon, change_log_digest, restcache_watched_key,"
    "  wal_relay, wal_relay_head,"
    "  restcache_declarations, restcache_feed, restcache_replica_identity, restcache_schema;"
    "DROP SEQUENCE IF EXISTS change_log_seq;"
    "DROP FUNCTION IF EXISTS restcache_dept_changed(), restcache_emp_changed(), restcache_truncated(),"
    "  restcache_change_log_bound(), restcache_prune_change_log(int),"
    // After the tables: their restcache_not_replicated triggers use it.
    "  restcache_skip_replicated();"
    "COMMIT;";
  try {
    c.exec(uninstall_sql);
  } catch (error&) {
    rollback_if_in_transaction(c);
    throw;
  }
}

change_log_size measure_change_log(connection& c) {
  // The oldest entry through the xid index (changed_at has none).
  auto r = c.exec("SELECT pg_total_relation_size('change_log'),"
                  " coalesce(extract(epoch FROM now() - (SELECT changed_at FROM change_log ORDER BY xid LIMIT 1)), 0)");
  change_log_size out;
  if (r.rows() == 1) {
    out.bytes = r.int64(0, 0);
    out.oldest_age_s = std::strtod(std::string{r.text(0, 1)}.c_str(), nullptr);
  }
  return out;
}

} // namespace restcache::pg
