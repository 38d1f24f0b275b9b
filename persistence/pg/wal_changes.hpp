// SPDX-License-Identifier: Apache-2.0
#pragma once

// The WAL feed's transactions as the listener applies them: pgoutput's
// messages (pgoutput.hpp) in stream order go in, and each transaction comes
// out at its COMMIT with the document keys its changes name (wal_keys.hpp,
// spelled as the triggers spell them, read as the change log's keys are:
// change_feed.hpp's parse_log_key), its TRUNCATEs, the kinds whose old keys
// it could not name, and the DDL restcache's event trigger logged in it as
// logical messages. A rolled-back transaction or subtransaction never comes
// out: pgoutput sends only what committed. Plain C++ (no server), tested
// with hand-made messages.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "messages/cache_types.hpp"
#include "persistence/pg/pgoutput.hpp"
#include "persistence/pg/wal_keys.hpp"

namespace restcache::pg {

/// One committed transaction of the stream.
struct wal_commit {
  uint32_t xid = 0;        ///< its top-level xid, as Begin gives it
  uint64_t end_lsn = 0;    ///< past its commit record: applied, the stream may be confirmed there
  int64_t commit_us = 0;   ///< its commit time, microseconds since the Unix epoch
  change_batch changes;    ///< one per document key (seq: end_lsn; changed_us: commit_us)
  size_t truncates = 0;    ///< TRUNCATEs of watched tables (and changes whose key column is gone): drop both tiers
  uint64_t drop_kinds = 0; ///< kinds to drop whole: an old key not carried (and no row to find it by), a key not vouched for
  /// Rows whose old keys it did not carry, for the documents knowing their
  /// rows (seq: end_lsn; changed_us: commit_us); past max_rows, their
  /// kinds are dropped whole instead.
  row_batch changed_rows;
  std::vector<std::string> altered; ///< "!:" entries of restcache's DDL messages (catalog_drift's altered tables)
  size_t rows = 0;         ///< row changes of watched tables in it
  /// Its keys as the log spells them ("<space>:<key>", "*:<table>"), each
  /// once, kept only where a reader was asked to (the relay writes them).
  std::vector<std::string> log_keys;
};

/// Adds a logged key to `t` as the change log's readers take it
/// (parse_log_key): a document's change, a TRUNCATE, a key space that
/// cannot be vouched for (its kinds dropped whole), DDL on a table.
void add_log_key(const std::string& key, wal_commit& t);

class wal_change_reader {
public:
  /// The most changed rows one transaction names (each is looked up in
  /// every shard and the LMDB tier); a larger one drops their kinds.
  static constexpr size_t max_rows = 10'000;

  /// The watched table a partition or inheriting table (schema, name)
  /// belongs to, or nullopt: asked when a Relation message names a table
  /// the mapper does not know (a partition created since the session began).
  using root_lookup = std::function<std::optional<std::pair<std::string, std::string>>(const std::string&,
                                                                                       const std::string&)>;

  /// `keep_log_keys`: each commit keeps its keys' text too (log_keys).
  wal_change_reader(wal_key_mapper mapper, root_lookup roots, bool keep_log_keys = false);

  /// One message, in stream order; a transaction's COMMIT returns it.
  /// Throws pgoutput::decode_error for a message out of place (a change
  /// outside a transaction).
  std::optional<wal_commit> feed(const pgoutput::message& m);

  bool in_transaction() const noexcept { return open_.has_value(); }
  /// Rows decoded in the open transaction (a bound on what it holds).
  size_t open_rows() const noexcept { return open_ ? open_->rows : 0; }

private:
  void add(const wal_change_keys& keys);

  wal_key_mapper mapper_;
  root_lookup roots_;
  bool keep_log_keys_ = false;
  std::optional<wal_commit> open_;
  std::unordered_set<std::string> seen_; ///< the open transaction's keys, each once
  std::unordered_map<std::string, size_t> seen_rows_; ///< and its rows, by their place in rows
  uint64_t row_overflow_kinds_ = 0; ///< kinds of rows past max_rows in the open transaction
};

} // namespace restcache::pg
