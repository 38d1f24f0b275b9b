// SPDX-License-Identifier: Apache-2.0
#pragma once

// The database side of writes (POST, PUT, DELETE and the write benchmark):
// blocking functions on a pg::connection, run on a pooled connection's own
// thread. Every write is ONE transaction of named prepared statements
// (prepared once per connection) and leaves the connection idle, whatever
// happens.
//
// A write reports the change-log entries its own transaction wrote (read
// inside the transaction, just before COMMIT) as key_changes, so the daemon
// can invalidate its own instance right after COMMIT and only then answer
// (read-your-writes), before the NOTIFY of the same entries arrives.
//
// Statuses are outcomes, not exceptions: not_found, conflict,
// precondition_failed and invalid roll the transaction back and say why in
// `detail` (written for the client: ids, never SQL or server messages).
// Anything else (connection loss, statement timeout, a lock timeout, ...)
// throws pg::error after rolling back; e.connection_lost() tells the caller
// to answer 503 and replace the connection, otherwise 500 (or 504 for
// SQLSTATE 57014, query_canceled). A deadlock or serialization failure
// (40P01, 40001) is retried twice, after a pause of 10-40 ms (then 20-80
// ms) that lets the winning transaction take its locks first.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "messages/errors.hpp"
#include "messages/cache_types.hpp"
#include "demo/records.hpp"
#include "persistence/pg/connection.hpp"

namespace restcache::demo {

/// What a write did, in the one error vocabulary: none (replaced, deleted,
/// rewritten or, with `created`, created), not_found (the department or
/// employee to replace or delete), conflict (the id to create exists),
/// precondition_failed (If-Match did not match), unprocessable (the content
/// breaks a rule of the data: a manager or department that does not exist,
/// duplicate employee numbers, a value PostgreSQL rejects); detail says which.
struct write_outcome {
  rc_error error = rc_error::none;
  bool created = false; ///< a new department or employee
  /// The id written (deptno for department writes, empno for employee
  /// writes); for rewrite_random_dept the department picked (0 when none).
  int32_t id = 0;
  /// Why it failed, for a problem+json detail.
  std::string detail;
  /// The change-log entries this transaction wrote, one per document key
  /// (the highest seq of the key and its time), ordered by seq; empty unless
  /// it succeeded.
  change_batch changes;
};

/// True when an If-Match field value admits a document whose strong ETag is
/// `current_etag`: "*", or a comma-separated list of entity tags of which one
/// equals it by strong comparison (a weak tag W/"..." never matches).
bool if_match_satisfied(std::string_view if_match, std::string_view current_etag) noexcept;

/// Prepares the statements below on `c` (and the daemon's, statements.hpp,
/// when they are not yet). Every write function calls it when needed, so
/// calling it is optional; idempotent. Throws pg::error.
void prepare_write_statements(pg::connection& c);

// -- departments (the deptemps document) --------------------------------------
//
// The employees of `d` are the department's whole employee set. Each one's
// deptno must be empty (taken as d.dept.deptno) or equal d.dept.deptno, and
// their empnos distinct; otherwise invalid. A manager (mgr) may name an
// employee of the same document or any other existing one.

/// POST: inserts the department and its employees. conflict when the
/// department exists or when one of the employee numbers exists already
/// (detail names it and its department); invalid for a manager that does not
/// exist. created on success.
write_outcome create_dept(pg::connection& c, const dept_with_emps& d);

/// PUT: replaces the department's columns and its employee set in one
/// transaction: listed employees are updated (or inserted; one that belongs
/// to another department moves here), employees no longer listed are deleted
/// (their reports elsewhere lose their mgr, as the foreign key says).
/// not_found when the department does not exist; `if_match` (an If-Match
/// field value) is compared with the ETag of the current deptemps document,
/// read after locking the department and its employees; mismatch:
/// precondition_failed. ok on success.
write_outcome replace_dept(pg::connection& c, const dept_with_emps& d,
                           const std::optional<std::string>& if_match = std::nullopt);

/// DELETE: deletes the department; its employees go with it (ON DELETE
/// CASCADE) and employees elsewhere managed by one of them lose their mgr
/// (ON DELETE SET NULL); the row triggers log all of them. not_found,
/// precondition_failed as for replace_dept; ok on success.
write_outcome delete_dept(pg::connection& c, int32_t deptno,
                          const std::optional<std::string>& if_match = std::nullopt);

/// The original service's write benchmark: picks a random existing department
/// (a random number between the smallest and the largest deptno, then the
/// first department at or above it: two index probes) and UPDATEs it with its
/// own values so the triggers fire. ok with id = the department; not_found
/// when there is no department.
write_outcome rewrite_random_dept(pg::connection& c);

// -- employees (the emp document) ---------------------------------------------

/// POST: inserts the employee. conflict when the empno exists; invalid when
/// its department or its manager does not exist. created on success.
write_outcome create_emp(pg::connection& c, const emp_row& e);

/// PUT: replaces every column of the employee (a different deptno moves it,
/// an empty one takes it out of any department). not_found when it does not
/// exist; invalid as for create_emp; If-Match against the current emp
/// document. ok on success.
write_outcome replace_emp(pg::connection& c, const emp_row& e,
                          const std::optional<std::string>& if_match = std::nullopt);

/// DELETE: deletes the employee; its reports lose their mgr. not_found,
/// precondition_failed as for replace_emp; ok on success.
write_outcome delete_emp(pg::connection& c, int32_t empno,
                         const std::optional<std::string>& if_match = std::nullopt);

} // namespace restcache::demo
