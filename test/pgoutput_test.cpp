// SPDX-License-Identifier: Apache-2.0
#define CAF_SUITE pgoutput

// The pgoutput decoder: each message and frame from bytes written by hand,
// cut short or unknown refused, and on a private cluster (wal_level =
// logical) what PostgreSQL's own pgoutput writes for a table's inserts,
// updates, deletes, truncates and logical messages, read through a slot's
// SQL interface, decoded in order.

#include "persistence/pg/pgoutput.hpp"

#include <caf/test/unit_test.hpp>

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include "demo/demo_catalogue.hpp"
#include "messages/doc_catalogue.hpp"
#include "messages/wal_lsn.hpp"
#include "persistence/pg/connection.hpp"
#include "persistence/pg/wal_changes.hpp"
#include "persistence/pg/wal_keys.hpp"
#include "persistence/pg/wal_relay.hpp"
#include "persistence/pg/wal_slot.hpp"
#include "persistence/pg/wal_stream.hpp"
#include "test/fixtures/private_pg.hpp"
#include "test/fixtures/test_support.hpp"

using namespace restcache;
using namespace restcache::pg;
namespace po = restcache::pg::pgoutput;

namespace {

/// Bytes as the protocol writes them: big-endian integers, NUL-ended strings.
struct bytes {
  std::string b;
  bytes& u8(uint8_t v) {
    b += static_cast<char>(v);
    return *this;
  }
  bytes& be(uint64_t v, int n) {
    for (int shift = 8 * (n - 1); shift >= 0; shift -= 8)
      b += static_cast<char>((v >> shift) & 0xff);
    return *this;
  }
  bytes& u16(uint16_t v) { return be(v, 2); }
  bytes& u32(uint32_t v) { return be(v, 4); }
  bytes& u64(uint64_t v) { return be(v, 8); }
  bytes& str(const std::string& s) {
    b += s;
    b += '\0';
    return *this;
  }
  bytes& text(const std::string& s) {
    u8('t').u32(static_cast<uint32_t>(s.size()));
    b += s;
    return *this;
  }
};

template <class T>
T as(const po::message& m) {
  if (!std::holds_alternative<T>(m))
    CAF_FAIL("decoded another message than expected (index " << m.index() << ")");
  return std::get<T>(m);
}

bool refused(const std::string& b) {
  try {
    po::decode(b);
  } catch (const po::decode_error&) {
    return true;
  }
  return false;
}

std::string unhex(std::string_view hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2)
    out += static_cast<char>(std::stoi(std::string{hex.substr(i, 2)}, nullptr, 16));
  return out;
}

} // namespace

CAF_TEST(each message of protocol version 1 is decoded from its bytes) {
  auto b = as<po::begin>(po::decode(bytes{}.u8('B').u64(0x16B374D848).u64(7).u32(731).b));
  CAF_CHECK_EQUAL(b.final_lsn, 0x16B374D848u);
  CAF_CHECK_EQUAL(b.xid, 731u);
  auto c = as<po::commit>(po::decode(bytes{}.u8('C').u8(0).u64(100).u64(120).u64(9).b));
  CAF_CHECK_EQUAL(c.commit_lsn, 100u);
  CAF_CHECK_EQUAL(c.end_lsn, 120u);
  auto r = as<po::relation>(po::decode(bytes{}
                                         .u8('R').u32(16390).str("public").str("emp").u8('d').u16(2)
                                         .u8(1).str("empno").u32(23).u32(0xffffffff)
                                         .u8(0).str("deptno").u32(23).u32(0xffffffff).b));
  CAF_CHECK_EQUAL(r.oid, 16390u);
  CAF_CHECK_EQUAL(r.name, "emp");
  CAF_REQUIRE_EQUAL(r.columns.size(), 2u);
  CAF_CHECK(r.columns[0].key);
  CAF_CHECK(!r.columns[1].key);
  CAF_CHECK_EQUAL(r.columns[1].name, "deptno");
  CAF_CHECK_EQUAL(r.columns[1].typmod, -1);
  auto i = as<po::insert>(po::decode(bytes{}.u8('I').u32(16390).u8('N').u16(3).text("7839").u8('n').u8('u').b));
  CAF_REQUIRE_EQUAL(i.new_row.size(), 3u);
  CAF_CHECK_EQUAL(i.new_row[0].text, "7839");
  CAF_CHECK(i.new_row[1].is == po::value::state::null);
  CAF_CHECK(i.new_row[2].is == po::value::state::unchanged);
  // An update with its key changed carries the old key; without, none.
  auto u = as<po::update>(po::decode(bytes{}.u8('U').u32(16390).u8('K').u16(1).text("1").u8('N').u16(1).text("2").b));
  CAF_REQUIRE(u.old_row.has_value());
  CAF_CHECK(u.old_is_key);
  CAF_CHECK_EQUAL((*u.old_row)[0].text, "1");
  CAF_CHECK_EQUAL(u.new_row[0].text, "2");
  CAF_CHECK(!as<po::update>(po::decode(bytes{}.u8('U').u32(1).u8('N').u16(0).b)).old_row.has_value());
  auto d = as<po::remove>(po::decode(bytes{}.u8('D').u32(16390).u8('O').u16(1).text("9").b));
  CAF_CHECK(!d.old_is_key);
  CAF_CHECK_EQUAL(d.old_row[0].text, "9");
  auto t = as<po::truncate>(po::decode(bytes{}.u8('T').u32(2).u8(1).u32(5).u32(6).b));
  CAF_CHECK(t.cascade);
  CAF_CHECK(!t.restart_identity);
  CAF_CHECK_EQUAL(t.relations, (std::vector<uint32_t>{5, 6}));
  auto m = as<po::logical_message>(po::decode(bytes{}.u8('M').u8(1).u64(44).str("restcache").u32(2).str("x").b));
  CAF_CHECK(m.transactional);
  CAF_CHECK_EQUAL(m.prefix, "restcache");
  CAF_CHECK_EQUAL(m.content, std::string("x\0", 2));
  CAF_CHECK_EQUAL(as<po::origin>(po::decode(bytes{}.u8('O').u64(3).str("other").b)).name, "other");
  CAF_CHECK_EQUAL(as<po::type>(po::decode(bytes{}.u8('Y').u32(99).str("public").str("mood").b)).name, "mood");
}

CAF_TEST(a message cut short or of a kind version 1 does not send is refused) {
  CAF_CHECK(refused(""));
  CAF_CHECK(refused(bytes{}.u8('B').u64(1).b));                               // cut short
  CAF_CHECK(refused(bytes{}.u8('R').u32(1).str("public").b));                 // a string missing
  CAF_CHECK(refused(bytes{}.u8('I').u32(1).u8('N').u16(1).u8('t').u32(5).b)); // a value cut short
  CAF_CHECK(refused(bytes{}.u8('I').u32(1).u8('N').u16(1).u8('b').u32(0).b)); // binary
  CAF_CHECK(refused(bytes{}.u8('D').u32(1).u8('N').u16(0).b));                // no old row
  CAF_CHECK(refused(bytes{}.u8('T').u32(1000000).u8(0).b));                   // more relations than bytes
  CAF_CHECK(refused(bytes{}.u8('S').u32(1).u8(1).b));                         // streamed
  CAF_CHECK(refused(bytes{}.u8('C').u8(0).u64(1).u64(2).u64(3).u8(0).b));    // bytes after its end
  CAF_CHECK(refused("Z"));
}

CAF_TEST(replication frames are decoded and a status update is written) {
  const auto wal = bytes{}.u8('w').u64(10).u64(20).u64(30).u8('B').b; // the frame's message points into it
  auto w = po::decode_frame(wal);
  CAF_REQUIRE(std::holds_alternative<po::xlog_data>(w));
  CAF_CHECK_EQUAL(std::get<po::xlog_data>(w).end, 20u);
  CAF_CHECK_EQUAL(std::get<po::xlog_data>(w).message, "B");
  auto k = po::decode_frame(bytes{}.u8('k').u64(77).u64(5).u8(1).b);
  CAF_REQUIRE(std::holds_alternative<po::keepalive>(k));
  CAF_CHECK_EQUAL(std::get<po::keepalive>(k).end, 77u);
  CAF_CHECK(std::get<po::keepalive>(k).reply_requested);
  const auto expected = bytes{}.u8('r').u64(1).u64(2).u64(3).u64(4).u8(1).b;
  CAF_CHECK_EQUAL(po::status_update(1, 2, 3, 4, true), expected);
  CAF_CHECK_EQUAL(po::pg_time_of_unix_us(946'684'800'000'000), 0);
}

CAF_TEST(what PostgreSQL pgoutput writes for a table is decoded in order) {
  auto dsn = test::shared_private_pg().create_database("pgoutput");
  connection c{dsn};
  c.exec("SET synchronous_commit = on"); // the slot's SQL interface decodes what is flushed
  c.exec("CREATE TABLE pet (id int PRIMARY KEY, name text, owner int, notes text)");
  c.exec("ALTER TABLE pet ALTER COLUMN notes SET STORAGE EXTERNAL");
  c.exec("CREATE PUBLICATION restcache_test FOR TABLE pet");
  c.exec("SELECT pg_create_logical_replication_slot('restcache_test', 'pgoutput')");
  c.exec("INSERT INTO pet VALUES (1, 'Rex', 10, repeat('x', 5000))");
  c.exec("UPDATE pet SET owner = 11 WHERE id = 1");   // key unchanged: no old row; notes unchanged TOAST
  c.exec("UPDATE pet SET id = 2 WHERE id = 1");       // key changed: the old key
  c.exec("SELECT pg_logical_emit_message(true, 'restcache', 'hello')");
  c.exec("DELETE FROM pet WHERE id = 2");
  c.exec("TRUNCATE pet");
  auto r = c.exec("SELECT encode(data, 'hex') FROM pg_logical_slot_get_binary_changes('restcache_test', NULL, NULL,"
                  " 'proto_version', '1', 'publication_names', 'restcache_test', 'messages', 'true')");
  std::vector<po::message> got;
  for (int row = 0; row < r.rows(); ++row)
    got.push_back(po::decode(unhex(r.text(row, 0))));
  c.exec("SELECT pg_drop_replication_slot('restcache_test')");
  // Six transactions: begin, (relation,) change, commit each; the message
  // is in its own transaction, after its begin.
  std::vector<size_t> kinds;
  for (const auto& m : got)
    kinds.push_back(m.index());
  auto index = [](po::message m) { return m.index(); };
  const size_t B = index(po::begin{}), C = index(po::commit{}), R = index(po::relation{}), I = index(po::insert{}),
               U = index(po::update{}), D = index(po::remove{}), T = index(po::truncate{}),
               M = index(po::logical_message{});
  CAF_CHECK_EQUAL(kinds, (std::vector<size_t>{B, R, I, C, B, U, C, B, U, C, B, M, C, B, D, C, B, R, T, C}));
  if (kinds.size() != 20)
    return;
  auto rel = std::get<po::relation>(got[1]);
  CAF_CHECK_EQUAL(rel.schema, "public");
  CAF_CHECK_EQUAL(rel.name, "pet");
  CAF_CHECK_EQUAL(rel.columns.size(), 4u);
  CAF_CHECK(rel.columns[0].key);
  auto ins = std::get<po::insert>(got[2]);
  CAF_CHECK_EQUAL(ins.relation, rel.oid);
  CAF_CHECK_EQUAL(ins.new_row[1].text, "Rex");
  auto same_key = std::get<po::update>(got[5]);
  CAF_CHECK(!same_key.old_row.has_value());
  CAF_CHECK_EQUAL(same_key.new_row[2].text, "11");
  CAF_CHECK(same_key.new_row[3].is == po::value::state::unchanged); // the TOASTed notes
  auto moved = std::get<po::update>(got[8]);
  CAF_REQUIRE(moved.old_row.has_value());
  CAF_CHECK(moved.old_is_key);
  CAF_CHECK_EQUAL((*moved.old_row)[0].text, "1");
  CAF_CHECK((*moved.old_row)[1].is == po::value::state::null); // a key carries only the identity's columns
  CAF_CHECK_EQUAL(moved.new_row[0].text, "2");
  CAF_CHECK_EQUAL(std::get<po::logical_message>(got[11]).content, "hello");
  auto del = std::get<po::remove>(got[14]);
  CAF_CHECK(del.old_is_key);
  CAF_CHECK_EQUAL(del.old_row[0].text, "2");
  CAF_CHECK_EQUAL(std::get<po::truncate>(got[18]).relations, (std::vector<uint32_t>{rel.oid}));
  CAF_CHECK_LESS(std::get<po::begin>(got[0]).final_lsn, std::get<po::commit>(got[19]).end_lsn);
}

namespace {

po::relation pet_relation(char identity) {
  po::relation r;
  r.oid = 500;
  r.schema = "public";
  r.name = "pet";
  r.replica_identity = identity;
  r.columns = {{"id", 23, -1, true}, {"owner", 23, -1, false}, {"code", 1042, 12, false}};
  return r;
}

po::value text(const std::string& t) {
  return {po::value::state::text, t};
}

const po::value null{};

std::vector<std::string> sorted(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  return v;
}

} // namespace

CAF_TEST(a decoded change names the keys the trigger would log) {
  pg::wal_key_mapper m{{{"public", "pet", {{"pets", "id"}, {"owners", "owner"}, {"codes", "code"}}, {}, {}}}};
  m.learn(pet_relation('d'));
  auto ins = m.keys_of(po::insert{500, {text("1"), text("7"), text("c6          ")}});
  CAF_CHECK(ins.watched);
  CAF_CHECK_EQUAL(ins.keys, (std::vector<std::string>{"pets:1", "owners:7", "codes:c6"})); // char(n) as ::text
  // A NULL key gives none.
  CAF_CHECK_EQUAL(m.keys_of(po::insert{500, {text("2"), null, null}}).keys, (std::vector<std::string>{"pets:2"}));
  // An update under the default identity: the key column unchanged (no old
  // row) is logged once; the old owner is not carried.
  auto moved = m.keys_of(po::update{500, std::nullopt, false, {text("1"), text("8"), text("c6")}});
  CAF_CHECK_EQUAL(sorted(moved.keys), (std::vector<std::string>{"codes:c6", "owners:8", "pets:1"}));
  CAF_CHECK_EQUAL(sorted(moved.unknown_old), (std::vector<std::string>{"codes", "owners"}));
  // The identity changed: its old key came, the others as null placeholders.
  auto renumbered = m.keys_of(po::update{500, po::row{text("1"), null, null}, true, {text("2"), text("8"), null}});
  CAF_CHECK_EQUAL(sorted(renumbered.keys), (std::vector<std::string>{"owners:8", "pets:1", "pets:2"}));
  CAF_CHECK_EQUAL(sorted(renumbered.unknown_old), (std::vector<std::string>{"codes", "owners"}));
  auto gone = m.keys_of(po::remove{500, {text("2"), null, null}, true});
  CAF_CHECK_EQUAL(gone.keys, (std::vector<std::string>{"pets:2"}));
  CAF_CHECK_EQUAL(sorted(gone.unknown_old), (std::vector<std::string>{"codes", "owners"}));
  // Under REPLICA IDENTITY FULL every old key is carried.
  m.learn(pet_relation('f'));
  auto full = m.keys_of(po::update{500, po::row{text("1"), text("7"), text("c6")}, false,
                                   {text("1"), text("8"), po::value{po::value::state::unchanged, {}}}});
  CAF_CHECK_EQUAL(sorted(full.keys), (std::vector<std::string>{"codes:c6", "owners:7", "owners:8", "pets:1"}));
  CAF_CHECK(full.unknown_old.empty());
  CAF_CHECK_EQUAL(m.keys_of(po::truncate{{500, 501}}).keys, (std::vector<std::string>{"*:public.pet"}));
  // A key column the table no longer has: the whole table, as the trigger.
  auto renamed = pet_relation('d');
  renamed.columns[1].name = "owner_id";
  m.learn(renamed);
  CAF_CHECK_EQUAL(sorted(m.keys_of(po::insert{500, {text("3"), text("9"), null}}).keys),
                  (std::vector<std::string>{"*:public.pet", "pets:3"}));
  // Another table, and a partition mapped to its watched root.
  po::relation other;
  other.oid = 600;
  other.schema = "public";
  other.name = "other";
  m.learn(other);
  CAF_CHECK(!m.keys_of(po::insert{600, {}}).watched);
  auto part = pet_relation('d');
  part.oid = 700;
  part.name = "pet_2026";
  m.map_descendant("public", "pet_2026", "public", "pet");
  m.learn(part);
  CAF_CHECK_EQUAL(m.keys_of(po::insert{700, {text("5"), null, null}}).keys, (std::vector<std::string>{"pets:5"}));
  CAF_CHECK_EQUAL(m.keys_of(po::truncate{{700}}).keys, (std::vector<std::string>{"*:public.pet_2026"}));
}

namespace {

po::relation demo_relation(uint32_t oid, const std::string& name, std::vector<std::string> columns) {
  po::relation r;
  r.oid = oid;
  r.schema = "public";
  r.name = name;
  r.replica_identity = 'f';
  for (auto& c : columns)
    r.columns.push_back({c, 23, -1, c == columns.front()});
  return r;
}

std::vector<std::string> labels(const change_batch& changes) {
  std::vector<std::string> out;
  for (const auto& c : changes)
    out.push_back(key_label(c.key));
  std::sort(out.begin(), out.end());
  return out;
}

} // namespace

CAF_TEST(a change that does not carry an old key names its row for the documents that know their rows) {
  // The table read under two names, one kind of each knowing its rows.
  pg::wal_key_mapper m{{{"public", "pet", {{"pets", "id"}, {"owners", "owner"}, {"codes", "code"}},
                         {{"pet", 0b0110, 0b0010}, {"public.pet", 0b1000, 0b1000}}, {}}}};
  m.learn(pet_relation('d'));
  auto moved = m.keys_of(po::update{500, std::nullopt, false, {text("1"), text("8"), text("c6")}});
  CAF_CHECK_EQUAL(moved.reading_kinds, 0b1110u);
  CAF_REQUIRE_EQUAL(moved.rows.size(), 2u);
  CAF_CHECK_EQUAL(moved.rows[0].row, std::string{"pet\x1f" "1"});
  CAF_CHECK_EQUAL(moved.rows[0].kinds, 0b0010u);
  CAF_CHECK_EQUAL(moved.rows[1].row, std::string{"public.pet\x1f" "1"});
  // Its identity changed: the row is known by its old one.
  auto renumbered = m.keys_of(po::update{500, po::row{text("1"), null, null}, true, {text("2"), text("8"), null}});
  CAF_REQUIRE_EQUAL(renumbered.rows.size(), 2u);
  CAF_CHECK_EQUAL(renumbered.rows[0].row, std::string{"pet\x1f" "1"});
  auto gone = m.keys_of(po::remove{500, {text("2"), null, null}, true});
  CAF_REQUIRE_EQUAL(gone.rows.size(), 2u);
  CAF_CHECK_EQUAL(gone.rows[0].row, std::string{"pet\x1f" "2"});
  // Every old key carried: no row to find.
  CAF_CHECK(m.keys_of(po::insert{500, {text("3"), text("9"), null}}).rows.empty());
  m.learn(pet_relation('f'));
  CAF_CHECK(m.keys_of(po::remove{500, {text("2"), text("7"), text("c6")}, false}).rows.empty());
}

CAF_TEST(the WAL reader finds moved rows by their identity where the kinds know their rows and drops the others) {
  auto dept = kind_bit(demo::deptemps_kind) | kind_bit(demo::dept_kind);
  // deptemps knows its emp rows, dept does not.
  pg::wal_key_mapper m{{{"public", "dept", {{"dept", "deptno"}}, {{"dept", dept, 0}}, {}},
                        {"public", "emp", {{"emp", "empno"}, {"dept", "deptno"}},
                         {{"emp", dept | kind_bit(demo::emp_kind), kind_bit(demo::deptemps_kind)}}, {"empno"}}}};
  pg::wal_change_reader r{std::move(m), nullptr};
  r.feed(demo_relation(10, "dept", {"deptno", "dname"}));
  auto emp = demo_relation(11, "emp", {"empno", "deptno"});
  emp.columns[1].key = false; // the default identity: the primary key
  r.feed(emp);
  r.feed(po::begin{0x500, 1'000'000, 77});
  r.feed(po::update{11, std::nullopt, false, {text("7"), text("2")}});
  r.feed(po::update{11, std::nullopt, false, {text("7"), text("3")}});
  r.feed(po::remove{11, {text("8"), null}, true});
  auto t = r.feed(po::commit{0x500, 0x600, 1'000'000});
  CAF_REQUIRE(t.has_value());
  CAF_REQUIRE_EQUAL(t->changed_rows.size(), 2u);
  CAF_CHECK_EQUAL(t->changed_rows[0].row, std::string{"emp\x1f" "7"});
  CAF_CHECK_EQUAL(t->changed_rows[0].kinds, kind_bit(demo::deptemps_kind));
  CAF_CHECK_EQUAL(t->changed_rows[0].seq, 0x600u);
  CAF_CHECK_EQUAL(t->changed_rows[1].row, std::string{"emp\x1f" "8"});
  // The kind that does not know its rows goes whole; emp's own key was carried.
  CAF_CHECK_EQUAL(t->drop_kinds, kind_bit(demo::dept_kind));
  CAF_CHECK_EQUAL(labels(t->changes), (std::vector<std::string>{"deptemps:2", "deptemps:3", "emp:7", "emp:8"}));
}

CAF_TEST(a window of commits relayed comes back as the reader gave it) {
  auto dept = kind_bit(demo::deptemps_kind) | kind_bit(demo::dept_kind);
  pg::wal_key_mapper m{{{"public", "dept", {{"dept", "deptno"}}, {{"dept", dept, 0}}, {}},
                        {"public", "emp", {{"emp", "empno"}, {"dept", "deptno"}},
                         {{"emp", dept | kind_bit(demo::emp_kind), kind_bit(demo::deptemps_kind)}}, {"empno"}}}};
  pg::wal_change_reader r{std::move(m), nullptr, true};
  r.feed(demo_relation(10, "dept", {"deptno", "dname"}));
  auto emp = demo_relation(11, "emp", {"empno", "deptno"});
  emp.columns[1].key = false;
  r.feed(emp);
  std::vector<pg::wal_commit> window;
  r.feed(po::begin{0x500, 1'000'000, 77});
  r.feed(po::update{11, std::nullopt, false, {text("7"), text("2")}});
  r.feed(po::logical_message{true, 0x510, "restcache", "!:public.emp"});
  window.push_back(*r.feed(po::commit{0x500, 0x600, 1'000'000}));
  r.feed(po::begin{0x700, 2'000'000, 78});
  r.feed(po::insert{10, {text("4"), text("a \"quoted\", 1:2 name")}});
  r.feed(po::truncate{{10}});
  window.push_back(*r.feed(po::commit{0x700, 0x800, 2'000'000}));
  // A row whose identity holds the separators themselves.
  window[1].changed_rows.push_back(row_change{std::string{"emp\x1f" "1:2,\x1e"}, kind_bit(demo::deptemps_kind), 0x800, 0, 0});
  CAF_CHECK_EQUAL(window[0].log_keys, (std::vector<std::string>{"emp:7", "dept:2"}));
  auto text_of = pg::encode_relay_commits(window, {(uint64_t{3} << 32) | 77, (uint64_t{3} << 32) | 78});
  auto back = pg::decode_relay_commits(text_of);
  CAF_REQUIRE_EQUAL(back.commits.size(), 2u);
  CAF_CHECK_EQUAL(back.full_xids, (std::vector<uint64_t>{(uint64_t{3} << 32) | 77, (uint64_t{3} << 32) | 78}));
  for (size_t i = 0; i < 2; ++i) {
    const auto& a = window[i];
    const auto& b = back.commits[i];
    CAF_CHECK_EQUAL(b.xid, a.xid);
    CAF_CHECK_EQUAL(b.end_lsn, a.end_lsn);
    CAF_CHECK_EQUAL(b.commit_us, a.commit_us);
    CAF_CHECK_EQUAL(labels(b.changes), labels(a.changes));
    for (const auto& c : b.changes) {
      CAF_CHECK_EQUAL(c.seq, a.end_lsn);
      CAF_CHECK_EQUAL(c.changed_us, a.commit_us);
    }
    CAF_CHECK_EQUAL(b.truncates, a.truncates);
    CAF_CHECK_EQUAL(b.drop_kinds, a.drop_kinds);
    CAF_CHECK_EQUAL(b.altered, a.altered);
    CAF_REQUIRE_EQUAL(b.changed_rows.size(), a.changed_rows.size());
    for (size_t j = 0; j < a.changed_rows.size(); ++j) {
      CAF_CHECK_EQUAL(b.changed_rows[j].row, a.changed_rows[j].row);
      CAF_CHECK_EQUAL(b.changed_rows[j].kinds, a.changed_rows[j].kinds);
      CAF_CHECK_EQUAL(b.changed_rows[j].seq, a.end_lsn);
    }
  }
  CAF_CHECK_EQUAL(back.commits[0].altered, (std::vector<std::string>{"public.emp"}));
  CAF_CHECK_EQUAL(back.commits[1].truncates, 1u);
  // Cut anywhere, it is refused rather than read as less.
  for (size_t cut : {size_t{1}, text_of.size() / 2, text_of.size() - 1}) {
    bool refused = false;
    try {
      pg::decode_relay_commits(std::string_view{text_of}.substr(0, cut));
    } catch (const std::runtime_error&) {
      refused = true;
    }
    CAF_CHECK(refused);
  }
  // Made one: every key and row once, at the last commit's end.
  auto copy = window;
  auto one = pg::coalesce_window(copy);
  CAF_CHECK_EQUAL(one.end_lsn, 0x800u);
  CAF_CHECK_EQUAL(one.xid, 78u);
  CAF_CHECK_EQUAL(one.commit_us, window[0].commit_us);
  std::vector<std::string> all_labels = labels(window[0].changes);
  for (auto& l : labels(window[1].changes))
    if (std::find(all_labels.begin(), all_labels.end(), l) == all_labels.end())
      all_labels.push_back(l);
  std::sort(all_labels.begin(), all_labels.end());
  CAF_CHECK_EQUAL(labels(one.changes), all_labels);
  for (const auto& c : one.changes)
    CAF_CHECK_EQUAL(c.seq, 0x800u);
  CAF_CHECK_EQUAL(one.changed_rows.size(), window[0].changed_rows.size() + window[1].changed_rows.size());
  CAF_CHECK_EQUAL(one.truncates, 1u);
  CAF_CHECK_EQUAL(one.drop_kinds, window[0].drop_kinds | window[1].drop_kinds);
  CAF_CHECK_EQUAL(one.altered, (std::vector<std::string>{"public.emp"}));
  auto one_back = pg::decode_relay_commits(pg::encode_relay_commits({one}, {99}));
  CAF_REQUIRE_EQUAL(one_back.commits.size(), 1u);
  CAF_CHECK_EQUAL(labels(one_back.commits[0].changes), all_labels);
  CAF_CHECK_EQUAL(one_back.full_xids, (std::vector<uint64_t>{99}));
  // Other declarations relay other kinds: their fingerprint differs.
  auto tables = watched_tables();
  auto same = pg::relay_fingerprint(tables);
  CAF_CHECK_EQUAL(pg::relay_fingerprint(tables), same);
  CAF_REQUIRE(!tables.empty());
  tables[0].row_kinds ^= 1;
  CAF_CHECK_NOT_EQUAL(pg::relay_fingerprint(tables), same);
}

CAF_TEST(a transaction read from the WAL comes out at its commit with its keys once each) {
  pg::wal_key_mapper m{{{"public", "dept", {{"dept", "deptno"}}, {}, {}},
                        {"public", "emp", {{"emp", "empno"}, {"dept", "deptno"}}, {}, {}}}};
  std::vector<std::string> asked;
  pg::wal_change_reader r{std::move(m), [&](const std::string& schema, const std::string& table) {
                            asked.push_back(schema + "." + table);
                            return std::optional{std::pair<std::string, std::string>{"public", "emp"}};
                          }};
  CAF_CHECK(!r.feed(demo_relation(10, "dept", {"deptno", "dname"})));
  CAF_CHECK(!r.feed(demo_relation(11, "emp", {"empno", "deptno"})));
  CAF_CHECK(!r.in_transaction());
  CAF_CHECK(!r.feed(po::begin{0x500, 1'000'000, 77}));
  CAF_CHECK(r.in_transaction());
  // An employee moved twice in one transaction, and its department renamed.
  CAF_CHECK(!r.feed(po::update{11, po::row{text("7"), text("1")}, false, {text("7"), text("2")}}));
  CAF_CHECK(!r.feed(po::update{11, po::row{text("7"), text("2")}, false, {text("7"), text("3")}}));
  CAF_CHECK(!r.feed(po::update{10, po::row{text("1"), text("A")}, false, {text("1"), text("B")}}));
  CAF_CHECK_EQUAL(r.open_rows(), 3u);
  auto t = r.feed(po::commit{0x600, 0x610, 1'000'000});
  CAF_REQUIRE(t.has_value());
  CAF_CHECK(!r.in_transaction());
  CAF_CHECK_EQUAL(t->xid, 77u);
  CAF_CHECK_EQUAL(t->end_lsn, 0x610u);
  CAF_CHECK_EQUAL(t->commit_us, 946'684'801'000'000); // one second past PostgreSQL's epoch
  CAF_CHECK_EQUAL(labels(t->changes), (std::vector<std::string>{"deptemps:1", "deptemps:2", "deptemps:3", "emp:7"}));
  for (const auto& c : t->changes)
    CAF_CHECK_EQUAL(c.seq, 0x610u);
  CAF_CHECK_EQUAL(t->truncates, 0u);
  CAF_CHECK_EQUAL(t->drop_kinds, 0u);
  // A partition created since: asked for its root, then read as emp.
  r.feed(po::begin{0x700, 2'000'000, 78});
  r.feed(demo_relation(12, "emp_2027", {"empno", "deptno"}));
  CAF_CHECK_EQUAL(asked, (std::vector<std::string>{"public.emp_2027"}));
  r.feed(po::insert{12, {text("9"), text("4")}});
  r.feed(po::truncate{{10}});
  r.feed(po::logical_message{true, 0x710, "restcache", "!:public.emp\x1f!:view public.v"});
  r.feed(po::logical_message{true, 0x711, "someone_else", "!:public.dept"});
  t = r.feed(po::commit{0x720, 0x730, 2'000'000});
  CAF_REQUIRE(t.has_value());
  CAF_CHECK_EQUAL(labels(t->changes), (std::vector<std::string>{"deptemps:4", "emp:9"}));
  CAF_CHECK_EQUAL(t->truncates, 1u);
  CAF_CHECK_EQUAL(t->altered, (std::vector<std::string>{"public.emp", "view public.v"}));
  // An old key not carried (the identity undone): its kinds are dropped.
  auto by_default = demo_relation(11, "emp", {"empno", "deptno"});
  by_default.replica_identity = 'd';
  r.feed(by_default);
  r.feed(po::begin{0x800, 3'000'000, 79});
  r.feed(po::update{11, std::nullopt, false, {text("7"), text("5")}});
  t = r.feed(po::commit{0x810, 0x820, 3'000'000});
  CAF_REQUIRE(t.has_value());
  CAF_CHECK_NOT_EQUAL(t->drop_kinds, 0u);
  CAF_CHECK_EQUAL(labels(t->changes), (std::vector<std::string>{"deptemps:5", "emp:7"}));
  // A change outside a transaction is not pgoutput's order.
  bool refused = false;
  try {
    r.feed(po::insert{10, {text("1"), text("A")}});
  } catch (const po::decode_error&) {
    refused = true;
  }
  CAF_CHECK(refused);
}

CAF_TEST(the keys read from the WAL are those the triggers log transaction by transaction) {
  auto dsn = test::create_demo_database("pgoutput_keys", 3, 2);
  connection c{dsn};
  // A slot's SQL interface decodes what is flushed: the test cluster runs
  // with synchronous_commit off, so commits here wait for their flush.
  c.exec("SET synchronous_commit = on");
  // The old department of a moved employee is carried under FULL only.
  c.exec("ALTER TABLE emp REPLICA IDENTITY FULL");
  c.exec("CREATE PUBLICATION restcache_keys FOR TABLE dept, emp");
  c.exec("SELECT pg_create_logical_replication_slot('restcache_keys', 'pgoutput')");
  auto from = c.exec("SELECT coalesce(max(seq), 0) FROM change_log").int64(0, 0);
  c.exec("INSERT INTO dept (deptno, dname, loc) VALUES (77, 'NEW', 'HERE')");
  c.exec("UPDATE dept SET loc = 'THERE' WHERE deptno = 77");
  c.exec("UPDATE emp SET deptno = 77 WHERE empno = (SELECT min(empno) FROM emp)");
  c.exec("BEGIN; UPDATE emp SET sal = sal + 1 WHERE deptno = 2; DELETE FROM emp WHERE empno = (SELECT max(empno) FROM emp);"
         " COMMIT");
  c.exec("UPDATE emp SET empno = empno + 1000, deptno = NULL WHERE empno = (SELECT min(empno) FROM emp WHERE deptno = 3)");
  // What the triggers logged, by transaction, in commit order.
  std::vector<std::vector<std::string>> logged;
  auto r = c.exec_params("SELECT string_agg(k, ' ' ORDER BY k) FROM (SELECT DISTINCT xid, k FROM change_log,"
                         " unnest(keys) AS k WHERE seq > $1::bigint) s GROUP BY xid ORDER BY xid",
                         {std::to_string(from)});
  for (int i = 0; i < r.rows(); ++i) {
    std::vector<std::string> keys;
    std::string_view list = r.text(i, 0);
    while (!list.empty()) {
      auto space = list.find(' ');
      keys.emplace_back(list.substr(0, space));
      list = space == std::string_view::npos ? std::string_view{} : list.substr(space + 1);
    }
    logged.push_back(keys);
  }
  // What the WAL gives, mapped by the watched keys.
  std::vector<pg::watched_keys> watched;
  auto w = c.exec("SELECT table_schema, table_name, key_space, key_column FROM restcache_watched_key ORDER BY 1, 2");
  for (int i = 0; i < w.rows(); ++i) {
    if (watched.empty() || watched.back().table != w.text(i, 1))
      watched.push_back({std::string{w.text(i, 0)}, std::string{w.text(i, 1)}, {}, {}, {}});
    watched.back().keys.push_back({std::string{w.text(i, 2)}, std::string{w.text(i, 3)}});
  }
  pg::wal_key_mapper mapper{watched};
  auto changes = c.exec("SELECT encode(data, 'hex') FROM pg_logical_slot_get_binary_changes('restcache_keys', NULL,"
                        " NULL, 'proto_version', '1', 'publication_names', 'restcache_keys')");
  c.exec("SELECT pg_drop_replication_slot('restcache_keys')");
  std::vector<std::vector<std::string>> decoded;
  std::vector<std::string> txn;
  for (int i = 0; i < changes.rows(); ++i) {
    auto m = po::decode(unhex(changes.text(i, 0)));
    pg::wal_change_keys k;
    if (auto* rel = std::get_if<po::relation>(&m))
      mapper.learn(*rel);
    else if (auto* ins = std::get_if<po::insert>(&m))
      k = mapper.keys_of(*ins);
    else if (auto* upd = std::get_if<po::update>(&m))
      k = mapper.keys_of(*upd);
    else if (auto* del = std::get_if<po::remove>(&m))
      k = mapper.keys_of(*del);
    else if (std::holds_alternative<po::commit>(m)) {
      std::sort(txn.begin(), txn.end());
      txn.erase(std::unique(txn.begin(), txn.end()), txn.end());
      decoded.push_back(txn);
      txn.clear();
    }
    CAF_CHECK(k.unknown_old.empty());
    txn.insert(txn.end(), k.keys.begin(), k.keys.end());
  }
  CAF_CHECK_EQUAL(decoded.size(), 5u);
  CAF_CHECK_EQUAL(decoded, logged);
}

CAF_TEST(a slot streamed again starts past what was confirmed) {
  auto dsn = test::shared_private_pg().create_database("walstream");
  connection c{dsn};
  c.exec("SET synchronous_commit = on"); // what is streamed is what is flushed
  c.exec("CREATE TABLE pet (id int PRIMARY KEY, name text)");
  c.exec("CREATE PUBLICATION restcache_stream FOR TABLE pet");
  c.exec("SELECT pg_create_logical_replication_slot('restcache_stream', 'pgoutput')");
  c.exec("INSERT INTO pet VALUES (1, 'a')");
  c.exec("INSERT INTO pet VALUES (2, 'b')");
  pg::wal_stream_options stream_options;
  stream_options.dsn = dsn;
  stream_options.slot = "restcache_stream";
  stream_options.publication = "restcache_stream";
  const auto& options = stream_options;
  /// The ids inserted in the next `commits` transactions, and the end of the last.
  auto read = [](pg::wal_stream& s, int commits, uint64_t& end) {
    std::vector<std::string> ids;
    while (commits > 0) {
      auto e = s.next(std::chrono::seconds{10});
      if (!e) {
        CAF_FAIL("no message within 10 s");
      }
      if (auto* i = std::get_if<po::insert>(&e->message))
        ids.push_back(i->new_row[0].text);
      if (auto* done = std::get_if<po::commit>(&e->message)) {
        end = done->end_lsn;
        --commits;
      }
    }
    return ids;
  };
  uint64_t end = 0;
  {
    pg::wal_stream s{options};
    CAF_CHECK_EQUAL(read(s, 2, end), (std::vector<std::string>{"1", "2"}));
    s.confirm(end);
    CAF_CHECK_EQUAL(s.confirmed(), end);
    // Nothing more: a quiet stream answers within its timeout.
    CAF_CHECK(!s.next(std::chrono::milliseconds{200}).has_value());
    CAF_CHECK(test::wait_until([&] {
      auto lsn = parse_wal_lsn(c.exec("SELECT confirmed_flush_lsn FROM pg_replication_slots").text(0, 0));
      return lsn && *lsn >= end;
    }));
  }
  c.exec("INSERT INTO pet VALUES (3, 'c')");
  {
    pg::wal_stream s{options};
    CAF_CHECK_EQUAL(read(s, 1, end), (std::vector<std::string>{"3"}));
  }
  // The walsender lets the slot go once the stream is closed.
  CAF_CHECK(test::wait_until([&] {
    try {
      c.exec("SELECT pg_drop_replication_slot('restcache_stream')");
      return true;
    } catch (const pg::error&) {
      return false;
    }
  }));
}

CAF_TEST(an instance slot is named within 63 bytes and judged before the tiers go on from it) {
  CAF_CHECK_EQUAL(pg::slot_name(7311, "Host-1.a"), "restcache_7311_host_1_a");
  CAF_CHECK_EQUAL(pg::slot_name(7311222233334444555ull, std::string(80, 'x')).size(), 63u);
  pg::slot_facts f;
  CAF_CHECK(pg::judge_slot(f, 100, "shop").verdict == pg::slot_verdict::missing);
  CAF_CHECK(pg::judge_slot(f, 100, "shop").drop_tiers());
  f = {true, "pgoutput", "shop", false, false, 0, "reserved", 90, 200};
  CAF_CHECK(pg::judge_slot(f, 100, "shop").verdict == pg::slot_verdict::usable);
  CAF_CHECK(pg::judge_slot(f, 0, "shop").verdict == pg::slot_verdict::usable);
  CAF_CHECK(pg::judge_slot(f, 80, "shop").verdict == pg::slot_verdict::ahead_of_tiers);
  CAF_CHECK(pg::judge_slot(f, 100, "other").verdict == pg::slot_verdict::foreign);
  auto lost = f;
  lost.wal_status = "lost";
  CAF_CHECK(pg::judge_slot(lost, 100, "shop").verdict == pg::slot_verdict::lost);
  auto restored = f;
  restored.server_lsn = 50;
  CAF_CHECK(pg::judge_slot(restored, 100, "shop").verdict == pg::slot_verdict::ahead_of_server);
  // A copy restored with its slot: the slot is the copy's, the tiers are not.
  auto copy = f;
  copy.server_lsn = 95;
  CAF_CHECK(pg::judge_slot(copy, 100, "shop").verdict == pg::slot_verdict::tiers_ahead_of_server);
  CAF_CHECK(pg::judge_slot(copy, 100, "shop").drop_tiers());
  auto busy = f;
  busy.active = true;
  busy.active_pid = 4242;
  CAF_CHECK(pg::judge_slot(busy, 100, "shop").verdict == pg::slot_verdict::active_elsewhere);
  CAF_CHECK(!pg::judge_slot(busy, 100, "shop").drop_tiers());
  CAF_CHECK(pg::judge_slot(busy, 100, "shop", 4242).verdict == pg::slot_verdict::usable);
  // Against a server: none, then one.
  auto dsn = test::shared_private_pg().create_database("walslot");
  connection c{dsn};
  auto name = pg::slot_name(1, "judged");
  auto none = pg::read_slot(c, name);
  CAF_CHECK(!none.exists);
  CAF_CHECK_GREATER(none.server_lsn, 0u);
  c.exec_params("SELECT pg_create_logical_replication_slot($1, 'pgoutput')", {name});
  auto made = pg::read_slot(c, name);
  CAF_CHECK(made.exists);
  CAF_CHECK_EQUAL(made.plugin, "pgoutput");
  CAF_CHECK(!made.active);
  CAF_CHECK_EQUAL(made.wal_status, "reserved");
  auto database = std::string{c.exec("SELECT current_database()").text(0, 0)};
  CAF_CHECK(pg::judge_slot(made, made.confirmed_flush, database).verdict == pg::slot_verdict::usable);
  c.exec_params("SELECT pg_drop_replication_slot($1)", {name});
}
