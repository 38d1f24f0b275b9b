// SPDX-License-Identifier: Apache-2.0
#pragma once

// One pooled database connection as the actors see it. The real one
// (pg_connection_worker) runs libpq on a dedicated thread, so neither a CAF
// scheduler thread nor an asio thread ever blocks on the database; tests
// substitute fakes.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "messages/cache_types.hpp"
#include "messages/errors.hpp"

namespace restcache {

/// A document read for a fill.
struct fetch_outcome {
  rc_error error = rc_error::none; ///< not_found when the entity does not exist
  /// The key's document, encoded where its rows were read (from the
  /// result's text); null unless error is none.
  doc_ptr doc;
  /// Read on a streaming standby that had replayed the WAL up to
  /// `replay_lsn` before the document's statement began (a connection of a
  /// replica pool asks first, in a statement of its own). False for a read
  /// on a primary, also when a replica's address reached one.
  bool on_standby = false;
  uint64_t replay_lsn = 0;
};

/// A document with its key.
struct keyed_doc {
  doc_key key;
  doc_ptr doc;
};

/// A page of one kind's documents for cache.populate, in key order.
struct page_outcome {
  rc_error error = rc_error::none;
  std::shared_ptr<const std::vector<keyed_doc>> docs; ///< null unless error is none
  std::string last_key; ///< the next page reads past it
  int rows = 0;         ///< rows read; 0: past the last document
  int64_t total = 0;    ///< the kind's documents (asked with the first page)
};

inline page_outcome page_failure(rc_error e) {
  page_outcome o;
  o.error = e;
  return o;
}

namespace pg {
class connection;
}

/// What a job run through db_connection::execute produced (writes,
/// uncached reads). Plain data; the job fills what applies.
struct write_pool_outcome {
  rc_error error = rc_error::none;
  std::string detail;    ///< for a client error: what was wrong (never SQL text)
  int32_t id = 0;        ///< the key written
  bool created = false;
  std::string body;      ///< a response body (an uncached read)
  change_batch changes;  ///< a write: the change-log rows its transaction wrote
  /// A write that logged no change-log rows (the WAL feed has no triggers):
  /// the WAL insert position read after its COMMIT, which the feed must pass
  /// before the write answers (read-your-writes). 0: not read.
  uint64_t commit_lsn = 0;
};

inline write_pool_outcome write_pool_failure(rc_error e) {
  write_pool_outcome o;
  o.error = e;
  return o;
}

class db_connection {
public:
  virtual ~db_connection() = default;

  /// Index of this connection in its pool.
  virtual size_t slot() const noexcept = 0;

  /// True while the connection is established.
  virtual bool up() const noexcept = 0;

  /// Runs the query of the key's document (one round trip); `done` is called
  /// once, on the connection's own thread, and must only send messages.
  virtual void fetch_document(doc_key key, std::function<void(fetch_outcome)> done) = 0;

  /// Up to `limit` documents of `kind` with keys past `after` (the key's
  /// spelling), in key order, read with its populate statement; with
  /// `count`, also counts them. `done` as above.
  virtual void fetch_page(doc_kind kind, std::string after, int32_t limit, bool count,
                          std::function<void(page_outcome)> done) = 0;

  /// Runs `job` with the live connection on the connection's own thread
  /// (writes, uncached reads); the job sends its own result. When the job
  /// throws, or there is no connection, `failed` gets the error instead
  /// (a lost connection is replaced). Drivers without a blocking connection
  /// (db.driver=async) answer failed(internal): the daemon runs these jobs on
  /// a pool of connection threads of their own.
  virtual void execute(std::function<void(pg::connection&)> job, std::function<void(rc_error)> failed) {
    (void) job;
    failed(rc_error::internal);
  }
};

using db_lease = std::shared_ptr<db_connection>;

/// What borrowing from the pool answers: a connection, or overloaded (wait
/// queue full) or db_unavailable (no connection is up).
struct borrow_result {
  rc_error error = rc_error::none;
  db_lease lease;
};

} // namespace restcache
