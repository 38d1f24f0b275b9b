// SPDX-License-Identifier: Apache-2.0
#define CAF_SUITE change_feed
#include "persistence/pg/change_feed.hpp"

#include <caf/test/unit_test.hpp>

#include <algorithm>
#include <chrono>
#include <functional>
#include <future>
#include <random>
#include <thread>

#include "db/listen_connection.hpp"
#include "demo/demo_catalogue.hpp"
#include "demo/data_generator.hpp"
#include "persistence/pg/schema.hpp"
#include "test/fixtures/private_pg.hpp"
#include "test/fixtures/test_support.hpp"

using namespace restcache;
using namespace restcache::test;
using namespace std::chrono_literals;

namespace {

std::string dbname_of(const std::string& dsn) {
  auto at = dsn.find("dbname=");
  return dsn.substr(at + 7, dsn.find(' ', at) - at - 7);
}

/// A database with a few departments, and a listen_connection on it feeding
/// an inbox that the test takes rounds from.
struct fixture {
  std::string dsn;
  pg::connection sql;
  listener_metrics lm;
  change_inbox inbox{1'000'000};
  std::unique_ptr<listen_connection> listener;
  std::vector<change_inbox::round> rounds; ///< taken so far

  explicit fixture(int64_t depts = 50, size_t max_keys = 1'000'000)
    : dsn(make_db(depts)), sql(dsn), inbox(max_keys) {
  }

  static std::string make_db(int64_t depts) {
    return create_demo_database("feed", depts, 2);
  }

  ~fixture() {
    listener.reset();
    shared_private_pg().drop_database(dsn);
  }

  /// A listener that knows the database's history (as a daemon whose LMDB
  /// file recorded it), unless told `known`.
  void start(std::chrono::seconds retention = 0s, std::optional<std::optional<history_identity>> known = {},
             size_t digest_from = defaults::changelog_replay_digest_from,
             size_t limit = defaults::changelog_max_pending) {
    listen_config cfg;
    cfg.replay_limit = limit;
    cfg.replay_digest_from = digest_from;
    cfg.dsn = dsn;
    cfg.poll_interval = 20ms;
    cfg.retention = retention;
    cfg.history = known ? *known : std::optional{pg::read_history(sql).identity};
    listener = std::make_unique<listen_connection>(cfg, inbox, lm, [](uint64_t, uint64_t) {}, [] {});
    CAF_REQUIRE(wait_until([&] { return lm.connected.load() == 1; }));
  }

  /// Takes rounds until one holds a mark of at least `xmin` (bounded).
  bool take_until_mark(uint64_t xmin) {
    return wait_until([&] {
      rounds.push_back(inbox.take());
      return rounds.back().mark && rounds.back().mark->xmin >= xmin;
    });
  }

  bool taken(doc_key key) const {
    for (auto& r : rounds)
      for (auto& c : r.changes)
        if (c.key == key)
          return true;
    return false;
  }

  bool drop_taken() const {
    for (auto& r : rounds)
      if (r.drop_tiers)
        return true;
    return false;
  }

  uint64_t current_xid() {
    return static_cast<uint64_t>(sql.exec("SELECT pg_current_xact_id()::text::bigint").int64(0, 0));
  }

  /// Kills the listener's backend and keeps it out until `reopen` is called.
  void cut_listener() {
    auto db = dbname_of(dsn);
    pg::connection admin{shared_private_pg().dsn()};
    admin.exec("ALTER DATABASE " + db + " ALLOW_CONNECTIONS false");
    admin.exec("SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
               " WHERE application_name = 'restcache-listener' AND datname = '" + db + "'");
    CAF_REQUIRE(wait_until([&] { return lm.connected.load() == 0; }));
  }

  void reopen() {
    pg::connection admin{shared_private_pg().dsn()};
    admin.exec("ALTER DATABASE " + dbname_of(dsn) + " ALLOW_CONNECTIONS true");
  }
};

/// The keys a replay names, in order, without repeats.
std::vector<std::pair<int, int32_t>> keys_of(const pg::replay_result& r) {
  std::vector<std::pair<int, int32_t>> out;
  for (auto& c : r.changes)
    out.emplace_back(static_cast<int>(c.key.kind()), static_cast<int32_t>(c.key.id()));
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

struct storm_fixture : fixture {
  storm_fixture() : fixture(100'000) {
  }
};

} // namespace

CAF_TEST(snapshots and log keys parse and malformed ones are refused) {
  auto s = pg::parse_snapshot("100:105:101,103");
  CAF_REQUIRE(s.has_value());
  CAF_CHECK_EQUAL(s->xmin, 100u);
  CAF_CHECK_EQUAL(s->xmax, 105u);
  CAF_CHECK(s->xip == (std::vector<uint64_t>{101, 103}));
  CAF_CHECK(pg::parse_snapshot("7:7:")->xip.empty());
  CAF_CHECK(!pg::parse_snapshot("7:6:"));
  CAF_CHECK(!pg::parse_snapshot("7:x:"));
  CAF_CHECK(!pg::parse_snapshot("7:9:8,"));
  CAF_CHECK(parse_log_witness("118:4711:1700000000000000") == (log_witness{118, 4711, 1'700'000'000'000'000}));
  CAF_CHECK(parse_log_witness(to_text(log_witness{5, 6, -7})) == (log_witness{5, 6, -7}));
  CAF_CHECK(!parse_log_witness("118:4711:"));
  CAF_CHECK(!parse_log_witness("0:1:2"));
  CAF_CHECK(!parse_log_witness("1:2:3:4"));
  CAF_CHECK(!parse_log_witness(""));
  doc_key k;
  CAF_CHECK(pg::parse_log_key("dept:20", k) == pg::log_key_kind::document);
  CAF_CHECK(k == (doc_key{demo::deptemps_kind, 20}));
  CAF_CHECK(pg::parse_log_key("emp:3", k) == pg::log_key_kind::document);
  CAF_CHECK(k == (doc_key{demo::emp_kind, 3}));
  // Keys no request can name (a path's id is positive, in one spelling)
  // have nothing cached to invalidate.
  CAF_CHECK(pg::parse_log_key("emp:-3", k) == pg::log_key_kind::unknown);
  CAF_CHECK(pg::parse_log_key("emp:03", k) == pg::log_key_kind::unknown);
  CAF_CHECK(pg::parse_log_key("*:public.emp", k) == pg::log_key_kind::truncate);
  CAF_CHECK(pg::parse_log_key("!:public.emp", k) == pg::log_key_kind::catalog);
  CAF_CHECK(pg::parse_log_key("*:\"odd:name\".t", k) == pg::log_key_kind::truncate);
  CAF_CHECK(pg::parse_log_key("dept:x", k) == pg::log_key_kind::unknown);
  CAF_CHECK(pg::parse_log_key("dept:", k) == pg::log_key_kind::unknown);
  CAF_CHECK(pg::parse_log_key("salgrade:1", k) == pg::log_key_kind::unknown);
  CAF_CHECK(pg::parse_log_key("dept", k) == pg::log_key_kind::unknown);
  CAF_CHECK(pg::parse_log_key("dept:99999999999", k) == pg::log_key_kind::unknown);
}

CAF_TEST_FIXTURE_SCOPE(change_feed_tests, fixture)

CAF_TEST(a committed change reaches the inbox before the next mark and a rolled back one never) {
  start();
  sql.exec("BEGIN; UPDATE dept SET dname = 'NOPE' WHERE deptno = 4; ROLLBACK");
  sql.exec("UPDATE dept SET dname = 'YES' WHERE deptno = 5");
  // Every transaction below a mark's xmin had ended before it: its
  // entries come in the same round or an earlier one.
  CAF_REQUIRE(take_until_mark(current_xid()));
  CAF_CHECK(taken({demo::deptemps_kind, 5}));
  CAF_CHECK(!taken({demo::deptemps_kind, 4}));
  CAF_CHECK_EQUAL(lm.changes_read.load(), 1u);
}

CAF_TEST(an entry of a transaction in progress at a poll is read once it commits) {
  start();
  CAF_REQUIRE(take_until_mark(current_xid()));
  pg::connection slow{dsn};
  slow.exec("BEGIN");
  slow.exec("UPDATE dept SET loc = 'SLOW' WHERE deptno = 13"); // the lower seq
  sql.exec("UPDATE dept SET loc = 'FAST' WHERE deptno = 14");  // a higher one, committed first
  CAF_REQUIRE(wait_until([&] {
    rounds.push_back(inbox.take());
    return taken({demo::deptemps_kind, 14});
  }));
  std::this_thread::sleep_for(100ms); // polls go on past the higher seq
  rounds.push_back(inbox.take());
  CAF_CHECK(!taken({demo::deptemps_kind, 13}));
  slow.exec("COMMIT");
  CAF_REQUIRE(take_until_mark(current_xid()));
  CAF_CHECK(taken({demo::deptemps_kind, 13}));
  CAF_CHECK_EQUAL(lm.changes_read.load(), 2u); // each once
}

CAF_TEST(concurrent writers committing in any order are all read) {
  start();
  CAF_REQUIRE(take_until_mark(current_xid()));
  // Four writers, each its own departments, each transaction held open for
  // a random while after its write, so commits come out of seq order.
  std::vector<std::thread> writers;
  for (int w = 0; w < 4; ++w)
    writers.emplace_back([this, w] {
      pg::connection c{dsn};
      std::mt19937 rng(static_cast<unsigned>(w));
      for (int d = 1 + w; d <= 48; d += 4) {
        c.exec("BEGIN");
        c.exec("UPDATE dept SET loc = 'RACE' WHERE deptno = " + std::to_string(d));
        std::this_thread::sleep_for(std::chrono::milliseconds(rng() % 30));
        c.exec("COMMIT");
      }
    });
  for (auto& t : writers)
    t.join();
  CAF_REQUIRE(take_until_mark(current_xid()));
  for (int32_t d = 1; d <= 48; ++d)
    CAF_CHECK(taken({demo::deptemps_kind, d}));
  CAF_CHECK_EQUAL(lm.changes_read.load(), 48u); // none twice
}

CAF_TEST(two phase commit writers are seen when committed and rolled back ones never) {
  start();
  CAF_REQUIRE(take_until_mark(current_xid()));
  pg::connection a{dsn};
  a.exec("BEGIN; UPDATE dept SET loc = 'TWO' WHERE deptno = 15; PREPARE TRANSACTION 'rc_feed_a'");
  pg::connection b{dsn};
  b.exec("BEGIN; UPDATE dept SET loc = 'NEVER' WHERE deptno = 16; PREPARE TRANSACTION 'rc_feed_b'");
  // Prepared across a reconnect of the listener.
  lm.watermark.store(rounds.back().mark->xmin);
  cut_listener();
  reopen();
  CAF_REQUIRE(wait_until([&] { return lm.connects.load() == 2; }));
  sql.exec("COMMIT PREPARED 'rc_feed_a'");
  sql.exec("ROLLBACK PREPARED 'rc_feed_b'");
  CAF_REQUIRE(take_until_mark(current_xid()));
  CAF_CHECK(taken({demo::deptemps_kind, 15}));
  CAF_CHECK(!taken({demo::deptemps_kind, 16}));
  CAF_CHECK(!drop_taken());
}

CAF_TEST(a transaction left prepared holds xmin back but not what a reconnect replays) {
  start();
  CAF_REQUIRE(take_until_mark(current_xid()));
  pg::connection tx{dsn};
  tx.exec("BEGIN; UPDATE dept SET loc = 'HELD' WHERE deptno = 20; PREPARE TRANSACTION 'rc_feed_held'");
  for (int d = 21; d <= 40; ++d)
    sql.exec("UPDATE dept SET loc = 'MEANWHILE' WHERE deptno = " + std::to_string(d));
  // A mark past all of them, applied as the actor would: the watermark stays
  // at the prepared transaction, the position moves on.
  auto last = current_xid();
  CAF_REQUIRE(wait_until([&] {
    rounds.push_back(inbox.take());
    return rounds.back().mark && rounds.back().mark->position.xmax > last;
  }));
  auto mark = *rounds.back().mark;
  CAF_CHECK_LESS(mark.xmin, last);
  lm.watermark.store(mark.xmin);
  inbox.set_applied(mark.position);
  rounds.clear();
  cut_listener();
  reopen();
  CAF_REQUIRE(wait_until([&] { return lm.connects.load() == 2; }));
  CAF_CHECK_EQUAL(lm.replayed.load(), 0u); // nothing the position had seen
  CAF_CHECK(!drop_taken());
  // Without the position, a replay from xmin reads all twenty again.
  inbox.set_applied(std::nullopt);
  cut_listener();
  reopen();
  CAF_REQUIRE(wait_until([&] { return lm.connects.load() == 3; }));
  CAF_CHECK_GREATER_OR_EQUAL(lm.replayed.load(), 20u);
  sql.exec("COMMIT PREPARED 'rc_feed_held'");
  CAF_REQUIRE(wait_until([&] {
    rounds.push_back(inbox.take());
    return taken({demo::deptemps_kind, 20});
  }));
}

CAF_TEST(a witness entry is found as it was pruned past or gone) {
  sql.exec("UPDATE dept SET loc = 'WITNESS' WHERE deptno = 30");
  pg::poll_position pos;
  auto newest = pg::read_position(sql, pos).newest;
  CAF_REQUIRE(newest.has_value());
  CAF_CHECK(pg::check_witness(sql, *newest) == pg::witness_state::present);
  // Another transaction under its xid (an older copy that reused it).
  auto other = *newest;
  other.us += 1;
  CAF_CHECK(pg::check_witness(sql, other) == pg::witness_state::went_back);
  // Gone below the horizon: an older copy; gone past it: pruned.
  auto gone = *newest;
  gone.xid = current_xid();
  CAF_CHECK(pg::check_witness(sql, gone) == pg::witness_state::went_back);
  sql.exec("UPDATE change_log_horizon SET pruned_below = '" + std::to_string(gone.xid) + "'");
  CAF_CHECK(pg::check_witness(sql, gone) == pg::witness_state::pruned);
  // The newest entry is taken in the position's own snapshot.
  pg::connection open_tx{dsn};
  open_tx.exec("BEGIN; UPDATE dept SET loc = 'NOT YET' WHERE deptno = 31");
  CAF_CHECK(pg::read_position(sql, pos).newest == newest);
  open_tx.exec("COMMIT");
  CAF_CHECK(pg::read_position(sql, pos).newest != newest);
}

CAF_TEST(more changed keys than the limit in one read drop both tiers and reading goes on) {
  start(0s, {}, defaults::changelog_replay_digest_from, 10);
  CAF_REQUIRE(take_until_mark(current_xid()));
  CAF_CHECK(!drop_taken());
  sql.exec("UPDATE dept SET loc = 'MANY' WHERE deptno BETWEEN 1 AND 20");
  CAF_REQUIRE(take_until_mark(current_xid()));
  CAF_CHECK(drop_taken());
  CAF_CHECK_EQUAL(lm.tier_drops.load(), 1u);
  rounds.clear();
  sql.exec("UPDATE dept SET loc = 'ONE' WHERE deptno = 3");
  CAF_REQUIRE(take_until_mark(current_xid()));
  CAF_CHECK(taken({demo::deptemps_kind, 3}));
  CAF_CHECK(!drop_taken());
}

CAF_TEST(a schema newer than the build is not read until it is the build version again) {
  sql.exec("INSERT INTO restcache_schema (version) VALUES (" + std::to_string(pg::schema_version + 1) + ")");
  listen_config cfg;
  cfg.dsn = dsn;
  cfg.poll_interval = 20ms;
  cfg.max_backoff = 100ms;
  cfg.history = pg::read_history(sql).identity;
  listener = std::make_unique<listen_connection>(cfg, inbox, lm, [](uint64_t, uint64_t) {}, [] {});
  std::this_thread::sleep_for(500ms);
  CAF_CHECK_EQUAL(lm.connects.load(), 0u); // never caught up: GETs go to PostgreSQL
  sql.exec("DELETE FROM restcache_schema WHERE version > " + std::to_string(pg::schema_version));
  CAF_CHECK(wait_until([&] { return lm.connected.load() == 1; }));
}

CAF_TEST(an employee move names the employee and both departments) {
  start();
  auto empno = sql.exec("SELECT min(empno) FROM emp WHERE deptno = 7").int64(0, 0);
  sql.exec("UPDATE emp SET deptno = 8 WHERE empno = " + std::to_string(empno));
  CAF_REQUIRE(take_until_mark(current_xid()));
  CAF_CHECK(taken({demo::emp_kind, static_cast<int32_t>(empno)}));
  CAF_CHECK(taken({demo::deptemps_kind, 7}));
  CAF_CHECK(taken({demo::deptemps_kind, 8}));
}

CAF_TEST(a change committed while the listener was cut off is replayed at reconnect) {
  start();
  CAF_REQUIRE(take_until_mark(current_xid()));
  lm.watermark.store(rounds.back().mark->xmin); // as the actor would once applied
  cut_listener();
  sql.exec("UPDATE dept SET loc = 'ELSEWHERE' WHERE deptno = 9");
  reopen();
  CAF_REQUIRE(wait_until([&] { return lm.connects.load() == 2; }));
  CAF_REQUIRE(take_until_mark(current_xid()));
  CAF_CHECK(taken({demo::deptemps_kind, 9}));
  CAF_CHECK_GREATER_OR_EQUAL(lm.replayed.load(), 1u);
  CAF_CHECK_EQUAL(lm.changes_read.load(), 0u); // it came only through the replay
  CAF_CHECK(!drop_taken());
}

CAF_TEST(a log pruned past the watermark asks for both tiers to be dropped) {
  start();
  CAF_REQUIRE(take_until_mark(current_xid()));
  lm.watermark.store(rounds.back().mark->xmin);
  cut_listener();
  sql.exec("UPDATE dept SET loc = 'GONE' WHERE deptno = 10");
  // Another instance prunes everything (retention 0) it has applied.
  CAF_CHECK_EQUAL(pg::prune_changes(sql, 0s, current_xid() + 1, 1'000), 1);
  reopen();
  CAF_REQUIRE(wait_until([&] { return lm.connects.load() == 2; }));
  CAF_REQUIRE(take_until_mark(current_xid()));
  CAF_CHECK(drop_taken());
  CAF_CHECK_EQUAL(lm.tier_drops.load(), 1u);
}

CAF_TEST(a poll finds a prune that took a transaction it had not read) {
  pg::poll_position pos;
  pg::connection writer{dsn};
  writer.exec("BEGIN");
  writer.exec("UPDATE dept SET loc = 'LONG' WHERE deptno = 20");
  pg::read_position(sql, pos); // the writer is in progress there
  CAF_CHECK(!pg::poll_changes(sql, pos, 1'000, 0).pruned_unread);
  writer.exec("COMMIT");
  // The database's age bound takes the committed transaction before the
  // next poll (changed_at is its start: it looks old).
  sql.exec("UPDATE change_log_horizon SET max_age = '0 seconds'");
  CAF_CHECK_GREATER(sql.exec("SELECT restcache_prune_change_log()").int64(0, 0), 0);
  auto after = pg::poll_changes(sql, pos, 1'000, 0);
  CAF_CHECK(after.pruned_unread);
  CAF_CHECK(after.changes.empty());
  // Once past it, pruning what the polls have read does not trip them.
  sql.exec("UPDATE dept SET loc = 'READ' WHERE deptno = 21");
  auto read = pg::poll_changes(sql, pos, 1'000, 0);
  CAF_CHECK(!read.pruned_unread);
  CAF_CHECK(!read.changes.empty());
  CAF_CHECK_GREATER(sql.exec("SELECT restcache_prune_change_log()").int64(0, 0), 0);
  CAF_CHECK(!pg::poll_changes(sql, pos, 1'000, 0).pruned_unread);
}

CAF_TEST(pruning keeps entries younger than the retention or not yet applied) {
  sql.exec("UPDATE dept SET loc = 'A' WHERE deptno = 11");
  auto below = current_xid();
  sql.exec("UPDATE dept SET loc = 'B' WHERE deptno = 12");
  CAF_CHECK_EQUAL(pg::prune_changes(sql, 3600s, below + 10, 1'000), 0); // too young
  CAF_CHECK_EQUAL(pg::prune_changes(sql, 0s, below, 1'000), 1);         // only the applied one
  auto left = sql.exec("SELECT keys::text FROM change_log");
  CAF_REQUIRE_EQUAL(left.rows(), 1);
  CAF_CHECK_EQUAL(left.text(0, 0), "{dept:12}");
  // A reader behind the horizon cannot replay; one above it can.
  CAF_CHECK(!pg::read_changes_since(sql, below - 1, 100, defaults::changelog_replay_digest_from).complete);
  auto r = pg::read_changes_since(sql, below + 1, 100, defaults::changelog_replay_digest_from);
  CAF_CHECK(r.complete);
  CAF_CHECK_EQUAL(r.changes.size(), 1u);
}

CAF_TEST(a bulk load raises the horizon so older watermarks drop their tiers) {
  auto before = current_xid();
  demo::load_options opts;
  opts.depts = 60; // ten more
  opts.emps_per_dept = 2;
  demo::load_demo_data(sql, opts);
  CAF_CHECK(!pg::read_changes_since(sql, before, 100, defaults::changelog_replay_digest_from).complete);
  CAF_CHECK(pg::read_changes_since(sql, current_xid(), 100, defaults::changelog_replay_digest_from).complete);
}

CAF_TEST(a truncate is read as a drop of both tiers live and on replay) {
  start();
  CAF_REQUIRE(take_until_mark(current_xid()));
  CAF_CHECK(!drop_taken());
  sql.exec("TRUNCATE emp");
  CAF_REQUIRE(take_until_mark(current_xid()));
  CAF_CHECK(drop_taken());
  CAF_CHECK_EQUAL(lm.truncates.load(), 1u);
  // While the listener is away: the replay finds the log entry.
  rounds.clear();
  lm.watermark.store(current_xid());
  cut_listener();
  sql.exec("TRUNCATE dept CASCADE");
  auto r = pg::read_changes_since(sql, lm.watermark.load(), 100, defaults::changelog_replay_digest_from);
  CAF_CHECK(r.truncated);
  CAF_CHECK(r.complete);
  reopen();
  CAF_REQUIRE(wait_until([&] { return lm.connects.load() == 2; }));
  CAF_REQUIRE(take_until_mark(current_xid()));
  CAF_CHECK(drop_taken());
  CAF_CHECK_EQUAL(lm.truncates.load(), 2u);
}

CAF_TEST(the live history is read without taking a transaction id) {
  auto before = current_xid();
  sql.exec("BEGIN");
  auto a = pg::read_history(sql);
  auto unassigned = sql.exec("SELECT pg_current_xact_id_if_assigned() IS NULL");
  CAF_CHECK_EQUAL(std::string{unassigned.text(0, 0)}, "t");
  sql.exec("COMMIT");
  auto b = pg::read_history(sql);
  CAF_CHECK(a.identity == b.identity);
  CAF_CHECK_NOT_EQUAL(a.identity.system_id, 0u);
  CAF_CHECK_EQUAL(a.identity.database_name, dbname_of(dsn));
  CAF_CHECK_EQUAL(a.identity.timeline, 1u);
  CAF_CHECK_GREATER(a.next_xid, before);
  auto other = pg::connection{shared_private_pg().dsn()};
  auto o = pg::read_history(other);
  CAF_CHECK_EQUAL(o.identity.system_id, a.identity.system_id);
  CAF_CHECK_NOT_EQUAL(o.identity.database_oid, a.identity.database_oid);
}

CAF_TEST(another or no known history asks for a reset instead of a replay) {
  auto live = pg::read_history(sql);
  auto stranger = live.identity;
  stranger.database_oid += 1;
  start(0s, std::optional<history_identity>{stranger});
  CAF_REQUIRE(take_until_mark(current_xid()));
  auto reset = std::find_if(rounds.begin(), rounds.end(), [](auto& r) { return r.new_history.has_value(); });
  CAF_REQUIRE(reset != rounds.end());
  CAF_CHECK(reset->drop_tiers);
  CAF_CHECK(*reset->new_history == live.identity);
  CAF_CHECK_EQUAL(lm.history_resets[static_cast<size_t>(history_rule::other_database)].load(), 1u);
  // Known from now on: a reconnect replays.
  rounds.clear();
  lm.watermark.store(current_xid());
  cut_listener();
  sql.exec("UPDATE dept SET loc = 'LATER' WHERE deptno = 3");
  reopen();
  CAF_REQUIRE(wait_until([&] { return lm.connects.load() == 2; }));
  CAF_REQUIRE(take_until_mark(current_xid()));
  CAF_CHECK(taken({demo::deptemps_kind, 3}));
  CAF_CHECK(!drop_taken());
  // A watermark above the database's next xid: an older copy of the data.
  rounds.clear();
  lm.watermark.store(current_xid() + 1000);
  cut_listener();
  reopen();
  CAF_REQUIRE(wait_until([&] { return lm.connects.load() == 3; }));
  CAF_REQUIRE(take_until_mark(current_xid()));
  CAF_CHECK(drop_taken());
  CAF_CHECK_EQUAL(lm.history_resets[static_cast<size_t>(history_rule::went_backwards)].load(), 1u);
}

CAF_TEST(a listener that knows no history records the live one) {
  start(0s, std::optional<history_identity>{});
  CAF_REQUIRE(take_until_mark(current_xid()));
  CAF_CHECK(drop_taken());
  CAF_CHECK_EQUAL(lm.history_resets[static_cast<size_t>(history_rule::first_use)].load(), 1u);
}


CAF_TEST(large replays share one digest and name every key a direct read names) {
  // Digests from 10 entries on (the daemon's: changelog_replay_digest_from).
  constexpr size_t from = 10;
  constexpr size_t never = 1'000'000;
  auto digests = [&] { return sql.exec("SELECT count(*) FROM change_log_digest").int64(0, 0); };
  auto lower = current_xid();
  sql.exec("UPDATE dept SET loc = 'LOW' WHERE deptno = 1");
  auto w = current_xid();
  sql.exec("UPDATE dept SET loc = 'STORM' WHERE deptno BETWEEN 10 AND 39");
  // A writer still open while the digest is made: its entry lies at or past
  // the digest's upper bound and must come from the log.
  pg::connection open_tx{dsn};
  open_tx.exec("BEGIN");
  open_tx.exec("UPDATE dept SET loc = 'LATE' WHERE deptno = 45");
  auto first = pg::read_changes_since(sql, w, 1'000, from);
  CAF_CHECK_EQUAL(digests(), 1);
  CAF_CHECK(first.complete);
  CAF_CHECK(keys_of(first) == keys_of(pg::read_changes_since(sql, w, 1'000, never)));
  CAF_CHECK_EQUAL(keys_of(first).size(), 30u);
  open_tx.exec("COMMIT");
  sql.exec("UPDATE dept SET loc = 'AFTER' WHERE deptno = 46");
  // Later readers at the same watermark, and at a lower one (a few entries
  // below the digest), read it instead of making another; each names what a
  // direct read names, the late writer and the later change included.
  for (auto reader_at : {w, lower}) {
    pg::connection other{dsn};
    auto via_digest = pg::read_changes_since(other, reader_at, 1'000, from);
    auto direct = pg::read_changes_since(other, reader_at, 1'000, never);
    CAF_CHECK(via_digest.complete);
    CAF_CHECK(keys_of(via_digest) == keys_of(direct));
    auto has = [&](int32_t id) {
      auto k = keys_of(via_digest);
      return std::find(k.begin(), k.end(), std::pair{static_cast<int>(demo::deptemps_kind), id}) != k.end();
    };
    CAF_CHECK(has(45));
    CAF_CHECK(has(46));
    CAF_CHECK_EQUAL(has(1), reader_at == lower);
  }
  CAF_CHECK_EQUAL(digests(), 1);
  // Too many keys for the limit: incomplete, as a direct read.
  CAF_CHECK(!pg::read_changes_since(sql, w, 20, from).complete);
  // A truncate in the digested range reaches every reader of it.
  auto before_truncate = current_xid();
  for (int i = 0; i < 3; ++i)
    sql.exec("UPDATE dept SET loc = 'AGAIN' WHERE deptno BETWEEN 10 AND 14");
  sql.exec("TRUNCATE emp");
  auto t = pg::read_changes_since(sql, before_truncate, 1'000, from);
  CAF_CHECK(t.truncated);
  CAF_CHECK_EQUAL(digests(), 2);
  pg::connection third{dsn};
  CAF_CHECK(pg::read_changes_since(third, before_truncate, 1'000, from).truncated);
  CAF_CHECK_EQUAL(digests(), 2);
  // While another replay makes a digest (its lock held here), a reader
  // waits; when none it can use appears, it reads the log itself.
  pg::connection maker{dsn};
  maker.exec("BEGIN");
  maker.exec("SELECT pg_advisory_xact_lock(7310593858020254569)");
  auto w2 = current_xid();
  sql.exec("UPDATE dept SET loc = 'WAITED' WHERE deptno BETWEEN 20 AND 34");
  auto waiting = std::async(std::launch::async, [&] {
    pg::connection reader{dsn};
    return pg::read_changes_since(reader, w2, 1'000, from);
  });
  CAF_CHECK(waiting.wait_for(300ms) == std::future_status::timeout);
  maker.exec("COMMIT");
  auto waited = waiting.get();
  CAF_CHECK(waited.complete);
  CAF_CHECK(keys_of(waited) == keys_of(pg::read_changes_since(sql, w2, 1'000, never)));
  CAF_CHECK_EQUAL(keys_of(waited).size(), 15u);
  CAF_CHECK_EQUAL(digests(), 2);
}

CAF_TEST(a listener reconnecting to many changes replays them through the digest) {
  start(0s, {}, 10);
  CAF_REQUIRE(take_until_mark(current_xid()));
  rounds.clear();
  lm.watermark.store(current_xid());
  cut_listener();
  sql.exec("UPDATE dept SET loc = 'AWAY'"); // 50 departments
  reopen();
  CAF_REQUIRE(wait_until([&] { return lm.connects.load() == 2; }));
  CAF_REQUIRE(take_until_mark(current_xid()));
  std::vector<int32_t> ids;
  for (auto& r : rounds)
    for (auto& c : r.changes)
      ids.push_back(c.key.id());
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  CAF_CHECK_EQUAL(ids.size(), 50u);
  CAF_CHECK_EQUAL(lm.replayed.load(), 50u);
  CAF_CHECK_EQUAL(sql.exec("SELECT count(*) FROM change_log_digest").int64(0, 0), 1);
}

CAF_TEST_FIXTURE_SCOPE_END()

CAF_TEST_FIXTURE_SCOPE(change_feed_storm_tests, storm_fixture)

CAF_TEST(an update of 100000 departments in one statement is absorbed) {
  start();
  auto started = std::chrono::steady_clock::now();
  sql.exec("UPDATE dept SET loc = loc || '.'");
  CAF_REQUIRE(wait_until([&] { return lm.changes_read.load() == 100'000; }, 120s));
  // Nobody took a round meanwhile: one key each, held once, one wake-up.
  CAF_CHECK_EQUAL(inbox.pending(), 100'000u);
  CAF_REQUIRE(take_until_mark(current_xid()));
  size_t keys = 0;
  for (auto& r : rounds)
    keys += r.changes.size();
  CAF_CHECK_EQUAL(keys, 100'000u);
  CAF_MESSAGE("100000 changed keys read in "
              << std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count()
              << " s (update included)");
  // A second storm over the same keys before anyone takes: coalesced.
  sql.exec("UPDATE dept SET loc = loc || '.'");
  CAF_REQUIRE(wait_until([&] { return lm.changes_read.load() == 200'000; }, 120s));
  sql.exec("UPDATE dept SET loc = loc || '.'");
  CAF_REQUIRE(wait_until([&] { return lm.changes_read.load() == 300'000; }, 120s));
  CAF_CHECK_EQUAL(inbox.pending(), 100'000u);
  CAF_CHECK_EQUAL(inbox.coalesced(), 100'000u);
}

CAF_TEST_FIXTURE_SCOPE_END()
