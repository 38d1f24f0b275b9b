// SPDX-License-Identifier: Apache-2.0
#pragma once

// The HTTP edge's only handle on the actor side. No Beast, no CAF here: the
// daemon implements it over the cache shards (app/), tests can fake it.
// Every member is thread-safe and non-blocking.

#include <cstdint>
#include <string>
#include <vector>

#include "messages/cache_types.hpp"
#include "http/action_routes.hpp"

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

  /// What /ready reports: each condition, whether it holds, and its state
  /// in a word or two ("up", "caught up", "open"). Ready when all hold.
  virtual std::vector<readiness_check> readiness() const = 0;
  /// Why documents of `kind` cannot be read as restcache reads them (the
  /// drift the listener found), for a db_schema answer; empty: not known.
  virtual std::string drift_detail(doc_kind) const { return {}; }

  /// Prometheus text exposition of the daemon's counters.
  virtual std::string metrics_text() const = 0;

  /// Starts the installed action route `action` (action_routes.hpp) with
  /// `call`: its answer now, or the work that answers later, exactly once,
  /// on another thread. By default a 500: no actions are wired.
  virtual action_start start_action(uint8_t action, const action_call& call) {
    (void) action;
    (void) call;
    action_start s;
    s.answer.error = rc_error::internal;
    s.answer.detail = "this server runs no actions";
    return s;
  }
};

} // namespace restcache::http
