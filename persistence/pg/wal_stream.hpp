// SPDX-License-Identifier: Apache-2.0
#pragma once

// A logical replication stream of one slot: a replication connection
// (replication=database) with restcache's session settings (a value's text
// is the same as the triggers and the fills write it), START_REPLICATION of
// the slot through pgoutput (protocol version 1, the publication, logical
// messages on), and the walsender's frames read as they come. Keepalives
// that ask for a reply are answered at once, and a status update goes out at
// least every status_interval, well inside wal_sender_timeout, so a quiet
// stream is not cut off. The server may release the WAL below what the
// consumer confirms: only what it has applied durably.

#include <libpq-fe.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "persistence/pg/connection.hpp"
#include "persistence/pg/pgoutput.hpp"

namespace restcache::pg {

struct wal_stream_options {
  std::string dsn;
  std::string slot;
  std::string publication;
  uint64_t start_lsn = 0; ///< 0: where the slot's confirmed position is
  /// Create the slot on this connection first (pgoutput, no snapshot,
  /// prepared transactions decoded at COMMIT PREPARED): a temporary one
  /// is gone with the connection.
  enum class create_slot : uint8_t { no, temporary, permanent } create = create_slot::no;
  /// How long the creation may wait: a slot is consistent only once every
  /// transaction running when it began (prepared ones too, in any database
  /// of the cluster) has ended. Past it the creation is cancelled and
  /// slot_creation_waits thrown.
  std::chrono::milliseconds create_wait{10'000};
  /// When set, a slot made here exports its snapshot (the database as of
  /// its consistent point), and this is called with the snapshot's name
  /// before streaming starts: only until then may another session import
  /// it (SET TRANSACTION SNAPSHOT).
  std::function<void(const std::string&)> exported;
  std::chrono::milliseconds status_interval{10'000};
};

/// A slot's creation cancelled after create_wait: transactions that were
/// running when it began have not ended (pg::slot_creation_blockers says
/// which).
struct slot_creation_waits : error {
  using error::error;
};

class wal_stream {
public:
  /// Connects and starts streaming. Throws pg::error (connection_lost when
  /// the server cannot be reached).
  explicit wal_stream(const wal_stream_options& options);

  /// One decoded message and the WAL position of the frame that carried it.
  struct event {
    uint64_t lsn = 0;
    pgoutput::message message;
  };

  /// The next message, waiting up to `timeout` (keepalives and status
  /// updates are handled inside); nullopt when none came. Throws pg::error
  /// (connection_lost) when the stream ends or breaks, pgoutput::decode_error
  /// for a message that is not pgoutput's.
  std::optional<event> next(std::chrono::milliseconds timeout);

  /// Reports everything up to `lsn` as applied (written, flushed, applied):
  /// the slot's confirmed position moves there. Never backwards.
  void confirm(uint64_t lsn);

  /// Asks the server for its position at once (a status update that wants
  /// a reply): its keepalive moves server_end().
  void ask_position() { send_status(true); }

  uint64_t confirmed() const noexcept { return confirmed_; }
  /// The slot's consistent point when this connection created it (every
  /// transaction committing after it is streamed whole); 0 otherwise.
  uint64_t consistent_point() const noexcept { return consistent_point_; }
  /// The end of WAL the server last reported (frames and keepalives).
  uint64_t server_end() const noexcept { return server_end_; }

private:
  struct deleter {
    void operator()(PGconn* c) const noexcept { PQfinish(c); }
  };
  std::unique_ptr<PGconn, deleter> conn_;
  std::chrono::milliseconds status_interval_;
  std::chrono::steady_clock::time_point last_status_{};
  uint64_t confirmed_ = 0;
  uint64_t server_end_ = 0;
  uint64_t consistent_point_ = 0;

  void send_status(bool reply_requested);
  /// Waits up to `d` for the socket to be readable; false on timeout.
  bool wait_readable(std::chrono::milliseconds d);
  [[noreturn]] void lost(const std::string& what);
};

} // namespace restcache::pg
