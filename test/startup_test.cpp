#define CAF_SUITE startup

// The daemon's start-up rules, run as the daemon runs them: which LMDB
// records it trusts, and what it does with the database's schema.

#include "app/startup.hpp"

#include <caf/test/dsl.hpp>

#include <fstream>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "messages/document_encoder.hpp"
#include "persistence/lmdb/store.hpp"
#include "persistence/pg/connection.hpp"
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

  fixture() {
    cfg.opts.lmdb_path = dir.path;
    cfg.opts.lmdb_max_bytes = 64ll << 20;
    cfg.opts.cache_shards = 2;
  }

  /// Writes two records, with the watermark given (none: a file written
  /// without one, as by an interrupted first run).
  void write_records(std::optional<uint64_t> watermark) {
    lmdb::store s{lmdb::env_options{dir.path, 64ull << 20}};
    std::vector<lmdb::record> records{{doc_key{doc_kind::deptemps, 1}, make_doc("{\"deptNumber\":1}"), 1},
                                      {doc_key{doc_kind::emp, 2}, make_doc("{\"empNo\":2}"), 1}};
    s.put_batch(records, {}, watermark);
  }
};

} // namespace

CAF_TEST_FIXTURE_SCOPE(startup_tests, fixture)

CAF_TEST(LMDB records without a replay watermark are dropped at start) {
  write_records(std::nullopt);
  auto tier = startup::open_lmdb_tier(cfg.opts);
  CAF_CHECK_EQUAL(tier->count(), 0u);
  CAF_CHECK_EQUAL(tier->watermark(), 0u);
}

CAF_TEST(LMDB records with a replay watermark are kept) {
  write_records(uint64_t{42});
  auto tier = startup::open_lmdb_tier(cfg.opts);
  CAF_CHECK_EQUAL(tier->count(), 2u);
  CAF_CHECK_EQUAL(tier->watermark(), 42u);
}

CAF_TEST(an LMDB path that cannot be opened names the option) {
  std::ofstream{dir.path + "/not-a-dir"} << "x";
  cfg.opts.lmdb_path = dir.path + "/not-a-dir";
  try {
    startup::open_lmdb_tier(cfg.opts);
    CAF_FAIL("a file as lmdb.path opened");
  } catch (const std::runtime_error& e) {
    std::string what = e.what();
    CAF_CHECK(what.find("lmdb.path") != std::string::npos);
    CAF_CHECK(what.find(cfg.opts.lmdb_path) != std::string::npos);
  }
}

CAF_TEST(the schema is applied to an empty database once and a newer one is left alone) {
  auto dsn = shared_private_pg().create_database("startup");
  CAF_CHECK(startup::check_schema(dsn) == startup::schema_action::applied);
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
