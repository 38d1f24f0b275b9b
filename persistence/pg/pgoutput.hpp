// SPDX-License-Identifier: Apache-2.0
#pragma once

// The logical replication protocol as PostgreSQL's built-in pgoutput plugin
// writes it (protocol version 1: no streamed in-progress transactions, text
// values), and the streaming replication frames a walsender wraps it in: what
// a change feed reading the WAL through a slot decodes, and the status
// updates it answers with. Plain decoding and encoding, no connection: the
// formats are PostgreSQL 15's "Logical Replication Message Formats" and
// "Streaming Replication Protocol" (big-endian integers, NUL-terminated
// strings).

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace restcache::pg::pgoutput {

/// A message that is not what the protocol says (cut short, an unknown
/// tag, a tag version 1 does not send).
struct decode_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// One column's value in a row: NULL, a TOASTed value the UPDATE left
/// unchanged (not sent), or its text (the type's output function, under the
/// walsender session's settings).
struct value {
  enum class state : uint8_t { null, unchanged, text };
  state is = state::null;
  std::string text;
  bool operator==(const value&) const = default;
};
using row = std::vector<value>;

struct begin {
  uint64_t final_lsn = 0; ///< the transaction's commit record
  int64_t commit_time = 0; ///< microseconds since 2000-01-01
  uint32_t xid = 0;
};

struct commit {
  uint64_t commit_lsn = 0;
  uint64_t end_lsn = 0; ///< past the commit record: where a consumer has read to
  int64_t commit_time = 0;
};

struct origin {
  uint64_t lsn = 0;
  std::string name;
};

/// A table's shape, sent before its first change in a session and again
/// after it changed: later rows are read by these columns' positions.
struct relation {
  struct column {
    std::string name;
    uint32_t type = 0;
    int32_t typmod = -1;
    bool key = false; ///< part of the replica identity
  };
  uint32_t oid = 0;
  std::string schema; ///< "" for pg_catalog
  std::string name;
  char replica_identity = 'd'; ///< pg_class.relreplident: d default, n nothing, f full, i index
  std::vector<column> columns; ///< generated columns are not sent
};

struct type {
  uint32_t oid = 0;
  std::string schema;
  std::string name;
};

struct insert {
  uint32_t relation = 0;
  row new_row;
};

/// An UPDATE: the old row when the replica identity is FULL ('O'), or its
/// key columns when one of them changed ('K', the others NULL); else none.
struct update {
  uint32_t relation = 0;
  std::optional<row> old_row;
  bool old_is_key = false;
  row new_row;
};

/// A DELETE: the old row ('O', identity FULL) or its key columns ('K').
struct remove {
  uint32_t relation = 0;
  row old_row;
  bool old_is_key = false;
};

struct truncate {
  std::vector<uint32_t> relations;
  bool cascade = false;
  bool restart_identity = false;
};

/// pg_logical_emit_message's, with `messages` on.
struct logical_message {
  bool transactional = false;
  uint64_t lsn = 0;
  std::string prefix;
  std::string content;
};

using message = std::variant<begin, commit, origin, relation, type, insert, update, remove, truncate, logical_message>;

/// Decodes one pgoutput message (version 1). Throws decode_error.
message decode(std::string_view bytes);

/// A walsender's CopyData: WAL data carrying one message ('w')...
struct xlog_data {
  uint64_t start = 0; ///< where the data starts (0 for a logical message's)
  uint64_t end = 0;   ///< the server's current end of WAL
  int64_t send_time = 0;
  std::string_view message; ///< into the frame decoded
};
/// ...or a keepalive ('k'), which may ask for a status update at once.
struct keepalive {
  uint64_t end = 0;
  int64_t send_time = 0;
  bool reply_requested = false;
};
using frame = std::variant<xlog_data, keepalive>;

/// Decodes one CopyData of a replication stream. Throws decode_error.
frame decode_frame(std::string_view bytes);

/// A standby status update ('r') as CopyData: written, flushed and applied
/// positions, the client's clock (microseconds since 2000-01-01), and
/// whether the server should answer at once.
std::string status_update(uint64_t written, uint64_t flushed, uint64_t applied, int64_t now, bool reply_requested);

/// Microseconds since 2000-01-01 (PostgreSQL's epoch) of a Unix time in
/// microseconds.
constexpr int64_t pg_time_of_unix_us(int64_t unix_us) noexcept {
  return unix_us - 946'684'800'000'000;
}

} // namespace restcache::pg::pgoutput
