// SPDX-License-Identifier: Apache-2.0
#include "persistence/pg/wal_feed.hpp"

#include <chrono>
#include <map>

#include "messages/doc_catalogue.hpp"
#include "messages/text.hpp"
#include "persistence/pg/feed_switch.hpp"
#include "persistence/pg/schema.hpp"
#include "persistence/pg/yielding_ddl.hpp"

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
   AND NOT EXISTS (SELECT 1 FROM unnest(string_to_array($3, chr(31)), string_to_array($4, chr(31))) AS r(tbl, col)
                    WHERE to_regclass(r.tbl) = t.root AND r.col = k.col)
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

} // namespace

std::vector<std::pair<std::string, std::string>> keys_known_by_rows() {
  struct reading {
    uint64_t kinds = 0;
    uint64_t knowing = 0;
  };
  std::map<std::pair<std::string, std::string>, reading> by_key;
  for (const auto& kind : doc_catalogue())
    for (const auto& read : kind.reads) {
      std::string_view keys = read.keys;
      while (!keys.empty()) {
        auto key = next_part(keys, ',');
        auto colon = key.find(':');
        if (colon == std::string_view::npos)
          continue;
        auto& r = by_key[{read.table, std::string{key.substr(colon + 1)}}];
        r.kinds |= kind_bit(kind.kind);
        if (!read.row_columns.empty())
          r.knowing |= kind_bit(kind.kind);
      }
    }
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [key, r] : by_key)
    if (r.kinds != 0 && r.knowing == r.kinds)
      out.push_back(key);
  return out;
}

namespace {

std::vector<identity_change> read_identity_changes(connection& c, const std::string& tables,
                                                   const std::string& columns) {
  std::vector<identity_change> out;
  if (tables.empty())
    return out;
  std::vector<std::string> known_tables, known_columns;
  for (auto& [table, column] : keys_known_by_rows()) {
    known_tables.push_back(table);
    known_columns.push_back(column);
  }
  auto r = c.exec_params(identity_sql, {tables, columns, join(known_tables, unit), join(known_columns, unit)});
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

std::vector<std::pair<int, std::string>> identity_columns(connection& c, int64_t table_oid) {
  auto r = c.exec_params("SELECT a.attnum::int8, a.attname"
                         "  FROM pg_class c"
                         "  JOIN pg_index i ON i.indrelid = c.oid"
                         "   AND CASE c.relreplident WHEN 'i' THEN i.indisreplident ELSE i.indisprimary END"
                         "  JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = ANY (i.indkey)"
                         " WHERE c.oid = $1::int8::oid ORDER BY a.attnum",
                         {std::to_string(table_oid)});
  std::vector<std::pair<int, std::string>> out;
  for (int i = 0; i < r.rows(); ++i)
    out.emplace_back(static_cast<int>(r.int64(i, 0)), std::string{r.text(i, 1)});
  return out;
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

namespace {

identity_report install_feed_once(connection& c, feed_kind feed) {
  identity_report report;
  begin_yielding_ddl(c);
  try {
    // A switch: running instances follow the feed they started on, and the
    // new one logs nothing they read. Before the feed changes, it is logged
    // through the old one (a change-log row, or a logical message), as the
    // DDL event trigger logs a watched table altered: each instance checks
    // at once, in commit order with the writes, and moves to the new feed
    // (listen_connection::check_drift) rather than serve what the old one
    // no longer reports.
    auto recorded = c.exec("SELECT restcache_feed()");
    const bool switching = recorded.rows() == 1 && recorded.text(0, 0) != to_string(feed);
    if (switching)
      c.exec("SELECT restcache_log_keys(k) FROM (SELECT array_agg(DISTINCT '!:' || quote_ident(table_schema) || '.'"
             " || quote_ident(table_name)) AS k FROM restcache_watched_key) w WHERE k IS NOT NULL");
    c.exec_params("INSERT INTO restcache_feed (feed) VALUES ($1)"
                  " ON CONFLICT (one) DO UPDATE SET feed = excluded.feed, chosen_at = now()"
                  " WHERE restcache_feed.feed <> excluded.feed",
                  {std::string{to_string(feed)}});
    // Each identity restcache set as it was found: the triggers need no old
    // rows in the WAL, and the WAL feed's needs are judged afresh (kinds
    // that now know their rows need FULL no more).
    auto put_back = c.exec(
      "WITH gone AS (DELETE FROM restcache_replica_identity RETURNING *)"
      " SELECT format('%I.%I', table_schema, table_name),"
      "        CASE original WHEN 'n' THEN 'NOTHING' WHEN 'f' THEN 'FULL'"
      "          WHEN 'i' THEN 'USING INDEX ' || quote_ident(original_index) ELSE 'DEFAULT' END"
      "   FROM gone WHERE to_regclass(format('%I.%I', table_schema, table_name)) IS NOT NULL ORDER BY 1");
    std::map<std::string, std::string> was;
    for (int i = 0; i < put_back.rows(); ++i) {
      std::string table{put_back.text(i, 0)}, identity{put_back.text(i, 1)};
      c.exec("ALTER TABLE " + table + " REPLICA IDENTITY " + identity);
      was.emplace(table, identity);
    }
    if (feed == feed_kind::wal) {
      for (const auto& t : identity_changes(c)) {
        // The identity as found, for --uninstall and the next install.
        c.exec_params("INSERT INTO restcache_replica_identity (table_schema, table_name, original, original_index)"
                      " SELECT n.nspname, c.relname, c.relreplident,"
                      "        (SELECT ic.relname FROM pg_index i JOIN pg_class ic ON ic.oid = i.indexrelid"
                      "          WHERE i.indrelid = c.oid AND i.indisreplident)"
                      "   FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.oid = $1::regclass"
                      " ON CONFLICT DO NOTHING",
                      {t.table});
        c.exec("ALTER TABLE " + t.table + " REPLICA IDENTITY FULL");
        if (was.erase(t.table) == 0) // FULL before and after: no news
          report.set_full.push_back(t);
      }
    }
    for (const auto& [table, identity] : was)
      report.restored.push_back(table + ": " + identity);
    if (feed == feed_kind::wal) {
      // The triggers stay until the instances reading their log have moved
      // (retire_triggers, in a transaction of its own).
      c.exec("SELECT restcache_publish_watched()");
    } else {
      c.exec("SELECT restcache_install_triggers()");
      // Every watched table is held now: what committed visibly to this
      // snapshot wrote below this WAL position, the rest is logged.
      if (switching)
        c.exec("UPDATE restcache_feed SET triggers_from = pg_current_snapshot(),"
               " triggers_from_lsn = pg_current_wal_insert_lsn()");
    }
    c.exec("COMMIT");
  } catch (...) {
    rollback_if_in_transaction(c);
    throw;
  }
  return report;
}

} // namespace

identity_report install_feed(connection& c, feed_kind feed, std::chrono::milliseconds readers_wait) {
  // Its DDL (identities, triggers, the publication) locks the watched
  // tables: it yields to their writers and tries again.
  identity_report report;
  yielding_to_writers([&] { report = install_feed_once(c, feed); });
  if (feed == feed_kind::wal) {
    auto retired = retire_triggers(c, readers_wait);
    report.triggers_retired = retired.retired;
    report.readers_left = std::move(retired.readers);
  }
  return report;
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
