#include "messages/doc_catalogue.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>

#include "messages/text.hpp"

namespace restcache {

namespace {

// The department statement reads dept and its employees; a department's
// documents change with a dept row's deptno and an emp row's (old and new).
constexpr std::array<table_read, 2> department_reads{{
  {"dept", "deptno,dname,loc", "dept:deptno"},
  {"emp", "empno,ename,job,mgr,hiredate,sal,comm,deptno", "dept:deptno"},
}};
constexpr std::array<table_read, 1> employee_reads{{
  {"emp", "empno,ename,job,mgr,hiredate,sal,comm,deptno", "emp:empno"},
}};

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

/// In doc_kind order, from 1, so an entry is found by its value.
std::vector<doc_kind_entry> make_catalogue() {
  std::vector<doc_kind_entry> kinds;
  kinds.push_back({doc_kind::deptemps, "deptemps", "dept", department_statement(), "/deptemps/",
                   {department_members(), detail_plan{"emps", 3, employee_members(3)}, false},
                   department_reads, "department"});
  kinds.push_back({doc_kind::emp, "emp", "emp", employee_statement(), "/depts/emps/",
                   {employee_members(0), std::nullopt, false}, employee_reads, "employee"});
  kinds.push_back({doc_kind::dept, "dept", "dept", department_statement(), "/depts/",
                   {department_members(), std::nullopt, false}, department_reads, "department"});
  for (size_t i = 0; i < kinds.size(); ++i)
    if (static_cast<size_t>(kinds[i].kind) != i + 1)
      throw std::logic_error("the catalogue lists the kinds in doc_kind order, from 1");
  return kinds;
}

const std::vector<doc_kind_entry>& catalogue_entries() {
  static const std::vector<doc_kind_entry> kinds = make_catalogue();
  return kinds;
}

} // namespace

std::span<const doc_kind_entry> doc_catalogue() noexcept {
  return catalogue_entries();
}

const doc_kind_entry* find_doc_kind(uint8_t kind) noexcept {
  const auto& catalogue = catalogue_entries();
  if (kind == 0 || kind > catalogue.size())
    return nullptr;
  return &catalogue[kind - 1];
}

const doc_kind_entry& doc_kind_info(doc_kind kind) noexcept {
  // Every doc_kind value has an entry (checked above); a corrupt value
  // reads the first rather than out of bounds.
  auto* e = find_doc_kind(static_cast<uint8_t>(kind));
  return e ? *e : catalogue_entries()[0];
}

const doc_kind_entry* find_doc_kind(std::string_view name) noexcept {
  for (const auto& e : catalogue_entries())
    if (e.name == name)
      return &e;
  return nullptr;
}

namespace {

void add_each(std::vector<std::string>& to, std::string_view list) {
  while (!list.empty()) {
    auto item = next_part(list, ',');
    if (std::find(to.begin(), to.end(), item) == to.end())
      to.emplace_back(item);
  }
}

} // namespace

std::vector<watched_table> watched_tables() {
  std::vector<watched_table> out;
  for (const auto& e : catalogue_entries())
    for (const auto& r : e.reads) {
      auto t = std::find_if(out.begin(), out.end(), [&](const watched_table& w) { return w.name == r.table; });
      if (t == out.end())
        t = out.insert(out.end(), watched_table{std::string{r.table}, {}, {}, 0});
      add_each(t->columns, r.columns);
      add_each(t->keys, r.keys);
      t->kinds |= kind_bit(e.kind);
    }
  return out;
}

uint64_t kinds_reading(const std::vector<watched_table>& tables) noexcept {
  uint64_t kinds = 0;
  for (const auto& t : tables)
    kinds |= t.kinds;
  return kinds;
}

std::string kind_names(uint64_t kinds) {
  std::string out;
  for (const auto& e : catalogue_entries())
    if ((kinds & kind_bit(e.kind)) != 0)
      out += (out.empty() ? "" : ", ") + std::string{e.name};
  return out;
}

std::optional<doc_kind> change_kind(std::string_view entity) noexcept {
  for (const auto& e : catalogue_entries())
    if (e.entity == entity)
      return e.kind;
  return std::nullopt;
}

} // namespace restcache
