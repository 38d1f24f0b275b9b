// SPDX-License-Identifier: Apache-2.0
#include "persistence/lmdb/env.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <filesystem>

#include "persistence/lmdb/txn.hpp"

// Sync flags, measured 2026-11-30 with a throwaway program (one write txn of
// 10,000 mdb_put of 1,500-byte values, 5-byte keys; first fill of an empty file,
// then the same keys overwritten twice; g++ -O2; ext4 on virtio, 2 cores,
// loadavg 0.3), three runs each, ms:
//   durable (default flags)  first fill 56-231  overwrite 68-77
//   MDB_NOMETASYNC           first fill 55-65   overwrite 70-75
//   MDB_NOSYNC               first fill 14-15   overwrite 32-35
//   MDB_NOSYNC|MDB_WRITEMAP  first fill 82-94   overwrite 10-83
// The default is durable: the batch writer commits one large transaction per
// batch on its own thread, so ~40 ms of fsync per 10,000 records is affordable,
// NOMETASYNC saved nothing measurable here, and a commit that returned is on
// disk. sync_mode::no_sync is there for a host where the fsync hurts: a daemon
// crash still loses nothing (the writes are in the page cache), an OS crash or
// power loss may lose the last commits and, as LMDB's documentation warns for
// MDB_NOSYNC, may even corrupt the file (meta page written before data pages).
// Losing whole commits is harmless for correctness: a commit's deletes
// (invalidations) and its watermark land together, so an undone commit undoes
// its watermark too and the change-log replay re-applies those invalidations.
// MDB_WRITEMAP is not used: erratic here, it stretches the file to the map size
// and lets a stray pointer write corrupt the file.

namespace restcache::lmdb {

namespace fs = std::filesystem;

error::error(const char* op, int code)
  : std::runtime_error(std::string("lmdb ") + op + ": " + mdb_strerror(code)), code_(code) {}

error::error(const char* op, int code, const std::string& what)
  : std::runtime_error(std::string("lmdb ") + op + ": " + what), code_(code) {}

bool is_damaged_file(int code) noexcept {
  switch (code) {
    case MDB_INVALID:          // not an LMDB file (garbage, or cut below its meta pages)
    case MDB_VERSION_MISMATCH: // another LMDB's data or lock file
    case MDB_CORRUPTED:        // a page of the wrong type, or cut short (env's own check)
    case MDB_PAGE_NOTFOUND:
    case MDB_BAD_TXN:
    case MDB_INCOMPATIBLE:
      return true;
    default:
      return false;
  }
}

bool is_out_of_space(int code) noexcept {
  return code == MDB_MAP_FULL || code == ENOSPC || code == EDQUOT;
}

void remove_files(const std::string& dir) {
  std::error_code ec;
  fs::remove(fs::path(dir) / "data.mdb", ec);
  fs::remove(fs::path(dir) / "lock.mdb", ec);
}

env::env(const env_options& opts) : path_(opts.path) {
  fs::create_directories(path_);
  long sys_page = 4096;
  // The map is the hard cap on the file: LMDB answers MDB_MAP_FULL rather than
  // growing past it, and the store evicts at 90% of it, which leaves the other
  // 10% as headroom for copy-on-write pages of the transaction in flight.
  max_bytes_ = std::max(opts.max_bytes, min_bytes);
  map_size_ = max_bytes_ / sys_page * sys_page;
  // A file from a larger budget cannot shrink in place; it is a cache, start over.
  std::error_code ec;
  auto data_file = fs::path(path_) / "data.mdb";
  if (auto size = fs::file_size(data_file, ec); !ec && size > map_size_) {
    fs::remove(data_file);
    dropped_on_open_ = true;
  }

  check(mdb_env_create(&env_), "mdb_env_create");
  try {
    check(mdb_env_set_maxdbs(env_, 5), "mdb_env_set_maxdbs");
    check(mdb_env_set_maxreaders(env_, opts.max_readers), "mdb_env_set_maxreaders");
    check(mdb_env_set_mapsize(env_, map_size_), "mdb_env_set_mapsize");
    // MDB_NOTLS: read transactions belong to their object, not to a thread, so an
    // actor can reset/renew one on whichever worker runs it.
    unsigned flags = MDB_NOTLS;
    switch (opts.sync) {
      case sync_mode::durable: break;
      case sync_mode::no_meta_sync: flags |= MDB_NOMETASYNC; break;
      case sync_mode::no_sync: flags |= MDB_NOSYNC; break;
    }
    check(mdb_env_open(env_, path_.c_str(), flags, 0644), "mdb_env_open");
    // A process killed (SIGKILL, OOM, crash) while it held a read transaction
    // leaves its slot in lock.mdb marked in use, and with MDB_NOTLS a shard's
    // reset read_txn keeps its slot for the life of the process. LMDB rebuilds
    // the reader table only when the opener is alone (its exclusive lock on
    // lock.mdb); if any other process still has the environment open (a tool,
    // a test, a second daemon briefly overlapping a restart), the dead slots
    // stay: they pin the snapshot they held, so freed pages are never reused
    // and the file fills towards MDB_MAP_FULL, and they use up max_readers.
    // mdb_reader_check frees the slots whose process is gone; it is cheap.
    check(mdb_reader_check(env_, &stale_readers_cleared_), "mdb_reader_check");
    MDB_stat st;
    check(mdb_env_stat(env_, &st), "mdb_env_stat");
    page_size_ = st.ms_psize;
    // A file cut short (a copy interrupted, a full disk during a copy, a
    // careless truncate) still opens: LMDB reads only its meta pages. The
    // first read of a page past the end would be a SIGBUS, so check first.
    if (auto need = pages_in_use_by_meta(), have = file_pages(); have < need)
      throw error("mdb_env_open", MDB_CORRUPTED,
                  "data.mdb is cut short: " + std::to_string(have) + " pages of the " + std::to_string(need)
                    + " its meta page names");
    open_databases();
  } catch (...) {
    mdb_env_close(env_);
    throw;
  }
}

env::~env() {
  // Flush what NOSYNC/NOMETASYNC left in the page cache; a clean stop loses nothing.
  mdb_env_sync(env_, 1);
  mdb_env_close(env_);
}

uint64_t env::pages_in_use_by_meta() const {
  MDB_envinfo info;
  check(mdb_env_info(env_, &info), "mdb_env_info");
  return static_cast<uint64_t>(info.me_last_pgno) + 1;
}

uint64_t env::file_pages() const {
  std::error_code ec;
  auto size = fs::file_size(fs::path(path_) / "data.mdb", ec);
  return ec ? 0 : size / page_size_;
}

void env::sync() {
  check(mdb_env_sync(env_, 1), "mdb_env_sync");
}

void env::open_databases() {
  write_txn txn(*this);
  auto open_all = [&] {
    int rc = MDB_SUCCESS;
    for (auto [name, dbi] : {std::pair{"records", &records_}, std::pair{"write_order", &write_order_},
                             std::pair{"meta", &meta_}, std::pair{"rows", &rows_}})
      if ((rc = mdb_dbi_open(txn.handle(), name, MDB_CREATE, dbi)) != MDB_SUCCESS)
        break;
    return rc;
  };
  check(mdb_dbi_open(txn.handle(), nullptr, 0, &main_), "mdb_dbi_open(main)");
  int rc = open_all();
  if (rc == MDB_INCOMPATIBLE) {
    // One of our names is a plain key of some other file's main database.
    check(mdb_drop(txn.handle(), main_, 0), "mdb_drop(main)");
    dropped_on_open_ = true;
    rc = open_all();
  }
  check(rc, "mdb_dbi_open");

  std::array<char, 4> stamp;
  for (int i = 0; i < 4; ++i)
    stamp[i] = char((format_version >> (24 - 8 * i)) & 0xff);
  auto stamp_view = std::string_view(stamp.data(), stamp.size());

  MDB_val k = to_val(meta_key::format), v;
  rc = mdb_get(txn.handle(), meta_, &k, &v);
  if (rc != MDB_SUCCESS && rc != MDB_NOTFOUND)
    throw error("mdb_get(format)", rc);
  if (rc == MDB_SUCCESS && to_view(v) == stamp_view) {
    txn.commit();
    return;
  }
  auto entries = [&](MDB_dbi dbi) {
    MDB_stat st;
    check(mdb_stat(txn.handle(), dbi, &st), "mdb_stat");
    return st.ms_entries;
  };
  if (rc == MDB_SUCCESS || entries(records_) + entries(write_order_) + entries(meta_) + entries(rows_) > 0) {
    // Another format (or an unstamped non-empty file): drop, never serve.
    for (MDB_dbi dbi : {records_, write_order_, meta_, rows_})
      check(mdb_drop(txn.handle(), dbi, 0), "mdb_drop");
    dropped_on_open_ = true;
  }
  MDB_val sv = to_val(stamp_view);
  check(mdb_put(txn.handle(), meta_, &k, &sv, 0), "mdb_put(format)");
  txn.commit();
}

} // namespace restcache::lmdb
