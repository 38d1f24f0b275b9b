// SPDX-License-Identifier: Apache-2.0
#include "persistence/pg/wal_feed.hpp"

#include "messages/text.hpp"
#include "persistence/pg/schema.hpp"

namespace restcache::pg {

namespace {

constexpr std::string_view unit = "\x1f";

constexpr const char* readiness_sql = R"sql(
SELECT current_setting('wal_level'),
       (SELECT r.rolreplication OR r.rolsuper FROM pg_roles r WHERE r.rolname = current_user),
       has_database_privilege(current_database(), 'CREATE')
         OR (SELECT r.rolsuper FROM pg_roles r WHERE r.rolname = current_user),
       coalesce((SELECT string_agg(DISTINCT format('%I.%I', n.nspname, c.relname), chr(31))
                   FROM unnest(string_to_array($1, chr(31))) AS t(name)
                   JOIN pg_class c ON c.oid = to_regclass(t.name)
                   JOIN pg_namespace n ON n.oid = c.relnamespace
                  WHERE NOT pg_has_role(c.relowner, 'USAGE')), ''),
       current_setting('max_replication_slots')::int - (SELECT count(*) FROM pg_replication_slots),
       current_setting('max_slot_wal_keep_size') = '-1'
)sql";

// Per watched table (given by name, with its key columns) and each of its
// partitions and inheriting tables: its identity and the key columns the
// identity does not carry (none under FULL; under DEFAULT the primary
// key's, under USING INDEX the index's; none under NOTHING).
constexpr const char* identity_sql = R"sql(
WITH RECURSIVE k AS (
  SELECT to_regclass(u.tbl) AS rel, u.col
    FROM unnest(string_to_array($1, chr(31)), string_to_array($2, chr(31))) AS u(tbl, col)
), roots AS (
  SELECT DISTINCT rel FROM k WHERE rel IS NOT NULL
), tree(root, relid, depth) AS (
  SELECT rel, rel::oid, 0 FROM roots
  UNION ALL
  SELECT t.root, i.inhrelid, t.depth + 1 FROM tree t JOIN pg_inherits i ON i.inhparent = t.relid WHERE t.depth < 32
)
SELECT format('%I.%I', n.nspname, c.relname), c.relreplident::text,
       string_agg(DISTINCT k.col, chr(31))
  FROM (SELECT DISTINCT root, relid FROM tree) t
  JOIN pg_class c ON c.oid = t.relid
  JOIN pg_namespace n ON n.oid = c.relnamespace
  JOIN k ON k.rel = t.root
 WHERE c.relkind IN ('r', 'p')
   AND c.relreplident <> 'f'
   AND NOT EXISTS (SELECT 1 FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY (i.indkey)
                    WHERE i.indrelid = c.oid AND a.attname = k.col
                      AND ((c.relreplident = 'd' AND i.indisprimary) OR (c.relreplident = 'i' AND i.indisreplident)))
 GROUP BY 1, 2
 ORDER BY 1
)sql";

/// The watched keys as restcache_watched_key holds them: tables and
/// columns, each joined by the unit separator.
std::pair<std::string, std::string> installed_keys(connection& c) {
  // Both lists in one order, so that they pair up.
  auto r = c.exec("SELECT coalesce(string_agg(format('%I.%I', table_schema, table_name), chr(31)"
                  "                           ORDER BY table_schema, table_name, key_column), ''),"
                  "       coalesce(string_agg(key_column, chr(31) ORDER BY table_schema, table_name, key_column), '')"
                  "  FROM restcache_watched_key");
  return {std::string{r.text(0, 0)}, std::string{r.text(0, 1)}};
}

std::vector<identity_change> read_identity_changes(connection& c, const std::string& tables,
                                                   const std::string& columns) {
  std::vector<identity_change> out;
  if (tables.empty())
    return out;
  auto r = c.exec_params(identity_sql, {tables, columns});
  for (int i = 0; i < r.rows(); ++i) {
    auto ident = r.text(i, 1);
    out.push_back({std::string{r.text(i, 0)}, ident.empty() ? 'd' : ident[0], split(r.text(i, 2), unit[0])});
  }
  return out;
}

} // namespace

std::vector<std::string> wal_readiness::lacks() const {
  std::vector<std::string> out;
  if (wal_level != "logical")
    out.push_back("wal_level is " + wal_level + ", not logical (postgresql.conf, then a server restart)");
  if (!replication)
    out.push_back("this role may not replicate (ALTER ROLE ... REPLICATION)");
  if (!may_publish)
    out.push_back("this role may not create a publication (GRANT CREATE ON DATABASE ...)");
  for (const auto& t : not_owned)
    out.push_back("this role does not own " + t + " (publishing it and setting its replica identity need ownership)");
  if (free_slots < 1)
    out.push_back("no replication slot is free (max_replication_slots)");
  return out;
}

wal_readiness read_wal_readiness(connection& c, const std::vector<std::string>& tables) {
  auto r = c.exec_params(readiness_sql, {join(tables, unit)});
  wal_readiness w;
  w.wal_level = std::string{r.text(0, 0)};
  w.replication = r.text(0, 1) == "t";
  w.may_publish = r.text(0, 2) == "t";
  w.not_owned = split(r.text(0, 3), unit[0]);
  w.free_slots = static_cast<int>(r.int64(0, 4));
  w.unlimited_keep = r.text(0, 5) == "t";
  return w;
}

std::string identity_change::why() const {
  std::string now = identity == 'n' ? "NOTHING" : identity == 'i' ? "USING INDEX" : "DEFAULT";
  return table + ": REPLICA IDENTITY " + now + " does not carry the old value of " + join(missing, ", ")
         + " (an UPDATE moving a row between documents, or a DELETE, would not name the document it left)";
}

std::vector<identity_change> identity_changes(connection& c, const std::vector<std::string>& tables,
                                              const std::vector<std::string>& columns) {
  return read_identity_changes(c, join(tables, unit), join(columns, unit));
}

std::vector<identity_change> identity_changes(connection& c) {
  auto [tables, columns] = installed_keys(c);
  return read_identity_changes(c, tables, columns);
}

std::optional<feed_kind> recorded_feed(connection& c) {
  auto r = c.exec("SELECT to_regclass('restcache_feed') IS NOT NULL");
  if (r.text(0, 0) != "t")
    return std::nullopt;
  auto f = c.exec("SELECT feed FROM restcache_feed");
  return f.rows() == 1 ? parse_feed_kind(f.text(0, 0)) : std::nullopt;
}

void install_feed(connection& c, feed_kind feed) {
  c.exec(std::string{"BEGIN; SET LOCAL client_min_messages = warning; "} + schema_lock_sql);
  try {
    c.exec_params("INSERT INTO restcache_feed (feed) VALUES ($1)"
                  " ON CONFLICT (one) DO UPDATE SET feed = excluded.feed, chosen_at = now()"
                  " WHERE restcache_feed.feed <> excluded.feed",
                  {std::string{to_string(feed)}});
    if (feed == feed_kind::wal) {
      for (const auto& t : identity_changes(c)) {
        // The identity as found, once: a second install finds FULL.
        c.exec_params("INSERT INTO restcache_replica_identity (table_schema, table_name, original, original_index)"
                      " SELECT n.nspname, c.relname, c.relreplident,"
                      "        (SELECT ic.relname FROM pg_index i JOIN pg_class ic ON ic.oid = i.indexrelid"
                      "          WHERE i.indrelid = c.oid AND i.indisreplident)"
                      "   FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.oid = $1::regclass"
                      " ON CONFLICT DO NOTHING",
                      {t.table});
        c.exec("ALTER TABLE " + t.table + " REPLICA IDENTITY FULL");
      }
    } else {
      // The triggers need no old rows in the WAL: each identity as it was.
      c.exec("DO $do$ DECLARE r record; BEGIN"
             "  FOR r IN DELETE FROM restcache_replica_identity RETURNING * LOOP"
             "    CONTINUE WHEN to_regclass(format('%I.%I', r.table_schema, r.table_name)) IS NULL;"
             "    EXECUTE format('ALTER TABLE %I.%I REPLICA IDENTITY %s', r.table_schema, r.table_name,"
             "                   CASE r.original WHEN 'n' THEN 'NOTHING' WHEN 'f' THEN 'FULL'"
             "                     WHEN 'i' THEN 'USING INDEX ' || quote_ident(r.original_index) ELSE 'DEFAULT' END);"
             "  END LOOP;"
             "END $do$");
    }
    c.exec("SELECT restcache_install_triggers()");
    c.exec("COMMIT");
  } catch (...) {
    rollback_if_in_transaction(c);
    throw;
  }
}

feed_kind resolve_feed(feed_choice choice, const wal_readiness& r) {
  switch (choice) {
    case feed_choice::triggers: return feed_kind::triggers;
    case feed_choice::wal: return feed_kind::wal;
    case feed_choice::automatic: break;
  }
  return r.ready() ? feed_kind::wal : feed_kind::triggers;
}

} // namespace restcache::pg
