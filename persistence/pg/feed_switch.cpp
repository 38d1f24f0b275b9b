// SPDX-License-Identifier: Apache-2.0
#include "persistence/pg/feed_switch.hpp"

#include <thread>

#include "messages/wal_lsn.hpp"
#include "persistence/pg/schema.hpp"
#include "persistence/pg/yielding_ddl.hpp"

namespace restcache::pg {

namespace {

const std::string key_text = std::to_string(trigger_reader_lock_key);

} // namespace

bool hold_trigger_reader(connection& c) {
  return c.exec_params("SELECT pg_try_advisory_lock_shared($1::int8)", {key_text}).text(0, 0) == "t";
}

void release_trigger_reader(connection& c) {
  c.exec_params("SELECT pg_advisory_unlock_shared($1::int8)", {key_text});
}

std::vector<std::string> trigger_readers(connection& c) {
  auto r = c.exec_params("SELECT 'process ' || l.pid || ' (' || coalesce(nullif(a.application_name, ''), '?')"
                         " || coalesce(', ' || host(a.client_addr), '') || ')'"
                         " FROM pg_locks l LEFT JOIN pg_stat_activity a ON a.pid = l.pid"
                         " WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1"
                         "   AND ((l.classid::int8 << 32) | l.objid::int8) = $1::int8"
                         "   AND l.pid <> pg_backend_pid() ORDER BY l.pid",
                         {key_text});
  std::vector<std::string> out;
  for (int i = 0; i < r.rows(); ++i)
    out.emplace_back(r.text(i, 0));
  return out;
}

std::string exported_snapshot(connection& c, const std::string& name) {
  // SET TRANSACTION SNAPSHOT takes a literal only; the name is the
  // server's own ("00000003-0000001B-1"), quoted all the same.
  std::string literal = "'";
  for (char ch : name)
    literal += ch == '\'' ? std::string{"''"} : std::string(1, ch);
  literal += "'";
  try {
    c.exec("BEGIN ISOLATION LEVEL REPEATABLE READ; SET TRANSACTION SNAPSHOT " + literal);
    auto r = c.exec("SELECT pg_current_snapshot()::text");
    std::string snapshot{r.text(0, 0)};
    c.exec("COMMIT");
    return snapshot;
  } catch (...) {
    rollback_if_in_transaction(c);
    throw;
  }
}

bool triggers_logged(connection& c, const feed_position& p, const std::string& s) {
  return c.exec_params("SELECT restcache_triggers_logged($1::pg_snapshot, $2::pg_snapshot)", {to_text(p), s})
           .text(0, 0)
         == "t";
}

std::optional<switch_point> triggers_switch_point(connection& c) {
  auto r = c.exec("SELECT f.triggers_from::text, f.triggers_from_lsn::text FROM restcache_feed f"
                  " WHERE f.triggers_from IS NOT NULL AND f.triggers_from_lsn IS NOT NULL");
  if (r.rows() != 1)
    return std::nullopt;
  auto snapshot = parse_feed_position(r.text(0, 0));
  auto lsn = parse_wal_lsn(r.text(0, 1));
  if (!snapshot || !lsn)
    return std::nullopt;
  return switch_point{*snapshot, *lsn};
}

retirement retire_triggers(connection& c, std::chrono::milliseconds readers_wait) {
  using namespace std::chrono_literals;
  retirement out;
  const auto until = std::chrono::steady_clock::now() + readers_wait;
  for (;;) {
    bool alone = false;
    yielding_to_writers([&] {
      begin_yielding_ddl(c);
      try {
        // Exclusive for the transaction: a reader starting meanwhile finds
        // it taken and knows the triggers are going.
        alone = c.exec_params("SELECT pg_try_advisory_xact_lock($1::int8)", {key_text}).text(0, 0) == "t";
        if (!alone && std::chrono::steady_clock::now() < until) {
          c.exec("ROLLBACK");
          return;
        }
        if (!alone)
          out.readers = trigger_readers(c);
        out.retired = c.exec("SELECT restcache_retire_triggers()").text(0, 0) == "t";
        c.exec("COMMIT");
        alone = true; // done
      } catch (...) {
        rollback_if_in_transaction(c);
        throw;
      }
    });
    if (alone)
      return out;
    std::this_thread::sleep_for(100ms);
  }
}

} // namespace restcache::pg
