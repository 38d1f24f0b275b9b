// SPDX-License-Identifier: Apache-2.0
#include "persistence/pg/catalog_drift.hpp"

#include <algorithm>
#include <cstdlib>
#include <map>

#include "messages/text.hpp"
#include "persistence/pg/wal_feed.hpp"

namespace restcache::pg {

namespace {

/// Lists go to the statement and come back joined by the unit separator
/// (U+001F), which no identifier holds in practice and none of the ids has.
constexpr std::string_view unit = "\x1f";

/// A fingerprint's parts of the kinds' dependencies are named "kind:<name>".
constexpr std::string_view kind_part = "kind:";

// One row per table asked, in order. The trigger functions are found where
// restcache_install_triggers puts them (next to the log), by the names it
// gives them; their source is compared with what it would generate now.
constexpr const char* facts_sql = R"sql(
WITH want AS (
  SELECT u.ord, u.name, u.cols, to_regclass(u.name) AS rel
    FROM unnest(string_to_array($1, chr(31)), string_to_array($2, chr(31))) WITH ORDINALITY AS u(name, cols, ord)
), log AS (
  SELECT c.oid || '/' || c.relfilenode AS id, quote_ident(n.nspname) AS nsp
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.oid = to_regclass('change_log')
)
SELECT w.name, c.oid IS NOT NULL,
       coalesce(quote_ident(n.nspname) || '.' || quote_ident(c.relname), ''), coalesce(c.oid::text, ''),
       coalesce((SELECT id FROM log), ''),
       rc.id IS NOT NULL, coalesce(rc.id, ''), coalesce(rc.enabled, ''), coalesce(rc.type, 0),
       coalesce(rc.conditional, false), coalesce(rc.generated, false), coalesce(rc.current, false),
       rt.id IS NOT NULL, coalesce(rt.id, ''), coalesce(rt.enabled, ''), coalesce(rt.type, 0),
       coalesce(rt.conditional, false), coalesce(rt.generated, false), coalesce(rt.current, false),
       coalesce(cols.facts, ''), coalesce(keys.watched, ''),
       coalesce(c.relrowsecurity || '/' || c.relforcerowsecurity || '/' || coalesce(pol.ids, ''), ''),
       coalesce(des.facts, '')
  FROM want w
  LEFT JOIN pg_class c ON c.oid = w.rel
  LEFT JOIN pg_namespace n ON n.oid = c.relnamespace
  LEFT JOIN LATERAL (
    SELECT g.oid || '/' || g.xmin || '/' || p.oid || '/' || p.xmin AS id, g.tgenabled::text AS enabled,
           g.tgtype::int AS type, (g.tgqual IS NOT NULL OR g.tgattr <> ''::int2vector) AS conditional,
           g.tgfoid = to_regprocedure((SELECT nsp FROM log) || '.'
                                      || quote_ident(restcache_trigger_function(n.nspname, c.relname)) || '()')
             AS generated,
           restcache_function_as_generated(p.oid, restcache_trigger_source(n.nspname, c.relname)) AS current
      FROM pg_trigger g JOIN pg_proc p ON p.oid = g.tgfoid
     WHERE g.tgrelid = c.oid AND g.tgname = 'restcache_changed') rc ON true
  LEFT JOIN LATERAL (
    SELECT g.oid || '/' || g.xmin || '/' || p.oid || '/' || p.xmin AS id, g.tgenabled::text AS enabled,
           g.tgtype::int AS type, (g.tgqual IS NOT NULL OR g.tgattr <> ''::int2vector) AS conditional,
           g.tgfoid = to_regprocedure((SELECT nsp FROM log) || '.restcache_truncated()') AS generated,
           restcache_function_as_generated(p.oid, restcache_truncated_source()) AS current
      FROM pg_trigger g JOIN pg_proc p ON p.oid = g.tgfoid
     WHERE g.tgrelid = c.oid AND g.tgname = 'restcache_truncated') rt ON true
  LEFT JOIN LATERAL (
    SELECT string_agg(coalesce(a.attnum || '/' || a.atttypid || '/' || a.atttypmod || '/' || a.xmin, ''),
                      chr(31) ORDER BY k.ord) AS facts
      FROM unnest(string_to_array(w.cols, ',')) WITH ORDINALITY AS k(col, ord)
      LEFT JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = k.col AND a.attnum > 0 AND NOT a.attisdropped
  ) cols ON true
  LEFT JOIN LATERAL (
    SELECT string_agg(k.key_space || ':' || k.key_column, chr(31) ORDER BY k.key_space, k.key_column) AS watched
      FROM restcache_watched_key k WHERE k.table_schema = n.nspname AND k.table_name = c.relname
  ) keys ON true
  LEFT JOIN LATERAL (
    SELECT string_agg(p.oid || ':' || p.xmin, ',' ORDER BY p.oid) AS ids FROM pg_policy p WHERE p.polrelid = c.oid
  ) pol ON true
  LEFT JOIN LATERAL (
    -- Its partitions and inheriting tables at every level, whose rows its
    -- reads read, and restcache's triggers on them (a partition's row
    -- trigger is the clone of the table's): "<name>|<oid>|<partition>|
    -- <watched itself>|" then per trigger "<id>|<enabled>|<type>|
    -- <conditional>|<calls restcache's>".
    WITH RECURSIVE tree(relid, depth) AS (
      SELECT i.inhrelid, 1 FROM pg_inherits i WHERE i.inhparent = c.oid
      UNION ALL
      SELECT i.inhrelid, t.depth + 1 FROM tree t JOIN pg_inherits i ON i.inhparent = t.relid WHERE t.depth < 32)
    SELECT string_agg(concat_ws('|', quote_ident(dn.nspname) || '.' || quote_ident(dc.relname), dc.oid,
                                dc.relispartition,
                                EXISTS (SELECT 1 FROM restcache_watched_key k
                                         WHERE k.table_schema = dn.nspname AND k.table_name = dc.relname),
                                coalesce(dg.oid || '/' || dg.xmin, ''), coalesce(dg.tgenabled::text, ''),
                                coalesce(dg.tgtype, 0), coalesce(dg.tgqual IS NOT NULL OR dg.tgattr <> ''::int2vector, false),
                                coalesce(dg.tgfoid = to_regprocedure((SELECT nsp FROM log) || '.'
                                  || quote_ident(restcache_trigger_function(n.nspname, c.relname)) || '()'), false),
                                coalesce(tg.oid || '/' || tg.xmin, ''), coalesce(tg.tgenabled::text, ''),
                                coalesce(tg.tgtype, 0), coalesce(tg.tgqual IS NOT NULL, false),
                                coalesce(tg.tgfoid = to_regprocedure((SELECT nsp FROM log) || '.restcache_truncated()'),
                                         false)),
                      chr(31) ORDER BY dc.oid) AS facts
      FROM (SELECT DISTINCT relid FROM tree) t
      JOIN pg_class dc ON dc.oid = t.relid
      JOIN pg_namespace dn ON dn.oid = dc.relnamespace
      LEFT JOIN pg_trigger dg ON dg.tgrelid = dc.oid AND dg.tgname = 'restcache_changed'
      LEFT JOIN pg_trigger tg ON tg.tgrelid = dc.oid AND tg.tgname = 'restcache_truncated'
  ) des ON true
 ORDER BY w.ord
)sql";

/// One trigger of a descendant's facts, from its five fields.
trigger_facts descendant_trigger(const std::vector<std::string>& f, size_t at) {
  trigger_facts t;
  t.id = f[at];
  t.present = !t.id.empty();
  t.enabled = f[at + 1].empty() ? char{0} : f[at + 1][0];
  t.type = std::atoi(f[at + 2].c_str());
  t.conditional = f[at + 3] == "t";
  t.calls_generated = f[at + 4] == "t";
  t.source_current = true; // the watched table's function, judged with it
  return t;
}

// What each kind's dependency objects are now ($1 the kinds, $2 the
// objects, one pair each): see kind_facts.
constexpr const char* kind_facts_sql = R"sql(
WITH u AS (
  SELECT k.kind, k.obj, k.ord, substr(k.obj, 1, 1) AS cls, split_part(substr(k.obj, 2), '.', 1)::oid AS id,
         nullif(split_part(substr(k.obj, 2), '.', 2), '')::int AS sub
    FROM unnest(string_to_array($1, chr(31)), string_to_array($2, chr(31))) WITH ORDINALITY AS k(kind, obj, ord)
)
SELECT u.kind, string_agg(u.obj || '@' || coalesce(CASE u.cls
         WHEN 'c' THEN (SELECT c.relkind::text || '/' || coalesce((SELECT string_agg(r.oid || ':' || r.xmin, '.' ORDER BY r.oid)
                                                                FROM pg_rewrite r WHERE r.ev_class = c.oid), '')
                          FROM pg_class c WHERE c.oid = u.id)
         WHEN 'a' THEN (SELECT a.atttypid || '/' || a.atttypmod || '/' || a.xmin FROM pg_attribute a
                         WHERE a.attrelid = u.id AND a.attnum = u.sub AND NOT a.attisdropped)
         WHEN 'p' THEN (SELECT p.xmin::text FROM pg_proc p WHERE p.oid = u.id)
         WHEN 'o' THEN (SELECT o.xmin::text FROM pg_operator o WHERE o.oid = u.id)
         WHEN 't' THEN (SELECT t.xmin::text FROM pg_type t WHERE t.oid = u.id)
       END, '-') || coalesce('/' || en.labels, ''), ',' ORDER BY u.ord)
  FROM u
  LEFT JOIN LATERAL (
    SELECT CASE u.cls WHEN 't' THEN u.id
                      WHEN 'a' THEN (SELECT a.atttypid FROM pg_attribute a WHERE a.attrelid = u.id AND a.attnum = u.sub)
           END AS typ) ty ON true
  LEFT JOIN LATERAL (
    -- An enum's values (of the type, a domain's base or an array's element):
    -- ALTER TYPE ... RENAME VALUE changes a document's text, not its rows.
    SELECT string_agg(e.oid || ':' || e.xmin, '.' ORDER BY e.oid) AS labels FROM pg_enum e
     WHERE e.enumtypid IN (SELECT x FROM pg_type t, LATERAL (VALUES (t.oid), (t.typbasetype), (t.typelem)) v(x)
                            WHERE t.oid = ty.typ)) en ON true
 GROUP BY u.kind
)sql";

// The WAL feed's facts of each table asked ($1 names, $2 its key columns
// joined by ','), and of its partitions and inheriting tables: per
// relation "<name>|<oid>|<partitioned>|<published>|<identity>|<key columns
// the identity lacks, by '+'>|<the identity's columns, by '+'>", joined by
// U+001F; then the recorded feed
// and the publication.
constexpr const char* wal_facts_sql = R"sql(
WITH want AS (
  SELECT u.ord, to_regclass(u.name) AS rel, string_to_array(u.cols, ',') AS cols
    FROM unnest(string_to_array($1, chr(31)), string_to_array($2, chr(31))) WITH ORDINALITY AS u(name, cols, ord)
), pub AS (
  SELECT p.oid, p.xmin, p.pubname FROM pg_publication p WHERE p.pubname = 'restcache'
), published AS (
  SELECT g.relid FROM pub, LATERAL pg_get_publication_tables(pub.pubname) g
)
SELECT w.ord,
       coalesce((
         WITH RECURSIVE tree(relid, depth) AS (
           SELECT w.rel::oid, 0
           UNION ALL
           SELECT i.inhrelid, t.depth + 1 FROM tree t JOIN pg_inherits i ON i.inhparent = t.relid WHERE t.depth < 32)
         SELECT string_agg(concat_ws('|', format('%I.%I', n.nspname, c.relname), c.oid, c.relkind = 'p',
                                     CASE WHEN c.relkind = 'p'
                                          THEN EXISTS (SELECT 1 FROM pg_publication_rel r JOIN pub ON r.prpubid = pub.oid
                                                        WHERE r.prrelid = c.oid)
                                          ELSE c.oid IN (SELECT relid FROM published) END,
                                     c.relreplident,
                                     coalesce((SELECT string_agg(k.col, '+' ORDER BY k.col)
                                                 FROM unnest(w.cols) AS k(col)
                                                WHERE c.relkind <> 'p' AND c.relreplident <> 'f'
                                                  AND NOT EXISTS (
                                                    SELECT 1 FROM pg_index i
                                                      JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY (i.indkey)
                                                     WHERE i.indrelid = c.oid AND a.attname = k.col
                                                       AND ((c.relreplident = 'd' AND i.indisprimary)
                                                            OR (c.relreplident = 'i' AND i.indisreplident)))), ''),
                                     coalesce((SELECT string_agg(a.attname, '+' ORDER BY a.attnum) FROM pg_index i
                                                 JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY (i.indkey)
                                                WHERE i.indrelid = c.oid
                                                  AND CASE c.relreplident WHEN 'i' THEN i.indisreplident
                                                                          ELSE i.indisprimary END), '')),
                           chr(31) ORDER BY t.depth, c.oid)
           FROM (SELECT DISTINCT ON (relid) relid, depth FROM tree ORDER BY relid, depth) t
           JOIN pg_class c ON c.oid = t.relid JOIN pg_namespace n ON n.oid = c.relnamespace), ''),
       coalesce((SELECT pub.oid || ':' || pub.xmin FROM pub), ''),
       coalesce((SELECT p.pubinsert AND p.pubupdate AND p.pubdelete AND p.pubtruncate FROM pg_publication p, pub
                  WHERE p.oid = pub.oid), false),
       coalesce((SELECT p.pubviaroot FROM pg_publication p, pub WHERE p.oid = pub.oid), false)
  FROM want w
 ORDER BY w.ord
)sql";

trigger_facts trigger_at(const result& r, int row, int col) {
  trigger_facts t;
  t.present = r.text(row, col) == "t";
  t.id = std::string{r.text(row, col + 1)};
  auto enabled = r.text(row, col + 2);
  t.enabled = enabled.empty() ? 0 : enabled[0];
  t.type = static_cast<int>(r.int64(row, col + 3));
  t.conditional = r.text(row, col + 4) == "t";
  t.calls_generated = r.text(row, col + 5) == "t";
  t.source_current = r.text(row, col + 6) == "t";
  return t;
}

/// What is wrong with one of restcache's triggers, if anything.
void judge_trigger(const trigger_facts& t, std::string_view trigger, const std::string& table, int type,
                   std::vector<std::string>& problems) {
  auto on = std::string{trigger} + " on " + table;
  if (!t.present) {
    problems.push_back(table + " has no trigger " + std::string{trigger});
    return;
  }
  switch (t.enabled) {
    case 'A': break;
    case 'D': problems.push_back(on + " is disabled"); break;
    case 'O':
      problems.push_back(on + " fires in origin mode only (ENABLE TRIGGER undid ENABLE ALWAYS): "
                         "writes under session_replication_role = replica go unseen");
      break;
    case 'R': problems.push_back(on + " fires in replica mode only"); break;
    default: problems.push_back(on + " is in an unknown state"); break;
  }
  if (t.type != type || t.conditional)
    problems.push_back(on + " is not defined as restcache defines it");
  if (!t.calls_generated)
    problems.push_back(on + " does not call restcache's generated function");
  else if (!t.source_current)
    problems.push_back("the function " + on + " calls is not as restcache generates it now (from "
                       "restcache_watched_key, the table's columns, and whether event triggers follow DDL)");
}

/// The WAL feed's facts of `tables` into `f` (wal_facts_sql).
void read_wal_facts(connection& c, const std::vector<watched_table>& tables, catalog_facts& f) {
  std::vector<std::string> names, keys;
  // A key column whose kinds know their rows needs no old value in the WAL.
  auto known = keys_known_by_rows();
  for (const auto& t : tables) {
    names.push_back(t.name);
    std::vector<std::string> cols;
    for (const auto& k : t.keys)
      if (auto colon = k.find(':'); colon != std::string::npos) {
        auto column = k.substr(colon + 1);
        if (std::find(known.begin(), known.end(), std::pair{t.name, column}) == known.end())
          cols.push_back(column);
      }
    keys.push_back(join(cols, ","));
  }
  auto r = c.exec_params(wal_facts_sql, {join(names, unit), join(keys, unit)});
  auto recorded = c.exec("SELECT restcache_feed()"); // a v12 schema: the caller chose this feed from it
  f.wal.recorded_feed = std::string{recorded.text(0, 0)};
  for (int row = 0; row < r.rows(); ++row) {
    auto i = static_cast<size_t>(r.int64(row, 0)) - 1;
    if (i < f.tables.size())
      for (const auto& rel : split(r.text(row, 1), unit[0])) {
        auto x = split(rel, '|');
        if (x.size() < 5)
          continue;
        x.resize(7);
        f.tables[i].wal.push_back({x[0], x[1], x[2] == "t", x[3] == "t", x[4].empty() ? 'd' : x[4][0],
                                   split(x[5], '+'), x[6]});
      }
    f.wal.publication = std::string{r.text(row, 2)};
    f.wal.publishes_all = r.text(row, 3) == "t";
    f.wal.via_root = r.text(row, 4) == "t";
  }
}

} // namespace

catalog_facts read_catalog_facts(connection& c, const std::vector<watched_table>& tables,
                                 const std::vector<kind_dependencies>& kinds, feed_kind feed) {
  std::vector<std::string> names, columns;
  for (const auto& t : tables) {
    names.push_back(t.name);
    columns.push_back(join(t.columns, ","));
  }
  auto r = c.exec_params(facts_sql, {join(names, unit), join(columns, unit)});
  catalog_facts f;
  for (int row = 0; row < r.rows(); ++row) {
    table_facts t;
    t.name = std::string{r.text(row, 0)};
    t.exists = r.text(row, 1) == "t";
    t.qualified = std::string{r.text(row, 2)};
    t.oid = std::string{r.text(row, 3)};
    f.log_id = std::string{r.text(row, 4)};
    t.changed = trigger_at(r, row, 5);
    t.truncated = trigger_at(r, row, 12);
    auto ids = split(r.text(row, 19), unit[0]);
    static const std::vector<std::string> none;
    const auto& asked = static_cast<size_t>(row) < tables.size() ? tables[static_cast<size_t>(row)].columns : none;
    for (size_t i = 0; i < asked.size(); ++i)
      t.columns.push_back({asked[i], i < ids.size() ? ids[i] : std::string{}});
    t.watched = split(r.text(row, 20), unit[0]);
    t.rows_seen = std::string{r.text(row, 21)};
    for (const auto& d : split(r.text(row, 22), unit[0])) {
      auto fields = split(d, '|');
      if (fields.size() != 14)
        continue;
      t.descendants.push_back({fields[0], fields[1], fields[2] == "t", fields[3] == "t", descendant_trigger(fields, 4),
                               descendant_trigger(fields, 9)});
    }
    f.tables.push_back(std::move(t));
  }
  f.feed = feed;
  if (feed == feed_kind::wal)
    read_wal_facts(c, tables, f);
  std::vector<std::string> kind_names, objects;
  for (const auto& k : kinds)
    if (k.known)
      for (const auto& o : k.objects) {
        kind_names.push_back(k.kind);
        objects.push_back(o);
      }
  std::map<std::string, std::string, std::less<>> identities;
  if (!objects.empty()) {
    auto ids = c.exec_params(kind_facts_sql, {join(kind_names, unit), join(objects, unit)});
    for (int row = 0; row < ids.rows(); ++row)
      identities.emplace(std::string{ids.text(row, 0)}, std::string{ids.text(row, 1)});
  }
  for (const auto& k : kinds) {
    auto i = identities.find(k.kind);
    f.kinds.push_back({k.kind, !k.known ? std::string{"?"} : i == identities.end() ? std::string{} : i->second});
  }
  return f;
}

std::string drift_report::problems() const {
  std::string out;
  auto add = [&](const std::string& p) { out += (out.empty() ? "" : "; ") + p; };
  for (const auto& p : log_problems)
    add(p);
  for (const auto& t : tables)
    for (const auto& p : t.problems)
      add(p);
  return out;
}

drift_report judge_catalog(const catalog_facts& facts, const std::vector<watched_table>& tables) {
  drift_report rep;
  const uint64_t every_kind = kinds_reading(tables);
  const bool wal = facts.feed == feed_kind::wal;
  if (facts.log_id.empty())
    rep.log_problems.push_back("the change log (change_log) does not exist");
  rep.fingerprint = "log=" + facts.log_id;
  if (wal) {
    // The publication recreated or altered: its changes in between are lost.
    const auto& w = facts.wal;
    if (w.recorded_feed != "wal")
      rep.log_problems.push_back("the database's change feed is " + w.recorded_feed
                                 + " now (restcache-load --feed), not the WAL: restart this instance to follow it");
    if (w.publication.empty())
      rep.log_problems.push_back("the publication restcache does not exist");
    else if (!w.publishes_all)
      rep.log_problems.push_back("the publication restcache does not publish every insert, update, delete and truncate");
    else if (w.via_root)
      rep.log_problems.push_back("the publication restcache publishes via the partition root (a partition's TRUNCATE "
                                 "is not sent then)");
    rep.fingerprint += ";feed=wal/" + w.publication + "/" + (w.publishes_all ? "all" : "some")
                       + (w.via_root ? "/root" : "");
  }
  for (size_t i = 0; i < tables.size(); ++i) {
    const auto& want = tables[i];
    table_check check{want.name, {}, want.kinds};
    const table_facts* f = i < facts.tables.size() ? &facts.tables[i] : nullptr;
    std::string print = f ? f->oid : std::string{};
    if (!f || !f->exists) {
      check.problems.push_back("table " + want.name + " does not exist");
    } else {
      const auto& name = f->qualified;
      if (!wal) {
        judge_trigger(f->changed, "restcache_changed", name, 29, check.problems); // ROW AFTER INSERT|DELETE|UPDATE
        judge_trigger(f->truncated, "restcache_truncated", name, 32, check.problems); // STATEMENT AFTER TRUNCATE
      }
      std::string columns;
      for (const auto& col : f->columns) {
        if (col.id.empty())
          check.problems.push_back("column " + name + "." + col.name + " does not exist");
        columns += (columns.empty() ? "" : ",") + col.id;
      }
      for (const auto& key : want.keys)
        if (std::find(f->watched.begin(), f->watched.end(), key) == f->watched.end())
          check.problems.push_back(name + " does not log key " + key + " (no such restcache_watched_key row)");
      // Its rows are read with theirs: each needs restcache's triggers too.
      std::string descendants;
      for (const auto& d : f->descendants) {
        auto which = d.name + (d.partition ? " (a partition of " : " (a table inheriting from ") + name + ")";
        if (d.watched) {
          // Its one row trigger logs its own keys, not the table's.
          check.problems.push_back(which + " is watched itself: its changes would log its own keys, not " + name
                                   + "'s (declare kinds over one of the two)");
        } else if (!wal) {
          judge_trigger(d.changed, "restcache_changed", which, 29, check.problems);
          judge_trigger(d.truncated, "restcache_truncated", which, 32, check.problems);
        }
        // Under the WAL feed restcache's triggers are none of its concern:
        // retired after a switch, or installed before one back, they
        // change nothing it reports.
        descendants += (descendants.empty() ? "" : ",") + d.oid + ":" + (wal ? "" : d.changed.id) + ":"
                       + (wal ? "" : d.truncated.id);
      }
      print += "|" + (wal ? "" : f->changed.id) + "|" + (wal ? "" : f->truncated.id) + "|" + columns + "|" + f->rows_seen + "|" + descendants;
      if (wal) {
        std::string published;
        for (const auto& r : f->wal) {
          if (!r.published)
            check.problems.push_back(r.name + " is not in the publication restcache: its changes go unseen "
                                     "(restcache-load --schema-only publishes it)");
          if (!r.identity_lacks.empty())
            check.problems.push_back(r.name + "'s replica identity does not carry the old value of "
                                     + join(r.identity_lacks, ", ") + " (restcache-load --schema-only sets it FULL)");
          // The identity's columns too: what a changed row is named by, and
          // what the documents knowing their rows hold them by.
          published += (published.empty() ? "" : ",") + r.oid + ":" + (r.published ? "p" : "-") + r.identity + "/"
                       + r.identity_columns;
        }
        print += "|" + published;
      }
    }
    rep.fingerprint += ";" + want.name + "=" + print;
    if (!check.problems.empty())
      rep.drifted |= want.kinds;
    rep.tables.push_back(std::move(check));
  }
  for (const auto& k : facts.kinds)
    rep.fingerprint += ";kind:" + k.kind + "=" + k.identity;
  if (!rep.log_problems.empty())
    rep.drifted |= every_kind;
  return rep;
}

namespace {

/// A fingerprint's parts: name -> its part; the log's under "log".
std::map<std::string, std::string, std::less<>> fingerprint_parts(std::string_view s) {
  std::map<std::string, std::string, std::less<>> parts;
  while (!s.empty()) {
    auto item = next_part(s, ';');
    auto name = next_part(item, '=');
    parts.emplace(std::string{name}, std::string{item});
  }
  return parts;
}

} // namespace

uint64_t kinds_of_table(const std::vector<watched_table>& tables, std::string_view name) {
  if (name.starts_with(kind_part)) {
    const auto* kind = find_doc_kind(name.substr(kind_part.size()));
    return kind != nullptr ? kind_bit(kind->kind) : kinds_reading(tables);
  }
  // Named schema-qualified by the event trigger, bare in the catalogue.
  if (auto dot = name.rfind('.'); dot != std::string_view::npos)
    name.remove_prefix(dot + 1);
  for (const auto& t : tables)
    if (t.name == name)
      return t.kinds;
  return kinds_reading(tables);
}

uint64_t fingerprint_kinds(std::string_view before, std::string_view after, const std::vector<watched_table>& tables) {
  if (before.empty())
    return kinds_reading(tables);
  auto was = fingerprint_parts(before), now = fingerprint_parts(after);
  uint64_t kinds = 0;
  auto note = [&](const std::string& name) {
    kinds |= name == "log" ? kinds_reading(tables) : kinds_of_table(tables, name);
  };
  for (const auto& [name, part] : now)
    if (auto w = was.find(name); w == was.end() || w->second != part)
      note(name);
  for (const auto& [name, part] : was)
    if (now.find(name) == now.end())
      note(name);
  return kinds;
}

std::string fingerprint_of_documents(std::string_view fingerprint) {
  std::string out;
  for (const auto& [name, part] : fingerprint_parts(fingerprint)) {
    if (name == "feed")
      continue;
    std::string kept = part;
    if (name != "log" && !name.starts_with(kind_part)) {
      auto f = split(part, '|');
      f.resize(7);
      // The descendants' oids without their triggers' ids.
      std::string descendants;
      for (const auto& d : split(f[5], ','))
        descendants += (descendants.empty() ? "" : ",") + d.substr(0, d.find(':'));
      kept = f[0] + "|" + f[3] + "|" + f[4] + "|" + descendants;
    }
    out += (out.empty() ? "" : ";") + name + "=" + kept;
  }
  return out;
}

std::vector<std::string> fingerprint_changes(std::string_view before, std::string_view after) {
  auto was = fingerprint_parts(before), now = fingerprint_parts(after);
  std::vector<std::string> out;
  auto describe = [&](const std::string& name, std::string_view a, std::string_view b) {
    if (name == "log")
      return std::string{"the change log was truncated or recreated (entries may be lost)"};
    if (name.starts_with(kind_part))
      return "what the statements of kind " + name.substr(kind_part.size()) + " depend on was redefined (a view, "
             "a function, an operator, an enum's values or a column's type)";
    if (name == "feed")
      return std::string{"the WAL feed's publication was created, altered or dropped (changes may be lost)"};
    auto fa = split(a, '|'), fb = split(b, '|');
    fa.resize(7);
    fb.resize(7);
    if (fa[0] != fb[0])
      return a.empty() || b.empty() ? "table " + name + (a.empty() ? " appeared" : " disappeared")
                                     : "table " + name + " is another table now (recreated, or swapped by RENAME)";
    std::string what;
    if (fa[1] != fb[1] || fa[2] != fb[2])
      what = "its restcache triggers were created, altered or dropped";
    if (fa[3] != fb[3])
      what += (what.empty() ? "" : ", and ") + std::string{"a column its documents read was altered, dropped or added"};
    if (fa[4] != fb[4])
      what += (what.empty() ? "" : ", and ")
              + std::string{"which rows a reader sees changed (row-level security or its policies)"};
    if (fa[5] != fb[5])
      what += (what.empty() ? "" : ", and ")
              + std::string{"its partitions or inheriting tables, or restcache's triggers on them, changed"};
    if (fa[6] != fb[6])
      what += (what.empty() ? "" : ", and ")
              + std::string{"its place in the publication or its replica identity changed"};
    return "table " + name + ": " + what;
  };
  for (const auto& [name, part] : now) {
    auto w = was.find(name);
    std::string_view old = w == was.end() ? std::string_view{} : std::string_view{w->second};
    if (w == was.end() || old != part)
      out.push_back(describe(name, old, part));
  }
  for (const auto& [name, part] : was)
    if (now.find(name) == now.end())
      out.push_back(name.starts_with(kind_part) ? "kind " + name.substr(kind_part.size()) + " is no longer followed"
                                                : "table " + name + " is no longer read");
  return out;
}

} // namespace restcache::pg
