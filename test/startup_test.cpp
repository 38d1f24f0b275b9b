// SPDX-License-Identifier: Apache-2.0
#define CAF_SUITE startup

// The daemon's start-up rules, run as the daemon runs them: which LMDB
// records it trusts, and what it does with the database's schema.

#include "app/startup.hpp"

#include <caf/test/dsl.hpp>

#include <filesystem>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "demo/demo_catalogue.hpp"
#include "messages/document_encoder.hpp"
#include "persistence/lmdb/store.hpp"
#include "persistence/pg/connection.hpp"
#include "demo/data_generator.hpp"
#include "persistence/pg/schema.hpp"
#include "test/fixtures/private_pg.hpp"
#include "test/fixtures/test_support.hpp"

using namespace restcache;
using restcache::test::shared_private_pg;
using restcache::test::temp_dir;

namespace {

struct fixture {
  temp_dir dir{"startup"};
  restcache_config cfg; // every option at its default
  tier_status status;

  fixture() {
    cfg.opts.lmdb_path = dir.path;
    cfg.opts.lmdb_max_bytes = 64ll << 20;
    cfg.opts.cache_shards = 2;
  }

  /// Writes two records, with the watermark given (none: a file written
  /// without one, as by an interrupted first run).
  void write_records(std::optional<uint64_t> watermark) {
    lmdb::store s{lmdb::env_options{dir.path, 64ull << 20}};
    std::vector<lmdb::record> records{{doc_key{demo::deptemps_kind, 1}, make_doc("{\"deptNumber\":1}"), 1},
                                      {doc_key{demo::emp_kind, 2}, make_doc("{\"empNo\":2}"), 1}};
    s.put_batch(records, {}, watermark);
  }
};

} // namespace

CAF_TEST_FIXTURE_SCOPE(startup_tests, fixture)

CAF_TEST(LMDB records without a replay watermark are dropped at start) {
  write_records(std::nullopt);
  auto tier = startup::open_lmdb_tier(cfg.opts, status);
  CAF_CHECK_EQUAL(tier->count(), 0u);
  CAF_CHECK_EQUAL(tier->watermark(), 0u);
}

CAF_TEST(LMDB records with a replay watermark are kept) {
  write_records(uint64_t{42});
  auto tier = startup::open_lmdb_tier(cfg.opts, status);
  CAF_CHECK_EQUAL(tier->count(), 2u);
  CAF_CHECK_EQUAL(tier->watermark(), 42u);
  CAF_CHECK_EQUAL(status.get(), std::pair(tier_state::ok, std::string{"open"}));
}

CAF_TEST(an LMDB path that cannot be created leaves the tier off and names the option) {
  std::ofstream{dir.path + "/not-a-dir"} << "x";
  cfg.opts.lmdb_path = dir.path + "/not-a-dir/lmdb";
  auto tier = startup::open_lmdb_tier(cfg.opts, status);
  CAF_CHECK(tier == nullptr);
  auto [state, why] = status.get();
  CAF_CHECK_EQUAL(state, tier_state::off);
  CAF_CHECK(why.find("lmdb.path") != std::string::npos);
  CAF_CHECK(why.find(cfg.opts.lmdb_path) != std::string::npos);
}

CAF_TEST(an LMDB directory that cannot be written leaves the tier off) {
  test::tmpfs_dir read_only{"startup-ro", 1 << 20, true};
  if (!read_only.mounted()) {
    CAF_MESSAGE("skipped: mounting a tmpfs needs CAP_SYS_ADMIN");
    return;
  }
  cfg.opts.lmdb_path = read_only.path();
  auto tier = startup::open_lmdb_tier(cfg.opts, status);
  CAF_CHECK(tier == nullptr);
  auto [state, why] = status.get();
  CAF_CHECK_EQUAL(state, tier_state::off);
  CAF_CHECK(why.find("Read-only file system") != std::string::npos);
}

CAF_TEST(a damaged LMDB file is deleted and the tier starts empty) {
  auto data = dir.path + "/data.mdb";
  auto expect_rebuilt = [&](const char* what) {
    auto tier = startup::open_lmdb_tier(cfg.opts, status);
    CAF_REQUIRE(tier != nullptr);
    CAF_CHECK_EQUAL(tier->count(), 0u);
    CAF_CHECK_EQUAL(tier->watermark(), 0u);
    auto [state, why] = status.get();
    CAF_CHECK_EQUAL(state, tier_state::ok);
    CAF_CHECK(why.find("damaged") != std::string::npos);
    CAF_CHECK(why.find(what) != std::string::npos);
    tier->put_batch({{doc_key{demo::emp_kind, 7}, make_doc("{\"empNo\":7}"), 1}}, {}, 3);
    CAF_CHECK_EQUAL(tier->count(), 1u);
  };
  // Cut short: LMDB itself would open it and fault on the first page read.
  write_records(uint64_t{42});
  {
    lmdb::store s{lmdb::env_options{dir.path, 64ull << 20}};
    std::vector<lmdb::record> many;
    for (int32_t id = 10; id < 1010; ++id)
      many.push_back({doc_key{demo::emp_kind, id}, make_doc(std::string(1500, 'e')), 1});
    s.put_batch(many, {}, 43);
  }
  std::filesystem::resize_file(data, std::filesystem::file_size(data) / 3);
  expect_rebuilt("cut short");
  // Not an LMDB file.
  { std::ofstream{data, std::ios::trunc} << std::string(1 << 16, '?'); }
  std::filesystem::remove(dir.path + "/lock.mdb");
  expect_rebuilt("not an LMDB file");
}

CAF_TEST(an LMDB file of another format is dropped and the start says so) {
  write_records(uint64_t{42});
  {
    lmdb::store s{lmdb::env_options{dir.path, 64ull << 20}};
    lmdb::write_txn txn{s.environment()};
    MDB_val k = lmdb::to_val(lmdb::meta_key::format), v = lmdb::to_val(std::string_view("\0\0\0\x09", 4));
    lmdb::check(mdb_put(txn.handle(), s.environment().meta(), &k, &v, 0), "mdb_put");
    txn.commit();
  }
  auto tier = startup::open_lmdb_tier(cfg.opts, status);
  CAF_REQUIRE(tier != nullptr);
  CAF_CHECK_EQUAL(tier->count(), 0u);
  CAF_CHECK(status.get().second.find("another format") != std::string::npos);
}

CAF_TEST(the daemon installs no schema and tells an older or newer one apart) {
  auto dsn = shared_private_pg().create_database("startup");
  CAF_CHECK(startup::check_schema(dsn) == startup::schema_action::older);
  {
    pg::connection c{dsn};
    CAF_CHECK_EQUAL(pg::installed_schema_version(c), 0); // nothing installed
    demo::ensure_demo_schema(c);                                 // what restcache-load --schema-only runs
  }
  CAF_CHECK(startup::check_schema(dsn) == startup::schema_action::current);
  {
    pg::connection c{dsn};
    c.exec("INSERT INTO restcache_schema (version) VALUES (" + std::to_string(pg::schema_version + 1) + ")");
  }
  CAF_CHECK(startup::check_schema(dsn) == startup::schema_action::newer);
  {
    pg::connection c{dsn};
    CAF_CHECK_EQUAL(pg::installed_schema_version(c), pg::schema_version + 1);
  }
  shared_private_pg().drop_database(dsn);
}

CAF_TEST(an unreachable database at start is not fatal) {
  CAF_CHECK(startup::check_schema("host=127.0.0.1 port=1 connect_timeout=2 user=nobody dbname=none")
            == startup::schema_action::unreachable);
}

CAF_TEST(the options naming a choice are parsed into their values) {
  auto parse = [](std::vector<std::string> args) {
    auto cfg = std::make_unique<restcache_config>();
    args.insert(args.begin(), {"restcached", "--config-file=/dev/null"});
    std::vector<char*> argv;
    for (auto& a : args)
      argv.push_back(a.data());
    CAF_REQUIRE(!cfg->read_options(static_cast<int>(argv.size()), argv.data()));
    return cfg;
  };
  auto defaults = parse({});
  CAF_CHECK(defaults->opts.mode == cache_mode::tiered);
  CAF_CHECK(defaults->opts.driver == db_driver_kind::async);
  CAF_CHECK(defaults->opts.sync == lmdb_sync_kind::durable);
  CAF_CHECK(defaults->opts.scheduler == scheduler_kind::io);
  auto other = parse({"--cache.mode=lmdb", "--db.driver=threads",
                      "--lmdb.sync=no-meta-sync", "--runtime.scheduler=caf"});
  CAF_CHECK(other->opts.mode == cache_mode::lmdb);
  CAF_CHECK(other->resolved_cache_mode() == cache_mode::lmdb);
  CAF_CHECK(other->opts.driver == db_driver_kind::threads);
  CAF_CHECK(other->opts.sync == lmdb_sync_kind::no_meta_sync);
  CAF_CHECK(other->opts.scheduler == scheduler_kind::caf);
  CAF_CHECK(!other->uses_io_scheduler());
  CAF_CHECK(parse({"--cache.mode=none", "--lmdb.sync=no-sync"})->opts.sync == lmdb_sync_kind::no_sync);
  CAF_CHECK(!parse({"--cache.mode=none"})->uses_lmdb());
}

CAF_TEST(the removed serve policy is refused with what replaced it) {
  auto cfg = std::make_unique<restcache_config>();
  std::vector<std::string> args{"restcached", "--config-file=/dev/null", "--cache.on-listener-loss=serve"};
  std::vector<char*> argv;
  for (auto& a : args)
    argv.push_back(a.data());
  CAF_CHECK_EQUAL(cfg->read_options(static_cast<int>(argv.size()), argv.data()), std::optional<int>{2});
  auto note = removed_option_note("cache.on-listener-loss");
  CAF_REQUIRE(note);
  CAF_CHECK(note->find("cache.stale-if-error") != std::string::npos);
  CAF_CHECK(!removed_option_note("cache.mode"));
}

CAF_TEST_FIXTURE_SCOPE_END()
