// SPDX-License-Identifier: Apache-2.0
#include "app/startup.hpp"

#include <sys/resource.h>

#include <stdexcept>

#include <spdlog/spdlog.h>

#include "declarations/declaration_file.hpp"
#include "demo/demo_routes.hpp"
#include "http/action_routes.hpp"
#include "persistence/lmdb/store.hpp"
#include "persistence/pg/connection.hpp"
#include "persistence/pg/wal_feed.hpp"
#include "persistence/pg/kind_check.hpp"
#include "persistence/pg/schema.hpp"
#include "persistence/pg/stored_declarations.hpp"

namespace restcache::startup {

namespace {

lmdb::sync_mode sync_mode_of(lmdb_sync_kind k) {
  switch (k) {
    case lmdb_sync_kind::no_sync: return lmdb::sync_mode::no_sync;
    case lmdb_sync_kind::no_meta_sync: return lmdb::sync_mode::no_meta_sync;
    case lmdb_sync_kind::durable: break;
  }
  return lmdb::sync_mode::durable;
}

} // namespace

namespace {

/// What install_documents installed, and the catalogue it installed: once
/// another is installed (the demo put back by a test), that is served.
struct installed_record {
  installed_documents what;
  const doc_kind_entry* catalogue = nullptr;
};

installed_record& installed() {
  static installed_record record;
  return record;
}

const installed_documents the_demo{true, "", "the demo's documents"};

} // namespace

const installed_documents& documents_installed() {
  const auto& r = installed();
  return r.catalogue != nullptr && r.catalogue == doc_catalogue().data() ? r.what : the_demo;
}

std::optional<pg::stored_declarations> read_applied_declarations(const std::string& dsn) {
  try {
    pg::connection c{dsn};
    return pg::read_stored_declarations(c);
  } catch (const std::exception& e) {
    spdlog::warn("the declarations applied to the database were not read, it is not reachable ({}): a "
                 "documents.file given is served unchecked against them, and the listener compares them once "
                 "it can",
                 e.what());
    return std::nullopt;
  }
}

void install_documents(const daemon_options& o, const std::optional<pg::stored_declarations>& applied) {
  if (o.documents_file.empty() && !applied) {
    demo::install_demo();
    return;
  }
  declarations::declared_kinds declared;
  std::string what;
  if (o.documents_file.empty()) {
    what = "the declarations applied to the database (from " + applied->origin + " at " + applied->applied_at + ")";
    declared = declarations::parse_declarations(applied->source, "the database's " + applied->origin);
  } else {
    what = "documents.file " + o.documents_file;
    declared = declarations::read_declaration_file(o.documents_file);
    if (declared.ok() && applied && declared.source != applied->source)
      throw std::runtime_error(
        "documents.file " + o.documents_file + " is not what was applied to the database (from " + applied->origin
        + " at " + applied->applied_at + "): every instance on a database serves one set of kinds. Apply it "
        "(restcache-load --documents FILE --schema-only) or leave documents.file out to serve the database's");
  }
  if (!declared.ok())
    throw std::runtime_error(what + " is refused:\n" + declared.error_text());
  auto digest = pg::declarations_digest(declared.source);
  try {
    install_catalogue(std::move(declared.kinds));
  } catch (const std::invalid_argument& e) {
    throw std::runtime_error(what + " is refused: " + e.what());
  }
  http::install_action_routes({});
  installed() = {{false, digest, what}, doc_catalogue().data()};
  std::string names;
  for (const auto& k : doc_catalogue())
    names += (names.empty() ? "" : ", ") + k.name + " at " + k.route + "{key}";
  spdlog::info("{}: {}", what, names);
}

void raise_open_file_limit() {
  rlimit lim{};
  if (getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur < lim.rlim_max) {
    lim.rlim_cur = lim.rlim_max;
    setrlimit(RLIMIT_NOFILE, &lim);
  }
}

schema_action check_schema(const std::string& dsn) {
  try {
    pg::connection c{dsn};
    auto version = pg::installed_schema_version(c);
    if (version < pg::schema_version) {
      spdlog::error("the database's restcache schema is {}, this build's is version {}: nothing is cached "
                    "(every document is read from PostgreSQL) until `restcache-load --dsn DSN --schema-only` "
                    "installs it; the daemon installs nothing on the database itself",
                    version == 0 ? std::string{"missing"} : "version " + std::to_string(version),
                    pg::schema_version);
      return schema_action::older;
    }
    if (version > pg::schema_version)
      return schema_action::newer;
    return schema_action::current;
  } catch (const std::exception& e) {
    spdlog::warn("database not reachable at start-up ({}); will keep retrying", e.what());
    return schema_action::unreachable;
  }
}

bool check_documents(const daemon_options& o) {
  const std::string what = documents_installed().what;
  std::vector<pg::kind_refusal> refusals;
  try {
    pg::connection c{o.db_dsn};
    auto checked = pg::check_kinds_and_dependencies(c);
    pg::publish_key_comparisons(checked);
    refusals = std::move(checked.refusals);
  } catch (const std::exception& e) {
    spdlog::warn("{} not checked against the database, which is not reachable ({}); `restcache-load --verify` "
                 "checks them",
                 what, e.what());
    return false;
  }
  // What the database lacks (a dropped column) may come back: the drift
  // check answers those kinds uncached meanwhile, so a restart during a
  // migration still serves the others. A mistake of the file stops it.
  std::string mistakes;
  for (const auto& r : refusals) {
    if (r.missing)
      spdlog::warn("{}: {} (answered uncached until the database has it)", what, r.reason);
    else
      mistakes += "\n" + r.reason;
  }
  if (!mistakes.empty())
    throw std::runtime_error(what + " refused by the database:" + mistakes);
  if (refusals.empty())
    spdlog::info("{} checked against the database: every statement prepares and every table it reads is watched",
                 what);
  return true;
}

void check_feed(const daemon_options& o) {
  auto wanted = parse_feed_choice(o.changelog_feed).value_or(feed_choice::automatic);
  if (wanted == feed_choice::automatic)
    return;
  feed_kind recorded;
  std::vector<std::string> lacks;
  try {
    pg::connection c{o.db_dsn};
    recorded = pg::recorded_feed(c).value_or(feed_kind::triggers);
    if (wanted == feed_choice::wal && recorded != feed_kind::wal) {
      std::vector<std::string> tables;
      for (const auto& t : watched_tables())
        tables.push_back(t.name);
      lacks = pg::read_wal_readiness(c, tables).lacks();
    }
  } catch (const std::exception& e) {
    spdlog::warn("the database's change feed not checked at start-up ({})", e.what());
    return;
  }
  if ((wanted == feed_choice::wal) == (recorded == feed_kind::wal))
    return;
  std::string why = std::string{"changelog.feed is "} + (wanted == feed_choice::wal ? "wal" : "triggers")
                    + " but the database's change feed is " + to_string(recorded)
                    + ": `restcache-load --schema-only --feed=" + (wanted == feed_choice::wal ? "wal" : "triggers")
                    + "` installs it, or changelog.feed = auto follows the database";
  for (const auto& l : lacks)
    why += "; the WAL feed lacks: " + l;
  throw std::runtime_error(why);
}

namespace {

/// Logs what the tier holds; drops records that have no replay watermark.
void log_and_trust(lmdb::store& tier, const daemon_options& o) {
  auto history = tier.history();
  spdlog::info("LMDB tier at {}: {} records, {} MiB in use of {} MiB (lmdb.sync={}), watermark {}, {}",
               o.lmdb_path, tier.count(), tier.bytes() >> 20, o.lmdb_max_bytes >> 20, o.lmdb_sync,
               tier.watermark(), history ? "history of " + describe(*history) : std::string{"no recorded history"});
  if (!tier.dropped_kinds().empty())
    spdlog::warn("LMDB tier: dropped the records of kinds {}: the file's were written by another statement or "
                 "shape of them", tier.dropped_kinds());
  if (tier.watermark() == 0 && tier.count() > 0) {
    spdlog::warn("LMDB tier has records but no replay watermark: dropping them");
    tier.clear();
  }
}

} // namespace

std::shared_ptr<lmdb::store> open_lmdb_tier(const daemon_options& o, tier_status& status) {
  lmdb::env_options lmdb_opts;
  lmdb_opts.path = o.lmdb_path;
  lmdb_opts.max_bytes = static_cast<uint64_t>(o.lmdb_max_bytes);
  lmdb_opts.sync = sync_mode_of(o.sync);
  // Every shard and the writer hold a reader slot; leave room.
  lmdb_opts.max_readers = static_cast<unsigned>(o.cache_shards) + 126;
  auto cannot_open = [&](const std::string& what) -> std::shared_ptr<lmdb::store> {
    auto why = "cannot open '" + o.lmdb_path + "' (lmdb.path): " + what;
    spdlog::error("LMDB tier off: {}; serving from memory and PostgreSQL without it", why);
    status.set(tier_state::off, why);
    return nullptr;
  };
  std::shared_ptr<lmdb::store> tier;
  std::string rebuilt;
  try {
    tier = std::make_shared<lmdb::store>(lmdb_opts);
  } catch (const lmdb::error& e) {
    if (!lmdb::is_damaged_file(e.code()))
      return cannot_open(e.what());
    // A cache may start over; serving a damaged file may not happen.
    spdlog::warn("LMDB tier at {} is damaged ({}): deleting data.mdb and lock.mdb, starting empty", o.lmdb_path,
                 e.what());
    rebuilt = e.what();
    lmdb::remove_files(o.lmdb_path);
    try {
      tier = std::make_shared<lmdb::store>(lmdb_opts);
    } catch (const std::exception& again) {
      return cannot_open(again.what());
    }
  } catch (const std::exception& e) {
    return cannot_open(e.what());
  }
  try {
    log_and_trust(*tier, o);
  } catch (const std::exception& e) { // dropping records it cannot trust failed: it must not serve them
    return cannot_open(e.what());
  }
  if (!rebuilt.empty())
    status.set(tier_state::ok, "open; a damaged file was deleted at start (" + rebuilt + ")");
  else if (tier->environment().dropped_on_open())
    status.set(tier_state::ok, "open; a file of another format was dropped at start");
  else if (!tier->dropped_kinds().empty())
    status.set(tier_state::ok, "open; the records of kinds whose statement or shape changed were dropped at start ("
                                 + tier->dropped_kinds() + ")");
  else
    status.set(tier_state::ok, "open");
  return tier;
}

} // namespace restcache::startup
