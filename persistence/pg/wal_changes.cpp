// SPDX-License-Identifier: Apache-2.0
#include "persistence/pg/wal_changes.hpp"

#include <algorithm>

#include "messages/doc_catalogue.hpp"
#include "messages/text.hpp"
#include "persistence/pg/change_feed.hpp"
#include "persistence/pg/wal_feed.hpp"

namespace restcache::pg {

namespace {

/// Unix microseconds of PostgreSQL's (since 2000-01-01).
constexpr int64_t unix_us_of_pg(int64_t pg_us) noexcept {
  return pg_us + 946'684'800'000'000;
}

/// The kinds of a key space, with those it fans out to.
uint64_t kinds_of_space(const std::string& space) {
  auto kind = change_kind(space);
  if (!kind)
    return 0;
  uint64_t bits = kind_bit(*kind);
  for_each_fanned_out(*kind, [&](doc_kind k) { bits |= kind_bit(k); });
  return bits;
}

template <class... F>
struct overloaded : F... {
  using F::operator()...;
};
template <class... F>
overloaded(F...) -> overloaded<F...>;

} // namespace

void add_log_key(const std::string& key, wal_commit& t) {
  doc_key doc;
  switch (parse_log_key(key, doc)) {
    case log_key_kind::document: t.changes.push_back({doc, t.end_lsn, t.commit_us}); break;
    case log_key_kind::truncate: ++t.truncates; break;
    case log_key_kind::key_space: t.drop_kinds |= kinds_of_space(std::string{doc_kind_info(doc.kind()).entity}); break;
    case log_key_kind::catalog: t.altered.push_back(key.substr(2)); break;
    case log_key_kind::unknown: break;
  }
}

wal_change_reader::wal_change_reader(wal_key_mapper mapper, root_lookup roots, bool keep_log_keys)
  : mapper_(std::move(mapper)), roots_(std::move(roots)), keep_log_keys_(keep_log_keys) {}

void wal_change_reader::add(const wal_change_keys& keys) {
  if (!keys.watched)
    return;
  auto& t = *open_;
  ++t.rows;
  // An old key not carried: the kinds reading the table find the row in
  // what they hold where they know their rows of it, and are dropped
  // whole where they do not.
  uint64_t unknown = 0;
  for (const auto& space : keys.unknown_old)
    unknown |= kinds_of_space(space) & (keys.reading_kinds != 0 ? keys.reading_kinds : ~uint64_t{0});
  uint64_t found_by_row = 0;
  for (const auto& r : keys.rows) {
    auto kinds = r.kinds & unknown;
    if (kinds == 0)
      continue;
    found_by_row |= kinds;
    if (t.changed_rows.size() >= max_rows && seen_rows_.count(r.row) == 0) {
      row_overflow_kinds_ |= kinds;
      continue;
    }
    if (auto [at, fresh] = seen_rows_.try_emplace(r.row, t.changed_rows.size()); fresh)
      t.changed_rows.push_back(row_change{r.row, kinds, 0, 0, 0});
    else
      t.changed_rows[at->second].kinds |= kinds;
  }
  t.drop_kinds |= unknown & ~found_by_row;
  for (const auto& key : keys.keys) {
    if (!seen_.insert(key).second)
      continue;
    add_log_key(key, t);
    if (keep_log_keys_)
      t.log_keys.push_back(key);
  }
}

std::optional<wal_commit> wal_change_reader::feed(const pgoutput::message& m) {
  namespace po = pgoutput;
  std::optional<wal_commit> done;
  std::visit(overloaded{
               [&](const po::begin& b) {
                 open_ = wal_commit{};
                 open_->xid = b.xid;
                 open_->commit_us = unix_us_of_pg(b.commit_time);
                 seen_.clear();
                 seen_rows_.clear();
                 row_overflow_kinds_ = 0;
               },
               [&](const po::commit& c) {
                 if (!open_)
                   throw po::decode_error("a commit outside a transaction");
                 open_->end_lsn = c.end_lsn;
                 for (auto& ch : open_->changes) {
                   ch.seq = c.end_lsn;
                   ch.changed_us = open_->commit_us;
                 }
                 if (row_overflow_kinds_ != 0) {
                   // Too many to look up one by one: their kinds go whole.
                   for (const auto& r : open_->changed_rows)
                     open_->drop_kinds |= r.kinds;
                   open_->drop_kinds |= row_overflow_kinds_;
                   open_->changed_rows.clear();
                 }
                 for (auto& r : open_->changed_rows) {
                   r.seq = c.end_lsn;
                   r.changed_us = open_->commit_us;
                 }
                 done = std::move(open_);
                 open_.reset();
                 seen_.clear();
                 seen_rows_.clear();
                 row_overflow_kinds_ = 0;
               },
               [&](const po::relation& r) {
                 // Every table pgoutput sends is in the publication: one the
                 // mapper does not know is a partition or inheriting table
                 // made since the session began.
                 if (!mapper_.knows(r.schema, r.name) && roots_)
                   if (auto root = roots_(r.schema, r.name))
                     mapper_.map_descendant(r.schema, r.name, root->first, root->second);
                 mapper_.learn(r);
               },
               [&](const auto& change) { // insert, update, remove, truncate
                 if (!open_)
                   throw po::decode_error("a change outside a transaction");
                 add(mapper_.keys_of(change));
               },
               [&](const po::logical_message& x) {
                 // restcache_log_keys: DDL on what the kinds read, in its
                 // transaction (a non-transactional one comes alone).
                 if (x.prefix != feed_message_prefix || !x.transactional || !open_)
                   return;
                 std::string_view rest = x.content;
                 while (!rest.empty())
                   if (auto key = next_part(rest, '\x1f'); key.starts_with("!:"))
                     open_->altered.emplace_back(key.substr(2));
               },
               [](const po::origin&) {},
               [](const po::type&) {},
             },
             m);
  return done;
}

} // namespace restcache::pg
