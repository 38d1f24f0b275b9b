// SPDX-License-Identifier: Apache-2.0
#pragma once

// What the WAL feed needs of a database, and what it changes there: the
// server's settings and the role's rights (read_wal_readiness, for
// restcache-load --plan and the choice of --feed=auto), the watched tables'
// replica identities (an UPDATE or DELETE must carry the old value of every
// watched key column: an employee moved to another department names its old
// department only so), and the feed recorded in the database
// (restcache_feed), with the publication restcache_install_triggers keeps.
// Blocking libpq calls; restcache-load and the listener run them.

#include <chrono>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "messages/feed_kind.hpp"
#include "persistence/pg/connection.hpp"

namespace restcache::pg {

/// The publication the WAL feed streams (schema.sql, restcache_publish_watched).
inline constexpr const char* feed_publication = "restcache";
/// The prefix of the logical messages restcache emits (restcache_log_keys).
inline constexpr const char* feed_message_prefix = "restcache";

/// What the server and the role offer the WAL feed.
/// A table's replica identity's columns, by number and name in its column
/// order: its identity index's under REPLICA IDENTITY USING INDEX, else its
/// primary key's (what DEFAULT sends, and what FULL goes back to); empty
/// when it has neither. What the WAL feed names a changed row by.
std::vector<std::pair<int, std::string>> identity_columns(connection& c, int64_t table_oid);

struct wal_readiness {
  std::string wal_level;          ///< the setting
  bool replication = false;       ///< the role may open a replication connection (REPLICATION or superuser)
  bool may_publish = false;       ///< it may create a publication (CREATE on the database, or superuser)
  std::vector<std::string> not_owned; ///< watched tables it does not own (publication, identity)
  int free_slots = 0;             ///< max_replication_slots minus the slots that exist
  bool unlimited_keep = false;    ///< max_slot_wal_keep_size = -1: a stopped instance's slot holds WAL without bound
  /// What keeps the WAL feed out, one line each; empty: it may be installed.
  std::vector<std::string> lacks() const;
  bool ready() const { return lacks().empty(); }
};

/// Reads the settings and the role's rights, and which of `tables` (names
/// as to_regclass resolves them) the role does not own, in one statement.
wal_readiness read_wal_readiness(connection& c, const std::vector<std::string>& tables);

/// A watched table (or one of its partitions or inheriting tables, whose
/// changes are published under their own names) whose replica identity does
/// not carry every watched key column of its table.
struct identity_change {
  std::string table;               ///< schema-qualified, quoted
  char identity = 'd';             ///< pg_class.relreplident now
  std::vector<std::string> missing; ///< the key columns its identity lacks
  std::string why() const;         ///< for --plan and the drift log
};

/// The tables that need REPLICA IDENTITY FULL for the WAL feed: of the
/// watched keys restcache_watched_key holds, or of those given (table names
/// as to_regclass resolves them, one key column each, pairwise), less the
/// key columns whose every reading kind of the installed catalogue knows
/// its rows of the table (table_read::row_columns): a change naming only
/// a row's identity finds their documents.
std::vector<identity_change> identity_changes(connection& c);
/// The watched key columns (table as the kinds read it, column) whose every
/// reading kind of the installed catalogue knows its rows of the table.
std::vector<std::pair<std::string, std::string>> keys_known_by_rows();
std::vector<identity_change> identity_changes(connection& c, const std::vector<std::string>& tables,
                                              const std::vector<std::string>& columns);

/// The feed the database records; nullopt when none is (the triggers'
/// then, as before the feed was a choice).
std::optional<feed_kind> recorded_feed(connection& c);

/// What install_feed changed of the tables' identities.
struct identity_report {
  std::vector<identity_change> set_full; ///< set to FULL
  std::vector<std::string> restored;     ///< FULL no longer needed: back as restcache found them ("emp: DEFAULT")
  bool triggers_retired = false;         ///< the WAL feed's: the trigger feed's row triggers were removed
  std::vector<std::string> readers_left; ///< sessions still reading their log then (pg::trigger_readers)
};

/// In one transaction under the schema lock: records the feed; puts back
/// every identity it set before, then for the WAL feed sets REPLICA
/// IDENTITY FULL where identity_changes says so (recording each table's
/// identity as found, for --uninstall); then installs what the feed needs:
/// the triggers (recording, on a switch, where their log takes over), or
/// the publication. For the WAL feed, in a second transaction, the row
/// triggers go once no instance reads their log, or `readers_wait` has
/// passed (pg::retire_triggers). The connection must not be in a
/// transaction. Throws pg::error.
identity_report install_feed(connection& c, feed_kind feed,
                             std::chrono::milliseconds readers_wait = std::chrono::seconds{60});

/// The feed `choice` gives this database: auto is the WAL when the
/// readiness allows it, else the triggers.
feed_kind resolve_feed(feed_choice choice, const wal_readiness& r);

} // namespace restcache::pg
