// SPDX-License-Identifier: Apache-2.0
#include "persistence/pg/kind_check.hpp"

#include <simdjson.h>

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <stdexcept>

#include "messages/text.hpp"
#include "persistence/pg/wal_feed.hpp"

namespace restcache::pg {

namespace {

// pg_type oids (src/include/catalog/pg_type.dat): fixed across versions.
constexpr uint32_t bool_oid = 16, int8_oid = 20, int2_oid = 21, int4_oid = 23, oid_oid = 26, json_oid = 114,
                   float4_oid = 700, float8_oid = 701, date_oid = 1082, timestamp_oid = 1114,
                   timestamptz_oid = 1184, numeric_oid = 1700, uuid_oid = 2950, jsonb_oid = 3802;

bool is_string(const type_facts& t) noexcept {
  return t.category == 'S';
}

bool is_one_of(const type_facts& t, std::initializer_list<uint32_t> oids) noexcept {
  return std::find(oids.begin(), oids.end(), t.base) != oids.end();
}

} // namespace

bool fits_key_parameter(key_type key, const type_facts& t) noexcept {
  switch (key) {
    case key_type::int4: return is_one_of(t, {int4_oid, int8_oid, numeric_oid});
    case key_type::int8: return is_one_of(t, {int8_oid, numeric_oid});
    case key_type::text: return is_string(t);
    case key_type::uuid: return t.base == uuid_oid || is_string(t);
  }
  return false;
}

bool fits_key_column(key_type key, const type_facts& t) noexcept {
  switch (key) {
    case key_type::int4:
    case key_type::int8: return is_one_of(t, {int2_oid, int4_oid, int8_oid});
    case key_type::text: return is_string(t);
    case key_type::uuid: return t.base == uuid_oid;
  }
  return false;
}

key_comparison comparison_of_key_parameter(const type_facts& t) noexcept {
  constexpr uint32_t bpchar_oid = 1042;
  key_comparison cmp;
  cmp.trailing_blanks = t.base == bpchar_oid;
  std::string_view base = t.base_name;
  cmp.ignore_case = base == "citext" || base.ends_with(".citext");
  return cmp;
}

void publish_key_comparisons(const kinds_checked& checked) {
  for (const auto& c : checked.comparisons)
    if (const auto* kind = find_doc_kind(c.kind))
      set_key_comparison(kind->kind, c.comparison);
}

bool is_integer_type(const type_facts& t) noexcept {
  return is_one_of(t, {int2_oid, int4_oid, int8_oid});
}

bool fits_value(value_type type, const type_facts& t) noexcept {
  switch (type) {
    case value_type::number:
      return is_one_of(t, {int2_oid, int4_oid, int8_oid, oid_oid, float4_oid, float8_oid, numeric_oid});
    case value_type::text: return true;
    case value_type::date: return t.base == date_oid || is_string(t);
    case value_type::timestamp: return is_one_of(t, {timestamp_oid, timestamptz_oid}) || is_string(t);
    case value_type::boolean: return t.base == bool_oid;
    case value_type::json: return is_one_of(t, {json_oid, jsonb_oid});
  }
  return false;
}

std::string_view value_type_takes(value_type type) noexcept {
  switch (type) {
    case value_type::number: return "smallint, integer, bigint, numeric, real, double precision or oid";
    case value_type::text: return "any type";
    case value_type::date: return "date, or text the statement formats";
    case value_type::timestamp: return "timestamp, timestamptz, or text the statement formats";
    case value_type::boolean: return "boolean";
    case value_type::json: return "json or jsonb";
  }
  return "";
}

namespace {

void add_once(std::vector<plan_reads::object>& to, plan_reads::object o) {
  if (std::find(to.begin(), to.end(), o) == to.end())
    to.push_back(std::move(o));
}

std::string text_member(simdjson::dom::object node, std::string_view key) {
  std::string_view v;
  if (node[key].get(v) != simdjson::SUCCESS)
    return {};
  return std::string{v};
}

void walk_plan(simdjson::dom::element e, plan_reads& out) {
  if (simdjson::dom::array items; e.get(items) == simdjson::SUCCESS) {
    for (auto item : items)
      walk_plan(item, out);
    return;
  }
  simdjson::dom::object node;
  if (e.get(node) != simdjson::SUCCESS)
    return;
  if (text_member(node, "Node Type") == "ModifyTable")
    out.writes = true;
  if (auto relation = text_member(node, "Relation Name"); !relation.empty())
    add_once(out.relations, {text_member(node, "Schema"), relation});
  if (auto function = text_member(node, "Function Name"); !function.empty())
    add_once(out.functions, {text_member(node, "Schema"), function});
  for (auto [key, value] : node)
    if (value.is_array() || value.is_object())
      walk_plan(value, out);
}

} // namespace

plan_reads read_plan(std::string_view explain_json) {
  simdjson::dom::parser parser;
  simdjson::padded_string text{explain_json};
  simdjson::dom::element root;
  if (parser.parse(text).get(root) != simdjson::SUCCESS || !root.is_array())
    throw std::invalid_argument("not an EXPLAIN (FORMAT JSON) result");
  plan_reads out;
  walk_plan(root, out);
  return out;
}

namespace {

/// A catalog object a statement depends on (pg_depend of a function with
/// the statement as its SQL-standard body, followed through views' rules and
/// functions' own such bodies).
struct dependency {
  std::string id;         ///< as kind_dependencies names it: "c16403", "a16389.2", ...
  char relkind = 0;       ///< of a relation or a column's relation
  std::string schema;     ///< of a relation or function
  std::string name;       ///< of a relation or function
  char volatility = 0;    ///< of a function: i, s or v
  bool sql_body = false;  ///< a function in SQL-standard form: what it reads is followed
  bool extension = false; ///< a member of an extension
  std::string language;   ///< of a function
};

/// A statement as the server prepared it, under a name of the check's own.
struct described_statement {
  std::string error; ///< why it does not prepare or plan; empty when it does
  bool missing = false; ///< it fails for something the database lacks (database_lacks)
  std::vector<type_facts> parameters;
  std::vector<type_facts> columns;
  /// Each column's source when it is a table's column as it is (libpq's
  /// PQftable and PQftablecol): the table's oid and the column's number;
  /// {0, 0} for anything computed.
  std::vector<std::pair<uint32_t, int>> sources;
  plan_reads reads;
  std::vector<dependency> depends;
  bool depends_known = false; ///< `depends` was found (else only the plan is known)
};

/// A declared table as the server resolved it.
struct resolved_table {
  bool exists = false;
  int64_t oid = 0;
  char relkind = 0;
  std::map<std::string, type_facts, std::less<>> columns;
  /// Columns under a nondeterministic collation: column -> the collation.
  std::map<std::string, std::string, std::less<>> nondeterministic;
  /// Its replica identity's columns (its primary key's, or its identity
  /// index's), by number and name, in the table's column order.
  std::vector<std::pair<int, std::string>> identity;
};

// What a function whose SQL-standard body is a statement depends on
// ($1: its oid), followed through the rules of the views it reads and the
// SQL-standard bodies of the functions it calls (and of the operators'
// functions). Objects PostgreSQL pins (pg_catalog's) have no pg_depend rows.
constexpr const char* dependencies_sql = R"sql(
WITH RECURSIVE walk(classid, objid, subid, depth) AS (
  SELECT d.refclassid, d.refobjid, d.refobjsubid, 0 FROM pg_depend d
   WHERE d.classid = 'pg_proc'::regclass AND d.objid = $1::int8::oid AND d.deptype = 'n'
  UNION
  SELECT d.refclassid, d.refobjid, d.refobjsubid, w.depth + 1
    FROM walk w JOIN pg_depend d ON d.deptype = 'n' AND (
      (w.classid = 'pg_class'::regclass AND d.classid = 'pg_rewrite'::regclass
       AND d.objid IN (SELECT r.oid FROM pg_rewrite r WHERE r.ev_class = w.objid))
      OR (w.classid IN ('pg_proc'::regclass, 'pg_operator'::regclass) AND d.classid = w.classid
          AND d.objid = w.objid))
   WHERE w.depth < 16
)
SELECT DISTINCT
       CASE w.classid WHEN 'pg_class'::regclass THEN CASE WHEN w.subid = 0 THEN 'c' ELSE 'a' END
                      WHEN 'pg_proc'::regclass THEN 'p' WHEN 'pg_operator'::regclass THEN 'o' ELSE 't' END,
       w.objid::int8, w.subid, coalesce(c.relkind::text, ''), coalesce(n.nspname, ''),
       coalesce(c.relname, p.proname, ''), coalesce(p.provolatile::text, ''), p.prosqlbody IS NOT NULL,
       EXISTS (SELECT 1 FROM pg_depend e WHERE e.classid = w.classid AND e.objid = w.objid AND e.deptype = 'e'),
       coalesce(l.lanname, '')
  FROM walk w
  LEFT JOIN pg_class c ON w.classid = 'pg_class'::regclass AND c.oid = w.objid
  LEFT JOIN pg_proc p ON w.classid = 'pg_proc'::regclass AND p.oid = w.objid
  LEFT JOIN pg_language l ON l.oid = p.prolang
  LEFT JOIN pg_namespace n ON n.oid = coalesce(c.relnamespace, p.pronamespace)
 WHERE w.classid IN ('pg_class'::regclass, 'pg_proc'::regclass, 'pg_operator'::regclass, 'pg_type'::regclass)
 ORDER BY 1, 2, 3
)sql";

/// A statement's failure: the server's message and SQLSTATE.
struct failure {
  std::string message; ///< empty: it did not fail
  std::string sqlstate;
};

/// Whether a failure is for something the database lacks (a table, column,
/// type, function or schema that does not exist, a privilege not granted):
/// what the drift check finds at run time, rather than a mistake of the file.
bool database_lacks(const failure& f) {
  for (auto code : {"42P01", "42703", "42704", "42883", "3F000", "42501"})
    if (f.sqlstate == code)
      return true;
  return false;
}

/// Runs `step` inside a savepoint: a failed statement rolls back to it and
/// its failure is returned, so the transaction goes on. A lost connection
/// throws.
failure in_savepoint(connection& c, const std::function<void()>& step) {
  c.exec("SAVEPOINT restcache_kind_check");
  try {
    step();
  } catch (const error& e) {
    if (e.connection_lost() || !c.ok())
      throw;
    c.exec("ROLLBACK TO SAVEPOINT restcache_kind_check");
    return {e.what(), e.sqlstate()};
  }
  c.exec("RELEASE SAVEPOINT restcache_kind_check");
  return {};
}

class kind_checker {
public:
  explicit kind_checker(connection& c) : c_(c) {}

  ~kind_checker() {
    for (const auto& [sql, name] : names_) {
      try {
        c_.deallocate(name);
      } catch (const error&) {
        // The connection is gone or failing: its statements go with it.
      }
    }
  }

  kinds_checked check_all() {
    for (const auto& kind : doc_catalogue())
      check(kind);
    return {std::move(reasons_), std::move(dependencies_), std::move(comparisons_)};
  }

private:
  connection& c_;
  std::map<std::string, std::string> names_;           ///< SQL -> the check's statement name
  std::map<std::string, described_statement> described_; ///< SQL -> what the server said
  std::map<std::string, resolved_table> tables_;        ///< declared name -> its table
  std::map<std::string, type_facts> types_;             ///< oid -> its facts
  std::vector<kind_refusal> reasons_;
  std::vector<kind_dependencies> dependencies_;
  std::vector<kind_key_comparison> comparisons_;
  std::optional<bool> ascii_lowered_; ///< lower() maps A-Z to a-z in this database
  const doc_kind_entry* kind_ = nullptr;
  std::optional<bool> key_numbers_known_; ///< restcache_watched_key has key_attnum
  int functions_ = 0;                      ///< temporary functions created so far
  bool dependencies_unavailable_ = false;  ///< this session may not create them

  void refuse(const std::string& why, bool missing = false) {
    auto reason = "kind '" + kind_->name + "': " + why;
    for (const auto& r : reasons_)
      if (r.reason == reason)
        return; // a view and the plan may name one table twice
    reasons_.push_back({std::move(reason), missing, kind_->name});
  }

  void check(const doc_kind_entry& kind) {
    kind_ = &kind;
    kind_dependencies deps{kind.name, {}, true};
    auto depends_on = [&](const described_statement& s) {
      deps.known = deps.known && s.depends_known;
      for (const auto& d : s.depends)
        deps.objects.push_back(d.id);
    };
    check_reads(kind);
    const auto& main = describe(kind.statement.sql);
    if (!main.error.empty()) {
      refuse("its statement does not prepare: " + main.error, main.missing);
    } else {
      check_parameters(main, "its statement", 1);
      check_columns(main, "its statement", -1);
      check_row_columns(main, "its statement");
      check_relations(main, "its statement");
      if (kind.key == key_type::text && !main.parameters.empty())
        check_comparison(comparison_of_key_parameter(main.parameters[0]), main.parameters[0]);
    }
    depends_on(main);
    if (!kind.populate.statement.sql.empty()) {
      const auto& page = describe(kind.populate.statement.sql);
      if (!page.error.empty()) {
        refuse("its populate statement does not prepare: " + page.error, page.missing);
      } else {
        check_parameters(page, "its populate statement", 2);
        check_columns(page, "its populate statement", kind.populate.key_column);
        check_row_columns(page, "its populate statement");
        check_relations(page, "its populate statement");
      }
      depends_on(page);
      const auto& count = describe(kind.populate.count.sql);
      if (!count.error.empty())
        refuse("its populate count does not prepare: " + count.error, count.missing);
      else if (!count.parameters.empty() || count.columns.empty() || !is_integer_type(count.columns.front()))
        refuse("its populate count must take no parameter and answer an integer first column");
    }
    if (kind.ttl.count() > 0)
      return; // its ttl bounds what goes unseen
    std::sort(deps.objects.begin(), deps.objects.end());
    deps.objects.erase(std::unique(deps.objects.begin(), deps.objects.end()), deps.objects.end());
    dependencies_.push_back(std::move(deps));
  }

  void check_parameters(const described_statement& s, const std::string& what, size_t expected) {
    if (s.parameters.size() != expected) {
      refuse(what + " takes " + std::to_string(s.parameters.size()) + " parameters, not "
             + std::to_string(expected));
      return;
    }
    const auto& key = s.parameters[0];
    if (!fits_key_parameter(kind_->key, key))
      refuse(what + "'s $1 is " + key.name + ", which does not take the kind's " + std::string{key_type_name(kind_->key)}
             + " keys" + (is_integer(kind_->key) ? " (cast it: $1::" + std::string{key_type_name(kind_->key)} + ")" : ""));
    if (expected == 2 && !is_integer_type(s.parameters[1]))
      refuse(what + "'s $2 (the page size) is " + s.parameters[1].name + ", not an integer");
  }

  /// The fields' columns, and with `key_column` >= 0 (a page's) the key's.
  void check_columns(const described_statement& s, const std::string& what, int key_column) {
    auto check_field = [&](const field_plan& f) {
      if (static_cast<size_t>(f.column) >= s.columns.size()) {
        refuse("field '" + f.name + "' reads column " + std::to_string(f.column + 1) + " but " + what + " answers "
               + std::to_string(s.columns.size()));
        return;
      }
      const auto& t = s.columns[static_cast<size_t>(f.column)];
      if (!fits_value(f.type, t))
        refuse("field '" + f.name + "' (" + std::string{value_type_name(f.type)} + ") is column "
               + std::to_string(f.column + 1) + " of " + what + ", which is " + t.name + ": a "
               + std::string{value_type_name(f.type)} + " field takes " + std::string{value_type_takes(f.type)});
    };
    for (const auto& f : kind_->plan.master.fields)
      check_field(f);
    if (const auto& detail = kind_->plan.detail) {
      for (const auto& f : detail->element.fields)
        check_field(f);
      if (static_cast<size_t>(detail->present_column) >= s.columns.size())
        refuse("detail '" + detail->name + "' is present by column " + std::to_string(detail->present_column + 1)
               + " but " + what + " answers " + std::to_string(s.columns.size()));
    }
    if (key_column < 0)
      return;
    if (static_cast<size_t>(key_column) >= s.columns.size())
      refuse("its populate key is column " + std::to_string(key_column + 1) + " but " + what + " answers "
             + std::to_string(s.columns.size()));
    else if (!fits_key_column(kind_->key, s.columns[static_cast<size_t>(key_column)]))
      refuse("its populate key, column " + std::to_string(key_column + 1) + ", is "
             + s.columns[static_cast<size_t>(key_column)].name + ", which does not give "
             + std::string{key_type_name(kind_->key)} + " keys");
  }

  /// A read's row_columns must be its table's replica identity's columns,
  /// each as the table holds it (not computed), in the table's column
  /// order: what the WAL names a changed row by.
  void check_row_columns(const described_statement& s, const std::string& what) {
    for (const auto& read : kind_->reads) {
      if (read.row_columns.empty())
        continue;
      const auto& t = table(read.table);
      if (!t.exists)
        continue; // check_reads says so
      if (t.identity.empty()) {
        refuse("its read of " + read.table + " declares row_columns, but " + read.table + " has no primary key "
               "(nor replica identity index) to name its rows by");
        continue;
      }
      std::string wanted;
      for (const auto& [number, name] : t.identity)
        wanted += (wanted.empty() ? "" : ", ") + name;
      bool ok = read.row_columns.size() == t.identity.size();
      for (size_t i = 0; ok && i < read.row_columns.size(); ++i) {
        auto at = static_cast<size_t>(read.row_columns[i]);
        ok = at < s.sources.size() && s.sources[at].first == static_cast<uint32_t>(t.oid)
             && s.sources[at].second == t.identity[i].first;
      }
      if (!ok)
        refuse("its read of " + read.table + " declares row_columns that are not, column for column, " + what
               + "'s plain columns " + read.table + "." + wanted + " (the table's " + (t.identity.size() > 1 ? "key columns, in its column order" : "key column") + ")");
    }
  }

  /// Every relation the plan scans must be a declared read (or a partition
  /// of one), keyed in the kind's key space; no function it scans may read
  /// tables unseen. A kind with a TTL is exempt: the TTL bounds how long a
  /// change that no logged key names goes unseen.
  void check_relations(const described_statement& s, const std::string& what) {
    if (s.reads.writes)
      refuse(what + " writes (INSERT, UPDATE, DELETE or MERGE): a document's statement only reads");
    if (kind_->ttl.count() > 0)
      return;
    // The tables its views and its functions' SQL-standard bodies read count
    // as the plan's: a table read only inside a function is not in the plan.
    auto relations = s.reads.relations;
    for (const auto& d : s.depends)
      if (d.relkind == 'r' || d.relkind == 'p' || d.relkind == 'f' || d.relkind == 'm')
        add_once(relations, {d.schema, d.name});
    for (const auto& rel : relations) {
      auto qualified = rel.schema + "." + rel.name;
      const table_read* read = declared_read_of(rel);
      if (read == nullptr && relkind_of(rel) == 'm') {
        refuse(what + " reads materialized view " + qualified + ": REFRESH MATERIALIZED VIEW replaces its rows "
               "without firing a row trigger, so no change to it would reach the caches (read the tables it is "
               "made of, through a plain view if you like, or give the kind a ttl)");
        continue;
      }
      if (read == nullptr) {
        refuse(what + " reads table " + qualified + ", which its reads do not name: its changes would not reach "
               "the caches (name it in reads, keyed by a column that gives the document's key, or give the kind a ttl)");
        continue;
      }
      if (!keys_space(*read, kind_->entity))
        refuse(what + " reads table " + qualified + ", whose rows give no key of key space '" + kind_->entity
               + "' (its reads key it as '" + read->keys + "'): a change to it would change documents no logged key "
               "names, a dependency more than one hop away, which this version does not follow (unless the kind has a ttl)");
    }
    if (s.depends_known) {
      check_functions(s, what);
      return;
    }
    // Without pg_depend's view: the functions a plan scans rows from.
    for (const auto& fn : s.reads.functions) {
      if (fn.schema == "pg_catalog")
        continue;
      auto r = c_.exec_params("SELECT count(*) FILTER (WHERE p.provolatile <> 'i') FROM pg_proc p"
                              " JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = $1 AND p.proname = $2",
                              {fn.schema, fn.name});
      if (r.rows() == 1 && r.int64(0, 0) > 0)
        refuse(what + " reads rows from function " + fn.schema + "." + fn.name
               + ", which is not IMMUTABLE: the tables it reads cannot be seen, so their changes would not reach "
                 "the caches");
    }
  }

  /// How the kind compares its keys: kinds of one key space share their
  /// keys, so they must compare them alike; and a case-insensitive one only
  /// where the database lowers ASCII as restcache does.
  void check_comparison(key_comparison cmp, const type_facts& parameter) {
    for (const auto& other : comparisons_) {
      const auto* entry = find_doc_kind(other.kind);
      if (entry != nullptr && entry->entity == kind_->entity && other.comparison != cmp) {
        refuse("its $1 (" + parameter.name + ") compares the keys of key space '" + kind_->entity
               + "' otherwise than kind '" + other.kind + "' does: kinds of one key space share their keys, so "
               "their statements must take the key as one type");
        return;
      }
    }
    if (cmp.ignore_case) {
      if (!ascii_lowered_)
        ascii_lowered_ = c_.exec("SELECT lower('ABCDEFGHIJKLMNOPQRSTUVWXYZ') = 'abcdefghijklmnopqrstuvwxyz'")
                           .text(0, 0)
                         == "t";
      if (!*ascii_lowered_) {
        refuse("its $1 (" + parameter.name + ") compares keys without case, and this database's lower() does not "
               "map A-Z to a-z (its LC_CTYPE): restcache cannot tell which spellings are one document");
        return;
      }
    }
    comparisons_.push_back({kind_->name, cmp});
  }

  /// Every function it calls (and every operator's) either reads no table
  /// (IMMUTABLE, pg_catalog's, an extension's) or has a SQL-standard body,
  /// whose reads pg_depend records and check_relations judged.
  void check_functions(const described_statement& s, const std::string& what) {
    for (const auto& d : s.depends) {
      if (d.id.front() != 'p' || d.sql_body || d.volatility == 'i' || d.extension || d.schema == "pg_catalog"
          || d.schema == "information_schema")
        continue;
      refuse(what + " calls function " + d.schema + "." + d.name + " (LANGUAGE " + d.language + ", "
             + (d.volatility == 's' ? "STABLE" : "VOLATILE") + "), whose body PostgreSQL does not parse ahead: "
             "the tables it reads cannot be seen, so their changes would not reach the caches (write it with a "
             "SQL-standard body, BEGIN ATOMIC ... END, so that what it reads is recorded and checked; mark it "
             "IMMUTABLE if it reads no table; or give the kind a ttl)");
    }
  }

  char relkind_of(const plan_reads::object& rel) {
    auto r = c_.exec_params("SELECT c.relkind FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
                            " WHERE n.nspname = $1 AND c.relname = $2",
                            {rel.schema, rel.name});
    return r.rows() == 1 && !r.text(0, 0).empty() ? r.text(0, 0)[0] : char{0};
  }

  static bool keys_space(const table_read& read, const std::string& space) {
    std::string_view list = read.keys;
    while (!list.empty()) {
      auto key = next_part(list, ',');
      auto colon = key.find(':');
      if (colon != std::string_view::npos && key.substr(0, colon) == space && colon + 1 < key.size())
        return true;
    }
    return false;
  }

  const table_read* declared_read_of(const plan_reads::object& rel) {
    auto r = c_.exec_params(
        // Its ancestors: a partition's tables and those it inherits from,
        // whose reads read it.
        "WITH RECURSIVE up(relid, depth) AS ("
        "  SELECT c.oid, 0 FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
        "   WHERE n.nspname = $1 AND c.relname = $2"
        "  UNION ALL SELECT i.inhparent, up.depth + 1 FROM up JOIN pg_inherits i ON i.inhrelid = up.relid"
        "   WHERE up.depth < 32)"
        " SELECT min(relid::int8) FILTER (WHERE depth = 0),"
        "        coalesce(string_agg(relid::text, ',') FILTER (WHERE depth > 0), '') FROM up HAVING count(*) > 0",
        {rel.schema, rel.name});
    if (r.rows() != 1)
      return nullptr;
    std::vector<int64_t> oids{r.int64(0, 0)};
    for (std::string_view ancestors = r.text(0, 1); !ancestors.empty();)
      if (int64_t oid = 0; parse_whole(next_part(ancestors, ','), oid))
        oids.push_back(oid);
    for (const auto& read : kind_->reads) {
      const auto& t = table(read.table);
      if (t.exists && std::find(oids.begin(), oids.end(), t.oid) != oids.end())
        return &read;
    }
    return nullptr;
  }

  /// The declared tables exist with the columns they name, and each key's
  /// column gives keys of its key space's type.
  void check_reads(const doc_kind_entry& kind) {
    for (const auto& read : kind.reads) {
      const auto& t = table(read.table);
      if (!t.exists) {
        refuse("it reads table " + read.table + ", which does not exist (as the session's search_path resolves it)",
               true);
        continue;
      }
      if (t.relkind == 'm')
        refuse("it reads " + read.table + ", a materialized view: REFRESH MATERIALIZED VIEW replaces its rows "
               "without firing a row trigger, so restcache cannot watch it (name the tables it is made of, or give "
               "the kind a ttl)");
      else if (t.relkind != 'r' && t.relkind != 'p')
        refuse("it reads " + read.table + ", which is not a table: restcache watches the rows of tables (name the "
               "tables it is made of)");
      for_each_item(read.columns, [&](const std::string& column) {
        if (!t.columns.contains(column))
          refuse("table " + read.table + " has no column " + column + " (its reads name it)"
                   + what_became_of(read.table, column),
                 true);
      });
      for_each_item(read.keys, [&](const std::string& key) {
        auto colon = key.find(':');
        auto space = key.substr(0, colon);
        auto column = key.substr(colon + 1);
        auto c = t.columns.find(column);
        if (c == t.columns.end()) {
          refuse("table " + read.table + " has no column " + column + " (its key of key space '" + space + "')"
                   + what_became_of(read.table, column),
                 true);
          return;
        }
        if (auto n = t.nondeterministic.find(column); n != t.nondeterministic.end() && kind_->ttl.count() == 0)
          refuse("column " + read.table + "." + column + " (its key of key space '" + space + "') is compared under "
                 "the nondeterministic collation " + n->second + ": restcache cannot tell which spellings of a key "
                 "are one document, so a change would not reach every spelling cached (key it by a column under a "
                 "deterministic collation, such as a generated column lower(" + column + "), or give the kind a ttl)");
        // The database's to mend, as a missing column is: the log would
        // write keys (15.00) that never match the documents' (15).
        if (auto type = key_type_of(space); type && !fits_key_column(*type, c->second))
          refuse("column " + read.table + "." + column + " is " + c->second.name + ", which does not give the "
                   + std::string{key_type_name(*type)} + " keys of key space '" + space + "'",
                 true);
      });
    }
  }

  /// What became of a watched key column that is gone, from the number it
  /// had when it was watched: ": renamed to X since restcache watched it
  /// (name X in the kind's sql and reads)", ": dropped since ...", or "" when
  /// nothing is known (not a watched key, or a schema without the numbers).
  std::string what_became_of(const std::string& table, const std::string& column) {
    if (!key_numbers_known_)
      key_numbers_known_ = c_.exec("SELECT EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid ="
                                   " to_regclass('restcache_watched_key') AND attname = 'key_attnum')")
                             .text(0, 0)
                           == "t";
    if (!*key_numbers_known_)
      return {};
    auto r = c_.exec_params("SELECT a.attname FROM restcache_watched_key w"
                            "  LEFT JOIN pg_attribute a ON a.attrelid = to_regclass(format('%I.%I', w.table_schema,"
                            "   w.table_name)) AND a.attnum = w.key_attnum AND NOT a.attisdropped"
                            " WHERE w.table_schema = current_schema() AND w.table_name = $1 AND w.key_column = $2"
                            "   AND w.key_attnum IS NOT NULL LIMIT 1",
                            {table, column});
    if (r.rows() == 0)
      return {};
    if (r.is_null(0, 0))
      return ": dropped since restcache watched it (restore it, or leave it out of the kind's sql and reads)";
    auto now = std::string{r.text(0, 0)};
    return ": renamed to " + now + " since restcache watched it (name " + now + " in the kind's sql and reads)";
  }

  static std::optional<key_type> key_type_of(const std::string& space) {
    for (const auto& k : doc_catalogue())
      if (k.entity == space)
        return k.key;
    return std::nullopt;
  }

  static void for_each_item(std::string_view list, const std::function<void(const std::string&)>& f) {
    while (!list.empty())
      if (auto item = next_part(list, ','); !item.empty())
        f(std::string{item});
  }

  const resolved_table& table(const std::string& name) {
    if (auto i = tables_.find(name); i != tables_.end())
      return i->second;
    resolved_table t;
    auto failed = in_savepoint(c_, [&] {
      auto r = c_.exec_params("SELECT c.oid::int8, c.relkind FROM pg_class c WHERE c.oid = to_regclass($1)", {name});
      if (r.rows() != 1)
        return;
      t.exists = true;
      t.oid = r.int64(0, 0);
      t.relkind = r.text(0, 1).empty() ? char{0} : r.text(0, 1)[0];
      auto cols = c_.exec_params("SELECT a.attname, a.atttypid::int8, coalesce((SELECT quote_ident(l.collname)"
                                 "  FROM pg_collation l WHERE l.oid = a.attcollation AND NOT l.collisdeterministic), '')"
                                 " FROM pg_attribute a"
                                 " WHERE a.attrelid = $1::int8::oid AND a.attnum > 0 AND NOT a.attisdropped",
                                 {std::to_string(t.oid)});
      for (int i = 0; i < cols.rows(); ++i)
        if (!cols.text(i, 2).empty())
          t.nondeterministic.emplace(std::string{cols.text(i, 0)}, std::string{cols.text(i, 2)});
      std::vector<uint32_t> oids;
      for (int i = 0; i < cols.rows(); ++i)
        oids.push_back(static_cast<uint32_t>(cols.int64(i, 1)));
      learn_types(oids);
      for (int i = 0; i < cols.rows(); ++i)
        t.columns.emplace(std::string{cols.text(i, 0)}, types_[std::to_string(cols.int64(i, 1))]);
      t.identity = identity_columns(c_, t.oid);
    });
    if (!failed.message.empty())
      t.exists = false; // a name to_regclass cannot parse
    return tables_.emplace(name, std::move(t)).first->second;
  }

  /// Looks up the facts of types not seen yet (a domain's base type found
  /// through every level).
  void learn_types(const std::vector<uint32_t>& oids) {
    std::string list;
    for (auto oid : oids)
      if (!types_.contains(std::to_string(oid))) {
        list += list.empty() ? '{' : ',';
        list += std::to_string(oid);
      }
    if (list.empty())
      return;
    list += "}";
    auto r = c_.exec_params(
        "WITH RECURSIVE b(o, base, depth) AS ("
        "  SELECT t.oid, t.oid, 0 FROM pg_type t WHERE t.oid = ANY($1::oid[])"
        "  UNION ALL SELECT b.o, t.typbasetype, b.depth + 1 FROM b JOIN pg_type t ON t.oid = b.base"
        "   WHERE t.typtype = 'd' AND b.depth < 64)"
        " SELECT b.o::int8, b.base::int8, bt.typcategory, format_type(b.o, NULL), format_type(b.base, NULL)"
        "   FROM b JOIN pg_type bt ON bt.oid = b.base WHERE bt.typtype <> 'd'",
        {list});
    for (int i = 0; i < r.rows(); ++i) {
      type_facts t;
      t.oid = static_cast<uint32_t>(r.int64(i, 0));
      t.base = static_cast<uint32_t>(r.int64(i, 1));
      auto category = r.text(i, 2);
      t.category = category.empty() ? 0 : category[0];
      t.name = std::string{r.text(i, 3)};
      t.base_name = std::string{r.text(i, 4)};
      types_.emplace(std::to_string(t.oid), std::move(t));
    }
  }

  type_facts type_of(uint32_t oid) {
    if (auto i = types_.find(std::to_string(oid)); i != types_.end())
      return i->second;
    type_facts unknown;
    unknown.oid = unknown.base = oid;
    unknown.name = "type " + std::to_string(oid);
    return unknown;
  }

  const described_statement& describe(const std::string& sql) {
    if (auto i = described_.find(sql); i != described_.end())
      return i->second;
    auto name = "restcache_kind_check_" + std::to_string(names_.size() + 1);
    described_statement s;
    auto prepared = in_savepoint(c_, [&] { c_.prepare(name, sql); });
    s.error = prepared.message;
    s.missing = database_lacks(prepared);
    if (s.error.empty()) {
      names_.emplace(sql, name);
      auto d = c_.describe_prepared(name);
      std::vector<uint32_t> params, columns;
      for (int i = 0; i < PQnparams(d.get()); ++i)
        params.push_back(PQparamtype(d.get(), i));
      for (int i = 0; i < PQnfields(d.get()); ++i) {
        columns.push_back(PQftype(d.get(), i));
        s.sources.emplace_back(PQftable(d.get(), i), PQftablecol(d.get(), i));
      }
      auto all = params;
      all.insert(all.end(), columns.begin(), columns.end());
      learn_types(all);
      for (auto oid : params)
        s.parameters.push_back(type_of(oid));
      for (auto oid : columns)
        s.columns.push_back(type_of(oid));
      // The generic plan: the one a parameter's value does not shape, so
      // every relation any key could lead it to is in it.
      std::string explain = "EXPLAIN (VERBOSE, FORMAT JSON) EXECUTE \"" + name + "\"";
      for (size_t i = 0; i < params.size(); ++i)
        explain += i == 0 ? "(NULL" : ", NULL";
      explain += params.empty() ? "" : ")";
      std::string plan;
      auto planned = in_savepoint(c_, [&] { plan = std::string{c_.exec(explain).text(0, 0)}; });
      if (planned.message.empty())
        s.reads = read_plan(plan);
      else
        s.error = "its generic plan cannot be read: " + planned.message;
      if (s.error.empty())
        find_dependencies(sql, s);
    }
    return described_.emplace(sql, std::move(s)).first->second;
  }

  /// What the statement depends on, from pg_depend of a temporary function
  /// whose SQL-standard body it is (gone with the check's rollback). A session
  /// that may not create one leaves `depends_known` false.
  void find_dependencies(const std::string& sql, described_statement& s) {
    if (dependencies_unavailable_)
      return;
    auto name = "pg_temp.restcache_kind_check_" + std::to_string(++functions_);
    std::string create = "CREATE FUNCTION " + name + "(";
    for (size_t i = 0; i < s.parameters.size(); ++i)
      create += (i == 0 ? "" : ", ") + s.parameters[i].name;
    // The statement on lines of its own: a trailing comment ends at its line.
    auto body = sql.substr(0, sql.find_last_not_of("; \t\r\n") + 1);
    create += ") RETURNS SETOF record LANGUAGE sql BEGIN ATOMIC\n" + body + "\n;\nEND";
    std::vector<dependency> found;
    auto failed = in_savepoint(c_, [&] {
      c_.exec(create);
      auto oid = c_.exec_params("SELECT $1::regproc::oid::int8", {name}).int64(0, 0);
      auto r = c_.exec_params(dependencies_sql, {std::to_string(oid)});
      for (int i = 0; i < r.rows(); ++i) {
        dependency d;
        d.id = r.text(i, 0);
        d.id += r.text(i, 1);
        if (d.id.front() == 'a') {
          d.id += '.';
          d.id += r.text(i, 2);
        }
        d.relkind = r.text(i, 3).empty() ? char{0} : r.text(i, 3)[0];
        d.schema = std::string{r.text(i, 4)};
        d.name = std::string{r.text(i, 5)};
        d.volatility = r.text(i, 6).empty() ? char{0} : r.text(i, 6)[0];
        d.sql_body = r.text(i, 7) == "t";
        d.extension = r.text(i, 8) == "t";
        d.language = std::string{r.text(i, 9)};
        found.push_back(std::move(d));
      }
    });
    if (failed.message.empty()) {
      s.depends = std::move(found);
      s.depends_known = true;
    } else if (failed.sqlstate == "25006" || failed.sqlstate == "42501") {
      // A standby or a read-only default, or no TEMPORARY privilege: the same
      // for every statement, so not tried again.
      dependencies_unavailable_ = true;
    }
  }
};

} // namespace

std::vector<kind_refusal> check_kinds(connection& c) {
  return check_kinds_and_dependencies(c).refusals;
}

kinds_checked check_kinds_and_dependencies(connection& c) {
  // One transaction, rolled back: one snapshot of the catalog, nothing done
  // in it persists (the temporary functions find_dependencies creates; no
  // statement is executed), and the settings end with it.
  c.exec("BEGIN ISOLATION LEVEL REPEATABLE READ;"
         " SET LOCAL statement_timeout = '30s'; SET LOCAL plan_cache_mode = force_generic_plan");
  kind_checker checker{c}; // deallocates its statements last, outside the transaction
  struct rollback_at_end {
    connection& c;
    ~rollback_at_end() { PQclear(PQexec(c.get(), "ROLLBACK")); }
  } rollback{c};
  return checker.check_all();
}

} // namespace restcache::pg
