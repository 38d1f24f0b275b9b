// SPDX-License-Identifier: Apache-2.0
#pragma once

// An instance's candidacy for the WAL relay's lead (persistence/pg/
// wal_relay.hpp), on its own thread and connections: while the database's
// feed is the WAL, it tries the relay's advisory lock every second; holding
// it, it streams the relay slot (made when missing, lost, or not matching
// what the table holds), decodes each window of commits as a slot of the
// instance's own would, waits until they are visible to other sessions,
// writes them as one row of wal_relay and confirms the slot there. It prunes
// the table by changelog.retention. A broken connection ends the lead (the
// server releases the lock with the session); so does a switch to the
// triggers, which drops the relay slot. Writers are never involved.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "db/db_metrics.hpp"
#include "db/stop_signal.hpp"
#include "db/wal_watch.hpp"
#include "messages/doc_catalogue.hpp"
#include "persistence/pg/connection.hpp"

namespace restcache {

struct relay_leader_config {
  std::string dsn;
  std::vector<watched_table> watched;
  std::string instance_id;                          ///< named in the head as the leader
  std::chrono::milliseconds window{25};             ///< changelog.poll-interval: commits within go in one row
  std::chrono::seconds retention{86'400};           ///< changelog.retention: rows older are pruned; 0: never
  std::chrono::seconds prune_interval{60};
  std::chrono::milliseconds check_interval{2'000};  ///< changelog.drift-interval: the feed checked
  std::chrono::milliseconds candidate_interval{1'000}; ///< how often a follower tries the lock
  size_t max_keys = 1'000'000;                      ///< keys in one row at most
  std::chrono::milliseconds slot_create_wait{10'000}; ///< changelog.slot-create-wait
};

class wal_relay_leader {
public:
  wal_relay_leader(relay_leader_config cfg, listener_metrics& metrics);
  ~wal_relay_leader(); // stops and joins the thread

private:
  void run();
  /// One try: false when the lock is held elsewhere (or the feed is not
  /// the WAL); true after a lead that ended. Throws on a broken session.
  bool lead(pg::connection& c);

  const relay_leader_config cfg_;
  listener_metrics& metrics_;
  const std::string fingerprint_;
  identities_at_start identities_;
  bool missing_said_ = false; ///< "no relay tables" logged once
  stop_signal stop_;
  std::thread thread_;
};

} // namespace restcache
