// SPDX-License-Identifier: Apache-2.0
// The demo's writes for restcache-freshness: renames, salary changes,
// moves, inserts and deletes of employees and departments, renames under
// replica mode, and TRUNCATE of emp or of dept CASCADE reloaded without one
// row. Each knows beforehand which documents it changes: an employee's and
// its department's, and those of the employees a removed one managed.

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <tuple>
#include <utility>
#include <vector>

#include "messages/doc_catalogue.hpp"
#include "persistence/pg/statements.hpp"
#include "tools/freshness/write_generator.hpp"
#include "demo/demo_reads.hpp"

namespace restcache::freshness {

namespace {

enum demo_op : size_t {
  rename_dept, change_sal, move_emp, insert_emp, delete_emp, insert_dept, delete_dept, replica_rename, truncate_reload
};

// Mostly updates; inserts a little ahead of deletes; a truncate reloads the
// whole table (and drops every cached document), so it is rare.
constexpr write_op demo_ops[] = {
  {"rename_dept", 20},  {"change_sal", 25},  {"move_emp", 15},
  {"insert_emp", 12},   {"delete_emp", 10},  {"insert_dept", 10},
  {"delete_dept", 8},   {"replica_rename", 6, true}, {"truncate_reload", 2},
};

// A truncate-and-reload rewrites every employee row: not on larger tables.
constexpr int64_t truncate_max_emps = 100'000;

checked_doc dept_doc(int32_t deptno) {
  return {"deptemps", std::to_string(deptno)};
}
checked_doc emp_doc(int32_t empno) {
  return {"emp", std::to_string(empno)};
}

class demo_writes final : public write_generator {
public:
  std::span<const write_op> ops() const override { return demo_ops; }

  void load(database& db) override {
    dept_ids_ = db.run([](pg::connection& c) { return demo::fetch_dept_ids(c); });
    auto r = db.run([](pg::connection& c) {
      return c.exec("SELECT COALESCE(max(deptno), 0), (SELECT COALESCE(max(empno), 0) FROM emp) FROM dept");
    });
    next_deptno_ = std::max<int32_t>(next_deptno_, int32_t(r.int64(0, 0)) + 1);
    next_empno_ = std::max<int32_t>(next_empno_, int32_t(r.int64(0, 1)) + 1);
    max_deptno_.store(std::max<int32_t>(1, next_deptno_ - 1));
  }

  std::optional<std::string> not_ready() const override {
    if (find_doc_kind("deptemps") == nullptr || find_doc_kind("emp") == nullptr)
      return "the demo's writes check its kinds deptemps and emp, which are not installed";
    if (dept_ids_.size() < 2)
      return "the database has " + std::to_string(dept_ids_.size()) + " departments; load some first";
    return std::nullopt;
  }

  std::string describe() const override {
    return std::to_string(dept_ids_.size()) + " departments, next deptno " + std::to_string(next_deptno_)
           + ", next empno " + std::to_string(next_empno_);
  }

  std::optional<planned_write> plan(size_t op, database& db, std::mt19937_64& rng) override;

  std::string read_target(std::mt19937_64& rng) const override {
    int32_t id = std::uniform_int_distribution<int32_t>{1, std::max<int32_t>(1, max_deptno_.load())}(rng);
    return dept_doc(id).target();
  }

private:
  int32_t random_dept(std::mt19937_64& rng) const {
    if (dept_ids_.empty())
      return 0;
    return dept_ids_[std::uniform_int_distribution<size_t>{0, dept_ids_.size() - 1}(rng)];
  }
  std::optional<std::pair<int32_t, int32_t>> random_emp(database& db, std::mt19937_64& rng) const;
  std::set<checked_doc> dependents(database& db, const std::vector<int32_t>& empnos,
                                   std::optional<int32_t> except_dept) const;
  std::set<checked_doc> emp_removal_docs(database& db, int32_t empno, int32_t deptno) const;
  std::set<checked_doc> dept_removal_docs(database& db, int32_t deptno) const;
  void forget_dept(int32_t deptno) {
    dept_ids_.erase(std::remove(dept_ids_.begin(), dept_ids_.end(), deptno), dept_ids_.end());
  }

  std::vector<int32_t> dept_ids_;
  int32_t next_deptno_ = 1;
  int32_t next_empno_ = 1;
  std::atomic<int32_t> max_deptno_{1}; ///< the readers' range
};

/// (empno, deptno) of a random employee.
std::optional<std::pair<int32_t, int32_t>> demo_writes::random_emp(database& db, std::mt19937_64& rng) const {
  for (int attempt = 0; attempt < 8; ++attempt) {
    int32_t d = random_dept(rng);
    if (d == 0)
      return std::nullopt;
    auto r = db.run([&](pg::connection& c) {
      return c.exec_params("SELECT empno FROM emp WHERE deptno = $1 ORDER BY empno", {param(d)});
    });
    if (r.rows() == 0)
      continue;
    int row = std::uniform_int_distribution<int>{0, r.rows() - 1}(rng);
    return std::pair{int32_t(r.int64(row, 0)), d};
  }
  return std::nullopt;
}

/// Employees (outside `except_dept`) whose mgr is one of `empnos`: deleting
/// those sets their mgr to NULL, which changes their document and their
/// department's.
std::set<checked_doc> demo_writes::dependents(database& db, const std::vector<int32_t>& empnos,
                                              std::optional<int32_t> except_dept) const {
  std::set<checked_doc> docs;
  if (empnos.empty())
    return docs;
  std::string arr = "{";
  for (size_t i = 0; i < empnos.size(); ++i) {
    if (i > 0)
      arr += ',';
    arr += std::to_string(empnos[i]);
  }
  arr += "}";
  auto r = db.run([&](pg::connection& c) {
    return c.exec_params("SELECT empno, deptno FROM emp WHERE mgr = ANY($1::int[])", {arr});
  });
  for (int i = 0; i < r.rows(); ++i) {
    auto dept = r.opt_int32(i, 1);
    if (except_dept && dept == except_dept)
      continue;
    docs.insert(emp_doc(int32_t(r.int64(i, 0))));
    if (dept)
      docs.insert(dept_doc(*dept));
  }
  return docs;
}

/// What removing employee `empno` of department `deptno` changes: the
/// employee, its department, and the employees it managed.
std::set<checked_doc> demo_writes::emp_removal_docs(database& db, int32_t empno, int32_t deptno) const {
  auto docs = dependents(db, {empno}, std::nullopt);
  docs.insert(emp_doc(empno));
  docs.insert(dept_doc(deptno));
  return docs;
}

/// What removing department `deptno` with its employees changes: the
/// department, its employees, and the employees elsewhere they managed.
std::set<checked_doc> demo_writes::dept_removal_docs(database& db, int32_t deptno) const {
  auto r = db.run([&](pg::connection& c) {
    return c.exec_params("SELECT empno FROM emp WHERE deptno = $1", {param(deptno)});
  });
  std::vector<int32_t> emps;
  for (int i = 0; i < r.rows(); ++i)
    emps.push_back(int32_t(r.int64(i, 0)));
  auto docs = dependents(db, emps, deptno);
  docs.insert(dept_doc(deptno));
  for (auto e : emps)
    docs.insert(emp_doc(e));
  return docs;
}

std::optional<planned_write> demo_writes::plan(size_t op, database& db, std::mt19937_64& rng) {
  planned_write w;
  w.op = op;
  switch (demo_op(op)) {
    case rename_dept:
    case replica_rename: {
      auto deptno = random_dept(rng);
      if (deptno == 0)
        return std::nullopt;
      auto name = std::string{op == rename_dept ? "Renamed " : "Replicated "}
                  + std::to_string(std::uniform_int_distribution<int>{0, 999'999}(rng));
      w.docs = {dept_doc(deptno)};
      w.statements = [=](pg::connection& c) {
        c.exec_params("UPDATE dept SET dname = $2 WHERE deptno = $1", {param(deptno), name});
      };
      break;
    }
    case change_sal: {
      auto e = random_emp(db, rng);
      if (!e)
        return std::nullopt;
      auto [empno, deptno] = *e;
      auto sal = std::uniform_int_distribution<int>{800, 9999}(rng);
      w.docs = {emp_doc(empno), dept_doc(deptno)};
      w.statements = [=](pg::connection& c) {
        c.exec_params("UPDATE emp SET sal = $2 WHERE empno = $1", {param(empno), param(sal)});
      };
      break;
    }
    case move_emp: {
      auto e = random_emp(db, rng);
      if (!e || dept_ids_.size() < 2)
        return std::nullopt;
      auto [empno, deptno] = *e;
      int32_t to = 0;
      do
        to = random_dept(rng);
      while (to == deptno);
      w.docs = {emp_doc(empno), dept_doc(deptno), dept_doc(to)};
      w.statements = [=](pg::connection& c) {
        c.exec_params("UPDATE emp SET deptno = $2 WHERE empno = $1", {param(empno), param(to)});
      };
      break;
    }
    case insert_emp: {
      auto deptno = random_dept(rng);
      if (deptno == 0)
        return std::nullopt;
      auto empno = next_empno_;
      auto sal = std::uniform_int_distribution<int>{800, 9999}(rng);
      w.docs = {emp_doc(empno), dept_doc(deptno)};
      w.statements = [=](pg::connection& c) {
        c.exec_params("INSERT INTO emp (empno, ename, job, mgr, hiredate, sal, comm, deptno) "
                      "SELECT $1::int, $4::text, 'CLERK', (SELECT min(empno) FROM emp WHERE deptno = $2::int), "
                      "DATE '2026-01-02', $3::int, NULL, $2::int",
                      {param(empno), param(deptno), param(sal), "Fresh Hire " + param(empno)});
      };
      w.committed = [this, empno] { next_empno_ = std::max(next_empno_, empno + 1); };
      break;
    }
    case delete_emp: {
      auto e = random_emp(db, rng);
      if (!e)
        return std::nullopt;
      auto [empno, deptno] = *e;
      w.docs = emp_removal_docs(db, empno, deptno);
      w.statements = [=](pg::connection& c) { c.exec_params("DELETE FROM emp WHERE empno = $1", {param(empno)}); };
      break;
    }
    case insert_dept: {
      auto deptno = next_deptno_;
      int emps = std::uniform_int_distribution<int>{2, 3}(rng);
      std::vector<int32_t> empnos;
      w.docs = {dept_doc(deptno)};
      for (int i = 0; i < emps; ++i) {
        empnos.push_back(next_empno_ + i);
        w.docs.insert(emp_doc(next_empno_ + i));
      }
      w.statements = [=](pg::connection& c) {
        c.exec_params("INSERT INTO dept (deptno, dname, loc) VALUES ($1, $2, 'Freshville')",
                      {param(deptno), "Fresh " + param(deptno)});
        std::optional<std::string> mgr;
        for (size_t i = 0; i < empnos.size(); ++i) {
          c.exec_params("INSERT INTO emp (empno, ename, job, mgr, hiredate, sal, comm, deptno) "
                        "VALUES ($1::int, $5::text, $3::text, $4::int, DATE '2026-02-03', 1500, 100, $2::int)",
                        {param(empnos[i]), param(deptno), std::string{i == 0 ? "MANAGER" : "ANALYST"}, mgr,
                         "New Staff " + param(empnos[i])});
          if (i == 0)
            mgr = param(empnos[i]);
        }
      };
      w.committed = [this, deptno, empnos] {
        dept_ids_.push_back(deptno);
        next_deptno_ = std::max(next_deptno_, deptno + 1);
        for (auto e : empnos)
          next_empno_ = std::max(next_empno_, e + 1);
        max_deptno_.store(std::max(max_deptno_.load(), deptno));
      };
      break;
    }
    case delete_dept: {
      auto deptno = random_dept(rng);
      if (deptno == 0 || dept_ids_.size() < 10)
        return std::nullopt; // keep some departments around
      w.docs = dept_removal_docs(db, deptno);
      w.statements = [=](pg::connection& c) {
        c.exec_params("DELETE FROM dept WHERE deptno = $1", {param(deptno)});
      };
      w.committed = [this, deptno] { forget_dept(deptno); };
      break;
    }
    case truncate_reload: {
      auto n = db.run([](pg::connection& c) { return c.exec("SELECT count(*) FROM emp").int64(0, 0); });
      if (n > truncate_max_emps)
        return std::nullopt;
      // The rows that stay, with references to the dropped employees
      // cleared (as ON DELETE SET NULL would), then TRUNCATE and reload.
      // Foreign keys are checked at the end of each INSERT statement, so
      // the reload's order does not matter.
      if (std::uniform_int_distribution<int>{0, 1}(rng) == 0) {
        // TRUNCATE emp, reloaded without one employee: only the TRUNCATE
        // names it (the reload's inserts name every other row).
        auto e = random_emp(db, rng);
        if (!e)
          return std::nullopt;
        auto [empno, deptno] = *e;
        w.docs = emp_removal_docs(db, empno, deptno);
        w.statements = [=](pg::connection& c) {
          c.exec_params("CREATE TEMP TABLE keep_emp ON COMMIT DROP AS SELECT * FROM emp WHERE empno <> $1",
                        {param(empno)});
          c.exec_params("UPDATE keep_emp SET mgr = NULL WHERE mgr = $1", {param(empno)});
          c.exec("TRUNCATE emp");
          c.exec("INSERT INTO emp SELECT * FROM keep_emp");
        };
        break;
      }
      // TRUNCATE dept CASCADE, reloaded without one department and its employees.
      auto deptno = random_dept(rng);
      if (deptno == 0 || dept_ids_.size() < 10)
        return std::nullopt;
      w.docs = dept_removal_docs(db, deptno);
      w.statements = [=](pg::connection& c) {
        c.exec_params("CREATE TEMP TABLE keep_dept ON COMMIT DROP AS SELECT * FROM dept WHERE deptno <> $1",
                      {param(deptno)});
        c.exec_params("CREATE TEMP TABLE keep_emp ON COMMIT DROP AS"
                      " SELECT * FROM emp WHERE deptno IS DISTINCT FROM $1",
                      {param(deptno)});
        c.exec_params("UPDATE keep_emp SET mgr = NULL WHERE mgr IN (SELECT empno FROM emp WHERE deptno = $1)",
                      {param(deptno)});
        c.exec("TRUNCATE dept CASCADE");
        c.exec("INSERT INTO dept SELECT * FROM keep_dept");
        c.exec("INSERT INTO emp SELECT * FROM keep_emp");
      };
      w.committed = [this, deptno] { forget_dept(deptno); };
      break;
    }
  }
  return w;
}

} // namespace

std::unique_ptr<write_generator> make_demo_writes() {
  return std::make_unique<demo_writes>();
}

} // namespace restcache::freshness
