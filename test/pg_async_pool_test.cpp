#define CAF_SUITE pg_async_pool
#include "actors/pg_async_pool.hpp"

#include <caf/test/dsl.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <future>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "persistence/pg/connection.hpp"
#include "persistence/pg/data_generator.hpp"
#include "persistence/pg/schema.hpp"
#include "persistence/pg/statements.hpp"
#include "test/fixtures/private_pg.hpp"

using namespace std::chrono_literals;
using namespace restcache;
using restcache::test::shared_private_pg;

namespace {

constexpr int n_depts = 200;
constexpr int emps_per_dept = 5;
constexpr auto wait_limit = 15s; ///< bound of every wait; far beyond what a pass needs

std::string text(const std::optional<std::string>& s) {
  return s ? '"' + *s + '"' : "null";
}

std::string text(const std::optional<int32_t>& v) {
  return v ? std::to_string(*v) : "null";
}

std::string text(const emp_row& e) {
  return "{" + std::to_string(e.empno) + "," + text(e.ename) + "," + text(e.job) + ","
         + text(e.mgr) + "," + text(e.hiredate) + "," + text(e.sal) + "," + text(e.comm) + ","
         + text(e.deptno) + "}";
}

/// Every field, so that two documents compare as strings (and print on failure).
std::string text(const dept_with_emps& d) {
  auto s = "{" + std::to_string(d.dept.deptno) + "," + text(d.dept.dname) + "," + text(d.dept.loc)
           + ",[";
  for (const auto& e : d.emps)
    s += text(e);
  return s + "]}";
}

/// Counts on_up / on_down calls and lets a test wait for a count.
struct updown {
  std::mutex mtx;
  std::condition_variable cv;
  int ups = 0;
  int downs = 0;

  std::function<void(uint64_t)> on_up() {
    return [this](uint64_t) {
      std::lock_guard g{mtx};
      ++ups;
      cv.notify_all();
    };
  }

  std::function<void(uint64_t)> on_down() {
    return [this](uint64_t) {
      std::lock_guard g{mtx};
      ++downs;
      cv.notify_all();
    };
  }

  int ups_now() {
    std::lock_guard g{mtx};
    return ups;
  }

  int downs_now() {
    std::lock_guard g{mtx};
    return downs;
  }

  bool wait_ups(int n) {
    std::unique_lock l{mtx};
    return cv.wait_for(l, wait_limit, [&] { return ups >= n; });
  }

  bool wait_downs(int n) {
    std::unique_lock l{mtx};
    return cv.wait_for(l, wait_limit, [&] { return downs >= n; });
  }
};

template <class T>
T await(std::future<T>& f) {
  if (f.wait_for(wait_limit) != std::future_status::ready)
    CAF_FAIL("no answer within the time limit");
  return f.get();
}

fetch_outcome fetch(db_connection& c, doc_key key) {
  auto p = std::make_shared<std::promise<fetch_outcome>>();
  auto f = p->get_future();
  c.fetch_document(key, [p](fetch_outcome o) { p->set_value(std::move(o)); });
  return await(f);
}

deptemps_batch_outcome fetch_batch(db_connection& c, int32_t after, int32_t limit, bool count) {
  auto p = std::make_shared<std::promise<deptemps_batch_outcome>>();
  auto f = p->get_future();
  c.fetch_deptemps_batch(after, limit, count,
                         [p](deptemps_batch_outcome o) { p->set_value(std::move(o)); });
  return await(f);
}

dept_ids_outcome fetch_ids(db_connection& c) {
  auto p = std::make_shared<std::promise<dept_ids_outcome>>();
  auto f = p->get_future();
  c.fetch_dept_ids([p](dept_ids_outcome o) { p->set_value(std::move(o)); });
  return await(f);
}

/// A fresh database with demo data, a blocking connection to it for
/// reference reads, and a driver with `pool_size` connections.
struct fixture {
  std::string dsn;
  pg::connection c;
  db_metrics metrics;
  updown events;
  std::unique_ptr<pg_async_driver> driver;
  std::vector<db_lease> conns;

  fixture() : dsn(shared_private_pg().create_database("pg_async")), c(dsn) {
    pg::ensure_schema(c);
    pg::load_options opts;
    opts.depts = n_depts;
    opts.emps_per_dept = emps_per_dept;
    pg::load_demo_data(c, opts);
    pg::prepare_statements(c);
  }

  ~fixture() {
    conns.clear();
    driver.reset(); // before the database goes
    auto name = dsn.substr(dsn.rfind('=') + 1);
    c = pg::connection{shared_private_pg().dsn("postgres")};
    try {
      c.exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
    } catch (...) {
      // best effort; the cluster goes away at exit anyway
    }
  }

  void start(size_t pool_size, std::chrono::milliseconds query_timeout = 5'000ms,
             size_t pipeline_depth = 1) {
    pg_worker_config cfg;
    cfg.dsn = dsn;
    cfg.query_timeout = query_timeout;
    cfg.pipeline_depth = pipeline_depth;
    driver = std::make_unique<pg_async_driver>(cfg, metrics);
    for (size_t i = 0; i < pool_size; ++i)
      conns.push_back(driver->make_connection(i, events.on_up(), events.on_down()));
    CAF_REQUIRE(events.wait_ups(static_cast<int>(pool_size)));
    for (auto& conn : conns)
      CAF_REQUIRE(conn->up());
  }

  /// Ends the driver's sessions (not ours) with pg_terminate_backend.
  int64_t terminate_driver_sessions() {
    return c
      .exec("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
            " WHERE datname = current_database() AND pid <> pg_backend_pid()")
      .int64(0, 0);
  }

  /// Waits until `n` sessions of the driver wait for a lock.
  bool wait_lock_waiters(int n) {
    auto until = std::chrono::steady_clock::now() + wait_limit;
    while (std::chrono::steady_clock::now() < until) {
      auto waiting = c.exec("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                            " AND wait_event_type = 'Lock'")
                       .int64(0, 0);
      if (waiting >= n)
        return true;
      std::this_thread::sleep_for(10ms);
    }
    return false;
  }
};

} // namespace

CAF_TEST_FIXTURE_SCOPE(pg_async_pool_tests, fixture)

CAF_TEST(documents equal what the blocking statements read) {
  start(2);
  for (int id : {1, 2, 77, n_depts}) {
    auto want = pg::fetch_deptemps(c, id);
    CAF_REQUIRE(want.has_value());
    auto got = fetch(*conns[size_t(id) % 2], doc_key{doc_kind::deptemps, id});
    CAF_REQUIRE_EQUAL(got.error, rc_error::none);
    CAF_REQUIRE(got.deptemps != nullptr);
    CAF_CHECK(got.emp == nullptr);
    CAF_CHECK_EQUAL(got.deptemps->emps.size(), size_t(emps_per_dept));
    CAF_CHECK_EQUAL(text(*got.deptemps), text(*want));
  }
  // A department without employees is still a document.
  c.exec("INSERT INTO dept VALUES (5000, 'EMPTY', NULL)");
  auto got = fetch(*conns[0], doc_key{doc_kind::deptemps, 5000});
  CAF_REQUIRE_EQUAL(got.error, rc_error::none);
  CAF_CHECK_EQUAL(text(*got.deptemps), text(*pg::fetch_deptemps(c, 5000)));
  CAF_CHECK(got.deptemps->emps.empty());
  CAF_CHECK_EQUAL(metrics.queries.load(), 5u);
  CAF_CHECK_EQUAL(metrics.query_errors.load(), 0u);
  CAF_CHECK_EQUAL(metrics.connections_up.load(), 2);
  CAF_CHECK_EQUAL(metrics.reconnects.load(), 2u);
}

CAF_TEST(missing entities answer not_found) {
  start(1);
  auto d = fetch(*conns[0], doc_key{doc_kind::deptemps, n_depts + 1000});
  CAF_CHECK_EQUAL(d.error, rc_error::not_found);
  CAF_CHECK(d.deptemps == nullptr);
  auto e = fetch(*conns[0], doc_key{doc_kind::emp, -5});
  CAF_CHECK_EQUAL(e.error, rc_error::not_found);
  CAF_CHECK(e.emp == nullptr);
  CAF_CHECK(conns[0]->up());
}

CAF_TEST(employee documents equal what the blocking statement reads) {
  start(1);
  auto r = c.exec("SELECT empno FROM emp ORDER BY empno LIMIT 3 OFFSET 17");
  CAF_REQUIRE_EQUAL(r.rows(), 3);
  for (int i = 0; i < r.rows(); ++i) {
    auto empno = static_cast<int32_t>(r.int64(i, 0));
    auto want = pg::fetch_emp(c, empno);
    CAF_REQUIRE(want.has_value());
    auto got = fetch(*conns[0], doc_key{doc_kind::emp, empno});
    CAF_REQUIRE_EQUAL(got.error, rc_error::none);
    CAF_REQUIRE(got.emp != nullptr);
    CAF_CHECK(got.deptemps == nullptr);
    CAF_CHECK_EQUAL(text(*got.emp), text(*want));
  }
}

CAF_TEST(batches page through departments and count them once asked) {
  start(1);
  auto first = fetch_batch(*conns[0], 0, 30, true);
  CAF_REQUIRE_EQUAL(first.error, rc_error::none);
  CAF_CHECK_EQUAL(first.total_depts, n_depts);
  auto want = pg::fetch_deptemps_batch(c, 0, 30);
  CAF_REQUIRE_EQUAL(first.depts->size(), want.size());
  for (size_t i = 0; i < want.size(); ++i)
    CAF_CHECK_EQUAL(text((*first.depts)[i]), text(want[i]));
  auto second = fetch_batch(*conns[0], first.depts->back().dept.deptno, 30, false);
  CAF_REQUIRE_EQUAL(second.error, rc_error::none);
  CAF_CHECK_EQUAL(second.total_depts, 0);
  CAF_REQUIRE_EQUAL(second.depts->size(), 30u);
  CAF_CHECK_EQUAL(second.depts->front().dept.deptno, 31);
  auto end = fetch_batch(*conns[0], n_depts, 30, false);
  CAF_REQUIRE_EQUAL(end.error, rc_error::none);
  CAF_CHECK(end.depts->empty());
  CAF_CHECK_EQUAL(metrics.queries.load(), 3u);
}

CAF_TEST(dept ids are every department ascending) {
  start(1);
  auto got = fetch_ids(*conns[0]);
  CAF_REQUIRE_EQUAL(got.error, rc_error::none);
  CAF_REQUIRE(got.ids != nullptr);
  CAF_CHECK_EQUAL(got.ids->size(), size_t(n_depts));
  CAF_CHECK(*got.ids == pg::fetch_dept_ids(c));
}

CAF_TEST(a statement over statement_timeout answers db_timeout and the connection stays) {
  start(1, 200ms);
  // A lock the document statement must wait for; statement_timeout counts the wait.
  c.exec("BEGIN; LOCK TABLE dept IN ACCESS EXCLUSIVE MODE");
  auto t0 = std::chrono::steady_clock::now();
  auto got = fetch(*conns[0], doc_key{doc_kind::deptemps, 1});
  auto waited = std::chrono::steady_clock::now() - t0;
  c.exec("ROLLBACK");
  CAF_CHECK_EQUAL(got.error, rc_error::db_timeout);
  CAF_CHECK(waited >= 150ms);
  CAF_CHECK(waited < 5s);
  CAF_CHECK_EQUAL(metrics.query_timeouts.load(), 1u);
  CAF_CHECK_EQUAL(metrics.query_errors.load(), 1u);
  CAF_CHECK(conns[0]->up());
  CAF_CHECK_EQUAL(events.downs_now(), 0);
  CAF_CHECK_EQUAL(fetch(*conns[0], doc_key{doc_kind::deptemps, 1}).error, rc_error::none);
}

CAF_TEST(a terminated idle session goes down and comes back) {
  start(2);
  CAF_REQUIRE_EQUAL(terminate_driver_sessions(), 2);
  CAF_REQUIRE(events.wait_downs(2));
  CAF_REQUIRE(events.wait_ups(4));
  CAF_CHECK_EQUAL(metrics.reconnects.load(), 4u);
  CAF_CHECK_EQUAL(metrics.connections_up.load(), 2);
  for (auto& conn : conns) {
    CAF_CHECK(conn->up());
    CAF_CHECK_EQUAL(fetch(*conn, doc_key{doc_kind::deptemps, 3}).error, rc_error::none);
  }
}

CAF_TEST(a session terminated mid-statement answers db_unavailable while down) {
  start(1);
  c.exec("BEGIN; LOCK TABLE dept IN ACCESS EXCLUSIVE MODE");
  auto conn = conns[0];
  auto p = std::make_shared<std::promise<std::pair<fetch_outcome, bool>>>();
  auto f = p->get_future();
  conn->fetch_document(doc_key{doc_kind::deptemps, 1}, [p, conn](fetch_outcome o) {
    p->set_value({std::move(o), conn->up()});
  });
  // One more queued behind it.
  auto p2 = std::make_shared<std::promise<fetch_outcome>>();
  auto f2 = p2->get_future();
  conn->fetch_document(doc_key{doc_kind::deptemps, 2},
                       [p2](fetch_outcome o) { p2->set_value(std::move(o)); });
  CAF_REQUIRE(wait_lock_waiters(1));
  CAF_REQUIRE_EQUAL(terminate_driver_sessions(), 1);
  auto [got, up_in_done] = await(f);
  CAF_CHECK_EQUAL(got.error, rc_error::db_unavailable);
  CAF_CHECK(!up_in_done); // down before `done` ran
  CAF_CHECK_EQUAL(await(f2).error, rc_error::db_unavailable);
  c.exec("ROLLBACK");
  CAF_REQUIRE(events.wait_downs(1));
  CAF_REQUIRE(events.wait_ups(2));
  CAF_CHECK_EQUAL(fetch(*conn, doc_key{doc_kind::deptemps, 1}).error, rc_error::none);
}

CAF_TEST(jobs for a connection that is not up fail fast) {
  // Nothing listens on the port: connecting fails and retries with backoff.
  pg_worker_config cfg;
  cfg.dsn = "host=127.0.0.1 port=1 user=restcache dbname=restcache connect_timeout=1";
  cfg.max_backoff = 200ms;
  driver = std::make_unique<pg_async_driver>(cfg, metrics);
  auto conn = driver->make_connection(7, events.on_up(), events.on_down());
  CAF_CHECK_EQUAL(conn->slot(), 7u);
  CAF_CHECK(!conn->up());
  auto t0 = std::chrono::steady_clock::now();
  CAF_CHECK_EQUAL(fetch(*conn, doc_key{doc_kind::deptemps, 1}).error, rc_error::db_unavailable);
  CAF_CHECK_EQUAL(fetch_ids(*conn).error, rc_error::db_unavailable);
  CAF_CHECK_EQUAL(fetch_batch(*conn, 0, 10, true).error, rc_error::db_unavailable);
  CAF_CHECK(std::chrono::steady_clock::now() - t0 < 1s);
  std::this_thread::sleep_for(300ms); // a few attempts
  CAF_CHECK_EQUAL(events.ups_now(), 0);
  CAF_CHECK_EQUAL(events.downs_now(), 0);
  CAF_CHECK_EQUAL(metrics.queries.load(), 0u);
  CAF_CHECK_EQUAL(metrics.connections_up.load(), 0);
}

CAF_TEST(stopping the driver answers pending jobs and later ones) {
  start(1);
  c.exec("BEGIN; LOCK TABLE dept IN ACCESS EXCLUSIVE MODE");
  auto conn = conns[0];
  std::vector<std::future<fetch_outcome>> pending;
  for (int i = 0; i < 3; ++i) {
    auto p = std::make_shared<std::promise<fetch_outcome>>();
    pending.push_back(p->get_future());
    conn->fetch_document(doc_key{doc_kind::deptemps, i + 1},
                         [p](fetch_outcome o) { p->set_value(std::move(o)); });
  }
  CAF_REQUIRE(wait_lock_waiters(1));
  driver.reset();
  c.exec("ROLLBACK");
  for (auto& f : pending)
    CAF_CHECK_EQUAL(await(f).error, rc_error::db_unavailable);
  CAF_CHECK(!conn->up());
  CAF_CHECK_EQUAL(metrics.connections_up.load(), 0);
  CAF_CHECK_EQUAL(events.downs_now(), 0); // a stop is not a failure
  // The lease outlives the driver: jobs fail at once on this thread.
  bool called = false;
  conn->fetch_dept_ids([&](dept_ids_outcome o) {
    called = true;
    CAF_CHECK_EQUAL(o.error, rc_error::db_unavailable);
  });
  CAF_CHECK(called);
}

namespace {

/// Three threads submit 4,500 document jobs at random connections; every
/// answer must be the document asked for.
void run_many_concurrent_jobs(fixture& fx, size_t pipeline_depth) {
  constexpr size_t pool = 4;
  constexpr int per_thread = 1'500;
  constexpr int threads = 3;
  auto& conns = fx.conns;
  auto& metrics = fx.metrics;
  fx.start(pool, 5'000ms, pipeline_depth);
  std::mutex mtx;
  std::condition_variable cv;
  int answered = 0;
  std::atomic<int> wrong{0};
  std::vector<std::thread> submitters;
  for (int t = 0; t < threads; ++t)
    submitters.emplace_back([&, t] {
      std::mt19937 rng{static_cast<unsigned>(t)};
      std::uniform_int_distribution<int> pick{1, n_depts};
      for (int i = 0; i < per_thread; ++i) {
        int id = pick(rng);
        auto& conn = *conns[size_t(rng()) % pool];
        auto check = [&, id](bool ok) {
          if (!ok)
            ++wrong;
          std::lock_guard g{mtx};
          ++answered;
          cv.notify_all();
        };
        if (i % 10 == 9) {
          // Employee documents too: empno (id - 1) * K + 1 is in department id.
          int empno = (id - 1) * emps_per_dept + 1;
          conn.fetch_document(doc_key{doc_kind::emp, empno}, [check, empno, id](fetch_outcome o) {
            check(o.error == rc_error::none && o.emp && o.emp->empno == empno
                  && o.emp->deptno == id);
          });
        } else {
          conn.fetch_document(doc_key{doc_kind::deptemps, id}, [check, id](fetch_outcome o) {
            check(o.error == rc_error::none && o.deptemps && o.deptemps->dept.deptno == id
                  && o.deptemps->emps.size() == size_t(emps_per_dept));
          });
        }
      }
    });
  for (auto& t : submitters)
    t.join();
  std::unique_lock l{mtx};
  CAF_REQUIRE(cv.wait_for(l, 60s, [&] { return answered == threads * per_thread; }));
  l.unlock();
  CAF_CHECK_EQUAL(wrong.load(), 0);
  CAF_CHECK_EQUAL(metrics.queries.load(), uint64_t(threads * per_thread));
  CAF_CHECK_EQUAL(metrics.query_errors.load(), 0u);
}

} // namespace

CAF_TEST(many concurrent jobs across connections all answer correctly) {
  run_many_concurrent_jobs(*this, 1);
}

CAF_TEST(many concurrent jobs pipelined eight deep all answer correctly) {
  run_many_concurrent_jobs(*this, 8);
}

CAF_TEST(a failed statement in a pipeline run fails alone and the others of its run are sent again) {
  start(1, 500ms, 8);
  c.exec("BEGIN; LOCK TABLE dept IN ACCESS EXCLUSIVE MODE");
  // The employee document reads emp only; its callback, on the driver
  // thread, submits four department documents, which then leave in one
  // run: the first waits for the lock until statement_timeout, the others
  // are skipped by the server as part of the failed run.
  constexpr int n = 4;
  std::vector<std::promise<fetch_outcome>> answers(n);
  std::promise<fetch_outcome> trigger;
  auto& conn = *conns[0];
  conn.fetch_document(doc_key{doc_kind::emp, 1}, [&](fetch_outcome o) {
    for (int i = 0; i < n; ++i)
      conn.fetch_document(doc_key{doc_kind::deptemps, i + 1},
                          [&answers, i](fetch_outcome d) { answers[size_t(i)].set_value(std::move(d)); });
    trigger.set_value(std::move(o));
  });
  auto t = trigger.get_future();
  CAF_CHECK_EQUAL(await(t).error, rc_error::none);
  auto first = answers[0].get_future();
  auto got_first = await(first);
  c.exec("ROLLBACK"); // the statements sent again now find no lock
  CAF_CHECK_EQUAL(got_first.error, rc_error::db_timeout);
  for (int i = 1; i < n; ++i) {
    auto f = answers[size_t(i)].get_future();
    auto d = await(f);
    CAF_CHECK_EQUAL(d.error, rc_error::none);
    CAF_CHECK(d.deptemps && d.deptemps->dept.deptno == i + 1);
  }
  CAF_CHECK_EQUAL(metrics.query_timeouts.load(), 1u);
  CAF_CHECK_EQUAL(metrics.query_errors.load(), 1u);
  CAF_CHECK_EQUAL(metrics.queries.load(), uint64_t(n + 1)); // each job counted once
  CAF_CHECK(conn.up());
  CAF_CHECK_EQUAL(events.downs_now(), 0);
}

CAF_TEST(the factory fits connection_factory and closing a connection ends its session) {
  pg_worker_config cfg;
  cfg.dsn = dsn;
  driver = std::make_unique<pg_async_driver>(cfg, metrics);
  std::function<db_lease(uint64_t, std::function<void(uint64_t)>, std::function<void(uint64_t)>)>
    factory = driver->factory();
  auto a = factory(0, events.on_up(), events.on_down());
  auto b = factory(1, events.on_up(), events.on_down());
  CAF_REQUIRE(events.wait_ups(2));
  auto sessions = [&] {
    return c.exec("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                  " AND pid <> pg_backend_pid()")
      .int64(0, 0);
  };
  CAF_CHECK_EQUAL(sessions(), 2);
  a.reset();
  auto until = std::chrono::steady_clock::now() + wait_limit;
  while (sessions() != 1 && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(10ms);
  CAF_CHECK_EQUAL(sessions(), 1);
  CAF_CHECK_EQUAL(metrics.connections_up.load(), 1);
  CAF_CHECK_EQUAL(events.downs_now(), 0);
  CAF_CHECK_EQUAL(fetch(*b, doc_key{doc_kind::deptemps, 9}).error, rc_error::none);
}

CAF_TEST_FIXTURE_SCOPE_END()
