// SPDX-License-Identifier: Apache-2.0
// Micro benchmarks (Google Benchmark) of the three steps a GET is made of:
//   encode   one department-with-employees document (messages/document_encoder),
//            as a fill or cache.populate does once per document
//   shard    a cache_shard actor answering a get from memory, through a real
//            CAF actor system (work-stealing scheduler threads), as an HTTP
//            session asks it: one request at a time (round trip, the latency of
//            the message hop) and 1,000 in flight (throughput of the shard)
//   lmdb     a read of the LMDB tier through persistence/lmdb/store_reader
//            (renew the read txn, get, copy into a fresh cached_doc, reset),
//            over 100,000 documents of the same size
// Run by bench/micro.sh (or bench/campaign --micro), which builds this with the
// project's CMake (bench/micro/CMakeLists.txt, included only when the
// benchmark package is found).

#include <benchmark/benchmark.h>

#include <caf/all.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/scoped_actor.hpp>
#include <caf/send.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

#include "actors/cache_shard.hpp"
#include "actors/metrics.hpp"
#include "demo/demo_catalogue.hpp"
#include "messages/document_encoder.hpp"
#include "persistence/lmdb/store.hpp"
#include "persistence/lmdb/store_reader.hpp"
#include "demo/demo_encoders.hpp"

using namespace restcache;

namespace {

// A department as restcache-load generates it: ten employees, a manager first,
// names and places of realistic length (the documents are 1.3-1.6 KB).
demo::dept_with_emps sample_dept(int32_t deptno) {
  static const char* jobs[] = {"MANAGER", "ANALYST", "ENGINEER", "DEVELOPER", "CONSULTANT",
                               "ACCOUNTANT", "SALESMAN", "CLERK", "ENGINEER", "SALESMAN"};
  static const char* names[] = {"Olivia Martin", "Liam Schneider", "Emma Rossi", "Noah Dubois",
                                "Ava Kowalski", "Lucas Novak", "Mia Jensen", "Leo Fischer",
                                "Sofia Moreau", "Elias Berg"};
  demo::dept_with_emps d;
  d.dept = demo::dept_row{deptno, "Research & Development " + std::to_string(deptno), "São Paulo"};
  const int32_t base = (deptno - 1) * 10;
  for (int k = 1; k <= 10; ++k) {
    demo::emp_row e;
    e.empno = base + k;
    e.ename = names[k - 1];
    e.job = jobs[k - 1];
    if (k > 1)
      e.mgr = base + 1;
    e.hiredate = "2015-0" + std::to_string(1 + k % 9) + "-1" + std::to_string(k % 10);
    e.sal = 1500 + k * 175;
    if (k == 7 || k == 10)
      e.comm = 300;
    e.deptno = deptno;
    d.emps.push_back(std::move(e));
  }
  return d;
}

// ---- encode ------------------------------------------------------------------

void BM_encode_deptemps(benchmark::State& state) {
  const auto d = sample_dept(12345);
  size_t bytes = 0;
  for (auto _ : state) {
    auto body = demo::encode_deptemps(d);
    bytes += body.size();
    benchmark::DoNotOptimize(body);
  }
  state.SetBytesProcessed(int64_t(bytes));
  state.counters["doc_bytes"] = double(demo::encode_deptemps(d).size());
}
BENCHMARK(BM_encode_deptemps);

// What a fill does with the encoded bytes: the document plus its ETag, shared.
void BM_encode_and_make_doc(benchmark::State& state) {
  const auto d = sample_dept(12345);
  for (auto _ : state) {
    auto doc = make_doc(demo::encode_deptemps(d));
    benchmark::DoNotOptimize(doc);
  }
}
BENCHMARK(BM_encode_and_make_doc);

// ---- shard lookup ------------------------------------------------------------

constexpr int32_t shard_keys = 10'000;

// One actor system and one populated shard for every shard benchmark.
struct shard_world {
  caf::actor_system_config cfg;
  std::unique_ptr<caf::actor_system> sys;
  cache_metrics metrics;
  cache_shard_actor shard;

  shard_world() {
    // As restcached by default (config/options.cpp): half the cores, at least one.
    cfg.set("scheduler.max-threads",
            static_cast<size_t>(std::max(1u, std::thread::hardware_concurrency() / 2)));
    sys = std::make_unique<caf::actor_system>(cfg);
    // The hit path never touches the pool: no database behind this shard.
    shard = sys->spawn(cache_shard, cache_shard_config{cache_mode::memory, int64_t{1} << 30,
                                                       std::chrono::seconds{10}},
                       db_pool_actor{}, &metrics);
    // Documents arrive as cache.populate hands them over (epoch 0: no
    // invalidation since).
    caf::scoped_actor self{*sys};
    for (int32_t id = 1; id <= shard_keys; ++id)
      self->send(shard, put_atom::value, doc_key{demo::deptemps_kind, id},
                 make_doc(demo::encode_deptemps(sample_dept(id))), uint64_t{0});
    while (metrics.entries.load() < shard_keys)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ~shard_world() {
    caf::anon_send_exit(shard, caf::exit_reason::user_shutdown);
    shard = nullptr;
  }
};

// Built on first use, torn down by main() before the process exits (an actor
// system must not outlive main: CAF's statics go with it).
std::unique_ptr<shard_world> the_shard_world;
shard_world& world() {
  if (!the_shard_world)
    the_shard_world = std::make_unique<shard_world>();
  return *the_shard_world;
}

// One get at a time, waiting for its answer (polling with yield, so the waiting
// thread leaves the core to the scheduler on a small machine): the latency of
// the hop from a non-actor thread (an HTTP session's) to the shard and back,
// including the wake-up of an idle scheduler thread.
void BM_shard_get_roundtrip(benchmark::State& state) {
  auto& w = world();
  std::mt19937 rng{7};
  std::uniform_int_distribution<int32_t> pick{1, shard_keys};
  auto done = std::make_shared<std::atomic<uint64_t>>(0);
  uint64_t want = 0;
  const uint64_t hits0 = w.metrics.hits.load();
  for (auto _ : state) {
    ++want;
    caf::anon_send(w.shard, get_atom::value, doc_key{demo::deptemps_kind, pick(rng)},
                   reply_callback{[done](lookup_result r) {
                     benchmark::DoNotOptimize(r.doc);
                     done->fetch_add(1, std::memory_order_release);
                   }});
    while (done->load(std::memory_order_acquire) < want)
      std::this_thread::yield();
  }
  if (w.metrics.hits.load() - hits0 != want)
    state.SkipWithError("not every get was a memory hit");
}
BENCHMARK(BM_shard_get_roundtrip)->UseRealTime();

// `batch` gets in flight, then wait for all: the shard's throughput.
void BM_shard_get_pipelined(benchmark::State& state) {
  auto& w = world();
  const auto batch = state.range(0);
  std::mt19937 rng{11};
  std::uniform_int_distribution<int32_t> pick{1, shard_keys};
  auto done = std::make_shared<std::atomic<uint64_t>>(0);
  uint64_t want = 0;
  reply_callback cb{[done](lookup_result r) {
    benchmark::DoNotOptimize(r.doc);
    done->fetch_add(1, std::memory_order_release);
  }};
  for (auto _ : state) {
    for (int64_t i = 0; i < batch; ++i)
      caf::anon_send(w.shard, get_atom::value, doc_key{demo::deptemps_kind, pick(rng)}, cb);
    want += uint64_t(batch);
    while (done->load(std::memory_order_acquire) < want)
      std::this_thread::yield();
  }
  state.SetItemsProcessed(int64_t(want));
}
BENCHMARK(BM_shard_get_pipelined)->Arg(1000)->UseRealTime();

// ---- LMDB read ---------------------------------------------------------------

constexpr int32_t lmdb_keys = 100'000;

struct lmdb_world {
  std::filesystem::path dir;
  std::unique_ptr<lmdb::store> store;

  lmdb_world() {
    const char* tmp = std::getenv("TMPDIR");
    dir = std::filesystem::path{tmp ? tmp : "/tmp"}
          / ("restcache-micro-lmdb-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    lmdb::env_options opts;
    opts.path = dir.string();
    opts.max_bytes = uint64_t{1} << 30;
    opts.sync = lmdb::sync_mode::no_sync; // a bench file: no fsync while loading
    store = std::make_unique<lmdb::store>(opts);
    std::vector<lmdb::record> batch;
    for (int32_t id = 1; id <= lmdb_keys; ++id) {
      batch.push_back(lmdb::record{doc_key{demo::deptemps_kind, id},
                                   make_doc(demo::encode_deptemps(sample_dept(id))), 1});
      if (batch.size() == 10'000) {
        store->put_batch(batch, {});
        batch.clear();
      }
    }
    if (!batch.empty())
      store->put_batch(batch, {});
  }
  ~lmdb_world() {
    store.reset();
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
};

std::unique_ptr<lmdb_world> the_lmdb_world;
lmdb_world& lmdb_data() {
  if (!the_lmdb_world)
    the_lmdb_world = std::make_unique<lmdb_world>();
  return *the_lmdb_world;
}

void BM_lmdb_read(benchmark::State& state) {
  auto& w = lmdb_data();
  lmdb::store_reader reader{*w.store};
  std::mt19937 rng{3};
  std::uniform_int_distribution<int32_t> pick{1, lmdb_keys};
  size_t bytes = 0;
  for (auto _ : state) {
    auto doc = reader.get(doc_key{demo::deptemps_kind, pick(rng)});
    if (!doc) {
      state.SkipWithError("LMDB miss");
      break;
    }
    bytes += doc->body.size();
    benchmark::DoNotOptimize(doc);
  }
  state.SetBytesProcessed(int64_t(bytes));
}
BENCHMARK(BM_lmdb_read);

} // namespace

int main(int argc, char** argv) {
  restcache::demo::install_demo_catalogue(); // the demo's documents, the daemon's default
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv))
    return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  the_shard_world.reset();
  the_lmdb_world.reset();
  return 0;
}
