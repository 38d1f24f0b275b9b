// SPDX-License-Identifier: Apache-2.0
#include "persistence/pg/wal_keys.hpp"

#include "messages/cache_types.hpp"

#include <algorithm>
#include <cctype>

namespace restcache::pg {

namespace {

/// quote_ident's rule for names that are no keyword: plain lower-case
/// identifiers bare, others in double quotes. (A table named like a keyword
/// comes out bare where the trigger quotes it; a "*:" key drops both tiers
/// whatever table it names.)
std::string quote_ident(const std::string& name) {
  bool plain = !name.empty() && (std::islower(static_cast<unsigned char>(name[0])) || name[0] == '_');
  for (char c : name)
    plain = plain && (std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '_');
  if (plain)
    return name;
  std::string out = "\"";
  for (char c : name) {
    if (c == '"')
      out += '"';
    out += c;
  }
  return out + "\"";
}

void add_once(std::vector<std::string>& to, std::string s) {
  if (std::find(to.begin(), to.end(), s) == to.end())
    to.push_back(std::move(s));
}

constexpr uint32_t bpchar_oid = 1042;

} // namespace

wal_key_mapper::wal_key_mapper(std::vector<watched_keys> watched) : watched_(std::move(watched)) {
  for (size_t i = 0; i < watched_.size(); ++i)
    by_name_[watched_[i].schema + "." + watched_[i].table] = i;
}

void wal_key_mapper::map_descendant(const std::string& schema, const std::string& table, const std::string& root_schema,
                                    const std::string& root_table) {
  if (auto root = by_name_.find(root_schema + "." + root_table); root != by_name_.end())
    by_name_[schema + "." + table] = root->second;
}

void wal_key_mapper::learn(const pgoutput::relation& r) {
  // pgoutput writes "" for pg_catalog, which has no watched table.
  auto w = by_name_.find(r.schema + "." + r.name);
  if (w == by_name_.end()) {
    shapes_.erase(r.oid);
    return;
  }
  shape s;
  s.qualified = quote_ident(r.schema) + "." + quote_ident(r.name);
  s.watched = w->second;
  const auto& identity = watched_[w->second].identity;
  for (const auto& name : identity) {
    auto at = std::find_if(r.columns.begin(), r.columns.end(), [&](const auto& c) { return c.name == name; });
    if (at == r.columns.end()) {
      s.identity.clear(); // renamed away: no row can be named (drift follows)
      break;
    }
    s.identity.push_back(static_cast<int>(at - r.columns.begin()));
  }
  if (identity.empty())
    for (size_t i = 0; i < r.columns.size(); ++i)
      if (r.columns[i].key)
        s.identity.push_back(static_cast<int>(i));
  for (const auto& k : watched_[w->second].keys) {
    shape::key key{k.space};
    for (size_t i = 0; i < r.columns.size(); ++i)
      if (r.columns[i].name == k.column) {
        key.column = static_cast<int>(i);
        key.identity = r.columns[i].key;
        key.drop_blanks = r.columns[i].type == bpchar_oid;
      }
    s.keys.push_back(std::move(key));
  }
  shapes_[r.oid] = std::move(s);
}

const wal_key_mapper::shape* wal_key_mapper::shape_of(uint32_t relation) const {
  auto s = shapes_.find(relation);
  return s == shapes_.end() ? nullptr : &s->second;
}

namespace {

/// The key a value gives as the trigger writes it (NULL gives none; nor
/// does a TOASTed value left unchanged, longer than any key).
std::optional<std::string> key_text(const pgoutput::value& v, bool drop_blanks) {
  if (v.is != pgoutput::value::state::text)
    return std::nullopt;
  auto text = v.text;
  if (drop_blanks)
    text.erase(text.find_last_not_of(' ') + 1);
  return text;
}

} // namespace

template <class F>
wal_change_keys wal_key_mapper::each_key(uint32_t relation, size_t row_size, F&& f) const {
  wal_change_keys out;
  const auto* s = shape_of(relation);
  if (s == nullptr)
    return out;
  out.watched = true;
  for (const auto& n : watched_[s->watched].names)
    out.reading_kinds |= n.kinds;
  for (const auto& k : s->keys) {
    if (k.column < 0 || static_cast<size_t>(k.column) >= row_size)
      add_once(out.keys, "*:" + s->qualified); // the trigger's entry for a key column gone
    else
      f(k, static_cast<size_t>(k.column), out);
  }
  return out;
}

void wal_key_mapper::name_row(const shape& s, const std::vector<pgoutput::value>& values,
                              wal_change_keys& out) const {
  if (out.unknown_old.empty() || s.identity.empty())
    return;
  std::vector<std::string_view> identity;
  for (int at : s.identity) {
    if (static_cast<size_t>(at) >= values.size() || values[at].is != pgoutput::value::state::text)
      return; // not readable: the kinds are dropped instead
    identity.push_back(values[at].text);
  }
  for (const auto& n : watched_[s.watched].names)
    if (n.row_kinds != 0)
      out.rows.push_back({row_key(n.as_read, identity), n.row_kinds});
}

wal_change_keys wal_key_mapper::keys_of(const pgoutput::insert& m) const {
  return each_key(m.relation, m.new_row.size(), [&](const shape::key& k, size_t at, wal_change_keys& out) {
    if (auto t = key_text(m.new_row[at], k.drop_blanks))
      add_once(out.keys, k.space + ":" + *t);
  });
}

wal_change_keys wal_key_mapper::keys_of(const pgoutput::update& m) const {
  auto out = each_key(m.relation, m.new_row.size(), [&](const shape::key& k, size_t at, wal_change_keys& out) {
    const auto& now = m.new_row[at];
    // The old value: in the old row when it was sent whole, or when it is
    // the identity's key and this column is of the identity; unchanged when
    // no old row came and the column is of the identity.
    std::optional<pgoutput::value> was;
    if (m.old_row && at < m.old_row->size() && (!m.old_is_key || k.identity))
      was = (*m.old_row)[at];
    else if (!m.old_row && k.identity)
      was = now;
    if (!was) {
      add_once(out.unknown_old, k.space);
      if (auto t = key_text(now, k.drop_blanks))
        add_once(out.keys, k.space + ":" + *t);
      return;
    }
    if (was->is == pgoutput::value::state::unchanged)
      was = now; // a TOASTed value the update left as it was
    auto old_key = key_text(*was, k.drop_blanks);
    if (old_key)
      add_once(out.keys, k.space + ":" + *old_key);
    if (auto t = key_text(now, k.drop_blanks); t && t != old_key)
      add_once(out.keys, k.space + ":" + *t);
  });
  // The row as it was known: by its old identity when that changed, else
  // by the new row's (the same).
  if (const auto* s = shape_of(m.relation))
    name_row(*s, m.old_row && m.old_is_key ? *m.old_row : m.new_row, out);
  return out;
}

wal_change_keys wal_key_mapper::keys_of(const pgoutput::remove& m) const {
  auto out = each_key(m.relation, m.old_row.size(), [&](const shape::key& k, size_t at, wal_change_keys& out) {
    if (m.old_is_key && !k.identity)
      add_once(out.unknown_old, k.space); // a 'K' row carries the identity's columns only
    else if (auto t = key_text(m.old_row[at], k.drop_blanks))
      add_once(out.keys, k.space + ":" + *t);
  });
  if (const auto* s = shape_of(m.relation))
    name_row(*s, m.old_row, out);
  return out;
}

wal_change_keys wal_key_mapper::keys_of(const pgoutput::truncate& m) const {
  wal_change_keys out;
  for (auto oid : m.relations)
    if (const auto* s = shape_of(oid)) {
      out.watched = true;
      add_once(out.keys, "*:" + s->qualified);
    }
  return out;
}

} // namespace restcache::pg
