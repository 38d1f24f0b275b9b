// SPDX-License-Identifier: Apache-2.0
#pragma once

// A shard's reader of the LMDB tier: one read transaction, renewed for each
// read and reset right after, so no snapshot pins freed pages between reads.

#include "persistence/lmdb/store.hpp"

namespace restcache::lmdb {

class store_reader final : public tier_reader {
public:
  explicit store_reader(const store& s);
  doc_ptr get(const doc_key& key) override;

private:
  const store& store_;
  read_txn txn_;
};

} // namespace restcache::lmdb
