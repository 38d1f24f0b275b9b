// SPDX-License-Identifier: Apache-2.0
#pragma once

// Drift: what the cached documents' correctness depends on in the database's
// catalog, which administrators change without restcache being told. A
// document may be cached only while every table its statement reads has
// restcache's triggers, as generated and enabled ALWAYS (else a change can
// commit without a log entry), and every column it reads (else its query
// fails or reads something else). And whenever any of that may have changed
// unseen (a trigger disabled and enabled again, a column's type altered: a
// rewrite fires no row trigger, a table recreated or swapped by RENAME, the
// log truncated, row-level security or a policy changed, a table made to
// inherit from it), what was cached before cannot be vouched for; nor when
// what a kind's statements depend on besides rows was redefined (a view, a
// function, an enum's values, a column's type: kind_check.hpp finds them).
// Nothing else a DDL does (a comment, an index, a column no document reads)
// makes a cached document old, so nothing else is in it.
//
// So the check is two things: problems (per table; the kinds reading it are
// bypassed while any remains), and a fingerprint of the catalog rows
// involved (their oids and the xmin of their catalog rows, which every
// ALTER, ENABLE or DISABLE renews), which is compared with the last one to
// see that something changed between two checks.
//
// Reading the facts needs PostgreSQL (read_catalog_facts); judging them is
// plain C++ (judge_catalog, fingerprint_changes), tested without a server.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "messages/doc_catalogue.hpp"
#include "messages/feed_kind.hpp"
#include "persistence/pg/connection.hpp"
#include "persistence/pg/kind_check.hpp"

namespace restcache::pg {

/// One of restcache's triggers on a table, as the catalog has it.
struct trigger_facts {
  bool present = false;
  /// "<trigger oid>/<its row's xmin>/<function oid>/<its row's xmin>".
  std::string id;
  char enabled = 0;          ///< pg_trigger.tgenabled: O origin, D disabled, R replica, A always
  int type = 0;              ///< pg_trigger.tgtype
  bool conditional = false;  ///< a WHEN clause or a column list
  bool calls_generated = false; ///< its function is the one restcache generates for it
  bool source_current = false;  ///< that function is as restcache would generate it now
};

/// A column a document reads: "" when missing, else
/// "<attnum>/<type oid>/<typmod>/<its row's xmin>".
struct column_facts {
  std::string name;
  std::string id;
};

/// A partition or inheriting table of a watched table (at any level): a
/// read of the table reads its rows too.
struct descendant_facts {
  std::string name; ///< schema.table
  std::string oid;
  bool partition = false;  ///< its row trigger is the clone of the table's
  bool watched = false;    ///< watched itself: its trigger logs its own keys
  trigger_facts changed;   ///< restcache_changed, calling the watched table's function
  trigger_facts truncated; ///< restcache_truncated (PostgreSQL clones no statement trigger)
};

/// A watched table or one of its descendants as the WAL feed needs it
/// (read only for that feed): in the publication, and with a replica
/// identity that carries the old value of every watched key column.
struct wal_relation_facts {
  std::string name; ///< schema.table
  std::string oid;
  bool partitioned = false; ///< its changes are its partitions'
  bool published = false;   ///< its changes are in the publication (a partition's through its root)
  char identity = 'd';      ///< pg_class.relreplident
  std::vector<std::string> identity_lacks; ///< watched key columns its identity does not carry
  std::string identity_columns; ///< its identity index's or primary key's columns, by '+', in column order
};

struct table_facts {
  std::string name;      ///< as asked (as the statements name it)
  bool exists = false;
  std::string qualified; ///< schema.table, as PostgreSQL resolved the name
  std::string oid;
  trigger_facts changed;   ///< restcache_changed (rows)
  trigger_facts truncated; ///< restcache_truncated (TRUNCATE)
  std::vector<column_facts> columns; ///< in the order asked
  std::vector<std::string> watched;  ///< its restcache_watched_key rows, "<key space>:<column>"
  /// What decides which of its rows a reader sees, besides the rows:
  /// "<row security>/<forced>/<policies' oid:xmin>" (the tables whose rows
  /// it reads besides its own are its descendants).
  std::string rows_seen;
  std::vector<descendant_facts> descendants; ///< in oid order
  std::vector<wal_relation_facts> wal; ///< the table, then its descendants; WAL feed only
};

/// The WAL feed's own facts: the feed the database records and restcache's
/// publication ("<oid>:<xmin>", empty when missing).
struct wal_feed_facts {
  std::string recorded_feed;
  std::string publication;
  bool publishes_all = false; ///< insert, update, delete and truncate
  bool via_root = false;      ///< publish_via_partition_root (a partition's TRUNCATE is not sent then)
};

/// What a kind's statements depend on besides rows, as the catalog has it
/// now: per object of its kind_dependencies "<object>@<identity>" (a view's
/// rules, a function's or operator's row, a column's type, typmod and row, a
/// type's row, an enum's values: each with the xmin every redefinition
/// renews; "-" for one gone), joined by ','. "?" when not known.
struct kind_facts {
  std::string kind;
  std::string identity;
};

struct catalog_facts {
  /// "<oid>/<relfilenode>" of change_log; empty when it does not exist (a
  /// truncated or recreated log has lost entries no one read).
  std::string log_id;
  std::vector<table_facts> tables; ///< in the order asked
  std::vector<kind_facts> kinds;   ///< in the order of the dependencies asked
  /// The feed the facts were read for: under the WAL's, restcache's
  /// triggers are not wanted, the publication and identities are.
  feed_kind feed = feed_kind::triggers;
  wal_feed_facts wal;
};

/// Reads the facts of `tables` (names resolved by the session's search_path)
/// in one statement, so one snapshot, and of what `kinds` depend on in a
/// second. Throws pg::error when the catalog cannot be read (restcache's
/// functions missing: an older schema).
catalog_facts read_catalog_facts(connection& c, const std::vector<watched_table>& tables,
                                 const std::vector<kind_dependencies>& kinds = {},
                                 feed_kind feed = feed_kind::triggers);

struct table_check {
  std::string name;
  std::vector<std::string> problems; ///< why its kinds may not be cached; empty: none
  uint64_t kinds = 0;                ///< the kinds reading it
};

struct drift_report {
  std::vector<table_check> tables;
  std::vector<std::string> log_problems; ///< concern every kind
  uint64_t drifted = 0;   ///< the kinds with a problem (kind_bit)
  /// Of the log, every table and every kind's dependencies:
  /// "log=<id>;<table>=<oid>|<changed>|<truncated>|<columns>|<rows seen>|<descendants>;...
  /// ;kind:<name>=<identity>;...".
  std::string fingerprint;

  /// Every problem, one phrase each, joined by "; ".
  std::string problems() const;
};

/// Judges the facts read for `tables` (the same list, the same order).
drift_report judge_catalog(const catalog_facts& facts, const std::vector<watched_table>& tables);

/// Whether a fingerprint was read for the WAL feed (it has its part).
inline bool fingerprint_of_wal_feed(std::string_view fingerprint) noexcept {
  return fingerprint.find(";feed=wal") != std::string_view::npos;
}

/// What differs between two fingerprints, one phrase per table (or the log)
/// that changed; empty when they are the same.
std::vector<std::string> fingerprint_changes(std::string_view before, std::string_view after);

/// A fingerprint less what belongs to a feed (restcache's triggers, the
/// publication and the tables' identities in it): what the documents read.
/// Tiers a switch of feed carries over are still vouched for when theirs
/// matches the catalog's now.
std::string fingerprint_of_documents(std::string_view fingerprint);

/// The kinds whose documents a change between two fingerprints may have
/// made old: those reading a table whose part differs; every kind when the
/// log's differs or `before` is empty (nothing known).
uint64_t fingerprint_kinds(std::string_view before, std::string_view after, const std::vector<watched_table>& tables);

/// The kinds reading the watched table `name` ("<schema>.<table>" as the
/// DDL entries name it, or bare), or the kind `name` names as
/// "kind:<name>"; every kind when it is not one of them.
uint64_t kinds_of_table(const std::vector<watched_table>& tables, std::string_view name);

} // namespace restcache::pg
