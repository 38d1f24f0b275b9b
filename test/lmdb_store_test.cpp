// SPDX-License-Identifier: Apache-2.0
#define CAF_SUITE lmdb_store
#include "persistence/lmdb/store.hpp"
#include "persistence/lmdb/store_reader.hpp"
#include "messages/doc_catalogue.hpp"

#include <caf/test/dsl.hpp>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <atomic>
#include <thread>
#include <vector>

#include "demo/demo_catalogue.hpp"
#include "messages/document_encoder.hpp"
#include "test/fixtures/catalogue_guard.hpp"
#include "test/fixtures/test_support.hpp"

using namespace restcache;
using namespace restcache::lmdb;
using restcache::test::temp_dir;

namespace {

namespace fs = std::filesystem;


struct fixture {
  temp_dir dir{"lmdb-store"}; // a fresh one per test
  env_options opts(uint64_t max_bytes = 256ull << 20) const { return env_options{dir.path, max_bytes}; }
};

// A ~size-byte body that differs per key, with its real strong ETag.
record make_record(doc_kind kind, int32_t id, uint64_t seq, size_t size = 1500) {
  std::string body = "{\"id\":" + std::to_string(id) + ",\"kind\":" + std::to_string(int(kind)) + ",\"pad\":\"";
  while (body.size() + 2 < size)
    body += char('a' + (body.size() + id) % 26);
  body += "\"}";
  return record{doc_key{kind, id}, make_doc(std::move(body)), seq};
}

std::vector<record> make_batch(int32_t first_id, int n, uint64_t seq = 1, size_t size = 1500) {
  std::vector<record> out;
  out.reserve(n);
  for (int i = 0; i < n; ++i)
    out.push_back(make_record(demo::emp_kind, first_id + i, seq, size));
  return out;
}

// `n` records at random ids below 30,000 with 600 to 3,600-byte bodies, as
// test/system/soak's fills look to the store; `x` is the generator's state.
std::vector<record> random_batch(uint32_t& x, int n, uint64_t seq) {
  std::vector<record> batch;
  batch.reserve(size_t(n));
  for (int i = 0; i < n; ++i) {
    x = x * 1103515245u + 12345u;
    batch.push_back(make_record(demo::emp_kind, int32_t((x >> 8) % 30000), seq, 600 + (x >> 4) % 3000));
  }
  return batch;
}

size_t entries(const store& s, MDB_dbi dbi) {
  auto txn = s.begin_read();
  MDB_stat st;
  check(mdb_stat(txn.handle(), dbi, &st), "mdb_stat");
  return st.ms_entries;
}

// Raw puts into a named database of the file at dir (the store must be closed).
void raw_put(const std::string& dir, const char* db, std::string_view key, std::string_view value) {
  MDB_env* e;
  check(mdb_env_create(&e), "create");
  mdb_env_set_maxdbs(e, 4);
  mdb_env_set_mapsize(e, 256ull << 20);
  check(mdb_env_open(e, dir.c_str(), 0, 0644), "open");
  MDB_txn* txn;
  MDB_dbi dbi;
  check(mdb_txn_begin(e, nullptr, 0, &txn), "begin");
  check(mdb_dbi_open(txn, db, MDB_CREATE, &dbi), "dbi");
  MDB_val k = to_val(key), v = to_val(value);
  check(mdb_put(txn, dbi, &k, &v, 0), "put");
  check(mdb_txn_commit(txn), "commit");
  mdb_env_close(e);
}

} // namespace

CAF_TEST_FIXTURE_SCOPE(lmdb_store_tests, fixture)

CAF_TEST(keys sort by kind then id and decode back) {
  auto a = encode_key({demo::deptemps_kind, 2});
  auto b = encode_key({demo::deptemps_kind, 256});
  auto c = encode_key({demo::emp_kind, 1});
  CAF_CHECK_EQUAL(a.size(), 9u); // the kind, then an integer's 8 bytes
  CAF_CHECK(a.view() < b.view());
  CAF_CHECK(b.view() < c.view());
  CAF_CHECK(decode_key(b.view()) == (doc_key{demo::deptemps_kind, 256}));
  CAF_CHECK(!decode_key(b.view().substr(0, 8)));
  CAF_CHECK(!decode_key(std::string_view("\x07\0\0\0\0\0\0\0\1", 9)));
  auto w = encode_u64(0x0102030405060708ull);
  CAF_CHECK_EQUAL(uint8_t(w[0]), 1u);
  CAF_CHECK(decode_u64({w.data(), 8}) == std::optional<uint64_t>(0x0102030405060708ull));
  CAF_CHECK(!decode_u64({w.data(), 7}));
}

CAF_TEST(records of both kinds round trip with body etag and seq) {
  store s(opts());
  auto d = make_record(demo::deptemps_kind, 10, 77);
  auto e = make_record(demo::emp_kind, 10, 78, 300); // same id, other kind
  s.put_batch({d, e}, {});
  auto txn = s.begin_read();
  auto rd = s.get(txn, {demo::deptemps_kind, 10});
  auto re = s.get(txn, {demo::emp_kind, 10});
  CAF_REQUIRE(rd && re);
  CAF_CHECK_EQUAL(rd->doc->body, d.doc->body);
  CAF_CHECK_EQUAL(rd->doc->etag, d.doc->etag);
  CAF_CHECK_EQUAL(rd->seq, 77u);
  CAF_CHECK_EQUAL(re->doc->body, e.doc->body);
  CAF_CHECK_EQUAL(re->doc->etag, e.doc->etag);
  CAF_CHECK_EQUAL(re->seq, 78u);
  CAF_CHECK(!s.get(txn, {demo::emp_kind, 11}));
  CAF_CHECK_EQUAL(s.count(), 2u);
  CAF_CHECK_EQUAL(s.counters().garbled, 0u);
}

CAF_TEST(a shard reader sees each commit on its next read) {
  store s(opts());
  store_reader reader{s};
  CAF_CHECK(reader.get({demo::deptemps_kind, 1}) == nullptr);
  auto d = make_record(demo::deptemps_kind, 1, 5);
  s.put_batch({d}, {});
  auto got = reader.get({demo::deptemps_kind, 1}); // a fresh snapshot per read
  CAF_REQUIRE(got != nullptr);
  CAF_CHECK_EQUAL(got->body, d.doc->body);
  s.erase({{demo::deptemps_kind, 1}});
  CAF_CHECK(reader.get({demo::deptemps_kind, 1}) == nullptr);
}

CAF_TEST(a batch of 10000 records of 1.5 KB commits and reads back) {
  store s(opts());
  auto batch = make_batch(1, 10000, 5);
  auto t0 = std::chrono::steady_clock::now();
  s.put_batch(batch, {}, 9);
  auto ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  CAF_MESSAGE("put_batch of 10000 x 1.5 KB: " << ms << " ms");
  CAF_CHECK_EQUAL(s.count(), 10000u);
  CAF_CHECK_EQUAL(entries(s, s.environment().write_order()), 10000u);
  CAF_CHECK_EQUAL(s.watermark(), 9u);
  auto txn = s.begin_read();
  size_t same = 0;
  for (const auto& r : batch) {
    auto got = s.get(txn, r.key);
    if (got && got->doc->body == r.doc->body && got->doc->etag == r.doc->etag && got->seq == 5)
      ++same;
  }
  CAF_CHECK_EQUAL(same, 10000u);
  CAF_CHECK_EQUAL(s.counters().evicted, 0u);
}

CAF_TEST(deletes in a batch and erase remove records and their write order) {
  store s(opts());
  s.put_batch(make_batch(1, 10), {});
  // Deletes run first: 5 is deleted and put again in the same batch, so it stays.
  s.put_batch(make_batch(11, 1), {{demo::emp_kind, 1}, {demo::emp_kind, 2}, {demo::emp_kind, 5},
                                  {demo::emp_kind, 999}});
  s.put_batch(make_batch(5, 1, 2), {});
  auto txn = s.begin_read();
  CAF_CHECK(!s.get(txn, {demo::emp_kind, 1}));
  CAF_CHECK(!s.get(txn, {demo::emp_kind, 2}));
  CAF_CHECK(s.get(txn, {demo::emp_kind, 5}));
  CAF_CHECK(s.get(txn, {demo::emp_kind, 11}));
  txn.reset();
  s.erase({{demo::emp_kind, 3}, {demo::emp_kind, 4}, {demo::deptemps_kind, 3}});
  txn.renew();
  CAF_CHECK(!s.get(txn, {demo::emp_kind, 3}));
  CAF_CHECK(!s.get(txn, {demo::emp_kind, 4}));
  CAF_CHECK(s.get(txn, {demo::emp_kind, 6}));
  txn.reset();
  CAF_CHECK_EQUAL(s.count(), 7u);
  CAF_CHECK_EQUAL(entries(s, s.environment().write_order()), 7u);
}

CAF_TEST(a changed row deletes the records holding it with their rows entries however they leave) {
  store s(opts());
  auto holding = [](int32_t dept, std::vector<std::string> rows) {
    return record{doc_key{demo::deptemps_kind, dept}, make_doc("{\"dept\":" + std::to_string(dept) + "}", std::move(rows)),
                  1};
  };
  s.put_batch({holding(10, {"emp\x1f" "1", "emp\x1f" "2"}), holding(20, {"emp\x1f" "3"}),
               holding(30, {"emp\x1f" "2", "emp\x1f" "4"}), make_record(demo::emp_kind, 2, 1)},
              {});
  CAF_CHECK_EQUAL(entries(s, s.environment().rows()), 5u);
  {
    auto txn = s.begin_read();
    auto got = s.get(txn, {demo::deptemps_kind, 10});
    CAF_REQUIRE(got);
    CAF_CHECK_EQUAL(got->doc->rows, (std::vector<std::string>{"emp\x1f" "1", "emp\x1f" "2"}));
  }
  // Row 2 changed: both records holding it go, the others stay.
  s.write({}, {}, {"emp\x1f" "2", "emp\x1f" "9"}, std::nullopt);
  {
    auto txn = s.begin_read();
    CAF_CHECK(!s.get(txn, {demo::deptemps_kind, 10}));
    CAF_CHECK(!s.get(txn, {demo::deptemps_kind, 30}));
    CAF_CHECK(s.get(txn, {demo::deptemps_kind, 20}));
    CAF_CHECK(s.get(txn, {demo::emp_kind, 2})); // its key is not a row
  }
  CAF_CHECK_EQUAL(entries(s, s.environment().rows()), 1u);
  // Replaced by a document holding other rows, deleted by key, erased by kind, cleared.
  s.put_batch({holding(20, {"emp\x1f" "5"})}, {});
  CAF_CHECK_EQUAL(entries(s, s.environment().rows()), 1u);
  s.write({}, {}, {"emp\x1f" "3"}, std::nullopt);
  {
    auto txn = s.begin_read();
    CAF_CHECK(s.get(txn, {demo::deptemps_kind, 20}));
  }
  s.put_batch({}, {{demo::deptemps_kind, 20}});
  CAF_CHECK_EQUAL(entries(s, s.environment().rows()), 0u);
  s.put_batch({holding(40, {"emp\x1f" "6"}), holding(50, {"emp\x1f" "7"})}, {});
  s.erase_kinds(kind_bit(demo::deptemps_kind));
  CAF_CHECK_EQUAL(entries(s, s.environment().rows()), 0u);
  s.put_batch({holding(40, {"emp\x1f" "6"})}, {});
  s.clear();
  CAF_CHECK_EQUAL(entries(s, s.environment().rows()), 0u);
  CAF_CHECK_EQUAL(s.count(), 0u);
}

CAF_TEST(replacing a key keeps one record and one write order entry) {
  store s(opts());
  auto a = make_record(demo::deptemps_kind, 20, 1, 900);
  auto b = make_record(demo::deptemps_kind, 20, 2, 2500); // larger: an overflow page
  s.put_batch({a}, {});
  s.put_batch({b}, {});
  auto txn = s.begin_read();
  auto got = s.get(txn, {demo::deptemps_kind, 20});
  CAF_REQUIRE(got);
  CAF_CHECK_EQUAL(got->doc->body, b.doc->body);
  CAF_CHECK_EQUAL(got->seq, 2u);
  txn.reset();
  CAF_CHECK_EQUAL(s.count(), 1u);
  CAF_CHECK_EQUAL(entries(s, s.environment().write_order()), 1u);
}

CAF_TEST(records and the watermark persist across reopen) {
  auto r = make_record(demo::emp_kind, 7782, 31);
  {
    store s(opts());
    CAF_CHECK_EQUAL(s.watermark(), 0u);
    s.put_batch({r}, {}, 4242);
    s.put_batch({}, {}, std::nullopt); // no watermark given: unchanged
  }
  store s(opts());
  CAF_CHECK(!s.environment().dropped_on_open());
  CAF_CHECK_EQUAL(s.watermark(), 4242u);
  auto txn = s.begin_read();
  auto got = s.get(txn, r.key);
  CAF_REQUIRE(got);
  CAF_CHECK_EQUAL(got->doc->body, r.doc->body);
  CAF_CHECK_EQUAL(got->seq, 31u);
  txn.reset();
  // Write sequences continue after reopen: a new put lands after the old one.
  s.put_batch(make_batch(1, 1), {});
  CAF_CHECK_EQUAL(entries(s, s.environment().write_order()), 2u);
}

CAF_TEST(the watermark keeps its position and only with it) {
  {
    store s(opts());
    CAF_CHECK_EQUAL(s.watermark_position(), "");
    s.put_batch({}, {}, replay_watermark{90, "90:120:90,95", "118:4711:1700000000000000"});
    CAF_CHECK_EQUAL(s.watermark_position(), "90:120:90,95");
    CAF_CHECK_EQUAL(s.watermark_witness(), "118:4711:1700000000000000");
    s.put_batch({}, {}, std::nullopt); // no watermark given: both unchanged
  }
  store s(opts());
  CAF_CHECK_EQUAL(s.watermark(), 90u);
  CAF_CHECK_EQUAL(s.watermark_position(), "90:120:90,95");
  // A watermark without one (a reset, a build that sends none): a position
  // of an older watermark must not narrow a replay from the new one.
  s.put_batch({}, {}, 130);
  CAF_CHECK_EQUAL(s.watermark(), 130u);
  CAF_CHECK_EQUAL(s.watermark_position(), "");
  CAF_CHECK_EQUAL(s.watermark_witness(), "");
  s.clear(replay_watermark{140, "140:150:"});
  CAF_CHECK_EQUAL(s.watermark_position(), "140:150:");
}

CAF_TEST(erasing kinds drops their records in batches and keeps the others with their write order) {
  store s(opts());
  const int emps = static_cast<int>(store::erase_kinds_batch) + 5; // more than one transaction
  for (int first = 0; first < emps; first += 2000) {
    std::vector<record> batch;
    for (int id = first; id < std::min(emps, first + 2000); ++id)
      batch.push_back(make_record(demo::emp_kind, id, 1, 100));
    s.put_batch(batch, {});
  }
  s.put_batch({make_record(demo::deptemps_kind, 1, 2), make_record(demo::dept_kind, 1, 3)}, {}, 500);
  CAF_REQUIRE_EQUAL(s.count(), size_t(emps) + 2);
  s.erase_kinds(kind_bit(demo::emp_kind));
  CAF_CHECK_EQUAL(s.count(), 2u);
  CAF_CHECK_EQUAL(entries(s, s.environment().write_order()), 2u);
  {
    auto txn = s.begin_read();
    CAF_CHECK(!s.get(txn, {demo::emp_kind, 0}));
    CAF_CHECK(s.get(txn, {demo::deptemps_kind, 1}));
    CAF_CHECK(s.get(txn, {demo::dept_kind, 1}));
  }
  CAF_CHECK_EQUAL(s.watermark(), 500u); // not a clear: the watermark stays
  s.erase_kinds(kind_bit(demo::deptemps_kind) | kind_bit(demo::dept_kind));
  CAF_CHECK_EQUAL(s.count(), 0u);
  CAF_CHECK_EQUAL(entries(s, s.environment().write_order()), 0u);
  CAF_CHECK_EQUAL(s.counters().cleared, 0u);
}

CAF_TEST(records of a kind whose statement or shape changed are dropped at open and the others kept) {
  {
    store s(opts());
    CAF_CHECK(s.dropped_kinds().empty());
    s.put_batch({make_record(demo::deptemps_kind, 1, 2), make_record(demo::emp_kind, 7, 3)}, {}, 500);
  }
  {
    store s(opts()); // the same catalogue: everything stays
    CAF_CHECK(s.dropped_kinds().empty());
    CAF_CHECK_EQUAL(s.count(), 2u);
  }
  {
    auto kinds = demo::demo_kinds();
    kinds[1].statement.sql += " -- another statement";
    test::catalogue_guard changed{kinds};
    store s(opts());
    CAF_CHECK_EQUAL(s.dropped_kinds(), "emp");
    CAF_CHECK_EQUAL(s.count(), 1u);
    CAF_CHECK_EQUAL(entries(s, s.environment().write_order()), 1u);
    auto txn = s.begin_read();
    CAF_CHECK(s.get(txn, {demo::deptemps_kind, 1}));
    CAF_CHECK(!s.get(txn, {demo::emp_kind, 7}));
    CAF_CHECK_EQUAL(s.watermark(), 500u); // what is kept stays as fresh as it was
  }
  {
    // Another kind under an id: what the old one wrote is not its.
    auto kinds = demo::demo_kinds();
    std::swap(kinds[0], kinds[2]);
    test::catalogue_guard swapped{kinds};
    store s(opts());
    CAF_CHECK_EQUAL(s.dropped_kinds(), "deptemps, emp, dept");
    CAF_CHECK_EQUAL(s.count(), 0u);
  }
}

CAF_TEST(a text key is stored under its bytes and read back) {
  test::catalogue_guard with_tags{test::demo_and_text_kind()};
  const doc_kind tag{4};
  store s(opts());
  auto key = doc_key::of_bytes(tag, "a/b c \"q\" ü");
  auto long_key = doc_key::of_bytes(tag, std::string(max_text_key_bytes, 'z'));
  s.put_batch({record{key, make_doc(R"({"name":"x"})"), 4}, record{long_key, make_doc("{}"), 5}}, {});
  auto txn = s.begin_read();
  auto r = s.get(txn, key);
  CAF_REQUIRE(r);
  CAF_CHECK_EQUAL(r->doc->body, R"({"name":"x"})");
  CAF_CHECK(s.get(txn, long_key));
  CAF_CHECK(!s.get(txn, doc_key::of_bytes(tag, "a/b c")));
  std::vector<doc_key> seen;
  s.for_each(txn, [&](doc_key k, const value_view&) { seen.push_back(k); });
  CAF_CHECK(seen == (std::vector<doc_key>{key, long_key}));
  CAF_CHECK_EQUAL(encode_key(long_key).size(), max_key_size);
  txn.reset();
  s.erase({key});
  CAF_CHECK_EQUAL(s.count(), 1u);
}

CAF_TEST(a clear stores the history the records belong to with the watermark) {
  history_identity id{42, 16384, "restcache", 3};
  {
    store s(opts());
    CAF_CHECK(!s.history());
    s.put_batch({make_record(demo::deptemps_kind, 1, 1)}, {}, 500);
    s.clear(0, id);
    CAF_CHECK_EQUAL(s.count(), 0u);
    CAF_CHECK_EQUAL(s.watermark(), 0u);
    s.put_batch({make_record(demo::deptemps_kind, 2, 1)}, {}, 600);
    s.clear(); // a drop of the same history keeps it
  }
  store s(opts());
  auto got = s.history();
  CAF_REQUIRE(got);
  CAF_CHECK(*got == id);
  CAF_CHECK_EQUAL(s.watermark(), 600u);
}

CAF_TEST(a file with another format stamp is dropped on open) {
  {
    store s(opts());
    s.put_batch(make_batch(1, 100), {}, 17);
  }
  raw_put(dir.path, "meta", "format", std::string_view("\0\0\x03\xe7", 4));
  store s(opts());
  CAF_CHECK(s.environment().dropped_on_open());
  CAF_CHECK_EQUAL(s.count(), 0u);
  CAF_CHECK_EQUAL(s.watermark(), 0u);
  CAF_CHECK_EQUAL(entries(s, s.environment().write_order()), 0u);
  s.put_batch(make_batch(1, 1), {});
  CAF_CHECK_EQUAL(s.count(), 1u);
}

CAF_TEST(an unstamped non-empty file is dropped on open) {
  raw_put(dir.path, "records", "\x02\0\0\0\x01", "not a value");
  store s(opts());
  CAF_CHECK(s.environment().dropped_on_open());
  CAF_CHECK_EQUAL(s.count(), 0u);
}

CAF_TEST(a file of some other LMDB user is dropped on open) {
  raw_put(dir.path, nullptr, "records", "a plain key of the main database");
  store s(opts());
  CAF_CHECK(s.environment().dropped_on_open());
  s.put_batch(make_batch(1, 3), {});
  CAF_CHECK_EQUAL(s.count(), 3u);
}

CAF_TEST(a file larger than a smaller budget is dropped on reopen) {
  {
    store s(opts(64ull << 20));
    s.put_batch(make_batch(1, 4000), {}, 5);
  }
  CAF_REQUIRE(fs::file_size(fs::path(dir.path) / "data.mdb") > (2ull << 20));
  store s(opts(2ull << 20));
  CAF_CHECK(s.environment().dropped_on_open());
  CAF_CHECK_EQUAL(s.count(), 0u);
  CAF_CHECK(fs::file_size(fs::path(dir.path) / "data.mdb") <= (2ull << 20));
}

CAF_TEST(a truncated or garbled value decodes to an error) {
  auto r = make_record(demo::emp_kind, 1, 5);
  auto v = encode_value(5, 9, r.doc->etag, r.doc->body);
  value_view out;
  CAF_REQUIRE_EQUAL(decode_value(v, out), decode_error::none);
  CAF_CHECK_EQUAL(out.body, r.doc->body);
  CAF_CHECK_EQUAL(out.etag, r.doc->etag);
  CAF_CHECK_EQUAL(out.seq, 5u);
  CAF_CHECK_EQUAL(out.write_seq, 9u);
  CAF_CHECK_EQUAL(decode_value(std::string_view(v).substr(0, v.size() - 1), out), decode_error::bad_length);
  CAF_CHECK_EQUAL(decode_value(v + "x", out), decode_error::bad_length);
  CAF_CHECK_EQUAL(decode_value(std::string_view(v).substr(0, 10), out), decode_error::too_short);
  auto flipped = v;
  flipped[value_header_size + 40] ^= 0x20;
  CAF_CHECK_EQUAL(decode_value(flipped, out), decode_error::bad_checksum);
  auto seq_flipped = v;
  seq_flipped[3] ^= 1;
  CAF_CHECK_EQUAL(decode_value(seq_flipped, out), decode_error::bad_checksum);
  auto versioned = v;
  versioned[0] = 1; // before records carried their rows
  CAF_CHECK_EQUAL(decode_value(versioned, out), decode_error::bad_version);
  auto etag_len = v;
  etag_len[18] = char(uint8_t(etag_len[18]) + 1); // etag claims one more byte
  CAF_CHECK_EQUAL(decode_value(etag_len, out), decode_error::bad_length);

  // In the file: a garbled value is a miss, counted, and a later put replaces it.
  {
    store s(opts());
    s.put_batch({r}, {});
  }
  raw_put(dir.path, "records", encode_key(r.key).view(), flipped);
  store s(opts());
  auto txn = s.begin_read();
  CAF_CHECK(!s.get(txn, r.key));
  CAF_CHECK_EQUAL(s.counters().garbled, 1u);
  txn.reset();
  s.put_batch({r}, {});
  txn.renew();
  auto got = s.get(txn, r.key);
  CAF_REQUIRE(got);
  CAF_CHECK_EQUAL(got->doc->body, r.doc->body);
}

CAF_TEST(eviction keeps the file within budget and keeps the newest records) {
  const uint64_t budget = 4ull << 20;
  store s(opts(budget));
  const int per_batch = 200, batches = 3 * int(budget / (per_batch * 1500)) + 1; // ~3x budget
  for (int b = 0; b < batches; ++b) {
    auto batch = make_batch(b * per_batch, per_batch, b);
    for (auto& r : batch) // each holding one row: an evicted record takes its rows entry along
      r.doc = make_doc(std::string{r.doc->body}, {"emp\x1f" + std::to_string(r.key.id())});
    s.put_batch(batch, {}, b);
    auto file = fs::file_size(fs::path(dir.path) / "data.mdb");
    CAF_REQUIRE(file <= budget);
  }
  auto c = s.counters();
  CAF_MESSAGE("wrote " << batches * per_batch << " records, kept " << s.count() << ", evicted "
                       << c.evicted << " in " << c.eviction_passes << " passes, map-full retries "
                       << c.map_full_retries << ", cleared " << c.cleared << ", bytes " << s.bytes()
                       << ", file " << fs::file_size(fs::path(dir.path) / "data.mdb"));
  CAF_CHECK(c.evicted > 0);
  CAF_CHECK_EQUAL(c.dropped_puts, 0u);
  CAF_CHECK(s.bytes() <= budget);
  CAF_CHECK(s.count() < size_t(batches * per_batch));
  CAF_CHECK_EQUAL(s.count(), entries(s, s.environment().write_order()));
  CAF_CHECK_EQUAL(entries(s, s.environment().rows()), s.count());
  CAF_CHECK_EQUAL(s.watermark(), uint64_t(batches - 1));
  auto txn = s.begin_read();
  int newest = 0, oldest = 0;
  for (int i = 0; i < per_batch; ++i) {
    newest += s.get(txn, {demo::emp_kind, (batches - 1) * per_batch + i}).has_value();
    oldest += s.get(txn, {demo::emp_kind, i}).has_value();
  }
  CAF_CHECK_EQUAL(newest, per_batch);
  CAF_CHECK_EQUAL(oldest, 0);
}

CAF_TEST(a batch larger than the whole map is written in parts and applies its deletes and watermark) {
  store s(opts(1ull << 20)); // 256 pages
  s.put_batch(make_batch(1, 10), {});
  auto big = make_batch(100, 400); // ~400 pages of records: never in one transaction
  s.put_batch(big, {{demo::emp_kind, 1}}, 77);
  CAF_CHECK_EQUAL(s.counters().dropped_puts, 0u);
  CAF_CHECK_EQUAL(s.watermark(), 77u);
  auto txn = s.begin_read();
  CAF_CHECK(!s.get(txn, {demo::emp_kind, 1}));
  CAF_CHECK(s.get(txn, {demo::emp_kind, 499})); // the newest
  txn.reset();
  CAF_CHECK(fs::file_size(fs::path(dir.path) / "data.mdb") <= (1ull << 20));
}

CAF_TEST(a record larger than the whole map is skipped and its deletes and watermark still apply) {
  store s(opts(1ull << 20)); // 256 pages
  s.put_batch(make_batch(1, 10), {});
  std::vector<record> huge{make_record(demo::emp_kind, 100, 1, 2u << 20)}; // 2 MB: can never fit
  s.put_batch(huge, {{demo::emp_kind, 1}}, 77);
  auto c = s.counters();
  CAF_CHECK(c.map_full_retries >= 3);
  CAF_CHECK_EQUAL(c.dropped_puts, 1u);
  CAF_CHECK_EQUAL(s.watermark(), 77u);
  auto txn = s.begin_read();
  CAF_CHECK(!s.get(txn, {demo::emp_kind, 1}));
  CAF_CHECK(!s.get(txn, {demo::emp_kind, 100}));
  txn.reset();
  // The tier keeps working, through the batch writer's interface as well.
  record_store& rs = s;
  rs.write(make_batch(1000, 20), {}, {}, std::nullopt);
  CAF_CHECK_EQUAL(s.count(), 20u);
  CAF_CHECK_EQUAL(s.watermark(), 77u);
  CAF_CHECK(fs::file_size(fs::path(dir.path) / "data.mdb") <= (1ull << 20));
}

CAF_TEST(a data file cut short or not written by LMDB fails to open as damage) {
  {
    store s(opts());
    s.put_batch(make_batch(1, 2000), {}, 5); // ~2,000 pages
  }
  auto data = fs::path(dir.path) / "data.mdb";
  fs::resize_file(data, fs::file_size(data) / 2);
  // Opening must not touch a page past the end (a SIGBUS): it refuses.
  try {
    store s(opts());
    CAF_FAIL("a data.mdb cut in half opened");
  } catch (const error& e) {
    CAF_CHECK(is_damaged_file(e.code()));
    CAF_CHECK(std::string{e.what()}.find("cut short") != std::string::npos);
  }
  // Not an LMDB file at all.
  fs::remove(fs::path(dir.path) / "lock.mdb");
  { std::ofstream{data, std::ios::trunc} << std::string(64 << 10, 'x'); }
  try {
    store s(opts());
    CAF_FAIL("a file of garbage opened");
  } catch (const error& e) {
    CAF_CHECK(is_damaged_file(e.code()));
  }
  // Once the files are gone the tier starts empty and works.
  remove_files(dir.path);
  store s(opts());
  s.put_batch(make_batch(1, 3), {}, 6);
  CAF_CHECK_EQUAL(s.count(), 3u);
}

CAF_TEST(a full file system lowers the budget to the file and commits go on) {
  restcache::test::tmpfs_dir disk{"lmdb-full", 3ull << 20};
  if (!disk.mounted()) {
    CAF_MESSAGE("skipped: mounting a tmpfs needs CAP_SYS_ADMIN");
    return;
  }
  store s(env_options{disk.path(), 64ull << 20}); // a budget the disk cannot hold
  uint64_t watermark = 1;
  // 30 batches of 200 records of 1.5 KB: ~9 MB into 3 MB.
  for (int32_t b = 0; b < 30; ++b) {
    std::vector<doc_key> deletes{{demo::emp_kind, b * 200 - 100}}; // a key of the batch before
    s.put_batch(make_batch(b * 200, 200), deletes, ++watermark);
  }
  auto c = s.counters();
  CAF_CHECK_GREATER_OR_EQUAL(c.disk_full, 1u);
  CAF_CHECK_LESS(s.budget_bytes(), 3ull << 20);
  CAF_CHECK_EQUAL(s.watermark(), watermark);
  // The newest records are there (eviction, oldest written first, may
  // reach into the last batch on so small a disk); the last delete applied.
  auto txn = s.begin_read();
  for (int32_t id = 29 * 200 + 100; id < 30 * 200; ++id)
    CAF_CHECK(s.get(txn, {demo::emp_kind, id}));
  CAF_CHECK(!s.get(txn, {demo::emp_kind, 29 * 200 - 100}));
  txn.reset();
  CAF_CHECK_GREATER_OR_EQUAL(s.count(), 100u);
  CAF_MESSAGE("kept " << s.count() << " records in a budget of " << (s.budget_bytes() >> 10) << " KiB after "
                      << c.disk_full << " full-disk commits");
}

CAF_TEST(a budget lowered for a full disk goes back up once the disk has room) {
  restcache::test::tmpfs_dir disk{"lmdb-refill", 8ull << 20};
  if (!disk.mounted()) {
    CAF_MESSAGE("skipped: mounting a tmpfs needs CAP_SYS_ADMIN");
    return;
  }
  // Another program's file takes 6 of the disk's 8 MB; the budget is 4 MB.
  auto filler = fs::path(disk.path()) / "other-program.dat";
  {
    std::ofstream out(filler, std::ios::binary);
    std::string mb(1 << 20, 'x');
    for (int i = 0; i < 6; ++i)
      out << mb;
  }
  store s(env_options{disk.path(), 4ull << 20});
  int32_t id = 0;
  uint64_t watermark = 1;
  auto put_batches = [&](int n) {
    for (int b = 0; b < n; ++b, id += 200)
      s.put_batch(make_batch(id, 200), {}, ++watermark);
  };
  put_batches(10); // ~3 MB of records: the disk runs full first
  CAF_CHECK_GREATER_OR_EQUAL(s.counters().disk_full, 1u);
  CAF_CHECK_LESS(s.budget_bytes(), 4ull << 20);
  auto lowered = s.count();
  CAF_CHECK_NOT_EQUAL(s.take_notice().find("its budget is lowered"), std::string::npos);
  // Freeing 1 MB is not room for the whole budget: it stays lowered.
  fs::resize_file(filler, 5ull << 20);
  put_batches(1);
  CAF_CHECK_LESS(s.budget_bytes(), 4ull << 20);
  // The other program goes: the budget is lmdb.max-bytes again, and used.
  auto disk_full = s.counters().disk_full;
  fs::remove(filler);
  put_batches(10);
  CAF_CHECK_EQUAL(s.budget_bytes(), 4ull << 20);
  CAF_CHECK_EQUAL(s.counters().disk_full, disk_full);
  CAF_CHECK_NOT_EQUAL(s.take_notice().find("back to 4096 KiB"), std::string::npos);
  CAF_CHECK_GREATER(s.count(), lowered);
  CAF_MESSAGE(lowered << " records at the lowered budget, " << s.count() << " at the whole one");
}

CAF_TEST(a batch too large for a small budget is written in parts and fills the budget) {
  store s(opts(16ull << 20)); // 4,096 pages; each batch below needs ~3,000
  for (int32_t b = 0; b < 5; ++b)
    s.put_batch(make_batch(b * 3000, 3000), {{demo::emp_kind, b * 3000 - 1}}, uint64_t(b + 1));
  // One transaction a batch would evict down to a quarter of the budget,
  // the batch's own older records with it.
  CAF_MESSAGE("kept " << s.count() << " records of 1.5 KB in a budget of 16 MiB");
  CAF_CHECK_GREATER(s.count(), 2500u); // ~3,100 here; ~1,000 in one transaction a batch
  CAF_CHECK_EQUAL(s.watermark(), 5u);
  auto txn = s.begin_read();
  CAF_CHECK(s.get(txn, {demo::emp_kind, 5 * 3000 - 1})); // the newest
  CAF_CHECK(s.get(txn, {demo::emp_kind, 4 * 3000})); // the last batch's oldest
  CAF_CHECK(!s.get(txn, {demo::emp_kind, 4 * 3000 - 1})); // deleted with its first part
  txn.reset();
  CAF_CHECK(fs::file_size(fs::path(dir.path) / "data.mdb") <= (16ull << 20));
}

CAF_TEST(batches of random keys beside readers neither fail nor drop records) {
  // What test/system/soak looks like to the store: calm stretches of small batches
  // and bursts of batches of thousands of documents, of mixed sizes at random
  // ids (each put and each eviction copying a leaf page), the tier at its
  // budget, readers taking snapshots all along. Every commit must find room:
  // none may fail, and no record may be dropped (the whole tier or a batch's
  // puts) to make room, and the tier must keep its size from burst to burst.
  store s(opts(40ull << 20));
  std::atomic<bool> stop{false};
  std::vector<std::thread> readers;
  for (uint32_t r = 0; r < 3; ++r)
    readers.emplace_back([&, r] {
      uint32_t x = 12345u + r;
      while (!stop) {
        auto txn = s.begin_read();
        for (int i = 0; i < 20; ++i) {
          x = x * 1103515245u + 12345u;
          (void) s.get(txn, {demo::emp_kind, int32_t((x >> 8) % 30000)});
        }
        txn.reset();
        std::this_thread::sleep_for(std::chrono::microseconds(200));
      }
    });
  uint32_t x = 7;
  uint64_t watermark = 0;
  std::string failure;
  auto put = [&](int n) {
    ++watermark;
    try {
      s.put_batch(random_batch(x, n, watermark + 1), {}, watermark);
    } catch (const std::exception& e) {
      if (failure.empty())
        failure = "batch " + std::to_string(watermark) + ": " + e.what();
    }
  };
  std::vector<uint64_t> bytes_after_burst;
  for (int round = 0; round < 3; ++round) {
    for (int b = 0; b < 40; ++b)
      put(150);
    for (int b = 0; b < 6; ++b)
      put(4000);
    bytes_after_burst.push_back(s.bytes());
  }
  stop = true;
  for (auto& t : readers)
    t.join();
  auto c = s.counters();
  CAF_MESSAGE(s.count() << " records in " << (s.bytes() >> 20) << " of 40 MiB (after each burst: "
                        << (bytes_after_burst[0] >> 20) << ", " << (bytes_after_burst[1] >> 20) << ", "
                        << (bytes_after_burst[2] >> 20) << "); " << c.map_full_retries
                        << " MAP_FULL met and recovered from");
  CAF_CHECK_EQUAL(failure, "");
  CAF_CHECK_EQUAL(c.cleared, 0u);
  CAF_CHECK_EQUAL(c.dropped_puts, 0u);
  CAF_CHECK_EQUAL(s.watermark(), watermark);
  // The budget is used, and stays used.
  CAF_CHECK_GREATER(bytes_after_burst[0], 20ull << 20);
  CAF_CHECK_GREATER(bytes_after_burst[2], bytes_after_burst[0] * 9 / 10);
}

CAF_TEST(a reader holding an old snapshot for a while costs no records) {
  // A shard's thread descheduled with its read open: nothing freed after its
  // snapshot can be reused until it moves on, and commits must wait for
  // that rather than clear the tier or drop the batch.
  store s(opts(40ull << 20));
  uint32_t x = 7;
  uint64_t watermark = 0;
  auto put = [&](int n) {
    ++watermark;
    s.put_batch(random_batch(x, n, watermark + 1), {}, watermark);
  };
  for (int b = 0; b < 6; ++b)
    put(4000); // the tier at its budget
  auto pinned = s.begin_read();
  std::thread release([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds{150});
    pinned.reset();
  });
  std::string failure;
  try {
    for (int b = 0; b < 3; ++b)
      put(4000);
  } catch (const std::exception& e) {
    failure = e.what();
  }
  release.join();
  auto c = s.counters();
  CAF_MESSAGE(c.map_full_retries << " MAP_FULL met while the reader held its snapshot");
  CAF_CHECK_EQUAL(failure, "");
  CAF_CHECK_EQUAL(c.cleared, 0u);
  CAF_CHECK_EQUAL(c.dropped_puts, 0u);
  CAF_CHECK_EQUAL(s.watermark(), watermark);
}

CAF_TEST(a read transaction is reset and renewed across threads) {
  store s(opts());
  s.put_batch(make_batch(1, 100, 3), {});
  auto txn = s.begin_read();
  CAF_CHECK(s.get(txn, {demo::emp_kind, 1}));
  txn.reset();
  txn.reset(); // idempotent
  s.put_batch(make_batch(101, 1, 4), {});
  bool t1 = false, t2 = false;
  std::thread first([&] {
    txn.renew(); // a fresh snapshot sees the newer write
    t1 = s.get(txn, {demo::emp_kind, 101}).has_value() && s.get(txn, {demo::emp_kind, 50}).has_value();
    txn.reset();
  });
  first.join();
  std::thread second([&] {
    txn.renew();
    auto got = s.get(txn, {demo::emp_kind, 100});
    t2 = got && got->seq == 3;
    txn.reset();
  });
  second.join();
  CAF_CHECK(t1);
  CAF_CHECK(t2);
}

CAF_TEST(for_each visits every record in key order and counts garbled ones) {
  auto r1 = make_record(demo::deptemps_kind, 7, 11);
  auto r2 = make_record(demo::deptemps_kind, 300, 12);
  auto r3 = make_record(demo::emp_kind, 2, 13);
  auto bad = make_record(demo::emp_kind, 9, 14);
  {
    store s(opts());
    s.put_batch({r3, bad, r2, r1}, {});
    auto txn = s.begin_read();
    std::vector<doc_key> seen;
    bool equal = true;
    auto totals = s.for_each(txn, [&](doc_key k, const value_view& v) {
      seen.push_back(k);
      for (auto& r : {r1, r2, r3, bad})
        if (r.key == k)
          equal = equal && v.body == r.doc->body && v.etag == r.doc->etag && v.seq == r.seq;
    });
    CAF_CHECK_EQUAL(totals.whole, 4u);
    CAF_CHECK_EQUAL(totals.garbled, 0u);
    CAF_CHECK_EQUAL(totals.bad_keys, 0u);
    CAF_CHECK(equal);
    CAF_CHECK(seen == (std::vector<doc_key>{r1.key, r2.key, r3.key, bad.key}));
  }
  // One value garbled, one key that is not ours: counted, never visited.
  auto v = encode_value(14, 99, bad.doc->etag, bad.doc->body);
  v[value_header_size + 3] ^= 0x01;
  raw_put(dir.path, "records", encode_key(bad.key).view(), v);
  raw_put(dir.path, "records", "abc", "x");
  store s(opts());
  auto txn = s.begin_read();
  size_t visits = 0;
  auto totals = s.for_each(txn, [&](doc_key k, const value_view&) {
    ++visits;
    CAF_CHECK(!(k == bad.key));
  });
  CAF_CHECK_EQUAL(visits, 3u);
  CAF_CHECK_EQUAL(totals.whole, 3u);
  CAF_CHECK_EQUAL(totals.garbled, 1u);
  CAF_CHECK_EQUAL(totals.bad_keys, 1u);
  CAF_CHECK_EQUAL(s.counters().garbled, 0u); // an inspection, not a served miss
  // A null visitor only counts.
  CAF_CHECK_EQUAL(s.for_each(txn, nullptr).whole, 3u);
}

CAF_TEST(open frees the reader slot of a process killed inside a read transaction) {
  { store s(opts()); s.put_batch(make_batch(1, 10), {}); }
  // A holds the environment open, so the reopen below is not alone and LMDB
  // does not rebuild its reader table by itself; B takes a reader slot and dies
  // by kill 9 inside its read transaction.
  int hold[2], ready[2];
  CAF_REQUIRE_EQUAL(pipe(hold), 0);
  CAF_REQUIRE_EQUAL(pipe(ready), 0);
  auto open_raw = [&](MDB_env** e) {
    return mdb_env_create(e) == 0 && mdb_env_set_maxdbs(*e, 4) == 0
           && mdb_env_set_mapsize(*e, 256ull << 20) == 0
           && mdb_env_open(*e, dir.path.c_str(), MDB_NOTLS, 0644) == 0;
  };
  pid_t a = fork();
  CAF_REQUIRE(a >= 0);
  if (a == 0) {
    MDB_env* e;
    if (!open_raw(&e))
      _exit(2);
    char c = 1;
    if (write(ready[1], &c, 1) != 1)
      _exit(3);
    close(hold[1]);
    (void) !read(hold[0], &c, 1); // until the parent closes its end
    mdb_env_close(e);
    _exit(0);
  }
  close(hold[0]);
  char c = 0;
  CAF_REQUIRE_EQUAL(read(ready[0], &c, 1), 1);
  pid_t b = fork();
  CAF_REQUIRE(b >= 0);
  if (b == 0) {
    MDB_env* e;
    MDB_txn* txn;
    if (!open_raw(&e) || mdb_txn_begin(e, nullptr, MDB_RDONLY, &txn) != 0)
      _exit(2);
    kill(getpid(), SIGKILL);
    _exit(4);
  }
  int status = 0;
  CAF_REQUIRE_EQUAL(waitpid(b, &status, 0), b);
  CAF_CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
  {
    store s(opts());
    CAF_CHECK_EQUAL(s.environment().stale_readers_cleared(), 1);
    CAF_CHECK(!s.environment().dropped_on_open());
    CAF_CHECK_EQUAL(s.count(), 10u);
    int left = -1;
    CAF_CHECK_EQUAL(mdb_reader_check(s.environment().handle(), &left), 0);
    CAF_CHECK_EQUAL(left, 0);
  }
  close(hold[1]);
  CAF_REQUIRE_EQUAL(waitpid(a, &status, 0), a);
  CAF_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  close(ready[0]);
  close(ready[1]);
}

CAF_TEST_FIXTURE_SCOPE_END()
