// SPDX-License-Identifier: Apache-2.0
#include "declarations/declaration_file.hpp"

#include <toml++/toml.h>

#include <algorithm>
#include <fstream>
#include <optional>
#include <sstream>

namespace restcache::declarations {

namespace {

/// PostgreSQL's bound on a result's columns.
constexpr int64_t max_columns = 1664;

std::optional<value_type> value_type_named(std::string_view s) noexcept {
  for (auto t : {value_type::number, value_type::text, value_type::date, value_type::timestamp, value_type::boolean,
                 value_type::json})
    if (value_type_name(t) == s)
      return t;
  return std::nullopt;
}

std::optional<key_type> key_type_named(std::string_view s) noexcept {
  for (auto t : {key_type::int4, key_type::int8, key_type::text, key_type::uuid})
    if (key_type_name(t) == s)
      return t;
  return std::nullopt;
}

/// "'key'". Appended, not "'" + key: GCC 12 warns (-Wrestrict) on a
/// literal prepended to a temporary string.
std::string quoted(std::string_view key) {
  std::string s{"'"};
  s += key;
  s += '\'';
  return s;
}

/// "$i", a statement's parameter.
std::string parameter(int i) {
  std::string s{"$"};
  s += std::to_string(i);
  return s;
}

/// Reads one file's tables, collecting what is wrong with them.
class reader {
public:
  reader(std::string_view origin, std::vector<std::string>& errors) : origin_(origin), errors_(errors) {}

  /// The kind the next errors are about ("" for the file itself).
  void about(std::string name) { kind_ = std::move(name); }

  void fail(const toml::node* at, std::string_view what) {
    std::string e{origin_};
    if (at != nullptr && at->source().begin.line > 0) {
      e += ':';
      e += std::to_string(at->source().begin.line);
    }
    e += ": ";
    if (!kind_.empty()) {
      e += "kind ";
      e += quoted(kind_);
      e += ": ";
    }
    e += what;
    errors_.push_back(std::move(e));
  }

  /// Refuses every key of `t` not in `known` (a misspelt key would
  /// otherwise be a default silently taken).
  void only(const toml::table& t, std::initializer_list<std::string_view> known, std::string_view what) {
    for (auto&& [key, node] : t)
      if (std::find(known.begin(), known.end(), key.str()) == known.end())
        fail(&node, std::string{what} + " has no member '" + std::string{key.str()} + "'");
  }

  std::optional<std::string> text(const toml::table& t, std::string_view key, const toml::node* owner,
                                  bool required) {
    return scalar<std::string>(t, key, owner, required, "a string");
  }

  std::optional<int64_t> integer(const toml::table& t, std::string_view key, const toml::node* owner, bool required) {
    return scalar<int64_t>(t, key, owner, required, "an integer");
  }

  /// The value of `key` when it is a T; nullopt, with the error, when it is
  /// of another sort, or missing and `required`.
  template <class T>
  std::optional<T> scalar(const toml::table& t, std::string_view key, const toml::node* owner, bool required,
                          std::string_view sort) {
    const toml::node* n = t.get(key);
    if (n == nullptr) {
      if (required)
        fail(owner, quoted(key) + " is missing");
      return std::nullopt;
    }
    auto v = n->value_exact<T>();
    if (!v)
      fail(n, quoted(key) + " must be " + std::string{sort});
    return v;
  }

  /// A list of strings, written as a TOML array of strings.
  std::optional<std::vector<std::string>> texts(const toml::table& t, std::string_view key, const toml::node* owner) {
    const toml::node* n = t.get(key);
    if (n == nullptr) {
      fail(owner, quoted(key) + " is missing");
      return std::nullopt;
    }
    const toml::array* a = n->as_array();
    std::vector<std::string> out;
    if (a == nullptr || a->empty()) {
      fail(n, quoted(key) + " must be a non-empty array of strings");
      return std::nullopt;
    }
    for (auto&& item : *a) {
      if (!item.is_string()) {
        fail(&item, quoted(key) + " must hold strings only");
        return std::nullopt;
      }
      out.push_back(item.as_string()->get());
    }
    return out;
  }

  /// A result column: a position from 1, as SQL's ORDER BY counts them.
  std::optional<int> column(const toml::table& t, std::string_view key, const toml::node* owner) {
    auto v = integer(t, key, owner, true);
    if (!v)
      return std::nullopt;
    if (*v < 1 || *v > max_columns) {
      fail(t.get(key), quoted(key) + " is a result column's position, from 1");
      return std::nullopt;
    }
    return static_cast<int>(*v - 1);
  }

  /// An object's members: `fields = [{ name, column, type }, ...]`.
  std::optional<object_plan> members(const toml::table& t, const toml::node* owner, std::string_view what) {
    const toml::node* n = t.get("fields");
    if (n == nullptr || n->as_array() == nullptr || n->as_array()->empty()) {
      fail(n ? n : owner, std::string{what} + " needs 'fields', an array of { name, column, type }");
      return std::nullopt;
    }
    object_plan plan;
    bool ok = true;
    for (auto&& item : *n->as_array()) {
      const toml::table* f = item.as_table();
      if (f == nullptr) {
        fail(&item, "a field is a table { name, column, type }");
        ok = false;
        continue;
      }
      only(*f, {"name", "column", "type"}, "a field");
      auto name = text(*f, "name", &item, true);
      auto col = column(*f, "column", &item);
      auto type_name = text(*f, "type", &item, true);
      std::optional<value_type> type;
      if (type_name && !(type = value_type_named(*type_name)))
        fail(f->get("type"), "type '" + *type_name + "' is none of number, text, date, timestamp, boolean, json");
      if (name && name->empty())
        fail(&item, "a field's name is empty");
      if (name && std::any_of(plan.fields.begin(), plan.fields.end(), [&](const field_plan& p) { return p.name == *name; }))
        fail(&item, "two fields are called '" + *name + "'");
      if (!name || name->empty() || !col || !type) {
        ok = false;
        continue;
      }
      plan.fields.emplace_back(*name, *col, *type);
    }
    return ok ? std::optional<object_plan>{std::move(plan)} : std::nullopt;
  }

  /// A statement's SQL: what its parameters must be.
  void check_sql(const toml::node* at, const std::string& sql, int parameters) {
    for (int i = 1; i <= parameters; ++i)
      if (sql.find(parameter(i)) == std::string::npos)
        fail(at, "the statement does not read $" + std::to_string(i));
    if (sql.find(parameter(parameters + 1)) != std::string::npos)
      fail(at, "the statement reads more than " + std::to_string(parameters) + " parameter(s)");
  }

private:
  std::string_view origin_;
  std::vector<std::string>& errors_;
  std::string kind_;
};

/// A route template's prefix: "/orders/{id}" gives "/orders/"; nullopt when
/// it is not a prefix followed by one named key.
std::optional<std::string> route_prefix(std::string_view route) {
  auto open = route.rfind('{');
  if (open == std::string_view::npos || route.back() != '}' || open == 0 || route[open - 1] != '/')
    return std::nullopt;
  auto key = route.substr(open + 1, route.size() - open - 2);
  auto prefix = route.substr(0, open);
  if (!is_plain_name(key) || prefix.find_first_of("{}") != std::string_view::npos)
    return std::nullopt;
  return std::string{prefix};
}

/// A named statement: a name of its own, or one another kind declared.
struct statement_table {
  std::vector<kind_statement> all;

  const kind_statement* find(std::string_view name) const {
    for (const auto& s : all)
      if (s.name == name)
        return &s;
    return nullptr;
  }
};

} // namespace

std::string declared_kinds::error_text() const {
  std::string out;
  for (const auto& e : errors)
    out += e + "\n";
  return out;
}

declared_kinds parse_declarations(std::string_view toml_text, std::string_view origin) {
  declared_kinds out;
  out.source = std::string{toml_text};
  reader in{origin, out.errors};
  toml::table file;
  try {
    file = toml::parse(toml_text, origin);
  } catch (const toml::parse_error& e) {
    out.errors.push_back(std::string{origin} + ":" + std::to_string(e.source().begin.line) + ": "
                         + std::string{e.description()});
    return out;
  }
  in.only(file, {"format", "kind"}, "the file");
  auto format = in.integer(file, "format", nullptr, true);
  if (format && *format != declaration_format)
    in.fail(file.get("format"), "format " + std::to_string(*format) + " is not the format this build reads ("
                                  + std::to_string(declaration_format) + ")");
  const toml::array* kinds = file.get("kind") ? file.get("kind")->as_array() : nullptr;
  if (kinds == nullptr || kinds->empty()) {
    in.fail(file.get("kind"), "no [[kind]] is declared");
    return out;
  }
  if (kinds->size() > max_kinds)
    in.fail(file.get("kind"), "more than " + std::to_string(max_kinds) + " kinds");

  statement_table statements;
  auto declare_statement = [&](const toml::node* at, kind_statement s) -> std::optional<kind_statement> {
    if (!is_plain_name(s.name)) {
      in.fail(at, "statement name '" + s.name + "' is not 1 to 63 of a-z, 0-9 and _");
      return std::nullopt;
    }
    if (auto* seen = statements.find(s.name)) {
      if (seen->sql != s.sql) {
        in.fail(at, "statement '" + s.name + "' is declared twice with different SQL");
        return std::nullopt;
      }
      return *seen;
    }
    statements.all.push_back(s);
    return s;
  };

  for (auto&& node : *kinds) {
    in.about("");
    const toml::table* k = node.as_table();
    if (k == nullptr) {
      in.fail(&node, "a [[kind]] is a table");
      continue;
    }
    const size_t errors_before = out.errors.size();
    doc_kind_entry e;
    auto name = in.text(*k, "name", &node, true);
    if (!name)
      continue;
    e.name = *name;
    in.about(e.name);
    in.only(*k, {"name", "route", "key", "key_space", "noun", "statement", "sql", "nulls", "fields", "detail",
                 "reads", "populate", "ttl", "max_bytes"},
            "a kind");
    if (!is_plain_name(e.name))
      in.fail(k->get("name"), "a kind's name is 1 to 63 of a-z, 0-9 and _, not led by a digit");
    for (const auto& other : out.kinds)
      if (other.name == e.name)
        in.fail(k->get("name"), "a duplicate kind: this name is declared above");

    if (auto route = in.text(*k, "route", &node, true)) {
      auto prefix = route_prefix(*route);
      if (!prefix)
        in.fail(k->get("route"), "route '" + *route + "' is a path followed by one key, as its last segment "
                                   "('/orders/{id}'): composite keys are not supported in this version");
      else if (!is_plain_route(*prefix))
        in.fail(k->get("route"), "route '" + *route + "' has characters a path escapes");
      else {
        e.route = *prefix;
        e.key_name = route->substr(prefix->size() + 1, route->size() - prefix->size() - 2);
      }
      for (const auto& other : out.kinds)
        if (!e.route.empty() && other.route == e.route)
          in.fail(k->get("route"), "a route clash: kind '" + other.name + "' is served at '" + *route + "' too");
    }
    if (auto key = in.text(*k, "key", &node, true)) {
      if (auto t = key_type_named(*key))
        e.key = *t;
      else
        in.fail(k->get("key"), "key '" + *key + "' is none of int4, int8, text, uuid");
    }
    e.entity = in.text(*k, "key_space", &node, false).value_or(e.name);
    if (!is_plain_name(e.entity))
      in.fail(k->get("key_space"), "key space '" + e.entity + "' is not 1 to 63 of a-z, 0-9 and _");
    for (const auto& other : out.kinds)
      if (other.entity == e.entity && other.key != e.key)
        in.fail(k->get("key"), "kind '" + other.name + "' has key space '" + e.entity
                                 + "' with another key type: one key space, one key type");
    e.noun = in.text(*k, "noun", &node, false).value_or(e.name);

    // The statement: SQL of its own (named, or named after the kind), or
    // another kind's by name.
    auto statement_name = in.text(*k, "statement", &node, false);
    auto sql = in.text(*k, "sql", &node, false);
    if (sql) {
      in.check_sql(k->get("sql"), *sql, 1);
      if (auto s = declare_statement(k->get(statement_name ? "statement" : "sql"),
                                     {statement_name.value_or("restcache_kind_" + e.name), *sql}))
        e.statement = *s;
    } else if (statement_name) {
      if (auto* s = statements.find(*statement_name))
        e.statement = *s;
      else
        in.fail(k->get("statement"), "statement '" + *statement_name
                                       + "' has no 'sql' here and no kind above declares it");
    } else {
      in.fail(&node, "'sql' is missing: the statement that reads a document, its key as $1");
    }

    if (auto nulls = in.text(*k, "nulls", &node, false)) {
      if (*nulls == "null")
        e.plan.write_nulls = true;
      else if (*nulls != "omit")
        in.fail(k->get("nulls"), "nulls is 'omit' (a NULL column's member is left out) or 'null'");
    }
    if (auto master = in.members(*k, &node, "a kind"))
      e.plan.master = std::move(*master);
    if (const toml::node* d = k->get("detail")) {
      const toml::table* dt = d->as_table();
      if (dt == nullptr) {
        in.fail(d, "'detail' is a table { name, present_column, fields }");
      } else {
        in.only(*dt, {"name", "present_column", "fields"}, "the detail");
        auto dname = in.text(*dt, "name", d, true);
        auto present = in.column(*dt, "present_column", d);
        auto element = in.members(*dt, d, "the detail");
        if (dname && dname->empty())
          in.fail(d, "the detail's name is empty");
        if (dname && std::any_of(e.plan.master.fields.begin(), e.plan.master.fields.end(),
                                 [&](const field_plan& f) { return f.name == *dname; }))
          in.fail(d, "the detail's name '" + *dname + "' is a field's too");
        if (dname && !dname->empty() && present && element)
          e.plan.detail.emplace(*dname, *present, std::move(*element));
      }
    }

    if (auto ttl = in.integer(*k, "ttl", &node, false)) {
      if (*ttl < 1 || *ttl > max_ttl_seconds)
        in.fail(k->get("ttl"), "ttl is a number of seconds, 1 to " + std::to_string(max_ttl_seconds));
      else
        e.ttl = std::chrono::seconds{*ttl};
    }
    if (auto cap = in.integer(*k, "max_bytes", &node, false)) {
      if (*cap < 1)
        in.fail(k->get("max_bytes"), "max_bytes is a number of bytes, at least 1");
      else
        e.max_bytes = *cap;
    }

    // A kind with a TTL may read tables no trigger watches (or none at
    // all): the TTL bounds how long a change to them goes unseen.
    const toml::node* r = k->get("reads");
    const toml::array* reads = r != nullptr ? r->as_array() : nullptr;
    if (reads == nullptr || reads->empty()) {
      // No reads at all is fine with a ttl; 'reads' that is not an array never is.
      if (e.ttl.count() == 0 || (r != nullptr && reads == nullptr))
        in.fail(r ? r : &node, "'reads' is missing: the tables the statement reads, each "
                               "{ table, columns, keys } (or, with a ttl, none)");
    } else {
      bool keyed_here = false;
      for (auto&& item : *reads) {
        const toml::table* t = item.as_table();
        if (t == nullptr) {
          in.fail(&item, "a read is a table { table, columns, keys }");
          continue;
        }
        in.only(*t, {"table", "columns", "keys", "row_columns"}, "a read");
        auto table = in.text(*t, "table", &item, true);
        auto columns = in.texts(*t, "columns", &item);
        auto keys = in.texts(*t, "keys", &item);
        if (!table || !columns || !keys)
          continue;
        table_read read{*table, {}, {}, {}};
        if (const toml::node* rc = t->get("row_columns")) {
          const toml::array* cols = rc->as_array();
          if (cols == nullptr || cols->empty())
            in.fail(rc, "'row_columns' is an array of result columns' positions, from 1: the table's "
                        "primary key, in its column order");
          else
            for (auto&& c : *cols) {
              auto v = c.value<int64_t>();
              if (!v || *v < 1 || *v > max_columns)
                in.fail(&c, "'row_columns' holds result columns' positions, from 1");
              else
                read.row_columns.push_back(static_cast<int>(*v - 1));
            }
        }
        for (const auto& c : *columns)
          read.columns += (read.columns.empty() ? "" : ",") + c;
        for (const auto& key : *keys) {
          auto colon = key.find(':');
          if (colon == std::string::npos || !is_plain_name(key.substr(0, colon))
              || key.find_first_of(",: ", colon + 1) != std::string::npos || colon + 1 == key.size()) {
            in.fail(t->get("keys"), "key '" + key + "' is written '<key space>:<column>'");
            continue;
          }
          keyed_here = keyed_here || key.substr(0, colon) == e.entity;
          read.keys += (read.keys.empty() ? "" : ",") + key;
        }
        e.reads.push_back(std::move(read));
      }
      if (!keyed_here && e.ttl.count() == 0)
        in.fail(r, "no read keys its changes in its key space '" + e.entity
                     + "': nothing would ever invalidate its documents (unless a ttl does)");
    }

    if (const toml::node* p = k->get("populate")) {
      const toml::table* pt = p->as_table();
      if (pt == nullptr) {
        in.fail(p, "'populate' is a table { sql, count_sql, key_column, plural }");
      } else {
        in.only(*pt, {"statement", "sql", "count_statement", "count_sql", "key_column", "plural"}, "populate");
        auto psql = in.text(*pt, "sql", p, true);
        auto csql = in.text(*pt, "count_sql", p, true);
        auto key_column = in.column(*pt, "key_column", p);
        if (psql)
          in.check_sql(pt->get("sql"), *psql, 2);
        if (csql)
          in.check_sql(pt->get("count_sql"), *csql, 0);
        auto page = psql ? declare_statement(p, {in.text(*pt, "statement", p, false).value_or("restcache_populate_" + e.name), *psql})
                         : std::nullopt;
        auto count = csql ? declare_statement(p, {in.text(*pt, "count_statement", p, false).value_or("restcache_count_" + e.name), *csql})
                          : std::nullopt;
        if (page && count && key_column)
          e.populate = {*page, *count, *key_column, in.text(*pt, "plural", p, false).value_or(e.name)};
      }
    }
    if (out.errors.size() == errors_before)
      out.kinds.push_back(std::move(e));
  }
  if (!out.ok())
    out.kinds.clear();
  return out;
}

declared_kinds read_declaration_file(const std::string& path) {
  std::ifstream in{path, std::ios::binary};
  if (!in) {
    declared_kinds out;
    out.errors.push_back(path + ": cannot be read");
    return out;
  }
  std::stringstream text;
  text << in.rdbuf();
  return parse_declarations(text.str(), path);
}

} // namespace restcache::declarations
