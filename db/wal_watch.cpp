// SPDX-License-Identifier: Apache-2.0
#include "db/wal_watch.hpp"

#include <algorithm>
#include <optional>
#include <set>

#include <spdlog/spdlog.h>

#include "persistence/pg/wal_feed.hpp"
#include "persistence/pg/wal_slot.hpp"

namespace restcache {

namespace {

/// A table as the catalog has it: schema, name and oid.
struct resolved_table {
  std::string schema;
  std::string name;
  int64_t oid = 0;
};

/// The table the kinds read by `name`; nullopt when there is no such table.
std::optional<resolved_table> resolve_table(pg::connection& c, const std::string& name) {
  auto r = c.exec_params("SELECT n.nspname, c.relname, c.oid::int8 FROM pg_class c"
                         " JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.oid = to_regclass($1)",
                         {name});
  if (r.rows() != 1)
    return std::nullopt;
  return resolved_table{std::string{r.text(0, 0)}, std::string{r.text(0, 1)}, r.int64(0, 2)};
}

using table_names = std::vector<std::pair<std::string, std::string>>;

/// The tables a table inherits from (`up`: partitioned or inherited from,
/// nearest first) or that inherit from it (partitions and heirs), at every
/// level, by schema and name.
table_names inheritance(pg::connection& c, const std::string& schema, const std::string& table, bool up) {
  // The two directions differ only in which end of pg_inherits they follow.
  const std::string from = up ? "inhrelid" : "inhparent", to = up ? "inhparent" : "inhrelid";
  auto r = c.exec_params("WITH RECURSIVE tree(relid, depth) AS ("
                         "  SELECT i." + to + ", 1 FROM pg_inherits i"
                         "   WHERE i." + from + " = (SELECT c.oid FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
                         "                           WHERE n.nspname = $1 AND c.relname = $2)"
                         "  UNION ALL"
                         "  SELECT i." + to + ", t.depth + 1 FROM tree t JOIN pg_inherits i ON i." + from + " = t.relid"
                         "   WHERE t.depth < 32)"
                         " SELECT n.nspname, c.relname FROM tree t JOIN pg_class c ON c.oid = t.relid"
                         "   JOIN pg_namespace n ON n.oid = c.relnamespace GROUP BY 1, 2 ORDER BY min(t.depth)",
                         {schema, table});
  table_names out;
  for (int i = 0; i < r.rows(); ++i)
    out.emplace_back(std::string{r.text(i, 0)}, std::string{r.text(i, 1)});
  return out;
}

} // namespace

pg::wal_stream open_stream(pg::connection& c, const pg::wal_stream_options& o) {
  try {
    return pg::wal_stream{o};
  } catch (const pg::slot_creation_waits& e) {
    std::string blockers;
    try {
      blockers = pg::slot_creation_blockers(c);
    } catch (const pg::error& again) {
      blockers = std::string{"not known ("} + again.what() + ")";
    }
    spdlog::warn("{}: a new slot waits for every transaction running when it is made to end (prepared ones too, "
                 "in every database of the cluster); running now: {}",
                 e.what(), blockers);
    throw;
  }
}

std::vector<pg::wal_commit> read_round(pg::wal_stream& stream, pg::wal_change_reader& reader,
                                       std::chrono::milliseconds window, size_t max_keys,
                                       const std::function<std::optional<size_t>(const pg::wal_commit&)>& take) {
  using namespace std::chrono_literals;
  using clock = std::chrono::steady_clock;
  std::vector<pg::wal_commit> commits;
  size_t keys = 0;
  auto ev = stream.next(reader.in_transaction() ? 1'000ms : 50ms);
  std::optional<clock::time_point> window_ends;
  while (ev) {
    if (auto done = reader.feed(ev->message))
      if (auto added = take(*done)) {
        keys += *added;
        commits.push_back(std::move(*done));
        if (!window_ends)
          window_ends = clock::now() + window;
      }
    if (keys >= max_keys || commits.size() >= 4'096)
      break;
    auto left = window_ends ? std::chrono::duration_cast<std::chrono::milliseconds>(*window_ends - clock::now()) : 0ms;
    ev = stream.next(std::max(left, 0ms));
  }
  return commits;
}

pg::wal_change_reader watch_reader(pg::connection& c, const std::vector<watched_table>& tables,
                                   identities_at_start& identities, bool keep_log_keys) {
  std::vector<pg::watched_keys> watched;
  std::set<std::string> roots;
  for (const auto& t : tables) {
    auto resolved = resolve_table(c, t.name);
    if (!resolved)
      continue; // drift says so
    // One table read under two names is one entry with both.
    auto w = std::find_if(watched.begin(), watched.end(), [&](const pg::watched_keys& x) {
      return x.schema == resolved->schema && x.table == resolved->name;
    });
    if (w == watched.end()) {
      w = watched.insert(watched.end(), pg::watched_keys{resolved->schema, resolved->name, {}, {}, {}});
      auto known = identities.find(w->schema + "." + w->table);
      if (known == identities.end()) {
        std::vector<std::string> columns;
        for (auto& [number, column] : pg::identity_columns(c, resolved->oid))
          columns.push_back(std::move(column));
        known = identities.emplace(w->schema + "." + w->table, std::move(columns)).first;
      }
      w->identity = known->second;
    }
    for (const auto& k : t.keys)
      if (auto colon = k.find(':'); colon != std::string::npos) {
        pg::watched_keys::key key{k.substr(0, colon), k.substr(colon + 1)};
        if (std::none_of(w->keys.begin(), w->keys.end(),
                         [&](const auto& x) { return x.space == key.space && x.column == key.column; }))
          w->keys.push_back(std::move(key));
      }
    w->names.push_back({t.name, t.kinds, t.row_kinds});
    roots.insert(w->schema + "." + w->table);
  }
  pg::wal_key_mapper mapper{watched};
  for (const auto& w : watched)
    for (const auto& [schema, table] : inheritance(c, w.schema, w.table, false))
      mapper.map_descendant(schema, table, w.schema, w.table);
  return pg::wal_change_reader{std::move(mapper),
                               [&c, roots = std::move(roots)](const std::string& schema, const std::string& table) {
                                 std::optional<std::pair<std::string, std::string>> root;
                                 for (auto& a : inheritance(c, schema, table, true))
                                   if (roots.count(a.first + "." + a.second) != 0)
                                     root = a;
                                 return root;
                               },
                               keep_log_keys};
}

} // namespace restcache
