// SPDX-License-Identifier: Apache-2.0
#include "messages/doc_catalogue.hpp"

#include <algorithm>
#include <atomic>
#include <memory>
#include <mutex>
#include <stdexcept>

#include "messages/text.hpp"

namespace restcache {

std::atomic<const std::vector<doc_kind_entry>*> detail::installed_catalogue{nullptr};

namespace {

/// Every catalogue installed is kept until exit, so a span a reader took
/// from one stays valid when a test installs another.
std::mutex installing;
std::vector<std::unique_ptr<const std::vector<doc_kind_entry>>>& kept() {
  static std::vector<std::unique_ptr<const std::vector<doc_kind_entry>>> all;
  return all;
}

void fingerprint_bytes(uint64_t& h, std::string_view s) noexcept {
  // FNV-1a, with the length first so that fields cannot run into each other.
  auto add = [&](unsigned char c) {
    h ^= c;
    h *= 0x100000001b3ULL;
  };
  for (size_t n = s.size(), i = 0; i < 8; ++i, n >>= 8)
    add(static_cast<unsigned char>(n & 0xff));
  for (unsigned char c : s)
    add(c);
}

void fingerprint_object(uint64_t& h, const object_plan& o) {
  for (const auto& f : o.fields) {
    fingerprint_bytes(h, f.name);
    fingerprint_bytes(h, std::to_string(f.column) + "/" + std::to_string(static_cast<int>(f.type)));
  }
}

} // namespace

bool is_plain_name(std::string_view s) noexcept {
  if (s.empty() || s.size() > 63 || !((s[0] >= 'a' && s[0] <= 'z') || s[0] == '_'))
    return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'; });
}

bool is_plain_route(std::string_view s) noexcept {
  if (s.size() < 2 || s.front() != '/' || s.back() != '/')
    return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '/' || c == '-'
           || c == '_' || c == '.' || c == '~';
  });
}

void install_catalogue(std::vector<doc_kind_entry> kinds) {
  if (kinds.size() > max_kinds)
    throw std::invalid_argument("the catalogue holds at most 63 kinds");
  for (size_t i = 0; i < kinds.size(); ++i) {
    auto& k = kinds[i];
    if (!is_plain_name(k.name))
      throw std::invalid_argument("a kind's name is 1 to 63 of a-z, 0-9 and _, starting with a letter or _: '"
                                  + k.name + "'");
    if (!is_plain_name(k.entity))
      throw std::invalid_argument("kind '" + k.name + "': its key space '" + k.entity
                                  + "' is not 1 to 63 of a-z, 0-9 and _");
    if (!is_plain_route(k.route))
      throw std::invalid_argument("kind '" + k.name + "': its route '" + k.route
                                  + "' does not begin and end with '/' or has characters a path escapes");
    for (size_t j = 0; j < i; ++j) {
      if (kinds[j].name == k.name)
        throw std::invalid_argument("two kinds are called '" + k.name + "'");
      if (kinds[j].entity == k.entity && kinds[j].key != k.key)
        throw std::invalid_argument("kinds '" + kinds[j].name + "' and '" + k.name
                                    + "' share key space '" + k.entity + "' with different key types");
    }
    k.kind = static_cast<doc_kind>(i + 1);
  }
  std::lock_guard lock{installing};
  auto& all = kept();
  all.push_back(std::make_unique<const std::vector<doc_kind_entry>>(std::move(kinds)));
  detail::installed_catalogue.store(all.back().get(), std::memory_order_release);
}

const doc_kind_entry* find_doc_kind(uint8_t kind) noexcept {
  const auto& catalogue = doc_catalogue();
  if (kind == 0 || kind > catalogue.size())
    return nullptr;
  return &catalogue[kind - 1];
}

const doc_kind_entry& doc_kind_info(doc_kind kind) noexcept {
  static const doc_kind_entry unknown{};
  auto* e = find_doc_kind(static_cast<uint8_t>(kind));
  return e ? *e : unknown;
}

const doc_kind_entry* find_doc_kind(std::string_view name) noexcept {
  for (const auto& e : doc_catalogue())
    if (e.name == name)
      return &e;
  return nullptr;
}

uint64_t kind_fingerprint(const doc_kind_entry& kind) {
  uint64_t h = 0xcbf29ce484222325ULL;
  fingerprint_bytes(h, kind.name);
  fingerprint_bytes(h, key_type_name(kind.key));
  fingerprint_bytes(h, kind.statement.name);
  fingerprint_bytes(h, kind.statement.sql);
  fingerprint_object(h, kind.plan.master);
  if (kind.plan.detail) {
    fingerprint_bytes(h, kind.plan.detail->name);
    fingerprint_bytes(h, std::to_string(kind.plan.detail->present_column));
    fingerprint_object(h, kind.plan.detail->element);
  }
  fingerprint_bytes(h, kind.plan.write_nulls ? "nulls" : "");
  fingerprint_bytes(h, kind.populate.statement.sql); // it writes documents too
  fingerprint_bytes(h, std::to_string(kind.populate.key_column));
  // A kind with a ttl reads what no trigger logs and writes nothing to
  // LMDB: records of it from before its ttl, or kept while it had one, are
  // not vouched for. Only when set: the others' fingerprints stay.
  if (kind.ttl.count() > 0)
    fingerprint_bytes(h, "ttl");
  // Its documents' rows are stored with them: only when declared.
  for (const auto& r : kind.reads)
    if (!r.row_columns.empty()) {
      fingerprint_bytes(h, "rows:" + r.table);
      for (int c : r.row_columns)
        fingerprint_bytes(h, std::to_string(c));
    }
  return h;
}

namespace {

void add_each(std::vector<std::string>& to, std::string_view list) {
  while (!list.empty()) {
    auto item = next_part(list, ',');
    if (std::find(to.begin(), to.end(), item) == to.end())
      to.emplace_back(item);
  }
}

} // namespace

std::vector<watched_table> watched_tables() {
  std::vector<watched_table> out;
  for (const auto& e : doc_catalogue())
    for (const auto& r : e.reads) {
      auto t = std::find_if(out.begin(), out.end(), [&](const watched_table& w) { return w.name == r.table; });
      if (t == out.end())
        t = out.insert(out.end(), watched_table{r.table, {}, {}, 0, 0});
      add_each(t->columns, r.columns);
      add_each(t->keys, r.keys);
      t->kinds |= kind_bit(e.kind);
      if (!r.row_columns.empty())
        t->row_kinds |= kind_bit(e.kind);
    }
  return out;
}

uint64_t kinds_reading(const std::vector<watched_table>& tables) noexcept {
  uint64_t kinds = 0;
  for (const auto& t : tables)
    kinds |= t.kinds;
  return kinds;
}

std::string kind_names(uint64_t kinds) {
  std::string out;
  for (const auto& e : doc_catalogue())
    if ((kinds & kind_bit(e.kind)) != 0)
      out += (out.empty() ? "" : ", ") + e.name;
  return out;
}

std::string_view first_key(key_type type) noexcept {
  switch (type) {
    case key_type::int4:
    case key_type::int8: return "0";
    case key_type::text: return "";
    case key_type::uuid: return "00000000-0000-0000-0000-000000000000";
  }
  return "";
}

std::string key_label(const doc_key& key) {
  const auto& e = doc_kind_info(key.kind());
  return e.name + ":" + key_spelling(e.key, key);
}

std::optional<doc_kind> change_kind(std::string_view entity) noexcept {
  for (const auto& e : doc_catalogue())
    if (e.entity == entity)
      return e.kind;
  return std::nullopt;
}

} // namespace restcache
