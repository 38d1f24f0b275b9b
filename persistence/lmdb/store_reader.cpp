// SPDX-License-Identifier: Apache-2.0
#include "persistence/lmdb/store_reader.hpp"

namespace restcache::lmdb {

store_reader::store_reader(const store& s) : store_(s), txn_(s.begin_read()) {
  txn_.reset();
}

doc_ptr store_reader::get(const doc_key& key) {
  // A read that fails (an environment LMDB gave up on after a failed write
  // of its meta page, a reader slot lost) is a miss: PostgreSQL answers.
  try {
    txn_.renew();
    auto found = store_.get(txn_, key);
    txn_.reset();
    return found ? found->doc : nullptr;
  } catch (const error&) {
    txn_.reset();
    store_.count_read_error();
    return nullptr;
  }
}

} // namespace restcache::lmdb
