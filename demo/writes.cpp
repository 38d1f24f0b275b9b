// SPDX-License-Identifier: Apache-2.0
#include "demo/writes.hpp"

#include <algorithm>
#include <chrono>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <variant>
#include <vector>

#include "messages/doc_catalogue.hpp"
#include "messages/document_encoder.hpp"
#include "messages/text.hpp"
#include "persistence/pg/change_feed.hpp"
#include "persistence/pg/schema.hpp"
#include "persistence/pg/statements.hpp"
#include "demo/write_statements.hpp"
#include "demo/demo_encoders.hpp"
#include "demo/demo_reads.hpp"

namespace restcache::demo {

using namespace pg;

namespace {

using namespace write_sql;

// -- helpers ------------------------------------------------------------------

using params = std::vector<std::optional<std::string>>;

result run(connection& c, const statement& s, const params& p) {
  return c.exec_prepared(s.name, p);
}

std::string str(int32_t v) {
  return std::to_string(v);
}

std::optional<std::string> opt_str(const std::optional<int32_t>& v) {
  if (!v)
    return std::nullopt;
  return std::to_string(*v);
}

/// An int[] literal: {1,2,3}.
std::string int_array(const std::vector<int32_t>& xs) {
  std::string out = "{";
  for (size_t i = 0; i < xs.size(); ++i) {
    if (i > 0)
      out.push_back(',');
    out += std::to_string(xs[i]);
  }
  out.push_back('}');
  return out;
}

/// The JSON array of the employees' documents (the jsonb parameter).
std::string emps_json(const std::vector<emp_row>& emps) {
  std::string out = "[";
  for (size_t i = 0; i < emps.size(); ++i) {
    if (i > 0)
      out.push_back(',');
    out += encode_emp(emps[i]);
  }
  out.push_back(']');
  return out;
}

params emp_params(const emp_row& e) {
  return {str(e.empno), e.ename, e.job, opt_str(e.mgr), e.hiredate, opt_str(e.sal),
          opt_str(e.comm), opt_str(e.deptno)};
}

write_outcome outcome(rc_error e, int32_t id, std::string detail = {}) {
  write_outcome out;
  out.error = e;
  out.id = id;
  out.detail = std::move(detail);
  return out;
}

write_outcome created(int32_t id) {
  auto out = outcome(rc_error::none, id);
  out.created = true;
  return out;
}

/// BEGIN on construction; ROLLBACK on destruction unless committed, also
/// while an exception unwinds, so the connection is left idle (or broken,
/// which the caller sees as connection_lost).
class transaction {
public:
  explicit transaction(connection& c) : c_(c) {
    c_.exec("BEGIN");
  }
  transaction(const transaction&) = delete;
  transaction& operator=(const transaction&) = delete;
  ~transaction() {
    if (done_)
      return;
    try {
      rollback();
    } catch (...) {
      // nop: the connection is broken; the error that brought us here tells
    }
  }
  void commit() {
    done_ = true; // a failed COMMIT ends the transaction too
    c_.exec("COMMIT");
  }
  void rollback() {
    done_ = true;
    if (c_.ok() && PQtransactionStatus(c_.get()) != PQTRANS_IDLE)
      c_.exec("ROLLBACK");
  }
private:
  connection& c_;
  bool done_ = false;
};

change_batch read_changes(connection& c) {
  auto r = run(c, read_changes_stmt, {});
  change_batch out;
  out.reserve(static_cast<size_t>(r.rows()));
  for (int i = 0; i < r.rows(); ++i) {
    key_change k;
    // Only the demo's own tables are written here: no truncate, and a key
    // of another space is not ours to drop.
    if (parse_log_key(r.text(i, 0), k.key) != log_key_kind::document)
      continue;
    k.seq = static_cast<uint64_t>(r.int64(i, 1));
    k.changed_us = r.int64(i, 2);
    out.push_back(k);
  }
  return out;
}

bool retryable(const error& e) {
  // deadlock_detected, serialization_failure: nothing was written.
  return !e.connection_lost() && (e.sqlstate() == "40P01" || e.sqlstate() == "40001");
}

constexpr int max_attempts = 3;

/// The transaction that won a deadlock still has to wake and take the locks
/// it waited for; a retry sent at once can take them first and deadlock with
/// it again. A short, jittered pause (a deadlock already cost a
/// deadlock_timeout) lets the winner go first.
void pause_before_retry(int attempt) {
  thread_local std::minstd_rand rng{std::random_device{}()};
  std::uniform_int_distribution<int> ms{10 * attempt, 40 * attempt};
  std::this_thread::sleep_for(std::chrono::milliseconds{ms(rng)});
}

/// Runs `body` (returns a write_outcome) in one transaction: on ok/created,
/// reads the change-log entries and commits; otherwise rolls back. A
/// pg::error rolls back, is retried when transient, then offered to
/// `on_error` (after the rollback, so it may run statements of its own) to
/// map to an outcome; unmapped, it propagates.
template <class Body, class OnError>
write_outcome run_write(connection& c, Body&& body, OnError&& on_error) {
  prepare_write_statements(c);
  for (int attempt = 1;; ++attempt) {
    try {
      transaction tx{c};
      write_outcome out = body();
      if (out.error == rc_error::none) {
        out.changes = read_changes(c);
        tx.commit();
      } else {
        out.changes.clear();
        tx.rollback();
      }
      return out;
    } catch (const error& e) {
      if (retryable(e) && attempt < max_attempts) {
        pause_before_retry(attempt);
        continue;
      }
      if (!e.connection_lost())
        if (auto mapped = on_error(e))
          return std::move(*mapped);
      throw;
    }
  }
}

bool sqlstate_class(const error& e, std::string_view cls) {
  return e.sqlstate().size() == 5 && std::string_view{e.sqlstate()}.substr(0, 2) == cls;
}

/// Errors every write maps the same way: a value PostgreSQL rejects (data
/// exceptions, class 22, e.g. a hiredate that is no date or a string with a
/// NUL character; not-null and check violations) is the client's. Foreign
/// keys and unique keys are mapped by each write, which knows which.
std::optional<write_outcome> common_error(const error& e, int32_t id) {
  if (sqlstate_class(e, "22") || e.sqlstate() == "23502" || e.sqlstate() == "23514")
    return outcome(rc_error::unprocessable, id,
                   "a value was rejected by the database (SQLSTATE " + e.sqlstate() + ")");
  if (e.sqlstate() == "23505")
    return outcome(rc_error::conflict, id, "the key already exists");
  if (e.sqlstate() == "23503")
    return outcome(rc_error::unprocessable, id, "a referenced manager or department does not exist");
  return std::nullopt;
}

bool is_star(std::string_view if_match) {
  return trim(if_match) == "*";
}

/// If-Match against the current department document (call with the
/// department locked); locks its employees first.
bool dept_matches(connection& c, int32_t deptno, const std::string& if_match) {
  if (is_star(if_match))
    return true;
  run(c, lock_dept_emps, {str(deptno)});
  auto doc = fetch_deptemps(c, deptno);
  return doc && if_match_satisfied(if_match, strong_etag(encode_deptemps(*doc)));
}

/// If-Match against the current employee document (call with it locked).
bool emp_matches(connection& c, int32_t empno, const std::string& if_match) {
  if (is_star(if_match))
    return true;
  auto doc = fetch_emp(c, empno);
  return doc && if_match_satisfied(if_match, strong_etag(encode_emp(*doc)));
}

/// Checks a department's employee set and returns it with every deptno set
/// to the department's; or the reason it is invalid.
std::variant<std::vector<emp_row>, std::string> dept_emps(const dept_with_emps& d) {
  std::vector<emp_row> emps = d.emps;
  std::vector<int32_t> nos;
  nos.reserve(emps.size());
  for (auto& e : emps) {
    if (e.deptno && *e.deptno != d.dept.deptno)
      return "employee " + str(e.empno) + " has deptNumber " + str(*e.deptno)
             + ", not the department's " + str(d.dept.deptno);
    e.deptno = d.dept.deptno;
    nos.push_back(e.empno);
  }
  std::sort(nos.begin(), nos.end());
  if (auto i = std::adjacent_find(nos.begin(), nos.end()); i != nos.end())
    return "employee " + str(*i) + " is listed twice";
  return emps;
}

std::vector<int32_t> empnos(const std::vector<emp_row>& emps) {
  std::vector<int32_t> out;
  out.reserve(emps.size());
  for (const auto& e : emps)
    out.push_back(e.empno);
  std::sort(out.begin(), out.end());
  return out;
}

/// After a foreign-key violation of a department write: which manager.
write_outcome dept_mgr_invalid(connection& c, const dept_with_emps& d,
                               const std::vector<emp_row>& emps) {
  auto nos = empnos(emps);
  std::vector<int32_t> outside; // managers not in the set itself
  for (const auto& e : emps)
    if (e.mgr && !std::binary_search(nos.begin(), nos.end(), *e.mgr))
      outside.push_back(*e.mgr);
  auto id = d.dept.deptno;
  if (!outside.empty()) {
    auto r = run(c, missing_dept_mgr, {int_array(outside), str(id)});
    if (r.rows() > 0) {
      auto m = *r.opt_int32(0, 0);
      auto e = std::find_if(emps.begin(), emps.end(),
                            [m](const emp_row& x) { return x.mgr == m; });
      return outcome(rc_error::unprocessable, id,
                     "manager " + str(m) + " of employee " + str(e->empno)
                       + (r.text(0, 1) == "t" ? " is an employee of the department not listed"
                                                " (this change deletes it)"
                                              : " does not exist"));
    }
  }
  return outcome(rc_error::unprocessable, id, "a referenced manager does not exist");
}

/// After a foreign-key violation of an employee write: department or manager.
write_outcome emp_ref_invalid(connection& c, const emp_row& e) {
  auto r = run(c, missing_emp_refs, {opt_str(e.deptno), opt_str(e.mgr), str(e.empno)});
  if (r.text(0, 0) == "t")
    return outcome(rc_error::unprocessable, e.empno,
                   "department " + str(*e.deptno) + " does not exist");
  if (r.text(0, 1) == "t")
    return outcome(rc_error::unprocessable, e.empno, "manager " + str(*e.mgr) + " does not exist");
  return outcome(rc_error::unprocessable, e.empno,
                 "a referenced manager or department does not exist");
}

/// The detail of an employee number that exists already (inside the
/// transaction, so the row is the one the insert met).
std::string existing_emp_detail(connection& c, const std::vector<int32_t>& candidates) {
  auto r = run(c, existing_emp, {int_array(candidates)});
  if (r.rows() == 0)
    return "an employee number exists already";
  auto dept = r.opt_int32(0, 1);
  return "employee " + str(*r.opt_int32(0, 0)) + " exists already ("
         + (dept ? "department " + str(*dept) : std::string{"in no department"}) + ")";
}

} // namespace

// -- public API ---------------------------------------------------------------

bool if_match_satisfied(std::string_view if_match, std::string_view current_etag) noexcept {
  auto s = trim(if_match);
  if (s == "*")
    return true;
  // #entity-tag: entity-tags separated by commas and optional whitespace.
  size_t i = 0;
  while (i < s.size()) {
    char ch = s[i];
    if (ch == ',' || ch == ' ' || ch == '\t') {
      ++i;
      continue;
    }
    bool weak = false;
    if (ch == 'W' && i + 1 < s.size() && s[i + 1] == '/') {
      weak = true;
      i += 2;
    }
    if (i >= s.size() || s[i] != '"')
      return false; // malformed: nothing matches
    auto close = s.find('"', i + 1);
    if (close == std::string_view::npos)
      return false;
    auto tag = s.substr(i, close - i + 1); // with its quotes
    if (!weak && tag == current_etag)
      return true;
    i = close + 1;
  }
  return false;
}

void prepare_write_statements(connection& c) {
  // A document statement it could not prepare is prepared at its first use.
  ensure_session(c);
  if (c.is_prepared(last_statement))
    return;
  for (const auto& s : all_statements)
    c.prepare(s.name, s.sql);
}

namespace {

/// A department write: its employees checked first (unprocessable without
/// a transaction), then `body(emps)` in run_write; a foreign key violation
/// names the manager or department that is missing.
template <class Body>
write_outcome run_dept_write(connection& c, const dept_with_emps& d, Body&& body) {
  const auto id = d.dept.deptno;
  auto checked = dept_emps(d);
  if (auto* why = std::get_if<std::string>(&checked))
    return outcome(rc_error::unprocessable, id, std::move(*why));
  const auto& emps = std::get<std::vector<emp_row>>(checked);
  return run_write(
    c, [&] { return body(emps); },
    [&](const error& e) -> std::optional<write_outcome> {
      if (e.sqlstate() == "23503")
        return dept_mgr_invalid(c, d, emps);
      return common_error(e, id);
    });
}

} // namespace

write_outcome create_dept(connection& c, const dept_with_emps& d) {
  const auto id = d.dept.deptno;
  return run_dept_write(c, d, [&](const std::vector<emp_row>& emps) {
    if (run(c, insert_dept, {str(id), d.dept.dname, d.dept.loc}).rows() == 0)
      return outcome(rc_error::conflict, id, "department " + str(id) + " exists already");
    if (!emps.empty()) {
      auto r = run(c, insert_emps, {emps_json(emps)});
      if (r.rows() != static_cast<int>(emps.size())) {
        std::vector<int32_t> inserted;
        for (int i = 0; i < r.rows(); ++i)
          inserted.push_back(*r.opt_int32(i, 0));
        std::sort(inserted.begin(), inserted.end());
        std::vector<int32_t> skipped;
        for (auto no : empnos(emps))
          if (!std::binary_search(inserted.begin(), inserted.end(), no))
            skipped.push_back(no);
        return outcome(rc_error::conflict, id, existing_emp_detail(c, skipped));
      }
    }
    return created(id);
  });
}

write_outcome replace_dept(connection& c, const dept_with_emps& d,
                           const std::optional<std::string>& if_match) {
  const auto id = d.dept.deptno;
  return run_dept_write(c, d, [&](const std::vector<emp_row>& emps) {
    if (if_match) {
      if (run(c, lock_dept, {str(id)}).rows() == 0)
        return outcome(rc_error::not_found, id, "department " + str(id) + " does not exist");
      if (!dept_matches(c, id, *if_match))
        return outcome(rc_error::precondition_failed, id,
                       "the department's document has another ETag");
    }
    if (run(c, update_dept, {str(id), d.dept.dname, d.dept.loc}).rows() == 0)
      return outcome(rc_error::not_found, id, "department " + str(id) + " does not exist");
    // Delete first: a listed employee whose manager is deleted here fails
    // the foreign key (unprocessable) instead of silently losing its mgr.
    run(c, delete_unlisted_emps, {str(id), int_array(empnos(emps))});
    if (!emps.empty())
      run(c, upsert_emps, {emps_json(emps)});
    return outcome(rc_error::none, id);
  });
}

namespace {

/// DELETE of one row by key, with If-Match checked against its document
/// under the row lock: departments and employees differ only in these.
write_outcome delete_row(connection& c, int32_t id, const std::optional<std::string>& if_match,
                         const statement& lock, const statement& remove,
                         bool (*matches)(connection&, int32_t, const std::string&), const char* noun) {
  const std::string missing = std::string{noun} + " " + str(id) + " does not exist";
  return run_write(
    c,
    [&] {
      if (if_match) {
        if (run(c, lock, {str(id)}).rows() == 0)
          return outcome(rc_error::not_found, id, missing);
        if (!matches(c, id, *if_match))
          return outcome(rc_error::precondition_failed, id,
                         std::string{"the "} + noun + "'s document has another ETag");
      }
      if (run(c, remove, {str(id)}).rows() == 0)
        return outcome(rc_error::not_found, id, missing);
      return outcome(rc_error::none, id);
    },
    [&](const error& e) { return common_error(e, id); });
}

} // namespace

write_outcome delete_dept(connection& c, int32_t deptno, const std::optional<std::string>& if_match) {
  return delete_row(c, deptno, if_match, lock_dept, delete_dept_stmt, dept_matches, "department");
}

write_outcome rewrite_random_dept(connection& c) {
  return run_write(
    c,
    [&] {
      // No row: an empty table, or the pick was deleted by a transaction that
      // committed meanwhile; pick again a few times.
      for (int i = 0; i < 5; ++i) {
        auto r = run(c, rewrite_random, {});
        if (r.rows() > 0)
          return outcome(rc_error::none, *r.opt_int32(0, 0));
      }
      return outcome(rc_error::not_found, 0, "there is no department");
    },
    [&](const error& e) { return common_error(e, 0); });
}

write_outcome create_emp(connection& c, const emp_row& e) {
  return run_write(
    c,
    [&] {
      if (run(c, insert_emp, emp_params(e)).rows() == 0)
        return outcome(rc_error::conflict, e.empno, existing_emp_detail(c, {e.empno}));
      return created(e.empno);
    },
    [&](const error& err) -> std::optional<write_outcome> {
      if (err.sqlstate() == "23503")
        return emp_ref_invalid(c, e);
      return common_error(err, e.empno);
    });
}

write_outcome replace_emp(connection& c, const emp_row& e,
                          const std::optional<std::string>& if_match) {
  return run_write(
    c,
    [&] {
      if (if_match) {
        if (run(c, lock_emp, {str(e.empno)}).rows() == 0)
          return outcome(rc_error::not_found, e.empno,
                         "employee " + str(e.empno) + " does not exist");
        if (!emp_matches(c, e.empno, *if_match))
          return outcome(rc_error::precondition_failed, e.empno,
                         "the employee's document has another ETag");
      }
      if (run(c, update_emp, emp_params(e)).rows() == 0)
        return outcome(rc_error::not_found, e.empno,
                       "employee " + str(e.empno) + " does not exist");
      return outcome(rc_error::none, e.empno);
    },
    [&](const error& err) -> std::optional<write_outcome> {
      if (err.sqlstate() == "23503")
        return emp_ref_invalid(c, e);
      return common_error(err, e.empno);
    });
}

write_outcome delete_emp(connection& c, int32_t empno, const std::optional<std::string>& if_match) {
  return delete_row(c, empno, if_match, lock_emp, delete_emp_stmt, emp_matches, "employee");
}

} // namespace restcache::demo
