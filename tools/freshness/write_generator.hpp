// SPDX-License-Identifier: Apache-2.0
#pragma once

// What restcache-freshness writes. A generator per example makes random
// writes to its own tables, each with the documents it changes worked out
// beforehand; the checker, which knows no table, runs each in one
// transaction, adds what the change log named, and checks every one of
// those documents after COMMIT.

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <span>
#include <string>

#include "tools/freshness/checked_doc.hpp"
#include "tools/freshness/database.hpp"

namespace restcache::freshness {

/// A kind of write: its name (--kinds picks by it), its weight among the
/// generator's kinds, and whether it runs under session_replication_role =
/// replica, as logical replication applies changes (a superuser's right: left
/// out where the session may not).
struct write_op {
  const char* name;
  int weight;
  bool replica_role = false;
};

/// One write, planned before it runs.
struct planned_write {
  size_t op = 0;                 ///< its place in the generator's ops()
  std::set<checked_doc> docs;    ///< the documents it changes (created and removed ones too)
  /// Its statements, run between BEGIN and COMMIT.
  std::function<void(pg::connection&)> statements;
  /// The generator's own bookkeeping once it committed (ids added, removed).
  std::function<void()> committed;
};

class write_generator {
public:
  virtual ~write_generator() = default;

  /// Its kinds of write, in the order of the summary.
  virtual std::span<const write_op> ops() const = 0;
  /// Reads what it picks its writes from; again after a COMMIT whose
  /// outcome is unknown.
  virtual void load(database& db) = 0;
  /// Why it cannot write to this database now (its kinds not installed, too
  /// few rows), or nullopt.
  virtual std::optional<std::string> not_ready() const = 0;
  /// What it found, for the start line ("2000 departments, next deptno ...").
  virtual std::string describe() const = 0;
  /// A write of kind `op`, or nullopt when there is none to make now.
  virtual std::optional<planned_write> plan(size_t op, database& db, std::mt19937_64& rng) = 0;
  /// A target for the background read load; called from the readers' threads.
  virtual std::string read_target(std::mt19937_64& rng) const = 0;
};

/// The demo's departments and employees (dept, emp).
std::unique_ptr<write_generator> make_demo_writes();
/// The shop example's customers, orders and lines (examples/shop).
std::unique_ptr<write_generator> make_shop_writes();

} // namespace restcache::freshness
