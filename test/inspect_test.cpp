#define CAF_SUITE inspect
#include "actors/inspector.hpp"

#include <caf/test/dsl.hpp>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "actors/batch_writer.hpp"
#include "app/cache_front.hpp"
#include "actors/cache_shard.hpp"
#include "actors/notify_listener.hpp"
#include "messages/document_encoder.hpp"
#include "persistence/pg/connection.hpp"
#include "test/fixtures/child_program.hpp"
#include "test/fixtures/daemon_process.hpp"
#include "test/fixtures/cache_stack_fixture.hpp"
#include "test/fixtures/http_client.hpp"
#include "test/fixtures/test_support.hpp"

using namespace restcache;
using namespace restcache::test;

namespace {

constexpr size_t shard_count = 3;

/// Three tiered shards over fake connections and a fake tier, a batch
/// writer, a listener without a connection thread, a silent actor that
/// never answers, and the inspector over all of them.
struct fixture : cache_stack_fixture {
  caf::actor silent;
  inspector_actor insp;
  std::atomic<int64_t> stuck_mailbox{7}; ///< what the stuck actor "reported" last
  std::shared_ptr<std::vector<lookup_result>> answers = std::make_shared<std::vector<lookup_result>>();

  fixture() : cache_stack_fixture(cache_stack_options{shard_count, 1'000}) {
    // As if caught up: the shards keep what they fill.
    status.set_caught_up(true, 0);
    // Takes every inspect request and never answers it (a stuck actor).
    auto held = std::make_shared<std::vector<caf::response_promise>>();
    silent = sys.spawn(
      [held](caf::event_based_actor* self, int) -> caf::behavior {
        return {
          [self, held](inspect_atom) { held->push_back(self->make_response_promise()); },
        };
      },
      0);
    inspector_config icfg;
    for (size_t i = 0; i < shards.size(); ++i)
      icfg.actors.push_back(inspect_entry("shard-" + std::to_string(i), shards[i]));
    icfg.actors.push_back(inspect_entry("db-pool", pool, &dbm.mailbox));
    icfg.actors.push_back(inspect_entry("batch-writer", writer));
    icfg.actors.push_back(inspect_entry("notify-listener", listener));
    icfg.actors.push_back(inspect_entry("stuck", silent, &stuck_mailbox));
    icfg.shards = shards;
    insp = spawn_inspector(sys, icfg);
    sched.run();
  }

  ~fixture() {
    for (caf::actor a : {caf::actor_cast<caf::actor>(insp), silent})
      anon_send_exit(a, caf::exit_reason::user_shutdown);
    sched.run();
  }

  /// Asks for `key` at its owning shard and completes the fill.
  void fill(const doc_key& key) {
    self->send(owner(key), get_atom::value, key,
               reply_callback{[a = answers](lookup_result r) { a->push_back(std::move(r)); }});
    sched.run();
    conn().complete_oldest(3);
    sched.run();
  }

  /// Sends `msg...` to `target` from a client actor; the answer (or error)
  /// lands in the returned slot once the scheduler ran.
  template <class Answer, class Handle, class... Ts>
  std::shared_ptr<std::optional<caf::expected<Answer>>> ask(const Handle& target, Ts... xs) {
    auto slot = std::make_shared<std::optional<caf::expected<Answer>>>();
    sys.spawn(
      [slot, xs...](caf::event_based_actor* client, Handle h) {
        client->request(h, caf::infinite, xs...)
          .then([slot](Answer& a) { *slot = std::move(a); },
                [slot](caf::error& e) { *slot = caf::expected<Answer>{std::move(e)}; });
      },
      target);
    sched.run();
    return slot;
  }

  static std::string field(const actor_report& r, const std::string& name) {
    return r.get(name);
  }
};

/// restcache-inspect with `args`, to its end (bounded).
program_run run_tool(std::vector<std::string> args, std::chrono::milliseconds limit = std::chrono::seconds{20},
                     std::optional<std::chrono::milliseconds> interrupt_after = std::nullopt) {
  args.insert(args.begin(), RESTCACHE_INSPECT_BIN);
  return run_program(std::move(args), limit, interrupt_after);
}

/// The line of the table that starts with `name` followed by a space.
std::string table_line(const std::string& table, const std::string& name) {
  size_t at = 0;
  while (at < table.size()) {
    auto eol = table.find('\n', at);
    auto line = table.substr(at, eol == std::string::npos ? std::string::npos : eol - at);
    if (line.rfind(name + " ", 0) == 0)
      return line;
    if (eol == std::string::npos)
      break;
    at = eol + 1;
  }
  return {};
}

/// The mailbox column (the third) of a table line, or -1 when it is not a number.
int64_t mailbox_column(const std::string& line) {
  std::istringstream in{line};
  std::string name, id, mailbox;
  in >> name >> id >> mailbox;
  try {
    size_t used = 0;
    auto v = std::stoll(mailbox, &used);
    return used == mailbox.size() ? v : -1;
  } catch (...) {
    return -1;
  }
}

} // namespace

CAF_TEST_FIXTURE_SCOPE(inspect_unit_tests, fixture)

CAF_TEST(reports and their vectors survive serialization) {
  actor_report r;
  r.name = "shard-1";
  r.id = 42;
  r.mailbox = 3;
  r.answered = true;
  r.note = "x";
  r.add("entries", 10).add("caught up", true).add("mode", "tiered");
  std::vector<actor_report> rs{r, actor_report{}};
  auto back = roundtrip(rs);
  CAF_REQUIRE_EQUAL(back.size(), 2u);
  CAF_CHECK_EQUAL(back[0].name, "shard-1");
  CAF_CHECK_EQUAL(back[0].id, 42u);
  CAF_CHECK_EQUAL(back[0].mailbox, 3);
  CAF_CHECK(back[0].holds == r.holds);
  CAF_CHECK_EQUAL(back[0].get("caught up"), "yes");
  key_report k;
  k.key = "deptemps:5";
  k.in_memory = true;
  k.etag = "\"abc\"";
  k.doc_seq = 9;
  auto kb = roundtrip(std::vector<key_report>{k});
  CAF_REQUIRE_EQUAL(kb.size(), 1u);
  CAF_CHECK_EQUAL(kb[0].key, "deptemps:5");
  CAF_CHECK_EQUAL(kb[0].etag, "\"abc\"");
  CAF_CHECK_EQUAL(kb[0].doc_seq, 9u);
}

CAF_TEST(dept keys are parsed strictly) {
  int32_t id = 0;
  std::string why;
  CAF_CHECK(parse_dept_key("dept:42", id, why));
  CAF_CHECK_EQUAL(id, 42);
  for (auto bad : {"dept:", "dept:0", "dept:-3", "dept:4x", "emp:4", "deptemps:4", "dept:99999999999", ""}) {
    CAF_CHECK(!parse_dept_key(bad, id, why));
    CAF_CHECK(why.find("bad key") != std::string::npos);
  }
}

CAF_TEST(a shard reports entries bytes and fills in flight) {
  auto k = doc_key{doc_kind::deptemps, 4};
  fill(k);
  auto& shard = owner(k);
  auto idx = shard_index(k, shards.size());
  // One more miss stays in flight.
  self->send(shard, get_atom::value, doc_key{doc_kind::deptemps, 1004},
             reply_callback{[a = answers](lookup_result r) { a->push_back(std::move(r)); }});
  sched.run();
  auto r = ask<actor_report>(shard, inspect_atom::value);
  CAF_REQUIRE(r->has_value() && **r);
  auto& rep = ***r;
  CAF_CHECK(rep.answered);
  CAF_CHECK_EQUAL(rep.id, shard->id());
  CAF_CHECK_EQUAL(rep.mailbox, 0);
  CAF_CHECK_EQUAL(field(rep, "bytes"), std::to_string(cms[idx].bytes.load()));
  CAF_CHECK_EQUAL(field(rep, "entries"), "1");
  CAF_CHECK_EQUAL(field(rep, "fills in flight"), "1");
  CAF_CHECK_EQUAL(field(rep, "waiting readers"), "1");
  CAF_CHECK_EQUAL(field(rep, "mode"), "tiered");
  conn().complete_oldest(1);
  sched.run();
}

CAF_TEST(a shard reports one key from memory and from its tier reader) {
  auto k = doc_key{doc_kind::deptemps, 5};
  auto r = ask<key_report>(owner(k), inspect_atom::value, k);
  CAF_REQUIRE(r->has_value() && **r);
  CAF_CHECK(!(**r)->cached());
  CAF_CHECK((**r)->tier_enabled);
  CAF_CHECK_EQUAL((**r)->key, "deptemps:5");
  // An invalidation moves the shard's sequence; the fill after it carries it.
  self->send(owner(k), invalidate_atom::value, change_batch{{doc_key{doc_kind::deptemps, 99}, 11, 0}});
  sched.run();
  sched.trigger_timeouts(); // the writer's delete commits
  sched.run();
  fill(k);
  r = ask<key_report>(owner(k), inspect_atom::value, k);
  CAF_REQUIRE(r->has_value() && **r);
  auto rep = ***r;
  CAF_CHECK(rep.in_memory);
  CAF_CHECK(!rep.in_lmdb); // the fake tier serves only what the test puts there
  CAF_CHECK_EQUAL(rep.memory_bytes, static_cast<int64_t>(answers->back().doc->body.size()));
  CAF_CHECK_EQUAL(rep.etag, answers->back().doc->etag);
  CAF_CHECK_EQUAL(rep.doc_seq, 11u); // the shard's applied sequence when the fill started
  tier->docs[k] = make_doc("{\"old\":true}");
  self->send(owner(k), invalidate_atom::value, change_batch{{k, 12, 0}});
  sched.run(); // the delete waits a few milliseconds in the writer: shielded meanwhile
  r = ask<key_report>(owner(k), inspect_atom::value, k);
  CAF_REQUIRE(r->has_value() && **r);
  rep = ***r;
  CAF_CHECK(!rep.in_memory);
  CAF_CHECK(rep.shielded);
  CAF_CHECK(rep.in_lmdb);
  CAF_CHECK_EQUAL(rep.lmdb_bytes, 12);
  CAF_CHECK_EQUAL(rep.shard_applied_seq, 12u);
  sched.trigger_timeouts();
  sched.run();
  r = ask<key_report>(owner(k), inspect_atom::value, k);
  CAF_CHECK(!(**r)->shielded);
}

CAF_TEST(the pool keeps in use current and reports its connections) {
  auto lease = std::make_shared<borrow_result>();
  sys.spawn(
    [lease](caf::event_based_actor* client, db_pool_actor p) {
      client->request(p, caf::infinite, borrow_atom::value).then([lease](borrow_result& b) { *lease = b; });
    },
    pool);
  sched.run();
  CAF_REQUIRE(lease->lease != nullptr);
  CAF_CHECK_EQUAL(dbm.in_use.load(), 1);
  auto r = ask<actor_report>(pool, inspect_atom::value);
  CAF_REQUIRE(r->has_value() && **r);
  CAF_CHECK_EQUAL(field(***r, "size"), "1");
  CAF_CHECK_EQUAL(field(***r, "up"), "1");
  CAF_CHECK_EQUAL(field(***r, "in use"), "1");
  CAF_CHECK_EQUAL(field(***r, "waiting"), "0");
  self->send(pool, release_atom::value, lease->lease);
  sched.run();
  CAF_CHECK_EQUAL(dbm.in_use.load(), 0);
}

CAF_TEST(the writer and the listener describe themselves) {
  self->send(writer, put_atom::value, doc_key{doc_kind::deptemps, 8}, make_doc("{}"), uint64_t{1});
  sched.run();
  auto w = ask<actor_report>(writer, inspect_atom::value);
  CAF_REQUIRE(w->has_value() && **w);
  CAF_CHECK_EQUAL(field(***w, "queued records"), "1");
  CAF_CHECK_EQUAL(field(***w, "flushes"), "0");
  CAF_CHECK(!field(***w, "last flush took").empty());
  auto l = ask<actor_report>(listener, inspect_atom::value);
  CAF_REQUIRE(l->has_value() && **l);
  CAF_CHECK_EQUAL(field(***l, "connected"), "no");
  CAF_CHECK_EQUAL(field(***l, "caught up"), "no");
  CAF_CHECK_EQUAL(field(***l, "applied seq"), "0");
  CAF_CHECK_EQUAL(field(***l, "watermark"), "0");
}

CAF_TEST(each actor stores its mailbox size when told) {
  // The size when the message is taken: what waits behind it.
  self->send(shards[0], mailbox_atom::value);
  for (int i = 0; i < 3; ++i) // nothing to expire
    self->send(shards[0], fill_tmo_atom::value);
  self->send(pool, mailbox_atom::value);
  for (int i = 0; i < 2; ++i)
    self->send(pool, conn_up_atom::value, uint64_t{99}); // ignored: no such slot
  self->send(listener, mailbox_atom::value);
  for (int i = 0; i < 4; ++i)
    self->send(listener, listen_dn_atom::value);
  bm.mailbox = 5;
  self->send(writer, mailbox_atom::value);
  sched.run();
  CAF_CHECK_EQUAL(cms[0].mailbox.load(), 3);
  CAF_CHECK_EQUAL(dbm.mailbox.load(), 2);
  CAF_CHECK_EQUAL(lm.mailbox.load(), 4);
  CAF_CHECK_EQUAL(bm.mailbox.load(), 0);
}

CAF_TEST(each actor is told once a second) {
  for (auto& cm : cms)
    cm.mailbox = 99;
  dbm.mailbox = 99;
  lm.mailbox = 99;
  bm.mailbox = 99;
  sched.run();
  CAF_CHECK_EQUAL(cms[0].mailbox.load(), 99); // not before the interval passed
  sched.trigger_timeouts();
  sched.run();
  for (auto& cm : cms)
    CAF_CHECK_EQUAL(cm.mailbox.load(), 0);
  CAF_CHECK_EQUAL(dbm.mailbox.load(), 0);
  CAF_CHECK_EQUAL(lm.mailbox.load(), 0);
  CAF_CHECK_EQUAL(bm.mailbox.load(), 0);
  // And again one interval later.
  cms[2].mailbox = 99;
  sched.run();
  CAF_CHECK_EQUAL(cms[2].mailbox.load(), 99);
  sched.trigger_timeouts();
  sched.run();
  CAF_CHECK_EQUAL(cms[2].mailbox.load(), 0);
}

CAF_TEST(the mailbox reporter neither delays an exit nor keeps an actor alive) {
  auto& shard = shards[1];
  anon_send_exit(shard, caf::exit_reason::user_shutdown);
  sched.run();
  auto r = ask<actor_report>(shard, inspect_atom::value);
  CAF_REQUIRE(r->has_value());
  CAF_CHECK(!**r); // gone at once, its reporter's timer still scheduled
  sched.trigger_timeouts(); // the reporter finds it gone
  sched.run();
  // An actor nobody references any more terminates, reporter or not.
  auto other_conns = std::make_shared<conn_list>();
  db_metrics other;
  caf::weak_actor_ptr weak;
  {
    auto p = sys.spawn(db_pool, db_pool_config{1, 1}, fake_factory(other_conns), &other);
    sched.run();
    weak = caf::actor_cast<caf::weak_actor_ptr>(p);
    CAF_REQUIRE(weak.lock() != nullptr);
  }
  sched.run();
  CAF_CHECK(weak.lock() == nullptr);
  sched.trigger_timeouts();
  sched.run();
}

CAF_TEST(the inspector lists every actor in order and explains one that does not answer) {
  auto r = ask<std::vector<actor_report>>(insp, list_atom::value);
  CAF_CHECK(!r->has_value()); // the stuck actor holds the answer until the timeout
  sched.trigger_timeouts();
  sched.run();
  CAF_REQUIRE(r->has_value() && **r);
  auto& reps = ***r;
  std::vector<std::string> names;
  for (auto& x : reps)
    names.push_back(x.name);
  std::vector<std::string> expected{"shard-0", "shard-1", "shard-2", "db-pool", "batch-writer",
                                    "notify-listener", "stuck", "inspector"};
  CAF_CHECK_EQUAL(names, expected);
  for (auto& x : reps) {
    if (x.name == "stuck") {
      CAF_CHECK(!x.answered);
      CAF_CHECK_EQUAL(x.id, silent->id());
      CAF_CHECK(x.note.find("no answer within 1000 ms") != std::string::npos);
      CAF_CHECK(x.note.find("last reported mailbox 7") != std::string::npos);
    } else {
      CAF_CHECK(x.answered);
      CAF_CHECK_GREATER_OR_EQUAL(x.mailbox, 0);
      CAF_CHECK(!x.holds.empty());
    }
  }
  CAF_CHECK_EQUAL(reps[0].id, shards[0]->id());
  CAF_CHECK_EQUAL(reps.back().id, insp->id());
  auto table = render_actor_table(reps);
  CAF_CHECK(table.find("MAILBOX") != std::string::npos);
  CAF_CHECK(table_line(table, "stuck").find("no report: no answer within 1000 ms") != std::string::npos);
  CAF_CHECK_EQUAL(mailbox_column(table_line(table, "shard-2")), 0);
}

CAF_TEST(an actor that has exited is listed as not running) {
  anon_send_exit(writer, caf::exit_reason::user_shutdown);
  sched.run();
  auto r = ask<std::vector<actor_report>>(insp, list_atom::value);
  sched.trigger_timeouts();
  sched.run();
  CAF_REQUIRE(r->has_value() && **r);
  for (auto& x : ***r)
    if (x.name == "batch-writer") {
      CAF_CHECK(!x.answered);
      CAF_CHECK(x.note.find("not running") != std::string::npos);
    }
}

CAF_TEST(the inspector answers a key from the shards that own its documents) {
  auto k = doc_key{doc_kind::deptemps, 6};
  fill(k);
  auto r = ask<std::vector<key_report>>(insp, key_atom::value, std::string{"dept:6"});
  CAF_REQUIRE(r->has_value() && **r);
  auto& reps = ***r;
  CAF_REQUIRE_EQUAL(reps.size(), 2u);
  CAF_CHECK_EQUAL(reps[0].key, "deptemps:6");
  CAF_CHECK_EQUAL(reps[0].shard, "shard-" + std::to_string(shard_index(k, shard_count)));
  CAF_CHECK(reps[0].in_memory);
  CAF_CHECK_EQUAL(reps[1].key, "dept:6");
  CAF_CHECK_EQUAL(reps[1].shard,
                  "shard-" + std::to_string(shard_index(doc_key{doc_kind::dept, 6}, shard_count)));
  CAF_CHECK(!reps[1].cached());
  auto text = render_key_reports("dept:6", reps);
  CAF_CHECK(text.find("deptemps:6 on shard-") != std::string::npos);
  CAF_CHECK(text.find("cached in memory") != std::string::npos);
  CAF_CHECK(text.find("dept:6 on shard-") != std::string::npos);
  CAF_CHECK(text.find("not cached") != std::string::npos);
}

CAF_TEST(the inspector refuses a bad key with a clear message) {
  auto r = ask<std::vector<key_report>>(insp, key_atom::value, std::string{"emp:6"});
  CAF_REQUIRE(r->has_value());
  CAF_REQUIRE(!**r);
  auto err = (*r)->error();
  CAF_CHECK(err == caf::sec::invalid_argument);
  CAF_REQUIRE(err.context().match_elements<std::string>());
  CAF_CHECK(err.context().get_as<std::string>(0).find("bad key 'emp:6'") != std::string::npos);
}

CAF_TEST_FIXTURE_SCOPE_END()

// ---- the real daemon and restcache-inspect ----------------------------------

namespace {

constexpr int64_t demo_depts = 40;

const std::string& demo_dsn() {
  static const std::string dsn = [] { return create_demo_database("inspect", demo_depts, 4); }();
  return dsn;
}

struct daemon_fixture {
  uint16_t inspect_port = free_loopback_port();
  std::unique_ptr<daemon_process> daemon;

  daemon_fixture() {
    daemon = std::make_unique<daemon_process>(std::vector<std::string>{
      "--db.dsn=" + demo_dsn(), "--db.pool-size=2", "--cache.shards=3", "--cache.mode=tiered",
      "--lmdb.flush-interval=50", "--log.level=info", "--inspect.port=" + std::to_string(inspect_port)});
    http_client c{daemon->port()};
    bool ready = wait_until(
      [&] {
        auto r = c.get("/metrics");
        return r.status == 200 && metric(r.body, "restcache_dept_ids") == demo_depts
               && metric(r.body, "restcache_listener_caught_up") == 1 && c.get("/ready").status == 200;
      },
      std::chrono::seconds{20});
    if (!ready)
      CAF_FAIL("daemon not ready within 20 s; log:\n" << daemon->log());
  }

  program_run inspect(std::vector<std::string> extra = {}) {
    std::vector<std::string> args{"--port", std::to_string(inspect_port)};
    args.insert(args.end(), extra.begin(), extra.end());
    return run_tool(args);
  }

  /// The key report's line for one document ("deptemps:7 on shard-1: ...").
  std::string key_line(const program_run& r, const std::string& doc) {
    auto at = r.out.find("  " + doc + " on shard-");
    if (at == std::string::npos)
      return {};
    return r.out.substr(at + 2, r.out.find('\n', at) - at - 2);
  }
};

} // namespace

CAF_TEST_FIXTURE_SCOPE(inspect_daemon_tests, daemon_fixture)

CAF_TEST(restcache inspect lists every long lived actor of a live daemon) {
  auto r = inspect();
  if (r.status != 0)
    CAF_MESSAGE("restcache-inspect failed (" << r.status << "):\n" << r.out << r.err << "\ndaemon log:\n" << daemon->log());
  CAF_REQUIRE_EQUAL(r.status, 0);
  CAF_MESSAGE("restcache-inspect output:\n" << r.out << r.err);
  auto header = r.out.substr(0, r.out.find('\n'));
  CAF_CHECK(header.find("NAME") != std::string::npos);
  CAF_CHECK(header.find("MAILBOX") != std::string::npos);
  for (std::string name : {"shard-0", "shard-1", "shard-2", "db-pool", "db-write-pool", "batch-writer",
                           "notify-listener", "dept-id-loader", "inspector"}) {
    auto line = table_line(r.out, name);
    CAF_CHECK(!line.empty());
    CAF_CHECK_GREATER_OR_EQUAL(mailbox_column(line), 0);
    CAF_CHECK(line.find("no report") == std::string::npos);
  }
  CAF_CHECK(table_line(r.out, "notify-listener").find("caught up yes") != std::string::npos);
  CAF_CHECK(table_line(r.out, "dept-id-loader").find("ids " + std::to_string(demo_depts)) != std::string::npos);
  CAF_CHECK(daemon->log().find("inspector published on 127.0.0.1:" + std::to_string(inspect_port))
            != std::string::npos);
  CAF_CHECK_EQUAL(daemon->terminate(), 0);
}

CAF_TEST(a key is not cached before a get then in memory and lmdb then dropped by an update) {
  auto r = inspect({"--key", "dept:7"});
  CAF_REQUIRE_EQUAL(r.status, 0);
  CAF_CHECK(key_line(r, "deptemps:7").find(": not cached") != std::string::npos);
  CAF_CHECK(key_line(r, "dept:7").find(": not cached") != std::string::npos);
  http_client c{daemon->port()};
  CAF_REQUIRE_EQUAL(c.get("/deptemps/7").status, 200);
  r = inspect({"--key=dept:7"});
  CAF_REQUIRE_EQUAL(r.status, 0);
  CAF_CHECK(key_line(r, "deptemps:7").find(": cached in memory") != std::string::npos);
  CAF_CHECK(r.out.find("ETag \"") != std::string::npos);
  // The batch writer flushes within lmdb.flush-interval.
  std::string last;
  CAF_CHECK(wait_until(
    [&] {
      last = inspect({"--key", "dept:7"}).out;
      return last.find("deptemps:7 on shard-") != std::string::npos
             && last.find(": cached in memory and in LMDB") != std::string::npos;
    },
    std::chrono::seconds{10}));
  CAF_MESSAGE("after the GET:\n" << last);
  pg::connection db{demo_dsn()};
  db.exec("UPDATE dept SET loc = 'INSPECTED' WHERE deptno = 7");
  CAF_CHECK(wait_until(
    [&] {
      auto x = inspect({"--key", "dept:7"});
      last = x.out;
      return x.status == 0 && key_line(x, "deptemps:7").find(": not cached") != std::string::npos;
    },
    std::chrono::seconds{10}));
  CAF_MESSAGE("after the UPDATE:\n" << last);
  CAF_CHECK(last.find("has applied changes up to seq 0") == std::string::npos);
}

CAF_TEST(watch refreshes like top until interrupted) {
  auto r = run_tool({"--port", std::to_string(inspect_port), "--watch=0.2"}, std::chrono::seconds{20},
                    std::chrono::milliseconds{1500});
  CAF_CHECK_EQUAL(r.status, 0);
  size_t screens = 0;
  for (auto at = r.out.find("\033[H\033[2J"); at != std::string::npos; at = r.out.find("\033[H\033[2J", at + 1))
    ++screens;
  CAF_CHECK_GREATER_OR_EQUAL(screens, 2u);
  CAF_CHECK(r.out.find("shard-2") != std::string::npos);
}

CAF_TEST(bad keys and arguments and an unreachable port give a clear line and a non zero exit) {
  auto bad = inspect({"--key", "emp:7"});
  CAF_CHECK_EQUAL(bad.status, 2);
  CAF_CHECK(bad.out.empty());
  CAF_CHECK(bad.err.find("restcache-inspect: bad key 'emp:7'") != std::string::npos);
  auto zero = inspect({"--key", "dept:0"});
  CAF_CHECK_EQUAL(zero.status, 2);
  CAF_CHECK(zero.err.find("bad key 'dept:0'") != std::string::npos);
  auto nowhere = run_tool({"--port", std::to_string(free_loopback_port())});
  CAF_CHECK_EQUAL(nowhere.status, 1);
  CAF_CHECK(nowhere.err.find("restcache-inspect: cannot reach the daemon's inspector at 127.0.0.1:")
            != std::string::npos);
  auto http_port = run_tool({"--port", std::to_string(daemon->port())}); // answers, but not CAF
  CAF_CHECK_EQUAL(http_port.status, 1);
  CAF_CHECK(http_port.err.find("cannot reach the daemon's inspector") != std::string::npos);
  { // A port that accepts and never says anything: the handshake deadline.
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    CAF_REQUIRE(fd >= 0 && bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 && listen(fd, 4) == 0
                && getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0);
    auto silent = run_tool({"--port", std::to_string(ntohs(addr.sin_port))});
    close(fd);
    CAF_CHECK_EQUAL(silent.status, 1);
    CAF_CHECK(silent.err.find("no CAF handshake") != std::string::npos);
  }
  auto no_port = run_tool({});
  CAF_CHECK_EQUAL(no_port.status, 2);
  CAF_CHECK(no_port.err.find("--port is required") != std::string::npos);
  auto junk = run_tool({"--port", "70000"});
  CAF_CHECK_EQUAL(junk.status, 2);
  auto unknown = run_tool({"--port", "1", "--frobnicate"});
  CAF_CHECK_EQUAL(unknown.status, 2);
  CAF_CHECK(unknown.err.find("unknown argument '--frobnicate'") != std::string::npos);
}

CAF_TEST(a port already taken stops start up with a clear message) {
  daemon_process* first = daemon.get();
  (void) first;
  std::optional<std::string> failure;
  try {
    daemon_process second{{"--db.dsn=" + demo_dsn(), "--db.pool-size=1", "--cache.shards=1",
                           "--log.level=warn", "--inspect.port=" + std::to_string(inspect_port)}};
  } catch (const std::exception& e) {
    failure = e.what();
  }
  CAF_REQUIRE(failure.has_value());
  CAF_CHECK(failure->find("cannot publish the inspector on 127.0.0.1:" + std::to_string(inspect_port))
            != std::string::npos);
}

CAF_TEST_FIXTURE_SCOPE_END()
