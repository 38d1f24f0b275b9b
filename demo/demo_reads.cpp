// SPDX-License-Identifier: Apache-2.0
#include "demo/demo_reads.hpp"

#include <climits>
#include <string_view>

#include "messages/doc_catalogue.hpp"
#include "persistence/pg/statements.hpp"

namespace restcache::demo {

namespace {

constexpr const char* dept_ids_page_sql =
  // Keyset pagination over the primary key (an index-only scan): the ids of
  // 10M departments come in pages, so neither libpq nor the server holds them
  // all in one result.
  "SELECT deptno FROM dept WHERE deptno > $1::bigint ORDER BY deptno LIMIT $2::int";

constexpr const char* dept_page_stmt = "restcache_dept_page";
constexpr const char* dept_page_sql =
  "SELECT deptno, dname, loc FROM dept WHERE deptno > $1::int ORDER BY deptno LIMIT $2::int";

const doc_kind_entry& demo_kind(std::string_view name) {
  const auto* kind = find_doc_kind(name);
  if (kind == nullptr)
    throw pg::error("the demo's kind " + std::string{name} + " is not installed");
  return *kind;
}

/// Where the kind's plan reads a member: the column the declaration names.
int column_of(const object_plan& object, std::string_view member) {
  for (const auto& f : object.fields)
    if (f.name == member)
      return f.column;
  throw pg::error("the demo's declaration reads no member " + std::string{member});
}

/// An employee's columns, by the members of the plan's object that holds one.
struct emp_columns {
  explicit emp_columns(const object_plan& o)
    : empno(column_of(o, "empNo")), ename(column_of(o, "empName")), job(column_of(o, "job")),
      mgr(column_of(o, "mgr")), hiredate(column_of(o, "hiredate")), sal(column_of(o, "sal")),
      comm(column_of(o, "comm")), deptno(column_of(o, "deptNumber")) {}

  emp_row decode(const pg::result& r, int row) const {
    emp_row e;
    e.empno = *r.opt_int32(row, empno);
    e.ename = r.opt_text(row, ename);
    e.job = r.opt_text(row, job);
    e.mgr = r.opt_int32(row, mgr);
    e.hiredate = r.opt_text(row, hiredate);
    e.sal = r.opt_int32(row, sal);
    e.comm = r.opt_int32(row, comm);
    e.deptno = r.opt_int32(row, deptno);
    return e;
  }

  int empno, ename, job, mgr, hiredate, sal, comm, deptno;
};

} // namespace

const char* const dept_ids_page_statement = "restcache_dept_ids_page";

const std::string& deptemps_statement() {
  return demo_kind("deptemps").statement.name;
}

const std::string& emp_statement() {
  return demo_kind("emp").statement.name;
}

std::optional<dept_with_emps> decode_deptemps(const pg::result& r) {
  if (r.rows() == 0)
    return std::nullopt;
  const auto& plan = demo_kind("deptemps").plan;
  if (!plan.detail)
    throw pg::error("the demo's deptemps kind has no employees");
  const emp_columns emp{plan.detail->element};
  const int present = plan.detail->present_column;
  dept_with_emps out;
  out.dept.deptno = static_cast<int32_t>(r.int64(0, column_of(plan.master, "deptNumber")));
  out.dept.dname = r.opt_text(0, column_of(plan.master, "deptName"));
  out.dept.loc = r.opt_text(0, column_of(plan.master, "deptLocation"));
  out.emps.reserve(static_cast<size_t>(r.rows()));
  // A department without employees answers one row with NULL emp columns.
  for (int i = 0; i < r.rows(); ++i)
    if (!r.is_null(i, present))
      out.emps.push_back(emp.decode(r, i));
  return out;
}

std::optional<dept_with_emps> fetch_deptemps(pg::connection& c, int32_t deptno) {
  const auto& name = deptemps_statement();
  pg::ensure_prepared(c, name.c_str());
  return decode_deptemps(c.exec_prepared(name.c_str(), {std::to_string(deptno)}));
}

std::optional<emp_row> decode_emp(const pg::result& r) {
  if (r.rows() == 0)
    return std::nullopt;
  return emp_columns{demo_kind("emp").plan.master}.decode(r, 0);
}

std::optional<emp_row> fetch_emp(pg::connection& c, int32_t empno) {
  const auto& name = emp_statement();
  pg::ensure_prepared(c, name.c_str());
  return decode_emp(c.exec_prepared(name.c_str(), {std::to_string(empno)}));
}

std::vector<int32_t> fetch_dept_ids(pg::connection& c) {
  pg::ensure_prepared(c, dept_ids_page_statement, dept_ids_page_sql);
  std::vector<int32_t> ids;
  // Pages are separate statements: without an enclosing transaction a
  // department committed meanwhile may or may not be listed, which is as
  // fresh as any list can be (later changes arrive as notifications).
  int64_t after = int64_t{INT32_MIN} - 1;
  const std::string limit = std::to_string(dept_ids_page_size);
  for (;;) {
    auto r = c.exec_prepared(dept_ids_page_statement, {std::to_string(after), limit});
    auto n = r.rows();
    for (int i = 0; i < n; ++i)
      ids.push_back(*r.opt_int32(i, 0));
    if (n < dept_ids_page_size)
      break;
    after = ids.back();
  }
  return ids;
}

std::vector<dept_row> fetch_dept_page(pg::connection& c, int32_t after, int32_t limit) {
  pg::ensure_prepared(c, dept_page_stmt, dept_page_sql);
  auto r = c.exec_prepared(dept_page_stmt, {std::to_string(after), std::to_string(limit)});
  std::vector<dept_row> out;
  out.reserve(static_cast<size_t>(r.rows()));
  for (int i = 0; i < r.rows(); ++i)
    out.push_back(dept_row{*r.opt_int32(i, 0), r.opt_text(i, 1), r.opt_text(i, 2)});
  return out;
}

} // namespace restcache::demo
