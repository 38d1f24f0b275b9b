#include "messages/doc_catalogue.hpp"

#include <array>

#include "messages/document_encoder.hpp"

namespace restcache {

namespace {

std::string deptemps_body(const doc_rows& r) {
  return r.department ? encode_deptemps(*r.department) : std::string{};
}
std::string deptemps_text_body(const doc_text_rows& r) {
  return r.department ? encode_deptemps(*r.department) : std::string{};
}
std::string dept_body(const doc_rows& r) {
  return r.department ? encode_dept(r.department->dept) : std::string{};
}
std::string dept_text_body(const doc_text_rows& r) {
  return r.department ? encode_dept(r.department->dept) : std::string{};
}
std::string emp_body(const doc_rows& r) {
  return r.employee ? encode_emp(*r.employee) : std::string{};
}
std::string emp_text_body(const doc_text_rows& r) {
  return r.employee ? encode_emp(*r.employee) : std::string{};
}

// In doc_kind order, so an entry is found by its value.
constexpr std::array<doc_kind_entry, 3> catalogue{{
  {doc_kind::deptemps, "deptemps", "dept", row_shape::department, "/deptemps/", &deptemps_body,
   &deptemps_text_body},
  {doc_kind::emp, "emp", "emp", row_shape::employee, "/depts/emps/", &emp_body, &emp_text_body},
  {doc_kind::dept, "dept", "dept", row_shape::department, "/depts/", &dept_body, &dept_text_body},
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

std::optional<doc_kind> change_kind(std::string_view entity) noexcept {
  for (const auto& e : catalogue)
    if (e.entity == entity)
      return e.kind;
  return std::nullopt;
}

} // namespace restcache
