// SPDX-License-Identifier: Apache-2.0
// restcache-load: applies the restcache schema and loads demo data.
//
//   restcache-load [--dsn DSN] [--schema-only] [--plan] [--verify] [--depts N] [--emps-per-dept K]
//                  [--batch B] [--if-empty] [--uninstall] [--drop-idle-slots] [--documents FILE]
//                  [--feed auto|wal|triggers]
//                  [--openapi] [--version]
//                  [--help]
//
// Exit status: 0 done (or nothing to do), 1 database error, 2 bad arguments.

#include <unistd.h>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "declarations/declaration_file.hpp"
#include "demo/demo_catalogue.hpp"
#include "demo/demo_routes.hpp"
#include "http/openapi_document.hpp"
#include "persistence/pg/catalog_drift.hpp"
#include "persistence/pg/connection.hpp"
#include "demo/data_generator.hpp"
#include "persistence/pg/kind_check.hpp"
#include "persistence/pg/schema.hpp"
#include "persistence/pg/stored_declarations.hpp"
#include "persistence/pg/wal_feed.hpp"
#include "persistence/pg/wal_slot.hpp"
#include "tools/cli_args.hpp"

namespace pg = restcache::pg;
namespace demo = restcache::demo;

namespace {

constexpr const char* usage_text =
  "usage: restcache-load [--dsn DSN] [--schema-only] [--plan] [--verify] [--depts N] [--emps-per-dept K]\n"
  "                      [--batch B] [--if-empty] [--uninstall] [--drop-idle-slots] [--documents FILE]\n"
  "                      [--feed auto|wal|triggers]\n"
  "                      [--openapi] [--version] [--help]\n";

constexpr const char* help_text =
  "\n"
  "Applies the restcache schema to a PostgreSQL database (idempotent), then loads\n"
  "demo data: departments 1..N with K employees each, generated inside PostgreSQL,\n"
  "one transaction per batch. A rerun resumes after the highest existing\n"
  "department, so an interrupted load can simply be started again. The load\n"
  "bypasses the change triggers and then empties the change log.\n"
  "\n"
  "  --dsn DSN           libpq connection string or URI, e.g.\n"
  "                      'host=127.0.0.1 port=5432 user=restcache dbname=restcache'\n"
  "                      (default: libpq defaults and the PG* environment variables)\n"
  "  --schema-only       apply the schema and load nothing: installs restcache's\n"
  "                      objects (and the demo's empty tables, without\n"
  "                      --documents), or repairs its triggers where\n"
  "                      administration undid them (a daemon never installs\n"
  "                      anything itself)\n"
  "  --plan              change nothing: print what --schema-only would install\n"
  "                      (the kinds checked against the database, the schema,\n"
  "                      the demo's tables without --documents, the watched keys)\n"
  "  --verify            change nothing: report the schema version, the event\n"
  "                      triggers, per watched table what the daemons' drift\n"
  "                      check finds, and the kinds checked against the database\n"
  "                      (exit status 3 when anything needs repair)\n"
  "  --depts N           departments wanted in total (default 10000; k and M\n"
  "                      suffixes allowed: 10M = 10000000)\n"
  "  --emps-per-dept K   employees per department (default 10)\n"
  "  --batch B           departments per transaction (default 50000)\n"
  "  --if-empty          load only when the dept table is empty\n"
  "  --documents FILE    the declaration file the daemons serve (documents.file):\n"
  "                      --schema-only checks its kinds against the database,\n"
  "                      then watches the tables they read (nothing is installed\n"
  "                      for a refused file), --verify checks them, --openapi\n"
  "                      describes them (default: the demo's kinds); only with\n"
  "                      one of those three\n"
  "  --feed FEED         how the daemons learn of committed changes (with\n"
  "                      --schema-only or a load; --plan says what it would do):\n"
  "                      wal: each instance streams its own logical replication\n"
  "                      slot (needs wal_level = logical, a role that may\n"
  "                      replicate and create a publication, and owns the\n"
  "                      watched tables; nothing runs in the writers'\n"
  "                      transactions); triggers: generated row triggers append\n"
  "                      to a change log the daemons poll; auto (the default\n"
  "                      for a first install): the WAL when the database allows\n"
  "                      it, else the triggers. Without --feed a database keeps\n"
  "                      the feed it has (the triggers for one installed by a\n"
  "                      build before the choice)\n"
  "  --switch-wait SECONDS  on a switch from the triggers to the WAL, how long\n"
  "                      to wait for the running instances to move (each carries\n"
  "                      its tiers across) before the triggers are removed\n"
  "                      anyway: an instance still reading their log then is\n"
  "                      bypassed and drops its tiers (default 60)\n"
  "  --openapi           print the OpenAPI document of the kinds (the demo's, with\n"
  "                      its writes, or those of --documents FILE) and exit;\n"
  "                      needs no database\n"
  "  --uninstall         remove what restcache installed (the change triggers and\n"
  "                      functions, change_log and its sequence,\n"
  "                      change_log_horizon, change_log_digest,\n"
  "                      restcache_watched_key, restcache_feed, the publication\n"
  "                      restcache, restcache_schema, the WAL feed's slots no\n"
  "                      process streams), put back each replica\n"
  "                      identity the WAL feed changed, and nothing else:\n"
  "                      dept and emp keep their rows. Stop the\n"
  "                      daemons first (they answer from PostgreSQL, uncached,\n"
  "                      until it is installed again)\n"
  "  --drop-idle-slots   drop the database's restcache slots (restcache_...) that\n"
  "                      no process streams: those of instances stopped for good\n"
  "                      or retired with their LMDB files, which hold WAL on the\n"
  "                      server until dropped (restcache_wal_slot_active says\n"
  "                      which); an instance started again after its slot was\n"
  "                      dropped makes a new one and drops its tiers\n"
  "  --version           print the version (the same as restcached --version)\n"
  "  -h, --help          show this help\n"
  "\n"
  "Progress goes to stderr. Exit status: 0 done, 1 database error, 2 bad arguments,\n"
  "3 --verify found something to repair, or --plan's kinds are refused.\n";

struct args {
  std::string dsn;
  bool schema_only = false;
  bool verify = false;
  bool plan = false;
  bool uninstall = false;
  bool drop_idle_slots = false;
  bool openapi = false;
  bool help = false;
  std::string documents; ///< a declaration file; empty: the demo's kinds
  std::optional<restcache::feed_choice> feed; ///< --feed; none: the database's, else auto
  int64_t switch_wait_s = 60; ///< --switch-wait
  demo::load_options load;
};

[[noreturn]] void usage_error(const std::string& msg) {
  std::fprintf(stderr, "restcache-load: %s\n%s", msg.c_str(), usage_text);
  std::fprintf(stderr, "Try 'restcache-load --help' for more information.\n");
  std::exit(2);
}

/// A non-negative integer with an optional k/K (1,000) or m/M (1,000,000)
/// suffix; anything else is a usage error.
int64_t parse_count(std::string_view opt, std::string_view s, int64_t min, int64_t max) {
  int64_t factor = 1;
  std::string_view digits = s;
  if (!digits.empty()) {
    switch (digits.back()) {
      case 'k': case 'K': factor = 1'000; digits.remove_suffix(1); break;
      case 'm': case 'M': factor = 1'000'000; digits.remove_suffix(1); break;
      default: break;
    }
  }
  int64_t v = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  bool ok = !digits.empty() && ec == std::errc{} && end == digits.data() + digits.size()
            && v <= std::numeric_limits<int64_t>::max() / factor;
  if (ok)
    v *= factor;
  if (!ok || v < min || v > max)
    usage_error("invalid value for " + std::string{opt} + ": '" + std::string{s}
                + "' (expected an integer in " + std::to_string(min) + ".."
                + std::to_string(max) + ")");
  return v;
}

args parse_args(int argc, char** argv) {
  args a;
  restcache::tools::cli_args cli{argc, argv, usage_error};
  while (cli.next()) {
    const std::string_view arg = cli.name();
    auto value = [&] { return cli.value(); };
    auto flag = [&] { cli.flag(); };
    constexpr int64_t int4_max = std::numeric_limits<int32_t>::max();
    if (arg == "-h" || arg == "--help") {
      flag();
      a.help = true;
    } else if (arg == "--version") {
      flag();
      restcache::tools::print_version_and_exit();
    } else if (arg == "--dsn") {
      a.dsn = std::string{value()};
    } else if (arg == "--schema-only") {
      flag();
      a.schema_only = true;
    } else if (arg == "--plan") {
      flag();
      a.plan = true;
    } else if (arg == "--verify") {
      flag();
      a.verify = true;
    } else if (arg == "--uninstall") {
      flag();
      a.uninstall = true;
    } else if (arg == "--drop-idle-slots") {
      flag();
      a.drop_idle_slots = true;
    } else if (arg == "--openapi") {
      flag();
      a.openapi = true;
    } else if (arg == "--documents") {
      a.documents = std::string{value()};
    } else if (arg == "--feed") {
      auto v = value();
      a.feed = restcache::parse_feed_choice(v);
      if (!a.feed)
        usage_error("--feed takes auto, wal or triggers, not '" + std::string{v} + "'");
    } else if (arg == "--switch-wait") {
      a.switch_wait_s = parse_count(arg, value(), 0, 86'400);
    } else if (arg == "--if-empty") {
      flag();
      a.load.only_if_empty = true;
    } else if (arg == "--depts") {
      a.load.depts = parse_count(arg, value(), 0, int4_max);
    } else if (arg == "--emps-per-dept") {
      a.load.emps_per_dept = static_cast<int32_t>(parse_count(arg, value(), 0, int4_max));
    } else if (arg == "--batch") {
      a.load.batch_depts = parse_count(arg, value(), 1, int4_max);
    } else {
      usage_error(arg.rfind("-", 0) == 0 ? "unknown option '" + std::string{arg} + "'"
                                         : "unexpected argument '" + std::string{arg} + "'");
    }
  }
  if (!a.documents.empty() && !a.schema_only && !a.verify && !a.openapi && !a.plan)
    usage_error("--documents goes with --plan, --schema-only, --verify or --openapi: the data it loads is the "
                "demo's");
  if (a.load.depts * int64_t{a.load.emps_per_dept} > std::numeric_limits<int32_t>::max())
    usage_error(std::to_string(a.load.depts) + " departments x "
                + std::to_string(a.load.emps_per_dept)
                + " employees exceed the int4 range of empno (2147483647)");
  return a;
}

std::string human_duration(double secs) {
  if (!std::isfinite(secs) || secs < 0)
    return "?";
  auto s = static_cast<int64_t>(secs + 0.5);
  char buf[32];
  if (s >= 3600)
    std::snprintf(buf, sizeof(buf), "%lldh%02lldm", static_cast<long long>(s / 3600),
                  static_cast<long long>(s % 3600 / 60));
  else if (s >= 60)
    std::snprintf(buf, sizeof(buf), "%lldm%02llds", static_cast<long long>(s / 60),
                  static_cast<long long>(s % 60));
  else
    std::snprintf(buf, sizeof(buf), "%llds", static_cast<long long>(s));
  return buf;
}

/// Reports load progress on stderr: one line rewritten in place on a
/// terminal, else one line per tenth of the work (for logs and CI).
class progress_printer {
public:
  progress_printer(int64_t already, int64_t total)
    : tty_(isatty(STDERR_FILENO) == 1), already_(already), total_(total) {
    // nop
  }

  void operator()(const demo::load_progress& p) {
    int64_t done_now = p.depts_done - already_;     // departments of this run
    int64_t todo_now = total_ - already_;
    int64_t rows = done_now + p.emps_inserted;
    double rate = p.seconds > 0 ? static_cast<double>(rows) / p.seconds : 0;
    double dept_rate = p.seconds > 0 ? static_cast<double>(done_now) / p.seconds : 0;
    double eta = dept_rate > 0 ? static_cast<double>(total_ - p.depts_done) / dept_rate : NAN;
    double pct = total_ > 0 ? 100.0 * static_cast<double>(p.depts_done)
                                / static_cast<double>(total_)
                            : 100.0;
    char line[200];
    std::snprintf(line, sizeof(line),
                  "restcache-load: %lld/%lld depts (%.1f%%), %.0f rows/s, elapsed %s, ETA %s",
                  static_cast<long long>(p.depts_done), static_cast<long long>(total_), pct, rate,
                  human_duration(p.seconds).c_str(), human_duration(eta).c_str());
    if (tty_) {
      std::fprintf(stderr, "\r%s\033[K", line);
      line_open_ = true;
    } else {
      int decile = todo_now > 0 ? static_cast<int>(10 * done_now / todo_now) : 10;
      if (decile > last_decile_ || p.depts_done >= total_) {
        last_decile_ = decile;
        std::fprintf(stderr, "%s\n", line);
      }
    }
    std::fflush(stderr);
  }

  /// Ends the in-place line before anything else is printed.
  void finish() {
    if (line_open_) {
      std::fputc('\n', stderr);
      line_open_ = false;
    }
  }

private:
  bool tty_;
  int64_t already_;
  int64_t total_;
  int last_decile_ = 0;
  bool line_open_ = false;
};

} // namespace

/// The declarations applied to the database, and whether `source` (a
/// file's text; empty for the demo) is them.
void print_applied_declarations(pg::connection& c, const std::string& source, bool would_apply) {
  auto applied = pg::read_stored_declarations(c);
  if (!applied) {
    std::printf("declarations: none applied (each instance serves its documents.file, or the demo)%s\n",
                would_apply ? "; would apply this file's" : "");
    return;
  }
  std::printf("declarations: applied from %s at %s (digest %s)", applied->origin.c_str(), applied->applied_at.c_str(),
              applied->digest.c_str());
  if (!source.empty()) {
    std::string verdict = applied->source == source ? ", this file's"
                          : would_apply ? "; would apply this file's instead (digest " + pg::declarations_digest(source) + ")"
                                        : ", not this file's";
    std::printf("%s", verdict.c_str());
  }
  std::printf("\n");
}

/// --plan: what --schema-only would install, changing nothing; exit status 3
/// when the kinds are refused (it would install nothing then).
/// The demo's tables the database lacks (--schema-only creates them).
std::vector<const char*> missing_demo_tables(pg::connection& c) {
  std::vector<const char*> missing;
  for (const char* table : {"dept", "emp"})
    if (c.exec_params("SELECT to_regclass($1) IS NULL", {table}).text(0, 0) == "t")
      missing.push_back(table);
  return missing;
}

void plan_feed(pg::connection& c, const std::optional<restcache::feed_choice>& choice);

int plan(pg::connection& c, bool demo, const std::string& source,
         const std::optional<restcache::feed_choice>& feed) {
  std::vector<const char*> demo_tables; // the demo's, missing: --schema-only creates them
  if (demo)
    demo_tables = missing_demo_tables(c);
  std::vector<pg::kind_refusal> refused;
  if (!demo_tables.empty()) {
    std::printf("kinds: the demo's, checked once its tables exist\n");
  } else {
    refused = pg::check_kinds(c);
    std::printf("kinds: %s\n", refused.empty() ? "every statement prepares and every table it reads is watched "
                                                 "once installed"
                                               : "refused: --schema-only installs nothing");
  }
  for (const auto& r : refused)
    std::printf("  - %s\n", r.reason.c_str());
  auto version = pg::installed_schema_version(c);
  if (version == pg::schema_version)
    std::printf("schema: version %d in place (its functions are replaced as they are)\n", version);
  else
    std::printf("schema: would install version %d (the database has %s)\n", pg::schema_version,
                version == 0 ? "none" : ("version " + std::to_string(version)).c_str());
  for (const char* table : demo_tables)
    std::printf("demo: would create table %s\n", table);
  const bool has_keys = c.exec("SELECT to_regclass('restcache_watched_key') IS NOT NULL").text(0, 0) == "t";
  int added = 0;
  for (const auto& [table, space, column] : pg::catalogue_watch_rows()) {
    bool present = has_keys && c.exec_params("SELECT count(*) FROM restcache_watched_key WHERE table_schema ="
                                             " current_schema() AND table_name = $1 AND key_space = $2"
                                             " AND key_column = $3",
                                             {table, space, column})
                                     .int64(0, 0)
                                 > 0;
    if (!present) {
      std::printf("watch: would log key space %s from %s.%s (and install its triggers)\n", space.c_str(),
                  table.c_str(), column.c_str());
      ++added;
    }
  }
  if (added == 0)
    std::printf("watch: every key the kinds need is watched already\n");
  if (version == pg::schema_version)
    print_applied_declarations(c, source, !demo);
  else if (!demo)
    std::printf("declarations: would apply this file's\n");
  plan_feed(c, feed);
  return refused.empty() ? 0 : 3;
}

/// The names of the tables the kinds read.
std::vector<std::string> watched_table_names() {
  std::vector<std::string> names;
  for (const auto& t : restcache::watched_tables())
    names.push_back(t.name);
  return names;
}

/// The feed a run with `choice` installs: the one asked for, else the one
/// the database records, else (a schema of a build before the choice) the
/// triggers it has, else (a first install) the automatic choice.
restcache::feed_kind chosen_feed(pg::connection& c, const std::optional<restcache::feed_choice>& choice,
                                 const pg::wal_readiness& ready, bool first_install) {
  if (choice)
    return pg::resolve_feed(*choice, ready);
  if (auto recorded = pg::recorded_feed(c))
    return *recorded;
  if (!first_install)
    return restcache::feed_kind::triggers;
  return pg::resolve_feed(restcache::feed_choice::automatic, ready);
}

/// Installs the feed (after the schema and the watched keys); false when
/// the WAL feed was asked for and the database does not allow it.
bool install_feed(pg::connection& c, const std::optional<restcache::feed_choice>& choice, bool first_install,
                  std::chrono::seconds switch_wait) {
  auto ready = pg::read_wal_readiness(c, watched_table_names());
  auto feed = chosen_feed(c, choice, ready, first_install);
  if (feed == restcache::feed_kind::wal && !ready.ready()) {
    std::fprintf(stderr, "restcache-load: the WAL feed cannot be installed:\n");
    for (const auto& l : ready.lacks())
      std::fprintf(stderr, "  %s\n", l.c_str());
    std::fprintf(stderr, "restcache-load: --feed=triggers installs the trigger feed instead\n");
    return false;
  }
  auto before = pg::recorded_feed(c);
  if (before && *before == restcache::feed_kind::triggers && feed == restcache::feed_kind::wal)
    std::fprintf(stderr, "restcache-load: switching to the WAL: the triggers stay until the running instances have "
                         "moved (up to %lld s)\n",
                 static_cast<long long>(switch_wait.count()));
  auto identities = pg::install_feed(c, feed, switch_wait);
  std::fprintf(stderr, "restcache-load: change feed: %s%s\n", restcache::to_string(feed),
               feed == restcache::feed_kind::wal ? " (publication restcache, one slot per daemon instance, or one for "
                                                     "them all with changelog.wal-relay)"
                                                 : " (row triggers appending to change_log)");
  if (before && *before != feed)
    std::fprintf(stderr, "restcache-load: the feed was %s: running instances follow the switch now, each keeping "
                         "its tiers where the old feed reaches the new one (it answers from PostgreSQL until it has "
                         "caught up; restcache_listener_tiers_carried_total counts it)\n",
                 restcache::to_string(*before));
  if (identities.triggers_retired)
    std::fprintf(stderr, "restcache-load: removed the trigger feed's row triggers\n");
  for (const auto& r : identities.readers_left)
    std::fprintf(stderr, "restcache-load: warning: %s still read the change log when the triggers went: it is "
                         "bypassed and drops its tiers\n",
                 r.c_str());
  for (const auto& t : identities.set_full)
    std::fprintf(stderr, "restcache-load: set REPLICA IDENTITY FULL on %s (was %s): every UPDATE and DELETE "
                         "of it now writes its whole old row to the WAL (declaring the read's row_columns "
                         "spares it)\n",
                 t.table.c_str(), t.identity == 'n' ? "NOTHING" : t.identity == 'i' ? "USING INDEX" : "DEFAULT");
  for (const auto& t : identities.restored)
    std::fprintf(stderr, "restcache-load: put back the replica identity of %s (restcache had set FULL; no "
                         "longer needed)\n",
                 t.c_str());
  if (feed == restcache::feed_kind::wal && ready.unlimited_keep)
    std::fprintf(stderr, "restcache-load: warning: max_slot_wal_keep_size is unlimited (-1): the slot of an "
                         "instance that stops holds WAL until its disk is full; set a bound\n");
  return true;
}

/// What --plan says of the feed.
void plan_feed(pg::connection& c, const std::optional<restcache::feed_choice>& choice) {
  auto names = watched_table_names();
  auto ready = pg::read_wal_readiness(c, names);
  auto feed = chosen_feed(c, choice, ready, pg::installed_schema_version(c) == 0);
  std::printf("feed: would be %s%s\n", restcache::to_string(feed),
              feed == restcache::feed_kind::wal ? " (publication restcache of the watched tables; each instance "
                                                  "streams its own slot, or one for them all with changelog.wal-relay)"
                                                : " (row triggers in the writers' transactions)");
  auto lacks = ready.lacks();
  if (lacks.empty())
    std::printf("feed: the WAL feed is possible here\n");
  if (ready.wal_level != "logical")
    std::printf("feed: wal_level = logical writes every UPDATE's new row whole, for every table (1.33-1.39x the WAL "
                "of a one-row UPDATE measured here), and needs a server restart\n");
  for (const auto& l : lacks)
    std::printf("feed: the WAL feed lacks: %s\n", l.c_str());
  if (feed == restcache::feed_kind::wal) {
    std::vector<std::string> tables, columns;
    for (const auto& [table, space, column] : pg::catalogue_watch_rows()) {
      tables.push_back(table);
      columns.push_back(column);
    }
    for (const auto& [table, column] : pg::keys_known_by_rows())
      std::printf("feed: the old value of %s.%s is not needed in the WAL: the documents reading it know their "
                  "rows (row_columns), and a change naming a row's identity finds them\n",
                  table.c_str(), column.c_str());
    for (const auto& t : pg::identity_changes(c, tables, columns))
      std::printf("feed: would set REPLICA IDENTITY FULL on %s; costs every UPDATE and DELETE of it its whole "
                  "old row in the WAL (about +20%% WAL per write measured on emp; declaring the read's "
                  "row_columns spares it)\n",
                  t.why().c_str());
    if (ready.unlimited_keep)
      std::printf("feed: warning: max_slot_wal_keep_size is unlimited (-1): a stopped instance's slot holds WAL "
                  "without bound\n");
  }
}

/// What --verify prints: the daemons' own drift check, run once, and
/// nothing changed. 0 when nothing needs repair, 3 otherwise.
int verify(pg::connection& c) {
  bool fine = true;
  auto version = pg::installed_schema_version(c);
  if (version == pg::schema_version) {
    std::printf("schema: version %d (this build's)\n", version);
    print_applied_declarations(c, {}, false);
  } else {
    std::printf("schema: %s, this build's is version %d: needs restcache-load --schema-only\n",
                version == 0 ? "not installed" : ("version " + std::to_string(version)).c_str(), pg::schema_version);
    return 3;
  }
  auto events = c.exec("SELECT count(*) FROM pg_event_trigger WHERE evtname IN ('restcache_ddl_end', "
                       "'restcache_ddl_drop') AND evtenabled = 'A'");
  std::printf("event triggers: %s\n", events.int64(0, 0) == 2
                                         ? "installed (DDL on a watched table reaches the daemons within a poll)"
                                         : "not installed (needs a superuser; DDL is seen by the daemons' periodic "
                                           "check, changelog.drift-interval)");
  auto tables = restcache::watched_tables();
  auto feed = pg::recorded_feed(c).value_or(restcache::feed_kind::triggers);
  std::printf("change feed: %s\n", restcache::to_string(feed));
  auto report = pg::judge_catalog(pg::read_catalog_facts(c, tables, {}, feed), tables);
  for (const auto& p : report.log_problems) {
    std::printf("change log: %s\n", p.c_str());
    fine = false;
  }
  for (const auto& t : report.tables) {
    std::printf("%s (read by %s): %s\n", t.name.c_str(), restcache::kind_names(t.kinds).c_str(),
                t.problems.empty() ? "as restcache needs it" : "needs repair");
    for (const auto& p : t.problems)
      std::printf("  - %s\n", p.c_str());
    fine = fine && t.problems.empty();
  }
  if (!fine)
    std::printf("the daemons answer the kinds above from PostgreSQL, uncached, until repaired: "
                "restcache-load --schema-only reinstalls restcache's triggers; a dropped table or column "
                "is yours to restore\n");
  auto refused = pg::check_kinds(c);
  std::printf("kinds: %s\n", refused.empty() ? "every statement prepares and every table it reads is watched"
                                              : "refused (a daemon does not start with them)");
  for (const auto& r : refused)
    std::printf("  - %s\n", r.reason.c_str());
  return fine && refused.empty() ? 0 : 3;
}

int main(int argc, char** argv) {
  restcache::demo::install_demo_catalogue(); // the demo's documents, the daemon's default
  auto a = parse_args(argc, argv);
  if (a.help) {
    std::fputs(usage_text, stdout);
    std::fputs(help_text, stdout);
    return 0;
  }
  std::string declared_source; // --documents FILE's text, applied with its kinds
  if (!a.documents.empty()) {
    auto declared = restcache::declarations::read_declaration_file(a.documents);
    declared_source = declared.source;
    if (!declared.ok()) {
      std::fprintf(stderr, "restcache-load: --documents is refused:\n%s", declared.error_text().c_str());
      return 2;
    }
    try {
      install_catalogue(std::move(declared.kinds));
    } catch (const std::invalid_argument& e) {
      std::fprintf(stderr, "restcache-load: --documents is refused: %s\n", e.what());
      return 2;
    }
  }
  if (a.openapi) {
    std::fputs(restcache::http::openapi_document(a.documents.empty() ? restcache::demo::demo_openapi : "").c_str(),
               stdout);
    return 0;
  }
  progress_printer* printer = nullptr;
  try {
    pg::connection c{a.dsn};
    auto drop_slots = [&] {
      for (const auto& name : pg::drop_idle_restcache_slots(c))
        std::fprintf(stderr, "restcache-load: dropped the slot %s (no process streamed it)\n", name.c_str());
    };
    if (a.uninstall) {
      auto was = pg::installed_schema_version(c);
      pg::uninstall_schema(c);
      drop_slots();
      std::fprintf(stderr, "restcache-load: removed restcache's triggers, functions and change log "
                   "(schema version %d); dept and emp are kept\n", was);
      return 0;
    }
    if (a.drop_idle_slots) {
      drop_slots();
      return 0;
    }
    if (a.verify)
      return verify(c);
    if (a.plan)
      return plan(c, a.documents.empty(), declared_source, a.feed);
    // The kinds are checked before anything is installed for them: a file's
    // always (a refused file installs nothing), the demo's once its tables
    // exist, where a refusal is said and the repair goes on (its statements
    // are fixed: what its tables lack is for their owner to restore). Writes
    // are not affected either way: a key column that is gone is logged as
    // its whole table.
    const bool check_demo = a.documents.empty() && missing_demo_tables(c).empty();
    if (!a.documents.empty() || check_demo) {
      if (auto refused = pg::check_kinds(c); !refused.empty()) {
        std::fprintf(stderr, "restcache-load: %s refused by the database%s:\n",
                     check_demo ? "the demo's kinds are" : "--documents is",
                     check_demo ? " (its daemons answer them uncached until its tables have what they read)"
                                : "; nothing installed");
        for (const auto& r : refused)
          std::fprintf(stderr, "  %s\n", r.reason.c_str());
        if (!check_demo) {
          std::fprintf(stderr, "restcache-load: writes to the watched tables are not affected: a key column that "
                               "is gone is logged as its whole table until the file names the column it has "
                               "now and is applied\n");
          return 2;
        }
      }
    }
    // The demo's tables come with the demo; a file's kinds read tables of
    // their own.
    const bool first_install = pg::installed_schema_version(c) == 0;
    auto version = a.documents.empty() ? demo::ensure_demo_schema(c) : pg::ensure_schema(c);
    std::fprintf(stderr, "restcache-load: schema version %d in place\n", version);
    // After their keys are watched: an instance that reads them finds
    // every table they read logged.
    if (!a.documents.empty()) {
      auto origin = std::filesystem::absolute(a.documents).lexically_normal().string();
      auto before = pg::stored_declarations_digest(c);
      pg::store_declarations(c, declared_source, origin);
      auto digest = pg::declarations_digest(declared_source);
      std::fprintf(stderr, "restcache-load: declarations %s applied from %s (digest %s)%s\n",
                   before == digest ? "already" : "now", origin.c_str(), digest.c_str(),
                   before && before != digest ? ": running instances serve them once restarted" : "");
    }
    if (!install_feed(c, a.feed, first_install, std::chrono::seconds{a.switch_wait_s}))
      return 1;
    if (a.schema_only)
      return 0;
    auto present = c.exec("SELECT coalesce(max(deptno), 0), count(*) FROM dept");
    int64_t max_deptno = present.int64(0, 0);
    int64_t rows = present.int64(0, 1);
    if (a.load.only_if_empty && rows > 0) {
      std::fprintf(stderr,
                   "restcache-load: dept already has %lld rows; nothing loaded (--if-empty)\n",
                   static_cast<long long>(rows));
      return 0;
    }
    if (max_deptno >= a.load.depts) {
      std::fprintf(stderr,
                   "restcache-load: departments up to %lld present (wanted %lld); nothing to "
                   "load\n",
                   static_cast<long long>(max_deptno), static_cast<long long>(a.load.depts));
      return 0;
    }
    std::fprintf(stderr,
                 "restcache-load: loading departments %lld..%lld with %d employees each, "
                 "%lld departments per transaction\n",
                 static_cast<long long>(max_deptno + 1), static_cast<long long>(a.load.depts),
                 a.load.emps_per_dept, static_cast<long long>(a.load.batch_depts));
    progress_printer progress{max_deptno, a.load.depts};
    printer = &progress;
    progress({max_deptno, a.load.depts, 0, 0}); // on a terminal: the line appears at once
    auto rep = demo::load_demo_data(c, a.load, std::ref(progress));
    progress.finish();
    printer = nullptr;
    if (rep.skipped) { // someone loaded meanwhile
      std::fprintf(stderr, "restcache-load: dept is not empty; nothing loaded (--if-empty)\n");
      return 0;
    }
    double secs = rep.seconds > 0 ? rep.seconds : 1e-9;
    std::fprintf(stderr,
                 "restcache-load: loaded %lld departments and %lld employees in %.1f s "
                 "(%.0f rows/s); change log reset; tables analyzed\n",
                 static_cast<long long>(rep.depts_inserted),
                 static_cast<long long>(rep.emps_inserted), rep.seconds,
                 static_cast<double>(rep.depts_inserted + rep.emps_inserted) / secs);
    return 0;
  } catch (const pg::error& e) {
    if (printer != nullptr)
      printer->finish();
    std::fprintf(stderr, "restcache-load: error: %s\n", e.what());
    if (e.connection_lost() && a.dsn.empty())
      std::fprintf(stderr, "restcache-load: (no --dsn given: libpq defaults and PG* environment "
                           "variables were used)\n");
    return 1;
  } catch (const std::exception& e) {
    if (printer != nullptr)
      printer->finish();
    std::fprintf(stderr, "restcache-load: error: %s\n", e.what());
    return 1;
  }
}
