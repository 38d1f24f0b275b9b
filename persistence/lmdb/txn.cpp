// SPDX-License-Identifier: Apache-2.0
#include "persistence/lmdb/txn.hpp"

#include <utility>

namespace restcache::lmdb {

read_txn::read_txn(const env& e) {
  check(mdb_txn_begin(e.handle(), nullptr, MDB_RDONLY, &txn_), "mdb_txn_begin(read)");
  active_ = true;
}

read_txn::~read_txn() {
  if (txn_)
    mdb_txn_abort(txn_);
}

read_txn::read_txn(read_txn&& other) noexcept
  : txn_(std::exchange(other.txn_, nullptr)), active_(std::exchange(other.active_, false)) {}

read_txn& read_txn::operator=(read_txn&& other) noexcept {
  if (this != &other) {
    if (txn_)
      mdb_txn_abort(txn_);
    txn_ = std::exchange(other.txn_, nullptr);
    active_ = std::exchange(other.active_, false);
  }
  return *this;
}

void read_txn::reset() noexcept {
  if (txn_ && active_) {
    mdb_txn_reset(txn_);
    active_ = false;
  }
}

void read_txn::renew() {
  if (!txn_)
    throw error("mdb_txn_renew", EINVAL);
  if (!active_) {
    check(mdb_txn_renew(txn_), "mdb_txn_renew");
    active_ = true;
  }
}

write_txn::write_txn(const env& e) {
  check(mdb_txn_begin(e.handle(), nullptr, 0, &txn_), "mdb_txn_begin(write)");
}

write_txn::~write_txn() {
  abort();
}

write_txn::write_txn(write_txn&& other) noexcept : txn_(std::exchange(other.txn_, nullptr)) {}

write_txn& write_txn::operator=(write_txn&& other) noexcept {
  if (this != &other) {
    abort();
    txn_ = std::exchange(other.txn_, nullptr);
  }
  return *this;
}

void write_txn::commit() {
  if (!txn_)
    throw error("mdb_txn_commit", EINVAL);
  // mdb_txn_commit frees the handle even when it fails.
  check(mdb_txn_commit(std::exchange(txn_, nullptr)), "mdb_txn_commit");
}

void write_txn::abort() noexcept {
  if (txn_)
    mdb_txn_abort(std::exchange(txn_, nullptr));
}

} // namespace restcache::lmdb
