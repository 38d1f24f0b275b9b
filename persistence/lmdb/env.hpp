// SPDX-License-Identifier: Apache-2.0
#pragma once

// RAII over an LMDB environment: one directory, a byte budget, three named
// databases. Plain C++ over liblmdb (no CAF, no Beast).

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include <lmdb.h>

namespace restcache::lmdb {

/// Every LMDB failure: the operation's name and mdb_strerror(code).
class error : public std::runtime_error {
public:
  error(const char* op, int code);
  /// With a message of its own where mdb_strerror(code) would mislead.
  error(const char* op, int code, const std::string& what);
  int code() const noexcept { return code_; }

private:
  int code_;
};

/// Throws lmdb::error unless rc == MDB_SUCCESS.
inline void check(int rc, const char* op) {
  if (rc != MDB_SUCCESS)
    throw error(op, rc);
}

/// True for the open errors that say the files themselves are damaged or
/// not LMDB's (not LMDB, another LMDB version, a page where none should be,
/// a data file shorter than its own meta page says): a cache may delete
/// them and start empty. Permissions, a full disk or a missing directory
/// are not damage: deleting would not help.
bool is_damaged_file(int code) noexcept;

/// True for a commit that failed for want of space: the map is full
/// (MDB_MAP_FULL) or the file system is (ENOSPC, EDQUOT).
bool is_out_of_space(int code) noexcept;

/// Deletes data.mdb and lock.mdb in `dir` (a damaged environment; nothing
/// of it may be open in this process).
void remove_files(const std::string& dir);

/// Bumped whenever a layout in record_codec.hpp or the meta keys change, or
/// what a stored field means: a file of another format is dropped on open,
/// never served. 2: records carry XXH3-64 ETags (1: FNV-1a 64), and a
/// stored ETag must be the one a write's If-Match is checked against.
/// 3: records keys carry the kind's typed key bytes (an integer in 8
/// bytes), and meta holds the kind registry. 4: records carry their
/// documents' table rows, indexed in the rows database.
inline constexpr uint32_t format_version = 4;

/// How a commit reaches the disk. Measured on this machine (ext4, 2 cores), one
/// write transaction of 10,000 puts of 1.5 KB values; numbers and the choice in env.cpp.
enum class sync_mode : uint8_t {
  /// fsync data and meta page on every commit: a crash loses nothing committed.
  durable,
  /// MDB_NOMETASYNC: data pages fsync'd, the meta page not. An OS crash or power
  /// loss may undo the last commit(s); the file stays consistent. A process crash
  /// loses nothing (the page cache keeps the writes).
  no_meta_sync,
  /// MDB_NOSYNC: no fsync at commit. A process crash loses nothing; an OS crash or
  /// power loss may lose the last commits AND, as LMDB's docs warn, may leave the
  /// file corrupt if the kernel wrote the meta page before the data pages.
  no_sync,
};

struct env_options {
  std::string path;           ///< a directory; created if missing
  uint64_t max_bytes = 0;     ///< budget of the data file; the map never grows past it
  sync_mode sync = sync_mode::durable;
  unsigned max_readers = 126; ///< reader slots (one per live read_txn, MDB_NOTLS)
};

class env {
public:
  /// Smallest budget accepted (smaller values are raised to it): eviction
  /// needs some room for copy-on-write pages.
  static constexpr uint64_t min_bytes = 1 << 20;

  explicit env(const env_options& opts);
  env(std::string path, uint64_t max_bytes) : env(env_options{std::move(path), max_bytes}) {}
  ~env();
  env(const env&) = delete;
  env& operator=(const env&) = delete;

  MDB_env* handle() const noexcept { return env_; }
  MDB_dbi records() const noexcept { return records_; }
  MDB_dbi write_order() const noexcept { return write_order_; }
  MDB_dbi meta() const noexcept { return meta_; }
  MDB_dbi rows() const noexcept { return rows_; } ///< row_hash + records key: the records holding each row
  MDB_dbi main_db() const noexcept { return main_; } ///< holds the named roots

  uint64_t max_bytes() const noexcept { return max_bytes_; }
  uint64_t map_size() const noexcept { return map_size_; }
  unsigned page_size() const noexcept { return page_size_; }
  const std::string& path() const noexcept { return path_; }

  /// True if open found a file of another (or no) format and dropped its contents.
  bool dropped_on_open() const noexcept { return dropped_on_open_; }

  /// Pages the data file must hold by its own meta page: the file is cut
  /// short when it holds fewer (checked on open, before any such page is
  /// touched: reading a page past the end of a mapped file is a SIGBUS).
  uint64_t pages_in_use_by_meta() const;
  /// Pages the data file holds now.
  uint64_t file_pages() const;

  /// Reader slots of dead processes that open released (mdb_reader_check).
  int stale_readers_cleared() const noexcept { return stale_readers_cleared_; }

  /// Flushes everything to disk (also done by the destructor).
  void sync();

private:
  void open_databases();

  MDB_env* env_ = nullptr;
  MDB_dbi records_ = 0;
  MDB_dbi write_order_ = 0;
  MDB_dbi meta_ = 0;
  MDB_dbi rows_ = 0;
  MDB_dbi main_ = 0;
  uint64_t max_bytes_ = 0;
  uint64_t map_size_ = 0;
  unsigned page_size_ = 4096;
  bool dropped_on_open_ = false;
  int stale_readers_cleared_ = 0;
  std::string path_;
};

/// Keys of the meta database.
namespace meta_key {
inline constexpr std::string_view format = "format";         ///< u32 BE format_version
inline constexpr std::string_view watermark = "watermark";   ///< u64 BE replay watermark
/// Text (messages/feed_position.hpp): where the watermark was taken; absent
/// in files of builds before it, which then replay from the watermark.
inline constexpr std::string_view watermark_position = "wm_position";
/// Text: the newest change-log entry the records' history had applied.
inline constexpr std::string_view watermark_witness = "wm_witness";
/// Text: the watched tables' catalog fingerprint the records were kept under.
inline constexpr std::string_view watermark_catalog = "wm_catalog";
inline constexpr std::string_view history = "history";       ///< encode_history: whose history the records are
inline constexpr std::string_view kinds = "kinds";           ///< encode_kind_registry: what wrote each kind's records
inline constexpr std::string_view next_write_seq = "next_wseq"; ///< u64 BE
inline constexpr std::string_view tick = "tick"; ///< u64 BE, a small commit that frees pages
/// Text: this file's instance id, made at first use: names the WAL feed's
/// replication slot (pg/wal_slot.hpp), one per file.
inline constexpr std::string_view instance_id = "instance_id";
} // namespace meta_key

} // namespace restcache::lmdb
