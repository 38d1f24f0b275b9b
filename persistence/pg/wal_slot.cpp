// SPDX-License-Identifier: Apache-2.0
#include "persistence/pg/wal_slot.hpp"

#include <algorithm>

#include "messages/wal_lsn.hpp"

namespace restcache::pg {

std::string slot_name(uint64_t system_identifier, std::string_view instance_id) {
  auto name = "restcache_" + std::to_string(system_identifier) + "_";
  constexpr size_t max_name = 63;
  for (char c : instance_id) {
    if (name.size() == max_name)
      break;
    bool plain = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
    name += plain ? c : (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : '_';
  }
  return name;
}

slot_facts read_slot(connection& c, const std::string& name) {
  auto r = c.exec_params("SELECT s.plugin, s.database, s.temporary, s.active, coalesce(s.active_pid, 0),"
                         " coalesce(s.wal_status, ''), coalesce(s.confirmed_flush_lsn::text, '0/0'),"
                         " pg_current_wal_insert_lsn()::text"
                         " FROM (SELECT 1) one LEFT JOIN pg_replication_slots s ON s.slot_name = $1",
                         {name});
  slot_facts f;
  f.exists = !r.is_null(0, 0);
  f.server_lsn = parse_wal_lsn(r.text(0, 7)).value_or(0);
  if (!f.exists)
    return f;
  f.plugin = std::string{r.text(0, 0)};
  f.database = std::string{r.text(0, 1)};
  f.temporary = r.text(0, 2) == "t";
  f.active = r.text(0, 3) == "t";
  f.active_pid = r.int64(0, 4);
  f.wal_status = std::string{r.text(0, 5)};
  f.confirmed_flush = parse_wal_lsn(r.text(0, 6)).value_or(0);
  return f;
}

namespace {

// The database's restcache slots: logical, pgoutput, named restcache_...
constexpr const char* restcache_slots_where =
  " WHERE s.slot_type = 'logical' AND s.plugin = 'pgoutput' AND s.database = current_database()"
  "   AND s.slot_name LIKE 'restcache\\_%'";

} // namespace

std::vector<slot_census_row> restcache_slots(connection& c) {
  auto r = c.exec(std::string{"SELECT s.slot_name, s.active, s.temporary, coalesce(s.wal_status, ''),"
                              " coalesce(pg_wal_lsn_diff(pg_current_wal_insert_lsn(), s.restart_lsn), 0)::int8,"
                              " coalesce(pg_wal_lsn_diff(pg_current_wal_insert_lsn(), s.confirmed_flush_lsn), 0)::int8"
                              " FROM pg_replication_slots s"}
                  + restcache_slots_where + " ORDER BY 1");
  std::vector<slot_census_row> out;
  for (int i = 0; i < r.rows(); ++i)
    out.push_back({std::string{r.text(i, 0)}, r.text(i, 1) == "t", r.text(i, 2) == "t", std::string{r.text(i, 3)},
                   std::max<int64_t>(r.int64(i, 4), 0), std::max<int64_t>(r.int64(i, 5), 0)});
  return out;
}

std::vector<std::string> drop_idle_restcache_slots(connection& c) {
  // One at a time: a slot an instance takes up meanwhile is refused
  // ("is active"), and stays.
  auto r = c.exec(std::string{"SELECT s.slot_name FROM pg_replication_slots s"} + restcache_slots_where
                  + " AND NOT s.active ORDER BY 1");
  std::vector<std::string> dropped;
  for (int i = 0; i < r.rows(); ++i) {
    std::string name{r.text(i, 0)};
    try {
      c.exec_params("SELECT pg_drop_replication_slot($1)", {name});
      dropped.push_back(std::move(name));
    } catch (const error& e) {
      if (e.connection_lost())
        throw;
    }
  }
  return dropped;
}

void drop_released_slot(connection& c, const std::string& name,
                        const std::function<bool(std::chrono::milliseconds)>& pause) {
  for (int tries = 0;; ++tries) {
    try {
      c.exec_params("SELECT pg_drop_replication_slot($1)", {name});
      return;
    } catch (const error& e) {
      if (e.connection_lost() || tries == 50 || !pause(std::chrono::milliseconds{100}))
        throw;
    }
  }
}

std::string slot_creation_blockers(connection& c) {
  auto r = c.exec("SELECT 'prepared transaction ' || quote_literal(gid) || ' (prepared ' || prepared::text || ' by '"
                  " || owner || ' in ' || database || ')' FROM pg_prepared_xacts"
                  " UNION ALL"
                  " SELECT 'process ' || pid || ' (' || coalesce(nullif(application_name, ''), backend_type, '?')"
                  " || ', in a transaction since ' || coalesce(xact_start::text, '?') || ')'"
                  " FROM pg_stat_activity WHERE backend_xid IS NOT NULL AND pid <> pg_backend_pid()");
  std::string out;
  for (int i = 0; i < r.rows(); ++i)
    out += (out.empty() ? "" : "; ") + std::string{r.text(i, 0)};
  return out.empty() ? "none left now" : out;
}

slot_judgement judge_slot(const slot_facts& f, uint64_t applied, std::string_view database, int64_t own_pid) {
  if (!f.exists)
    return {slot_verdict::missing, "the slot does not exist (dropped, or never made)"};
  if (f.plugin != "pgoutput" || f.database != database)
    return {slot_verdict::foreign, "the slot decodes with " + f.plugin + " for database " + f.database
                                     + ", not pgoutput for " + std::string{database}};
  if (f.active && f.active_pid != own_pid)
    return {slot_verdict::active_elsewhere,
            "the slot is streamed by process " + std::to_string(f.active_pid) + " (another instance?)"};
  if (f.wal_status == "lost")
    return {slot_verdict::lost, "the slot was invalidated: the WAL it needed is gone (max_slot_wal_keep_size)"};
  if (f.confirmed_flush > f.server_lsn)
    return {slot_verdict::ahead_of_server, "the slot confirmed " + format_wal_lsn(f.confirmed_flush)
                                             + ", past the server's WAL at " + format_wal_lsn(f.server_lsn)
                                             + " (an older copy of the data restored)"};
  if (applied > f.server_lsn)
    return {slot_verdict::tiers_ahead_of_server, "the tiers applied the WAL up to " + format_wal_lsn(applied)
                                                   + ", past the server's at " + format_wal_lsn(f.server_lsn)
                                                   + " (an older copy of the data restored)"};
  if (applied != 0 && f.confirmed_flush > applied)
    return {slot_verdict::ahead_of_tiers, "the slot confirmed " + format_wal_lsn(f.confirmed_flush)
                                            + ", past what the tiers applied (" + format_wal_lsn(applied) + ")"};
  return {slot_verdict::usable, {}};
}

} // namespace restcache::pg
