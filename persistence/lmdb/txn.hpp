// SPDX-License-Identifier: Apache-2.0
#pragma once

// RAII transactions. Move-only; a moved-from object owns nothing.

#include <string_view>

#include <lmdb.h>

#include "persistence/lmdb/env.hpp"

namespace restcache::lmdb {

inline MDB_val to_val(std::string_view s) noexcept {
  return MDB_val{s.size(), const_cast<char*>(s.data())};
}
inline std::string_view to_view(const MDB_val& v) noexcept {
  return {static_cast<const char*>(v.mv_data), v.mv_size};
}

/// A read-only snapshot. The env is opened with MDB_NOTLS, so a read_txn is not
/// tied to its thread: an actor may keep one, reset() it after each use (which
/// releases the snapshot so writers can reuse pages) and renew() it before the
/// next use, from whichever worker thread runs the actor. Bytes read through it
/// are valid only until reset()/destruction; copy them out.
class read_txn {
public:
  explicit read_txn(const env& e);
  ~read_txn();
  read_txn(read_txn&& other) noexcept;
  read_txn& operator=(read_txn&& other) noexcept;
  read_txn(const read_txn&) = delete;
  read_txn& operator=(const read_txn&) = delete;

  /// Releases the snapshot, keeps the reader slot. No-op if already reset.
  void reset() noexcept;
  /// Takes a fresh snapshot. No-op if active.
  void renew();
  bool active() const noexcept { return active_; }

  MDB_txn* handle() const noexcept { return txn_; }

private:
  MDB_txn* txn_ = nullptr;
  bool active_ = false;
};

/// The one write transaction (LMDB serialises writers; don't open two on one
/// thread). Aborted by the destructor unless committed.
class write_txn {
public:
  explicit write_txn(const env& e);
  ~write_txn();
  write_txn(write_txn&& other) noexcept;
  write_txn& operator=(write_txn&& other) noexcept;
  write_txn(const write_txn&) = delete;
  write_txn& operator=(const write_txn&) = delete;

  /// Throws lmdb::error (e.g. MDB_MAP_FULL); the transaction is gone either way.
  void commit();
  void abort() noexcept;

  MDB_txn* handle() const noexcept { return txn_; }

private:
  MDB_txn* txn_ = nullptr;
};

} // namespace restcache::lmdb
