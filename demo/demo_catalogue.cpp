#include "demo/demo_catalogue.hpp"

namespace restcache::demo {

namespace {

// The department statement reads dept and its employees; a department's
// documents change with a dept row's deptno and an emp row's (old and new).
std::vector<table_read> department_reads() {
  return {{"dept", "deptno,dname,loc", "dept:deptno"},
          {"emp", "empno,ename,job,mgr,hiredate,sal,comm,deptno", "dept:deptno"}};
}

std::vector<table_read> employee_reads() {
  return {{"emp", "empno,ename,job,mgr,hiredate,sal,comm,deptno", "emp:empno"}};
}

// One round trip: the department and its employees. LEFT JOIN so a
// department without employees still answers one row (emp columns NULL).
// to_char keeps hiredate 'YYYY-MM-DD' whatever DateStyle a session has.
kind_statement department_statement() {
  return {"restcache_fetch_deptemps",
          "SELECT d.deptno, d.dname, d.loc,"
          "       e.empno, e.ename, e.job, e.mgr, to_char(e.hiredate, 'YYYY-MM-DD'),"
          "       e.sal, e.comm, e.deptno"
          "  FROM dept d LEFT JOIN emp e ON e.deptno = d.deptno"
          " WHERE d.deptno = $1::int"
          " ORDER BY e.empno"};
}

/// cache.populate's page of departments: by primary key, each with its
/// employees, in the column layout of the department statement.
populate_plan department_pages() {
  return {{"restcache_fetch_deptemps_batch",
           "SELECT d.deptno, d.dname, d.loc,"
           "       e.empno, e.ename, e.job, e.mgr, to_char(e.hiredate, 'YYYY-MM-DD'),"
           "       e.sal, e.comm, e.deptno"
           "  FROM (SELECT deptno, dname, loc FROM dept WHERE deptno > $1::int"
           "         ORDER BY deptno LIMIT $2::int) d"
           "  LEFT JOIN emp e ON e.deptno = d.deptno"
           " ORDER BY d.deptno, e.empno"},
          {"restcache_count_depts", "SELECT count(*) FROM dept"},
          0,
          "departments"};
}

kind_statement employee_statement() {
  return {"restcache_fetch_emp",
          "SELECT empno, ename, job, mgr, to_char(hiredate, 'YYYY-MM-DD'), sal, comm, deptno"
          "  FROM emp WHERE empno = $1::int"};
}

/// The members of a department: the first three columns of its statement.
object_plan department_members() {
  return {{{"deptNumber", 0, value_type::number},
           {"deptName", 1, value_type::text},
           {"deptLocation", 2, value_type::text}}};
}

/// The members of an employee: eight columns from `at`.
object_plan employee_members(int at) {
  return {{{"empNo", at, value_type::number},
           {"empName", at + 1, value_type::text},
           {"job", at + 2, value_type::text},
           {"mgr", at + 3, value_type::number},
           {"hiredate", at + 4, value_type::date},
           {"sal", at + 5, value_type::number},
           {"comm", at + 6, value_type::number},
           {"deptNumber", at + 7, value_type::number}}};
}

} // namespace

std::vector<doc_kind_entry> demo_kinds() {
  std::vector<doc_kind_entry> kinds(3);
  kinds[0] = {deptemps_kind, "deptemps", "dept", key_type::int4, department_statement(), "/deptemps/",
              {department_members(), detail_plan{"emps", 3, employee_members(3)}, false},
              department_reads(), "department", department_pages()};
  kinds[1] = {emp_kind, "emp", "emp", key_type::int4, employee_statement(), "/depts/emps/",
              {employee_members(0), std::nullopt, false}, employee_reads(), "employee", {}};
  kinds[2] = {dept_kind, "dept", "dept", key_type::int4, department_statement(), "/depts/",
              {department_members(), std::nullopt, false}, department_reads(), "department", {}};
  return kinds;
}

void install_demo_catalogue() {
  install_catalogue(demo_kinds());
}

} // namespace restcache::demo
