// SPDX-License-Identifier: Apache-2.0
#include "persistence/pg/wal_stream.hpp"

#include <poll.h>

#include <algorithm>

#include "messages/wal_lsn.hpp"
#include "persistence/pg/connection.hpp"
#include "persistence/pg/statements.hpp"

namespace restcache::pg {

namespace {

/// An identifier as START_REPLICATION takes it, and a string option.
std::string quoted_identifier(const std::string& s) {
  std::string out = "\"";
  for (char c : s)
    out += c == '"' ? std::string{"\"\""} : std::string(1, c);
  return out + "\"";
}

std::string quoted_literal(const std::string& s) {
  std::string out = "'";
  for (char c : s)
    out += c == '\'' ? std::string{"''"} : std::string(1, c);
  return out + "'";
}

int64_t pg_now() {
  auto us = std::chrono::duration_cast<std::chrono::microseconds>(
              std::chrono::system_clock::now().time_since_epoch())
              .count();
  return pgoutput::pg_time_of_unix_us(us);
}

} // namespace

wal_stream::wal_stream(const wal_stream_options& o) : status_interval_(o.status_interval) {
  // expand_dbname: the DSN in place of dbname; replication=database after
  // it, so a DSN cannot turn it off.
  const char* keys[] = {"client_encoding", "fallback_application_name", "dbname", "replication", nullptr};
  const char* vals[] = {"UTF8", "restcache-wal", o.dsn.c_str(), "database", nullptr};
  conn_.reset(PQconnectdbParams(keys, vals, 1));
  if (!conn_ || PQstatus(conn_.get()) != CONNECTION_OK)
    lost("cannot open a replication connection: " + trimmed_message(PQerrorMessage(conn_.get())));
  // The walsender writes values with its session's settings: pinned as the
  // fills pin theirs.
  std::unique_ptr<PGresult, decltype(&PQclear)> set{PQexec(conn_.get(), session_settings_sql), &PQclear};
  if (PQresultStatus(set.get()) != PGRES_COMMAND_OK)
    throw error("replication connection: " + trimmed_message(PQerrorMessage(conn_.get())));
  if (o.create != wal_stream_options::create_slot::no) {
    auto create = "CREATE_REPLICATION_SLOT " + quoted_identifier(o.slot)
                  + (o.create == wal_stream_options::create_slot::temporary ? " TEMPORARY" : "")
                  + " LOGICAL pgoutput (SNAPSHOT '" + (o.exported ? "export" : "nothing") + "')";
    if (PQsendQuery(conn_.get(), create.c_str()) != 1)
      lost("CREATE_REPLICATION_SLOT " + o.slot + ": " + trimmed_message(PQerrorMessage(conn_.get())));
    const auto deadline = std::chrono::steady_clock::now() + o.create_wait;
    while (PQisBusy(conn_.get()) == 1) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) {
        // Cancelled, the slot is not made: the walsender drops what it began.
        if (PGcancel* cancel = PQgetCancel(conn_.get())) {
          char why[256];
          PQcancel(cancel, why, sizeof why);
          PQfreeCancel(cancel);
        }
        while (PGresult* r = PQgetResult(conn_.get()))
          PQclear(r);
        throw slot_creation_waits("CREATE_REPLICATION_SLOT " + o.slot + " waited "
                                  + std::to_string(o.create_wait.count())
                                  + " ms for transactions running when it began to end");
      }
      if (wait_readable(left) && PQconsumeInput(conn_.get()) != 1)
        lost("CREATE_REPLICATION_SLOT " + o.slot + ": " + trimmed_message(PQerrorMessage(conn_.get())));
    }
    std::unique_ptr<PGresult, decltype(&PQclear)> made{PQgetResult(conn_.get()), &PQclear};
    while (PGresult* rest = PQgetResult(conn_.get()))
      PQclear(rest);
    if (PQresultStatus(made.get()) != PGRES_TUPLES_OK || PQntuples(made.get()) != 1) {
      const char* state = PQresultErrorField(made.get(), PG_DIAG_SQLSTATE);
      throw error("CREATE_REPLICATION_SLOT " + o.slot + ": " + trimmed_message(PQerrorMessage(conn_.get())),
                  state ? state : "");
    }
    // slot_name, consistent_point, snapshot_name, output_plugin
    consistent_point_ = parse_wal_lsn(PQgetvalue(made.get(), 0, 1)).value_or(0);
    if (o.exported)
      o.exported(PQgetvalue(made.get(), 0, 2));
  }
  auto start = "START_REPLICATION SLOT " + quoted_identifier(o.slot) + " LOGICAL " + format_wal_lsn(o.start_lsn)
               + " (proto_version '1', publication_names " + quoted_literal(quoted_identifier(o.publication))
               + ", messages 'true')";
  std::unique_ptr<PGresult, decltype(&PQclear)> r{PQexec(conn_.get(), start.c_str()), &PQclear};
  if (PQresultStatus(r.get()) != PGRES_COPY_BOTH) {
    const char* state = PQresultErrorField(r.get(), PG_DIAG_SQLSTATE);
    throw error("START_REPLICATION of slot " + o.slot + ": " + trimmed_message(PQerrorMessage(conn_.get())), state ? state : "");
  }
  confirmed_ = o.start_lsn;
  last_status_ = std::chrono::steady_clock::now();
}

void wal_stream::lost(const std::string& what) {
  error e{what};
  e.set_connection_lost(true);
  throw e;
}

bool wal_stream::wait_readable(std::chrono::milliseconds d) {
  pollfd p{PQsocket(conn_.get()), POLLIN, 0};
  int n = ::poll(&p, 1, static_cast<int>(std::max<int64_t>(d.count(), 0)));
  return n > 0;
}

void wal_stream::send_status(bool reply_requested) {
  auto update = pgoutput::status_update(confirmed_, confirmed_, confirmed_, pg_now(), reply_requested);
  if (PQputCopyData(conn_.get(), update.data(), static_cast<int>(update.size())) != 1 || PQflush(conn_.get()) != 0)
    lost("replication stream: cannot send a status update: " + trimmed_message(PQerrorMessage(conn_.get())));
  last_status_ = std::chrono::steady_clock::now();
}

void wal_stream::confirm(uint64_t lsn) {
  if (lsn <= confirmed_)
    return;
  confirmed_ = lsn;
  send_status(false);
}

std::optional<wal_stream::event> wal_stream::next(std::chrono::milliseconds timeout) {
  using clock = std::chrono::steady_clock;
  const auto deadline = clock::now() + timeout;
  for (;;) {
    if (clock::now() - last_status_ >= status_interval_)
      send_status(false);
    char* buf = nullptr;
    int n = PQgetCopyData(conn_.get(), &buf, 1);
    if (n == 0) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock::now());
      auto until_status = std::chrono::duration_cast<std::chrono::milliseconds>(last_status_ + status_interval_
                                                                                 - clock::now());
      if (left.count() <= 0)
        return std::nullopt;
      wait_readable(std::min(left, std::max(until_status, std::chrono::milliseconds{1})));
      if (PQconsumeInput(conn_.get()) == 0)
        lost("replication stream: " + trimmed_message(PQerrorMessage(conn_.get())));
      continue;
    }
    if (n == -1)
      lost("replication stream ended by the server");
    if (n < 0)
      lost("replication stream: " + trimmed_message(PQerrorMessage(conn_.get())));
    std::unique_ptr<char, decltype(&PQfreemem)> owned{buf, &PQfreemem};
    auto frame = pgoutput::decode_frame({buf, static_cast<size_t>(n)});
    if (auto* k = std::get_if<pgoutput::keepalive>(&frame)) {
      server_end_ = std::max(server_end_, k->end);
      if (k->reply_requested)
        send_status(false);
      continue;
    }
    auto& w = std::get<pgoutput::xlog_data>(frame);
    server_end_ = std::max(server_end_, w.end);
    return event{w.start, pgoutput::decode(w.message)};
  }
}

} // namespace restcache::pg
