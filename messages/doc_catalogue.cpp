#include "messages/doc_catalogue.hpp"

#include <algorithm>
#include <array>

#include "messages/document_encoder.hpp"
#include "messages/text.hpp"

namespace restcache {

namespace {

std::string deptemps_text_body(const doc_text_rows& r) {
  return r.department ? encode_deptemps(*r.department) : std::string{};
}
std::string dept_text_body(const doc_text_rows& r) {
  return r.department ? encode_dept(r.department->dept) : std::string{};
}
std::string emp_text_body(const doc_text_rows& r) {
  return r.employee ? encode_emp(*r.employee) : std::string{};
}

// The department statement reads dept and its employees; a department's
// documents change with a dept row's deptno and an emp row's (old and new).
constexpr std::array<table_read, 2> department_reads{{
  {"dept", "deptno,dname,loc", "dept:deptno"},
  {"emp", "empno,ename,job,mgr,hiredate,sal,comm,deptno", "dept:deptno"},
}};
constexpr std::array<table_read, 1> employee_reads{{
  {"emp", "empno,ename,job,mgr,hiredate,sal,comm,deptno", "emp:empno"},
}};

// In doc_kind order, so an entry is found by its value.
constexpr std::array<doc_kind_entry, 3> catalogue{{
  {doc_kind::deptemps, "deptemps", "dept", row_shape::department, "/deptemps/", &deptemps_text_body,
   department_reads},
  {doc_kind::emp, "emp", "emp", row_shape::employee, "/depts/emps/", &emp_text_body, employee_reads},
  {doc_kind::dept, "dept", "dept", row_shape::department, "/depts/", &dept_text_body, department_reads},
}};

constexpr bool in_kind_order() {
  for (size_t i = 0; i < catalogue.size(); ++i)
    if (static_cast<size_t>(catalogue[i].kind) != i + 1)
      return false;
  return true;
}
static_assert(in_kind_order(), "the catalogue lists the kinds in doc_kind order, from 1");

} // namespace

std::span<const doc_kind_entry> doc_catalogue() noexcept {
  return catalogue;
}

const doc_kind_entry* find_doc_kind(uint8_t kind) noexcept {
  if (kind == 0 || kind > catalogue.size())
    return nullptr;
  return &catalogue[kind - 1];
}

const doc_kind_entry& doc_kind_info(doc_kind kind) noexcept {
  // Every doc_kind value has an entry (checked above); a corrupt value
  // reads the first rather than out of bounds.
  auto* e = find_doc_kind(static_cast<uint8_t>(kind));
  return e ? *e : catalogue[0];
}

const doc_kind_entry* find_doc_kind(std::string_view name) noexcept {
  for (const auto& e : catalogue)
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
  for (const auto& e : catalogue)
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
  for (const auto& e : catalogue)
    if ((kinds & kind_bit(e.kind)) != 0)
      out += (out.empty() ? "" : ", ") + std::string{e.name};
  return out;
}

std::optional<doc_kind> change_kind(std::string_view entity) noexcept {
  for (const auto& e : catalogue)
    if (e.entity == entity)
      return e.kind;
  return std::nullopt;
}

} // namespace restcache
