// SPDX-License-Identifier: Apache-2.0
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
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstddef>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "actors/batch_writer.hpp"
#include "app/cache_front.hpp"
#include "app/inspect_socket.hpp"
#include "actors/cache_shard.hpp"
#include "actors/notify_listener.hpp"
#include "config/options.hpp"
#include "demo/demo_catalogue.hpp"
#include "messages/document_encoder.hpp"
#include "messages/inspect_wire.hpp"
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

CAF_TEST(inspected keys name a key space or a kind and are parsed strictly) {
  inspected_key k;
  std::string why;
  CAF_REQUIRE(parse_inspected_key("dept:42", k, why)); // the space: both department kinds
  CAF_CHECK(k.keys == (std::vector<doc_key>{{demo::deptemps_kind, 42}, {demo::dept_kind, 42}}));
  CAF_REQUIRE(parse_inspected_key("deptemps:7", k, why)); // a kind: that one
  CAF_CHECK(k.keys == std::vector<doc_key>{{demo::deptemps_kind, 7}});
  CAF_REQUIRE(parse_inspected_key("emp:7839", k, why));
  CAF_CHECK(k.keys == std::vector<doc_key>{{demo::emp_kind, 7839}});
  for (auto bad : {"dept:", "dept:0", "dept:-3", "dept:4x", "orders:4", "dept", "dept:99999999999", ""}) {
    CAF_CHECK(!parse_inspected_key(bad, k, why));
    CAF_CHECK(why.find("bad key") != std::string::npos);
  }
  CAF_CHECK(why.find("dept, emp, deptemps") != std::string::npos); // the names it takes
}

CAF_TEST(a shard reports entries bytes and fills in flight) {
  auto k = doc_key{demo::deptemps_kind, 4};
  fill(k);
  auto& shard = owner(k);
  auto idx = shard_index(k, shards.size());
  // One more miss stays in flight.
  self->send(shard, get_atom::value, doc_key{demo::deptemps_kind, 1004},
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
  auto k = doc_key{demo::deptemps_kind, 5};
  auto r = ask<key_report>(owner(k), inspect_atom::value, k);
  CAF_REQUIRE(r->has_value() && **r);
  CAF_CHECK(!(**r)->cached());
  CAF_CHECK((**r)->tier_enabled);
  CAF_CHECK_EQUAL((**r)->key, "deptemps:5");
  // An invalidation moves the shard's sequence; the fill after it carries it.
  self->send(owner(k), invalidate_atom::value, change_batch{{doc_key{demo::deptemps_kind, 99}, 11, 0}});
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
  self->send(writer, put_atom::value, doc_key{demo::deptemps_kind, 8}, make_doc("{}"), uint64_t{1});
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
  auto k = doc_key{demo::deptemps_kind, 6};
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
                  "shard-" + std::to_string(shard_index(doc_key{demo::dept_kind, 6}, shard_count)));
  CAF_CHECK(!reps[1].cached());
  auto text = render_key_reports("dept:6", reps);
  CAF_CHECK(text.find("deptemps:6 on shard-") != std::string::npos);
  CAF_CHECK(text.find("cached in memory") != std::string::npos);
  CAF_CHECK(text.find("dept:6 on shard-") != std::string::npos);
  CAF_CHECK(text.find("not cached") != std::string::npos);
  // A kind's name asks for that kind alone.
  auto one = ask<std::vector<key_report>>(insp, key_atom::value, std::string{"emp:6"});
  CAF_REQUIRE(one->has_value() && **one);
  CAF_REQUIRE_EQUAL((***one).size(), 1u);
  CAF_CHECK_EQUAL((***one)[0].key, "emp:6");
  CAF_CHECK_EQUAL((***one)[0].shard, "shard-" + std::to_string(shard_index(doc_key{demo::emp_kind, 6}, shard_count)));
}

CAF_TEST(the inspector refuses a bad key with a clear message) {
  auto r = ask<std::vector<key_report>>(insp, key_atom::value, std::string{"orders:6"});
  CAF_REQUIRE(r->has_value());
  CAF_REQUIRE(!**r);
  auto err = (*r)->error();
  CAF_CHECK(err == caf::sec::invalid_argument);
  CAF_REQUIRE(err.context().match_elements<std::string>());
  CAF_CHECK(err.context().get_as<std::string>(0).find("bad key 'orders:6'") != std::string::npos);
}

CAF_TEST_FIXTURE_SCOPE_END()

// ---- the socket protocol ----------------------------------------------------

CAF_TEST(the socket protocol takes two requests and refuses anything else) {
  std::string why;
  auto list = inspect_wire::parse_request("list", why);
  CAF_REQUIRE(list);
  CAF_CHECK(list->what == inspect_wire::request::kind::list);
  CAF_CHECK_EQUAL(list->line(), "list\n");
  auto key = inspect_wire::parse_request("key dept:77\r", why); // a '\r' before the '\n' is dropped
  CAF_REQUIRE(key);
  CAF_CHECK(key->what == inspect_wire::request::kind::key);
  CAF_CHECK_EQUAL(key->key, "dept:77");
  CAF_CHECK_EQUAL(key->line(), "key dept:77\n");
  CAF_CHECK(!inspect_wire::parse_request("lists", why));
  CAF_CHECK(why.find("unknown request 'lists'") != std::string::npos);
  CAF_CHECK(!inspect_wire::parse_request(std::string{"key \x01"}, why));
  CAF_CHECK(why.find("not a line of text") != std::string::npos);
  CAF_CHECK(!inspect_wire::parse_request("", why));
}

CAF_TEST(answers carry a status and a bounded length and reports survive the trip) {
  std::vector<actor_report> reports(2);
  reports[0].name = "shard-0";
  reports[0].answered = true;
  reports[0].add("entries", 3);
  auto bytes = inspect_wire::answer(inspect_wire::status::ok, inspect_wire::encode(reports));
  std::string why;
  auto h = inspect_wire::parse_header(bytes, why);
  CAF_REQUIRE(h);
  CAF_CHECK(h->st == inspect_wire::status::ok);
  CAF_REQUIRE_EQUAL(h->length, bytes.size() - inspect_wire::header_bytes);
  std::vector<actor_report> back;
  CAF_REQUIRE(inspect_wire::decode(std::string_view{bytes}.substr(inspect_wire::header_bytes), back));
  CAF_REQUIRE_EQUAL(back.size(), 2u);
  CAF_CHECK_EQUAL(back[0].name, "shard-0");
  CAF_CHECK_EQUAL(back[0].get("entries"), "3");
  // Cut short, or followed by more: not one vector.
  CAF_CHECK(!inspect_wire::decode(std::string_view{bytes}.substr(inspect_wire::header_bytes, h->length - 1), back));
  CAF_CHECK(!inspect_wire::decode(bytes.substr(inspect_wire::header_bytes) + "x", back));
  std::vector<key_report> keys(1);
  keys[0].key = "deptemps:7";
  keys[0].in_lmdb = true;
  std::vector<key_report> keys_back;
  CAF_REQUIRE(inspect_wire::decode(inspect_wire::encode(keys), keys_back));
  CAF_CHECK_EQUAL(keys_back[0].key, "deptemps:7");
  CAF_CHECK(keys_back[0].in_lmdb);
  // Another program's answer, or a length beyond the bound.
  CAF_CHECK(!inspect_wire::parse_header("HTTP/1.1 400 Bad", why));
  CAF_CHECK(why.find("not restcached's inspector protocol") != std::string::npos);
  CAF_CHECK(!inspect_wire::parse_header(std::string{"RCI1\x00\x7f\xff\xff\xff", 9}, why));
  CAF_CHECK(why.find("more than the") != std::string::npos);
  auto refusal = inspect_wire::answer(inspect_wire::status::bad_request, "bad key");
  h = inspect_wire::parse_header(refusal, why);
  CAF_REQUIRE(h);
  CAF_CHECK(h->st == inspect_wire::status::bad_request);
  CAF_CHECK_EQUAL(refusal.substr(inspect_wire::header_bytes), "bad key");
}

CAF_TEST(inspect port is refused with what replaced it) {
  auto note = removed_option_note("inspect.port");
  CAF_REQUIRE(note);
  CAF_CHECK(note->find("inspect.socket") != std::string::npos);
  CAF_CHECK(note->find("middleman") != std::string::npos);
  auto cli = run_program({RESTCACHED_BIN, "--config-file=/dev/null", "--inspect.port=7070"});
  CAF_CHECK_EQUAL(cli.status, 2);
  CAF_CHECK(cli.err.find("inspect.port was removed: use inspect.socket") != std::string::npos);
  temp_dir dir{"inspect-conf"};
  auto file = dir.path + "/restcached.conf";
  std::ofstream{file} << "[inspect]\nport = 7070\n";
  auto conf = run_program({RESTCACHED_BIN, "--config-file=" + file});
  CAF_CHECK_EQUAL(conf.status, 2);
  CAF_CHECK(conf.err.find("inspect.port was removed") != std::string::npos);
  auto help = run_program({RESTCACHED_BIN, "--help"});
  CAF_CHECK(help.out.find("--inspect.socket=TEXT") != std::string::npos);
  CAF_CHECK(help.out.find("--inspect.port") == std::string::npos);
}

// ---- the real daemon and restcache-inspect ----------------------------------

namespace {

constexpr int64_t demo_depts = 40;

const std::string& demo_dsn() {
  static const std::string dsn = [] { return create_demo_database("inspect", demo_depts, 4); }();
  return dsn;
}

sockaddr_un unix_address(const std::string& path) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  CAF_REQUIRE(path.size() < sizeof addr.sun_path);
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  return addr;
}

/// A Unix socket bound at `path` (listening unless told otherwise).
int bound_unix_socket(const std::string& path, bool listening = true) {
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  auto addr = unix_address(path);
  CAF_REQUIRE(fd >= 0 && bind(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0);
  if (listening)
    CAF_REQUIRE(listen(fd, 4) == 0);
  return fd;
}

/// What a raw client of the inspect socket saw.
struct raw_exchange {
  int connect_error = 0; ///< errno of connect, 0 when connected
  std::string received;
  bool closed = false; ///< the daemon closed (EOF or reset) before the limit
};

/// Sends `bytes` to the socket at `path` and reads until the daemon closes
/// or `limit` passes.
raw_exchange talk(const std::string& path, std::string_view bytes,
                  std::chrono::milliseconds limit = std::chrono::seconds{10}) {
  raw_exchange x;
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  auto addr = unix_address(path);
  if (connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) {
    x.connect_error = errno;
    close(fd);
    return x;
  }
  if (!bytes.empty())
    CAF_CHECK_EQUAL(send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL), static_cast<ssize_t>(bytes.size()));
  auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, 50) <= 0)
      continue;
    char buf[4096];
    auto n = recv(fd, buf, sizeof buf, 0);
    if (n > 0) {
      x.received.append(buf, static_cast<size_t>(n));
      continue;
    }
    if (n == 0 || errno == ECONNRESET) {
      x.closed = true;
      break;
    }
  }
  close(fd);
  return x;
}

/// The status and text of an answer that is one refusal (bad_request).
std::string refusal_text(const raw_exchange& x) {
  std::string why;
  auto h = inspect_wire::parse_header(x.received, why);
  if (!h || h->st != inspect_wire::status::bad_request
      || x.received.size() != inspect_wire::header_bytes + h->length)
    return "(not one refusal: " + std::to_string(x.received.size()) + " bytes; " + why + ")";
  return x.received.substr(inspect_wire::header_bytes);
}

/// connect() to `path` as user and group 65534 (nobody) in a child process:
/// its errno, 0 when it connected.
int connect_as_nobody(const std::string& path) {
  auto addr = unix_address(path);
  pid_t pid = fork();
  if (pid == 0) { // raw system calls only: the parent has threads
    if (syscall(SYS_setgroups, 0, nullptr) != 0 || syscall(SYS_setgid, 65534) != 0
        || syscall(SYS_setuid, 65534) != 0)
      _exit(200);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
      _exit(201);
    _exit(connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0 ? 0 : (errno & 0x7f));
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/// The daemon's resident memory (VmRSS) in KiB, -1 when unreadable.
int64_t rss_kib(pid_t pid) {
  std::ifstream in{"/proc/" + std::to_string(pid) + "/status"};
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("VmRSS:", 0) == 0)
      return std::stoll(line.substr(6));
  return -1;
}

/// One socket a process listens on, and how to reach it.
struct listening_socket {
  std::string what; ///< "tcp 127.0.0.1:8080", "unix /tmp/x.sock"
  sockaddr_storage addr{};
  socklen_t addr_len = 0;
  uint16_t port = 0;     ///< TCP
  std::string path;      ///< Unix
};

/// Every listening socket among `pid`'s file descriptors: each descriptor's
/// socket inode matched in /proc/net/tcp, tcp6 (state 0A, LISTEN) and unix
/// (flags 00010000, state 01).
std::vector<listening_socket> listening_sockets(pid_t pid) {
  std::set<std::string> inodes;
  for (auto& entry : std::filesystem::directory_iterator{"/proc/" + std::to_string(pid) + "/fd"}) {
    std::error_code ec;
    auto target = std::filesystem::read_symlink(entry.path(), ec).string();
    if (!ec && target.rfind("socket:[", 0) == 0)
      inodes.insert(target.substr(8, target.size() - 9));
  }
  std::vector<listening_socket> out;
  for (bool v6 : {false, true}) {
    std::ifstream in{v6 ? "/proc/net/tcp6" : "/proc/net/tcp"};
    std::string line;
    std::getline(in, line); // the column names
    while (std::getline(in, line)) {
      std::istringstream fields{line};
      std::string slot, local, remote, state, queues, timer, retransmits, uid, timeout, inode;
      fields >> slot >> local >> remote >> state >> queues >> timer >> retransmits >> uid >> timeout >> inode;
      if (state != "0A" || !inodes.count(inode))
        continue;
      listening_socket s;
      auto colon = local.find(':');
      s.port = static_cast<uint16_t>(std::stoul(local.substr(colon + 1), nullptr, 16));
      auto hex = local.substr(0, colon);
      if (!v6) { // the address as the kernel holds it, printed as a host-order word
        auto* a = reinterpret_cast<sockaddr_in*>(&s.addr);
        a->sin_family = AF_INET;
        a->sin_port = htons(s.port);
        a->sin_addr.s_addr = static_cast<uint32_t>(std::stoul(hex, nullptr, 16));
        if (a->sin_addr.s_addr == INADDR_ANY)
          a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        s.addr_len = sizeof(sockaddr_in);
        char text[INET_ADDRSTRLEN];
        inet_ntop(AF_INET, &a->sin_addr, text, sizeof text);
        s.what = std::string{"tcp "} + text + ":" + std::to_string(s.port);
      } else {
        auto* a = reinterpret_cast<sockaddr_in6*>(&s.addr);
        a->sin6_family = AF_INET6;
        a->sin6_port = htons(s.port);
        for (int w = 0; w < 4; ++w)
          a->sin6_addr.s6_addr32[w] = static_cast<uint32_t>(std::stoul(hex.substr(8 * w, 8), nullptr, 16));
        if (IN6_IS_ADDR_UNSPECIFIED(&a->sin6_addr))
          a->sin6_addr = in6addr_loopback;
        s.addr_len = sizeof(sockaddr_in6);
        char text[INET6_ADDRSTRLEN];
        inet_ntop(AF_INET6, &a->sin6_addr, text, sizeof text);
        s.what = std::string{"tcp6 ["} + text + "]:" + std::to_string(s.port);
      }
      out.push_back(s);
    }
  }
  std::ifstream in{"/proc/net/unix"};
  std::string line;
  std::getline(in, line); // the column names
  while (std::getline(in, line)) {
    std::istringstream fields{line};
    std::string slot, refs, protocol, flags, type, state, inode, path;
    fields >> slot >> refs >> protocol >> flags >> type >> state >> inode >> path;
    if (flags != "00010000" || state != "01" || !inodes.count(inode) || path.empty())
      continue;
    listening_socket s;
    s.path = path;
    s.what = "unix " + path;
    auto* a = reinterpret_cast<sockaddr_un*>(&s.addr);
    a->sun_family = AF_UNIX;
    auto name = path;
    if (!name.empty() && name[0] == '@') // abstract: a leading NUL
      name[0] = '\0';
    CAF_REQUIRE(name.size() < sizeof a->sun_path);
    std::memcpy(a->sun_path, name.data(), name.size());
    s.addr_len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + name.size() + (name[0] == '\0' ? 0 : 1));
    out.push_back(s);
  }
  return out;
}

/// CAF 0.17's BASP header (caf/io/basp/header.hpp, 32 bytes): operation 2
/// (direct_message), three bytes, the payload length (u32), operation data
/// (u64), source and destination actor ids (u64 each), big-endian as
/// struct.pack('>BBBBIQQQ', 2, 0, 0, 0, payload_len, 0, 0, 14) packs it. The
/// middleman allocated and zeroed the announced payload at once, before any
/// handshake (test/system/hostile: 2.5 GB for six such headers of 1 GiB).
std::string basp_header(uint32_t payload_len) {
  std::string out{char{2}, char{0}, char{0}, char{0}};
  for (int shift = 24; shift >= 0; shift -= 8)
    out += static_cast<char>((payload_len >> shift) & 0xff);
  out.append(8 + 8 + 7, '\0');
  out += char{14};
  return out;
}

struct daemon_fixture {
  temp_dir dir{"inspect"};
  std::string socket_path = dir.path + "/inspect.sock";
  std::unique_ptr<daemon_process> daemon;

  daemon_fixture() {
    daemon = start_daemon(socket_path);
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

  static std::unique_ptr<daemon_process> start_daemon(const std::string& socket) {
    return std::make_unique<daemon_process>(std::vector<std::string>{
      "--db.dsn=" + demo_dsn(), "--db.pool-size=2", "--cache.shards=3", "--cache.mode=tiered",
      "--lmdb.flush-interval=50", "--log.level=info", "--inspect.socket=" + socket});
  }

  /// Why a second daemon on `socket` did not start, or nullopt when it did.
  static std::optional<std::string> second_daemon_failure(const std::string& socket) {
    try {
      daemon_process second{{"--db.dsn=" + demo_dsn(), "--db.pool-size=1", "--cache.shards=1",
                             "--log.level=warn", "--inspect.socket=" + socket}};
    } catch (const std::exception& e) {
      return e.what();
    }
    return std::nullopt;
  }

  program_run inspect(std::vector<std::string> extra = {}) {
    std::vector<std::string> args{"--socket", socket_path};
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

  /// The tool still lists the actors: the daemon keeps serving.
  bool still_lists() {
    auto r = inspect();
    return r.status == 0 && !table_line(r.out, "inspector").empty();
  }
};

bool exists(const std::string& path) {
  struct stat st{};
  return lstat(path.c_str(), &st) == 0;
}

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
  CAF_CHECK(table_line(r.out, "inspector").find("lists answered 1") != std::string::npos);
  CAF_CHECK(daemon->log().find("inspector served on the Unix socket " + socket_path) != std::string::npos);
  // A client that connected and says nothing does not hold up the stop, and
  // the socket file goes with the daemon.
  int idle = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  auto addr = unix_address(socket_path);
  CAF_REQUIRE(connect(idle, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0);
  std::this_thread::sleep_for(std::chrono::milliseconds{200});
  auto before = std::chrono::steady_clock::now();
  CAF_CHECK_EQUAL(daemon->terminate(), 0);
  auto took = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - before);
  CAF_CHECK_LESS(took.count(), std::chrono::milliseconds{inspect_socket::io_deadline}.count());
  close(idle);
  CAF_CHECK(!exists(socket_path));
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
  auto r = run_tool({"--socket", socket_path, "--watch=0.2"}, std::chrono::seconds{20},
                    std::chrono::milliseconds{1500});
  CAF_CHECK_EQUAL(r.status, 0);
  size_t screens = 0;
  for (auto at = r.out.find("\033[H\033[2J"); at != std::string::npos; at = r.out.find("\033[H\033[2J", at + 1))
    ++screens;
  CAF_CHECK_GREATER_OR_EQUAL(screens, 2u);
  CAF_CHECK(r.out.find("shard-2") != std::string::npos);
  CAF_CHECK(r.out.find("restcache-inspect " + socket_path) != std::string::npos);
}

CAF_TEST(bad keys and arguments and an unreachable socket give a clear line and a non zero exit) {
  auto bad = inspect({"--key", "orders:7"});
  CAF_CHECK_EQUAL(bad.status, 2);
  CAF_CHECK(bad.out.empty());
  CAF_CHECK(bad.err.find("restcache-inspect: bad key 'orders:7'") != std::string::npos);
  auto zero = inspect({"--key", "dept:0"});
  CAF_CHECK_EQUAL(zero.status, 2);
  CAF_CHECK(zero.err.find("bad key 'dept:0'") != std::string::npos);
  auto nowhere = run_tool({"--socket", dir.path + "/none.sock"});
  CAF_CHECK_EQUAL(nowhere.status, 1);
  CAF_CHECK(nowhere.err.find("restcache-inspect: cannot reach the daemon's inspector at " + dir.path + "/none.sock")
            != std::string::npos);
  { // A socket that accepts and never says anything: the answer's deadline.
    auto path = dir.path + "/silent.sock";
    int fd = bound_unix_socket(path);
    auto silent = run_tool({"--socket", path});
    close(fd);
    CAF_CHECK_EQUAL(silent.status, 1);
    CAF_CHECK(silent.err.find("no answer within 5 s") != std::string::npos);
  }
  { // Another program's socket.
    auto path = dir.path + "/other.sock";
    int fd = bound_unix_socket(path);
    std::thread other{[fd] {
      int c = accept4(fd, nullptr, nullptr, SOCK_CLOEXEC);
      if (c < 0)
        return;
      char request[64]; // answered after the request, as a server would
      [[maybe_unused]] auto got = recv(c, request, sizeof request, 0);
      std::string_view reply = "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n";
      [[maybe_unused]] auto n = send(c, reply.data(), reply.size(), MSG_NOSIGNAL);
      close(c);
    }};
    auto foreign = run_tool({"--socket", path});
    other.join();
    close(fd);
    CAF_CHECK_EQUAL(foreign.status, 1);
    CAF_CHECK(foreign.err.find("is not restcached's inspector socket") != std::string::npos);
  }
  auto no_socket = run_tool({});
  CAF_CHECK_EQUAL(no_socket.status, 2);
  CAF_CHECK(no_socket.err.find("--socket is required") != std::string::npos);
  auto port = run_tool({"--port", "7070"});
  CAF_CHECK_EQUAL(port.status, 2);
  CAF_CHECK(port.err.find("--port was removed") != std::string::npos);
  CAF_CHECK(port.err.find("use --socket PATH") != std::string::npos);
  auto host = run_tool({"--socket", socket_path, "--host=127.0.0.1"});
  CAF_CHECK_EQUAL(host.status, 2);
  CAF_CHECK(host.err.find("use --socket PATH") != std::string::npos);
  auto too_long = run_tool({"--socket", "/tmp/" + std::string(200, 'x')});
  CAF_CHECK_EQUAL(too_long.status, 2);
  auto junk_watch = run_tool({"--socket", socket_path, "--watch=0"});
  CAF_CHECK_EQUAL(junk_watch.status, 2);
  auto unknown = run_tool({"--socket", socket_path, "--frobnicate"});
  CAF_CHECK_EQUAL(unknown.status, 2);
  CAF_CHECK(unknown.err.find("unknown argument '--frobnicate'") != std::string::npos);
  auto version = run_tool({"--version"});
  auto daemon_version = run_program({RESTCACHED_BIN, "--version"});
  CAF_CHECK_EQUAL(version.status, 0);
  CAF_CHECK_EQUAL(daemon_version.status, 0);
  CAF_CHECK(version.out.rfind("restcached ", 0) == 0);
  CAF_CHECK_EQUAL(version.out, daemon_version.out);
}

CAF_TEST(only the daemon user and root can reach the socket) {
  struct stat st{};
  CAF_REQUIRE(lstat(socket_path.c_str(), &st) == 0);
  CAF_CHECK(S_ISSOCK(st.st_mode));
  CAF_CHECK_EQUAL(st.st_mode & 07777, 0600u);
  CAF_CHECK_EQUAL(st.st_uid, geteuid()); // the daemon runs as the test's user
  if (geteuid() != 0) {
    CAF_MESSAGE("not root: another user's connect is not tried");
    return;
  }
  // Only the socket's mode keeps another user out: its directory lets one through.
  CAF_REQUIRE(chmod(dir.path.c_str(), 0711) == 0);
  CAF_CHECK_EQUAL(connect_as_nobody(socket_path), EACCES);
  CAF_REQUIRE(chmod(socket_path.c_str(), 0666) == 0); // the control: wider, and nobody gets in
  CAF_CHECK_EQUAL(connect_as_nobody(socket_path), 0);
  CAF_REQUIRE(chmod(socket_path.c_str(), 0600) == 0);
  CAF_CHECK(still_lists());
}

CAF_TEST(a long line or garbage gets a refusal and a close and the daemon keeps serving) {
  auto too_long = talk(socket_path, std::string(300, 'a'));
  CAF_CHECK(too_long.closed);
  CAF_CHECK(refusal_text(too_long).find("the request line is longer than 256 bytes") != std::string::npos);
  // At most 256 bytes, the '\n' included: 255 and a newline is a line (an unknown request).
  auto longest = talk(socket_path, std::string(255, 'a') + "\n");
  CAF_CHECK(longest.closed);
  CAF_CHECK(refusal_text(longest).find("unknown request 'aaaa") != std::string::npos);
  auto unknown = talk(socket_path, "hello\n");
  CAF_CHECK(unknown.closed);
  CAF_CHECK(refusal_text(unknown).find("unknown request 'hello'") != std::string::npos);
  auto binary = talk(socket_path, basp_header(1u << 30) + "x");
  CAF_CHECK(binary.closed);
  CAF_CHECK(refusal_text(binary).find("not a line of text") != std::string::npos);
  auto bad_key = talk(socket_path, "key orders:3\n");
  CAF_CHECK(bad_key.closed);
  CAF_CHECK(refusal_text(bad_key).find("bad key 'orders:3'") != std::string::npos);
  auto unended = talk(socket_path, "lis", std::chrono::seconds{10});
  CAF_CHECK(unended.closed); // after the request deadline
  CAF_CHECK(refusal_text(unended).find("no request line within 3 s") != std::string::npos);
  CAF_CHECK(still_lists());
  // Plain text works as well as the tool does (socat, nc -U).
  auto list = talk(socket_path, "list\r\n");
  std::string why;
  auto h = inspect_wire::parse_header(list.received, why);
  CAF_REQUIRE(h);
  CAF_CHECK(h->st == inspect_wire::status::ok);
  std::vector<actor_report> reports;
  CAF_CHECK(inspect_wire::decode(std::string_view{list.received}.substr(inspect_wire::header_bytes), reports));
  CAF_CHECK_GREATER_OR_EQUAL(reports.size(), 9u);
}

CAF_TEST(a socket path a live daemon serves stops start up with a clear message) {
  auto failure = second_daemon_failure(socket_path);
  CAF_REQUIRE(failure.has_value());
  CAF_CHECK(failure->find("cannot serve the inspector on " + socket_path + " (inspect.socket): a live process answers on it")
            != std::string::npos);
  CAF_CHECK(exists(socket_path)); // the first daemon's, left as it is
  CAF_CHECK(still_lists());
  // Something else at the path is left alone too.
  auto file = dir.path + "/not-a-socket";
  std::ofstream{file} << "keep me\n";
  failure = second_daemon_failure(file);
  CAF_REQUIRE(failure.has_value());
  CAF_CHECK(failure->find("cannot serve the inspector on " + file + " (inspect.socket): it exists and is not a socket")
            != std::string::npos);
  std::ifstream in{file};
  std::string kept;
  std::getline(in, kept);
  CAF_CHECK_EQUAL(kept, "keep me");
}

CAF_TEST(a stale socket file left by a crash is replaced) {
  auto stale = dir.path + "/stale.sock";
  close(bound_unix_socket(stale, false)); // the file stays; nobody answers on it
  CAF_REQUIRE(chmod(stale.c_str(), 0666) == 0);
  auto second = start_daemon(stale);
  // The log is written by spdlog's background thread: wait (bounded) for the line.
  CAF_CHECK(wait_until([&] { return second->log().find("removed a stale socket file nobody answered on") != std::string::npos; },
                       std::chrono::seconds{5}));
  struct stat after{};
  CAF_REQUIRE(lstat(stale.c_str(), &after) == 0);
  CAF_CHECK(S_ISSOCK(after.st_mode));
  CAF_CHECK_EQUAL(after.st_mode & 0777, 0600u); // made anew, not the 0666 one
  auto r = run_tool({"--socket", stale});
  CAF_CHECK_EQUAL(r.status, 0);
  CAF_CHECK(!table_line(r.out, "shard-0").empty());
  CAF_CHECK_EQUAL(second->terminate(), 0);
  CAF_CHECK(!exists(stale));
  CAF_CHECK(exists(socket_path)); // the other daemon's is not touched
}

// CAF 0.17's middleman, which served the inspector on a TCP port, allocated
// and zeroed a BASP header's payload length (up to 4 GiB) per connection
// before any handshake. Every socket the daemon listens on, found from its
// descriptors so a new one cannot be missed, gets that header.
CAF_TEST(no listening socket of the daemon allocates what a basp header announces) {
  auto pid = daemon->pid();
  auto listeners = listening_sockets(pid);
  std::string names;
  for (auto& l : listeners)
    names += " " + l.what;
  CAF_MESSAGE("the daemon listens on:" << names);
  bool http = false, inspector = false;
  for (auto& l : listeners) {
    http = http || (l.path.empty() && l.port == daemon->port());
    inspector = inspector || l.path == socket_path;
  }
  CAF_CHECK(http);
  CAF_CHECK(inspector);
  CAF_REQUIRE_GREATER_OR_EQUAL(listeners.size(), 2u);
  auto before = rss_kib(pid);
  CAF_REQUIRE_GREATER(before, 0);
  auto header = basp_header(1u << 30) + "x";
  std::vector<int> open;
  for (auto& l : listeners) {
    int fd = socket(l.addr.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    CAF_REQUIRE(fd >= 0);
    if (connect(fd, reinterpret_cast<const sockaddr*>(&l.addr), l.addr_len) != 0) {
      CAF_FAIL("cannot connect to " << l.what << ": " << std::strerror(errno));
    }
    CAF_CHECK_EQUAL(send(fd, header.data(), header.size(), MSG_NOSIGNAL), static_cast<ssize_t>(header.size()));
    open.push_back(fd);
  }
  // Held open a moment: the most the daemon's memory grew meanwhile.
  int64_t most = before;
  for (int i = 0; i < 20; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds{100});
    most = std::max(most, rss_kib(pid));
  }
  for (int fd : open)
    close(fd);
  CAF_MESSAGE("RSS " << before << " KiB before, at most " << most << " KiB with the connections open");
  CAF_CHECK_LESS(most - before, 16 * 1024);
  http_client c{daemon->port()};
  CAF_CHECK_EQUAL(c.get("/health").status, 200);
  CAF_CHECK(still_lists());
}

CAF_TEST_FIXTURE_SCOPE_END()
