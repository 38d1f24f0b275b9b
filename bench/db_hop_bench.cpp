// SPDX-License-Identifier: Apache-2.0
// How fills reach PostgreSQL: restcache's choice (one libpq connection per
// dedicated thread, jobs handed over through a queue, as pg_connection_worker
// does) against the alternative (one thread driving all connections with
// libpq's asynchronous API on their sockets, poll()-based, optionally
// several queries in flight per connection in pipeline mode), and that
// alternative packaged behind db_connection (actors/pg_async_pool: one
// driver thread, jobs handed over through an eventfd-woken inbox).
//
//   restcache-bench-dbhop DSN [QUERIES=20000] [CONNECTIONS=4] [DEPTS=10000] [ONLY]
//
// ONLY (optional) runs one variant: threads, async, pipeline, pool, threads1
// or pool1 (the last two: 1 job per connection instead of 2).
//
// Prints queries/s and CPU microseconds per query (this process only) for
// each variant; every query is the real document statement and every result
// is decoded the same way.

#include "demo/demo_catalogue.hpp"
#include "tools/cli_args.hpp"

#include <poll.h>
#include <sys/resource.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "db/pg_async_pool.hpp"
#include "db/pg_connection_worker.hpp"
#include "persistence/pg/connection.hpp"
#include "persistence/pg/statements.hpp"
#include "demo/demo_reads.hpp"

using namespace restcache;
using clock_type = std::chrono::steady_clock;

namespace {

double cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return double(u.ru_utime.tv_sec + u.ru_stime.tv_sec)
         + double(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

struct run_result {
  double seconds = 0;
  double cpu = 0;
  long ok = 0;
};

void print(const char* name, long queries, const run_result& r) {
  std::printf("%-44s %8.0f q/s  %6.1f us CPU/query  (%ld/%ld ok)\n", name, double(queries) / r.seconds,
              r.cpu / double(queries) * 1e6, r.ok, queries);
}

// Keeps `per_conn` jobs per connection submitted through db_connection (2:
// no connection idles waiting for us; 1: as the pool lends a connection to
// one borrower at a time); the same loop for every implementation. Jobs go
// round-robin, so with per_conn 1 a connection may briefly hold two while
// another holds none.
run_result drive(const std::vector<db_connection*>& conns_in, long queries, int depts,
                 long per_conn) {
  const auto conns = static_cast<long>(conns_in.size());
  std::mutex mtx;
  std::condition_variable cv;
  long done = 0, ok = 0;
  std::mt19937 rng{42};
  std::uniform_int_distribution<int> pick{1, depts};
  auto t0 = clock_type::now();
  auto c0 = cpu_seconds();
  long issued = 0;
  const long window = per_conn * conns;
  std::unique_lock lock{mtx};
  while (done < queries) {
    while (issued < queries && issued - done < window) {
      auto& w = *conns_in[size_t(issued % conns)];
      lock.unlock();
      w.fetch_document(doc_key{demo::deptemps_kind, pick(rng)}, [&](fetch_outcome o) {
        std::lock_guard g{mtx};
        ++done;
        ok += o.error == rc_error::none ? 1 : 0;
        cv.notify_one();
      });
      lock.lock();
      ++issued;
    }
    cv.wait(lock, [&] { return done >= queries || (issued < queries && issued - done < window); });
  }
  lock.unlock();
  return run_result{std::chrono::duration<double>(clock_type::now() - t0).count(),
                    cpu_seconds() - c0, ok};
}

// The chosen design: jobs queued to dedicated connection threads.
run_result threads(const std::string& dsn, long queries, int conns, int depts, long per_conn = 2) {
  db_metrics metrics;
  std::atomic<int> up{0};
  std::vector<std::unique_ptr<pg_connection_worker>> workers;
  std::vector<db_connection*> raw;
  for (int i = 0; i < conns; ++i) {
    workers.push_back(std::make_unique<pg_connection_worker>(
      i, pg_worker_config{dsn}, metrics, [&](uint64_t) { ++up; }, [](uint64_t) {}));
    raw.push_back(workers.back().get());
  }
  while (up.load() < conns)
    std::this_thread::sleep_for(std::chrono::milliseconds{10});
  auto r = drive(raw, queries, depts, per_conn);
  workers.clear();
  return r;
}

// The alternative behind the same interface: one driver thread owns every
// connection (actors/pg_async_pool), jobs reach it through its inbox.
run_result async_pool(const std::string& dsn, long queries, int conns, int depts,
                      long per_conn = 2) {
  db_metrics metrics;
  std::atomic<int> up{0};
  pg_async_driver driver{pg_worker_config{dsn}, metrics};
  std::vector<db_lease> leases;
  std::vector<db_connection*> raw;
  for (int i = 0; i < conns; ++i) {
    leases.push_back(driver.make_connection(i, [&](uint64_t) { ++up; }, [](uint64_t) {}));
    raw.push_back(leases.back().get());
  }
  while (up.load() < conns)
    std::this_thread::sleep_for(std::chrono::milliseconds{10});
  return drive(raw, queries, depts, per_conn);
}

// The alternative: one thread, non-blocking libpq on every socket.
run_result async_poll(const std::string& dsn, long queries, int conns, int depts, int depth) {
  std::vector<pg::connection> cs;
  for (int i = 0; i < conns; ++i) {
    cs.emplace_back(dsn);
    pg::prepare_statements(cs.back());
    PQsetnonblocking(cs.back().get(), 1);
    if (depth > 1)
      PQenterPipelineMode(cs.back().get());
  }
  std::vector<int> in_flight(size_t(conns), 0);
  std::mt19937 rng{42};
  std::uniform_int_distribution<int> pick{1, depts};
  long issued = 0, done = 0, ok = 0;
  auto t0 = clock_type::now();
  auto c0 = cpu_seconds();
  auto send_one = [&](size_t i) {
    auto id = std::to_string(pick(rng));
    const char* values[] = {id.c_str()};
    if (!PQsendQueryPrepared(cs[i].get(), demo::deptemps_statement().c_str(), 1, values, nullptr, nullptr, 0))
      std::abort();
    ++in_flight[i];
    ++issued;
  };
  while (done < queries) {
    for (size_t i = 0; i < cs.size(); ++i) {
      bool sent = false;
      while (issued < queries && in_flight[i] < depth) {
        send_one(i);
        sent = true;
      }
      if (sent && depth > 1)
        PQpipelineSync(cs[i].get());
      PQflush(cs[i].get());
    }
    std::vector<pollfd> fds;
    for (auto& c : cs)
      fds.push_back(pollfd{PQsocket(c.get()), POLLIN, 0});
    poll(fds.data(), fds.size(), 1000);
    for (size_t i = 0; i < cs.size(); ++i) {
      if (!(fds[i].revents & POLLIN))
        continue;
      auto* c = cs[i].get();
      PQconsumeInput(c);
      // Each query's results end with a nullptr from PQgetResult (in both
      // modes); a sync point answers PGRES_PIPELINE_SYNC. A nullptr with no
      // result before it means nothing more is ready.
      bool got_result = false;
      while (!PQisBusy(c)) {
        PGresult* raw = PQgetResult(c);
        if (!raw) {
          if (!got_result)
            break;
          got_result = false;
          --in_flight[i];
          ++done;
          continue;
        }
        auto status = PQresultStatus(raw);
        if (status == PGRES_PIPELINE_SYNC) {
          PQclear(raw);
          continue;
        }
        got_result = true;
        pg::result res{raw};
        if (status != PGRES_TUPLES_OK) {
          std::fprintf(stderr, "query failed: %s\n", PQerrorMessage(c));
          std::abort();
        }
        ok += demo::decode_deptemps(res).has_value() ? 1 : 0;
      }
    }
  }
  return run_result{std::chrono::duration<double>(clock_type::now() - t0).count(), cpu_seconds() - c0, ok};
}

} // namespace

int main(int argc, char** argv) {
  restcache::demo::install_demo_catalogue(); // the demo's documents, the daemon's default
  if (argc >= 2 && std::string_view{argv[1]} == "--version")
    restcache::tools::print_version_and_exit();
  if (argc < 2) {
    std::fprintf(stderr,
                 "usage: %s DSN [QUERIES=20000] [CONNECTIONS=4] [DEPTS=10000] "
                 "[ONLY=threads|async|pipeline|pool|threads1|pool1]\n"
                 "       %s --version\n",
                 argv[0], argv[0]);
    return 2;
  }
  std::string dsn = argv[1];
  long queries = argc > 2 ? std::atol(argv[2]) : 20000;
  int conns = argc > 3 ? std::atoi(argv[3]) : 4;
  int depts = argc > 4 ? std::atoi(argv[4]) : 10000;
  std::string only = argc > 5 ? argv[5] : "";
  auto want = [&](const char* v) { return only.empty() || only == v; };
  std::printf("%ld document queries over %d connections, ids uniform in 1..%d\n", queries, conns, depts);
  threads(dsn, queries / 10, conns, depts); // warm the server's caches
  if (want("threads"))
    print("dedicated threads (restcache's choice)", queries, threads(dsn, queries, conns, depts));
  if (want("async"))
    print("async, one thread, 1 in flight/connection", queries, async_poll(dsn, queries, conns, depts, 1));
  if (want("pipeline"))
    print("async, one thread, pipeline 8/connection", queries, async_poll(dsn, queries, conns, depts, 8));
  if (want("pool"))
    print("pg_async_pool via db_connection (2/conn)", queries, async_pool(dsn, queries, conns, depts));
  if (want("threads1"))
    print("dedicated threads, 1 job/connection", queries, threads(dsn, queries, conns, depts, 1));
  if (want("pool1"))
    print("pg_async_pool, 1 job/connection", queries, async_pool(dsn, queries, conns, depts, 1));
  if (only.empty()) {
    print("dedicated threads again", queries, threads(dsn, queries, conns, depts));
    print("pg_async_pool again", queries, async_pool(dsn, queries, conns, depts));
  }
  return 0;
}
