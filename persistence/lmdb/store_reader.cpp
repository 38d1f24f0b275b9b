#include "persistence/lmdb/store_reader.hpp"

namespace restcache::lmdb {

store_reader::store_reader(const store& s) : store_(s), txn_(s.begin_read()) {
  txn_.reset();
}

doc_ptr store_reader::get(const doc_key& key) {
  txn_.renew();
  auto found = store_.get(txn_, key);
  txn_.reset();
  return found ? found->doc : nullptr;
}

} // namespace restcache::lmdb
