#pragma once

// The HTTP edge's only handle on the actor side. No Beast, no CAF here: the
// daemon implements it over the cache shards (app/), tests can fake it.
// Every member is thread-safe and non-blocking.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "messages/cache_types.hpp"
#include "messages/write_types.hpp"

namespace restcache::http {

/// One condition of /ready.
struct readiness_check {
  std::string name;  ///< "database", "listener", "lmdb"
  bool ok = false;
  std::string state; ///< "up", "down", "caught up", "catching up", "open"
};

class cache_gateway {
public:
  virtual ~cache_gateway() = default;

  /// Sends the lookup to the owning cache shard; `cb` is called exactly once,
  /// on a CAF worker thread.
  virtual void lookup(doc_key key, reply_callback cb) = 0;
  /// The same for a client that accepts gzip: the gateway may answer the
  /// document with its gzip variant made (cached_doc::gzip). By default a
  /// plain lookup: the session then compresses per request.
  virtual void lookup_gzip(doc_key key, reply_callback cb) { lookup(key, std::move(cb)); }
  /// A lookup that must not be answered from what the tiers hold (the
  /// client's Cache-Control: no-cache): the document is read again. By
  /// default a plain lookup.
  virtual void refill(doc_key key, reply_callback cb) { lookup(key, std::move(cb)); }

  /// The key of a document GET /depts/random answers: a department picked
  /// uniformly from the in-memory set of existing ids, or nullopt while
  /// that set is empty.
  virtual std::optional<doc_key> random_document() = 0;

  /// What /ready reports: each condition, whether it holds, and its state
  /// in a word or two ("up", "caught up", "open"). Ready when all hold.
  virtual std::vector<readiness_check> readiness() const = 0;
  /// Why documents of `kind` cannot be read as restcache reads them (the
  /// drift the listener found), for a db_schema answer; empty: not known.
  virtual std::string drift_detail(doc_kind) const { return {}; }

  /// Prometheus text exposition of the daemon's counters.
  virtual std::string metrics_text() const = 0;

  /// Runs a write in one PostgreSQL transaction; `cb` is called exactly
  /// once, on a CAF worker thread, after this instance has dropped what the
  /// write changed (read-your-writes) or the wait for that timed out.
  virtual void write(write_request req, write_callback cb) {
    (void) req;
    cb(write_result{rc_error::internal, 0, false, "writes are not supported here", true});
  }

  /// A page of departments (GET /depts), read from PostgreSQL, not cached.
  virtual void list_depts(int32_t after, int32_t limit, page_callback cb) {
    (void) after;
    (void) limit;
    cb(page_result{rc_error::internal, {}});
  }
};

} // namespace restcache::http
