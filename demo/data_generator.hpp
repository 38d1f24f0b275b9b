// SPDX-License-Identifier: Apache-2.0
#pragma once

// Demo and benchmark data: departments with employees, generated set-based in
// PostgreSQL (generate_series), one transaction per batch, so the scale of the
// original benchmark (10M departments, 100M employees) loads in bounded memory.
// A bulk load is not a change stream: it bypasses the change triggers and
// resets the change log.

#include <cstdint>
#include <functional>

#include "persistence/pg/connection.hpp"

namespace restcache::demo {

struct load_options {
  int64_t depts = 10'000;          ///< departments wanted in total (ids 1..depts)
  int32_t emps_per_dept = 10;
  int64_t batch_depts = 50'000;    ///< departments per transaction
  bool only_if_empty = false;      ///< do nothing when dept already has rows
};

struct load_progress {
  int64_t depts_done = 0;   ///< departments present so far (including pre-existing)
  int64_t depts_total = 0;
  int64_t emps_inserted = 0;
  double seconds = 0;
};

struct load_report {
  int64_t depts_inserted = 0;
  int64_t emps_inserted = 0;
  double seconds = 0;
  bool skipped = false; ///< only_if_empty and data was present
};

/// The demo's tables, dept and emp, with their indexes (CREATE ... IF NOT
/// EXISTS). Not part of schema.sql: a database restcache is installed into
/// for kinds of its own gets none of them.
extern const char* const demo_tables_sql;

/// Creates the demo's tables when missing, then ensure_schema, and watches
/// the demo's keys whatever catalogue is installed. Returns the schema
/// version. Throws pg::error.
int ensure_demo_schema(pg::connection& c);

/// Loads departments max(deptno)+1 .. opts.depts (so an interrupted load
/// resumes), calling `progress` after each batch. Throws pg::error.
load_report load_demo_data(pg::connection& c, const load_options& opts,
                           const std::function<void(const load_progress&)>& progress = {});

} // namespace restcache::demo
