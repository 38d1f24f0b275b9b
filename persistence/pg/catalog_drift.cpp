// SPDX-License-Identifier: Apache-2.0
#include "persistence/pg/catalog_drift.hpp"

#include <algorithm>
#include <map>

#include "messages/text.hpp"

namespace restcache::pg {

namespace {

/// Lists go to the statement and come back joined by the unit separator
/// (U+001F), which no identifier holds in practice and none of the ids has.
constexpr std::string_view unit = "\x1f";

std::vector<std::string> split(std::string_view s, char sep) {
  std::vector<std::string> out;
  while (!s.empty())
    out.emplace_back(next_part(s, sep));
  return out;
}

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
       coalesce(c.relrowsecurity || '/' || c.relforcerowsecurity || '/' || coalesce(pol.ids, '') || '/'
                || coalesce(inh.children, ''), '')
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
    SELECT string_agg(i.inhrelid::text, ',' ORDER BY i.inhrelid) AS children FROM pg_inherits i WHERE i.inhparent = c.oid
  ) inh ON true
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

} // namespace

catalog_facts read_catalog_facts(connection& c, const std::vector<watched_table>& tables) {
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
    f.tables.push_back(std::move(t));
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
  if (facts.log_id.empty())
    rep.log_problems.push_back("the change log (change_log) does not exist");
  rep.fingerprint = "log=" + facts.log_id;
  for (size_t i = 0; i < tables.size(); ++i) {
    const auto& want = tables[i];
    table_check check{want.name, {}, want.kinds};
    const table_facts* f = i < facts.tables.size() ? &facts.tables[i] : nullptr;
    std::string print = f ? f->oid : std::string{};
    if (!f || !f->exists) {
      check.problems.push_back("table " + want.name + " does not exist");
    } else {
      const auto& name = f->qualified;
      judge_trigger(f->changed, "restcache_changed", name, 29, check.problems); // ROW AFTER INSERT|DELETE|UPDATE
      judge_trigger(f->truncated, "restcache_truncated", name, 32, check.problems); // STATEMENT AFTER TRUNCATE
      std::string columns;
      for (const auto& col : f->columns) {
        if (col.id.empty())
          check.problems.push_back("column " + name + "." + col.name + " does not exist");
        columns += (columns.empty() ? "" : ",") + col.id;
      }
      for (const auto& key : want.keys)
        if (std::find(f->watched.begin(), f->watched.end(), key) == f->watched.end())
          check.problems.push_back(name + " does not log key " + key + " (no such restcache_watched_key row)");
      print += "|" + f->changed.id + "|" + f->truncated.id + "|" + columns + "|" + f->rows_seen;
    }
    rep.fingerprint += ";" + want.name + "=" + print;
    if (!check.problems.empty())
      rep.drifted |= want.kinds;
    rep.tables.push_back(std::move(check));
  }
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

std::vector<std::string> fingerprint_changes(std::string_view before, std::string_view after) {
  auto was = fingerprint_parts(before), now = fingerprint_parts(after);
  std::vector<std::string> out;
  auto describe = [&](const std::string& name, std::string_view a, std::string_view b) {
    if (name == "log")
      return std::string{"the change log was truncated or recreated (entries may be lost)"};
    auto fa = split(a, '|'), fb = split(b, '|');
    fa.resize(5);
    fb.resize(5);
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
              + std::string{"which rows a reader sees changed (row-level security or its policies, or the tables "
                            "inheriting from it)"};
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
      out.push_back("table " + name + " is no longer read");
  return out;
}

} // namespace restcache::pg
