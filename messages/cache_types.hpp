// SPDX-License-Identifier: Apache-2.0
#pragma once

// The data that travels between the HTTP edge and the cache actors.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "messages/doc_key.hpp"
#include "messages/errors.hpp"
#include "messages/inline_callback.hpp"

namespace restcache {

/// Which tiers serve GETs (cache.mode).
enum class cache_mode : uint8_t {
  memory, ///< keep documents in the shard
  none,   ///< every GET goes to PostgreSQL (the original service's pass mode)
  tiered, ///< memory, then the LMDB tier, then PostgreSQL
  lmdb,   ///< the LMDB tier, then PostgreSQL (memory tier off)
};

/// Another representation of a document: its body and strong ETag.
struct encoded_variant {
  std::string body;
  std::string etag;
};

/// An encoded document: the exact response body and its strong ETag
/// (a hash of the bytes, quoted, so every instance agrees). Immutable once
/// built and shared, so a cache hit copies nothing.
struct cached_doc {
  std::string body;
  std::string etag;

  /// The table rows it was made from, for the kinds that declare them
  /// (a read's row_columns): "<table>\x1f<identity>" each (row_key()), so
  /// that a change naming only a row's identity (the WAL feed under a
  /// table's default replica identity) finds the documents holding it.
  std::vector<std::string> rows;

  cached_doc() = default;
  cached_doc(std::string b, std::string e) : body(std::move(b)), etag(std::move(e)) {}
  cached_doc(std::string b, std::string e, std::vector<std::string> r)
    : body(std::move(b)), etag(std::move(e)), rows(std::move(r)) {}
  cached_doc(const cached_doc&) = delete;
  cached_doc& operator=(const cached_doc&) = delete;
  ~cached_doc() { delete gzip_.load(std::memory_order_relaxed); }

  /// The gzip representation, once the shard holding the document made it
  /// (and counted it in its budget); nullptr until then. Set once, then
  /// immutable like the rest.
  const encoded_variant* gzip() const noexcept { return gzip_.load(std::memory_order_acquire); }
  /// Keeps `v` as the gzip representation unless one is set already; true
  /// when this call set it.
  bool set_gzip(std::unique_ptr<const encoded_variant> v) const noexcept {
    const encoded_variant* none = nullptr;
    if (!gzip_.compare_exchange_strong(none, v.get(), std::memory_order_acq_rel))
      return false;
    v.release();
    return true;
  }

private:
  mutable std::atomic<const encoded_variant*> gzip_{nullptr};
};
using doc_ptr = std::shared_ptr<const cached_doc>;

/// How a lookup was answered, as the Cache-Status field (RFC 9211) and
/// restcache_cache_answers_total{cache_status} say it. `none`: not a cache
/// answer (an error of the database or of the cache itself).
enum class cache_status : uint8_t {
  none,
  memory,         ///< a hit in the shard's memory
  lmdb,           ///< a hit in the LMDB tier
  stored,         ///< a miss: the fill's answer was kept
  miss,           ///< a miss whose answer was not kept (overtaken by a change, too large)
  collapsed,      ///< a miss that joined a fill in flight
  refresh,        ///< the client's no-cache forced a fill; its answer was kept
  refresh_unkept, ///< the same, not kept
  bypass,         ///< the tiers were bypassed: cache.mode=none, or the listener not caught up
  stale_if_error, ///< PostgreSQL could not answer: a document cached before the listener lost it
  negative,       ///< a remembered "does not exist"
};
inline constexpr size_t cache_status_count = static_cast<size_t>(cache_status::negative) + 1;

/// The Cache-Status field value of each status (empty for none). Fixed
/// strings: clients and the bench compare them as bytes.
constexpr std::string_view cache_status_field(cache_status s) noexcept {
  constexpr std::string_view fields[cache_status_count] = {
    "",
    "restcache; hit; detail=memory",
    "restcache; hit; detail=lmdb",
    "restcache; fwd=uri-miss; stored",
    "restcache; fwd=uri-miss",
    "restcache; fwd=uri-miss; collapsed",
    "restcache; fwd=request; stored",
    "restcache; fwd=request",
    "restcache; fwd=bypass",
    "restcache; hit; detail=stale-if-error",
    "restcache; hit; detail=negative",
  };
  return fields[static_cast<size_t>(s)];
}

/// The label value of each status in restcache_cache_answers_total.
constexpr std::string_view cache_status_label(cache_status s) noexcept {
  constexpr std::string_view labels[cache_status_count] = {
    "none", "memory", "lmdb", "stored", "miss", "collapsed", "refresh", "refresh_unkept",
    "bypass", "stale_if_error", "negative",
  };
  return labels[static_cast<size_t>(s)];
}

/// What a lookup answers: a document, or an error code and no document;
/// how it was answered, and for a stale-if-error answer its age.
struct lookup_result {
  rc_error error = rc_error::none;
  doc_ptr doc;
  cache_status status = cache_status::none;
  /// Seconds since the document was last known to match the database (the
  /// Age field of a stale-if-error answer; 0 otherwise).
  uint32_t age_s = 0;
};

/// Called exactly once per lookup, on a CAF worker thread; it must not block
/// (the HTTP session resumes at once on its own io thread, else posts there).
/// Inline storage: no allocation per lookup.
using reply_callback = inline_callback<void(lookup_result)>;

/// A committed change to the document of `key`, from the change log: its
/// sequence and when it was made (microseconds since the epoch, for the
/// invalidation latency; 0 when unknown).
struct key_change {
  doc_key key;
  uint64_t seq = 0;
  int64_t changed_us = 0;
  /// Several changes to the key were merged into this one (the inbox keeps
  /// the newest sequence): it stands for more than change `seq`.
  bool coalesced = false;
  /// A WAL position on the primary at or past the change's commit (read
  /// after the change was seen; messages/wal_lsn.hpp): a streaming standby
  /// that has replayed this far sees the change. 0: not taken (no standbys
  /// read from).
  uint64_t lsn = 0;
};
using change_batch = std::vector<key_change>;

/// A committed UPDATE or DELETE of a row whose old key columns the change
/// did not carry (the WAL feed under a table's default replica identity
/// sends the old row's identity only): every cached document holding the
/// row (cached_doc::rows) is dropped, and the fills in flight of `kinds`.
struct row_change {
  std::string row;       ///< as cached_doc::rows spells it
  uint64_t kinds = 0;    ///< the kinds whose documents may hold it (kind_bit)
  uint64_t seq = 0;
  int64_t changed_us = 0;
  uint64_t lsn = 0;      ///< as key_change::lsn
};
using row_batch = std::vector<row_change>;

/// A row as cached_doc::rows spells it: the table as the kinds' reads name
/// it and its replica identity's values (its primary key's, in the table's
/// column order), as text, each after a unit separator.
inline std::string row_key(std::string_view table, const std::vector<std::string_view>& identity) {
  std::string out{table};
  for (auto v : identity) {
    out.push_back('\x1f');
    out.append(v);
  }
  return out;
}

} // namespace restcache
