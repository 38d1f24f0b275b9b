// SPDX-License-Identifier: Apache-2.0
#define CAF_SUITE document_plan
#include "messages/document_plan.hpp"

#include <caf/test/unit_test.hpp>

#include <string>
#include <vector>

#include "demo/demo_catalogue.hpp"
#include "messages/doc_catalogue.hpp"
#include "messages/document_encoder.hpp"
#include "test/fixtures/fake_db.hpp"
#include "test/fixtures/table_cells.hpp"
#include "demo/demo_encoders.hpp"

using namespace restcache;
using test::cell;
using test::table_cells;

namespace {

std::string encode(const document_plan& plan, std::vector<std::vector<cell>> rows) {
  return encode_document(plan, table_cells{std::move(rows)});
}

document_plan one(value_type type, bool write_nulls = false) {
  return document_plan{object_plan{{{"v", 0, type}}}, std::nullopt, write_nulls};
}

cell text_of(const std::optional<std::string>& v) {
  return v;
}
cell text_of(const std::optional<int32_t>& v) {
  return v ? cell{std::to_string(*v)} : std::nullopt;
}
cell text_of(int32_t v) {
  return std::to_string(v);
}

/// The columns of the department statement for one employee row (or none).
std::vector<cell> department_row(const demo::dept_with_emps& d, const demo::emp_row* e) {
  std::vector<cell> row{text_of(d.dept.deptno), text_of(d.dept.dname), text_of(d.dept.loc)};
  if (e == nullptr) {
    row.resize(11);
    return row;
  }
  for (auto c : {text_of(e->empno), text_of(e->ename), text_of(e->job), text_of(e->mgr), text_of(e->hiredate),
                 text_of(e->sal), text_of(e->comm), text_of(e->deptno)})
    row.push_back(c);
  return row;
}

std::vector<std::vector<cell>> department_rows(const demo::dept_with_emps& d) {
  std::vector<std::vector<cell>> rows;
  for (const auto& e : d.emps)
    rows.push_back(department_row(d, &e));
  if (rows.empty())
    rows.push_back(department_row(d, nullptr)); // the LEFT JOIN's row
  return rows;
}

} // namespace

CAF_TEST(numbers are copied as digits and those JSON has none become strings) {
  for (std::string n : {"0", "-7", "12.50", "1e+100", "1.5E-07", "123456789012345678901234567890"})
    CAF_CHECK_EQUAL(encode(one(value_type::number), {{n}}), "{\"v\":" + n + "}");
  for (std::string n : {"NaN", "Infinity", "-Infinity", "01", "1.", ".5", "1e", "-", ""})
    CAF_CHECK_EQUAL(encode(one(value_type::number), {{n}}), "{\"v\":\"" + n + "\"}");
}

CAF_TEST(text is escaped and dates are strings) {
  CAF_CHECK_EQUAL(encode(one(value_type::text), {{std::string{"a\"b\\c\n\x01"}}}),
                  "{\"v\":\"a\\\"b\\\\c\\n\\u0001\"}");
  CAF_CHECK_EQUAL(encode(one(value_type::text), {{std::string{"grüße"}}}), "{\"v\":\"grüße\"}");
  CAF_CHECK_EQUAL(encode(one(value_type::date), {{std::string{"1981-11-17"}}}), "{\"v\":\"1981-11-17\"}");
}

CAF_TEST(timestamps are written in ISO 8601) {
  auto ts = one(value_type::timestamp);
  CAF_CHECK_EQUAL(encode(ts, {{std::string{"2026-12-05 08:31:35.5+00"}}}), "{\"v\":\"2026-12-05T08:31:35.5+00:00\"}");
  CAF_CHECK_EQUAL(encode(ts, {{std::string{"2026-12-05 08:31:35+05:30"}}}), "{\"v\":\"2026-12-05T08:31:35+05:30\"}");
  CAF_CHECK_EQUAL(encode(ts, {{std::string{"2026-12-05 08:31:35"}}}), "{\"v\":\"2026-12-05T08:31:35\"}");
  CAF_CHECK_EQUAL(encode(ts, {{std::string{"infinity"}}}), "{\"v\":\"infinity\"}");
  // BC after the offset, the offset whole, as PostgreSQL's to_json writes it.
  CAF_CHECK_EQUAL(encode(ts, {{std::string{"0044-03-15 12:00:00+00 BC"}}}), "{\"v\":\"0044-03-15T12:00:00+00:00 BC\"}");
  CAF_CHECK_EQUAL(encode(ts, {{std::string{"0044-03-15 12:00:00 BC"}}}), "{\"v\":\"0044-03-15T12:00:00 BC\"}");
}

CAF_TEST(booleans and json are written as JSON) {
  CAF_CHECK_EQUAL(encode(one(value_type::boolean), {{std::string{"t"}}}), "{\"v\":true}");
  CAF_CHECK_EQUAL(encode(one(value_type::boolean), {{std::string{"f"}}}), "{\"v\":false}");
  CAF_CHECK_EQUAL(encode(one(value_type::json), {{std::string{"{\"a\": [1, 2]}"}}}), "{\"v\":{\"a\": [1, 2]}}");
}

CAF_TEST(a null is left out or written as null as the plan says) {
  document_plan two{object_plan{{{"a", 0, value_type::number}, {"b", 1, value_type::text}}}, std::nullopt, false};
  CAF_CHECK_EQUAL(encode(two, {{std::nullopt, std::string{"x"}}}), "{\"b\":\"x\"}");
  CAF_CHECK_EQUAL(encode(two, {{std::nullopt, std::nullopt}}), "{}");
  two.write_nulls = true;
  CAF_CHECK_EQUAL(encode(two, {{std::nullopt, std::string{"x"}}}), "{\"a\":null,\"b\":\"x\"}");
}

CAF_TEST(member names are escaped once in the plan) {
  document_plan p{object_plan{{{"we\"ird", 0, value_type::number}}}, std::nullopt, false};
  CAF_CHECK_EQUAL(p.master.fields[0].member, "\"we\\\"ird\":");
  CAF_CHECK_EQUAL(encode(p, {{std::string{"1"}}}), "{\"we\\\"ird\":1}");
}

CAF_TEST(detail rows become an array and a master without details an empty one) {
  document_plan p{object_plan{{{"id", 0, value_type::number}}},
                  detail_plan{"lines", 1, object_plan{{{"n", 1, value_type::number}, {"x", 2, value_type::text}}}},
                  false};
  CAF_CHECK_EQUAL(encode(p, {{std::string{"5"}, std::string{"1"}, std::string{"a"}},
                             {std::string{"5"}, std::string{"2"}, std::nullopt}}),
                  "{\"id\":5,\"lines\":[{\"n\":1,\"x\":\"a\"},{\"n\":2}]}");
  CAF_CHECK_EQUAL(encode(p, {{std::string{"5"}, std::nullopt, std::nullopt}}), "{\"id\":5,\"lines\":[]}");
  CAF_CHECK_EQUAL(encode(p, {{std::nullopt, std::nullopt, std::nullopt}}), "{\"lines\":[]}");
  CAF_CHECK_EQUAL(encode(p, {}), "");
}

CAF_TEST(the demo plans write what the typed encoders write) {
  auto d = test::make_dept(10, 3, "ACC\"OUNTING\\");
  d.dept.loc = std::nullopt;
  d.emps[0].mgr = 7839;
  d.emps[1].comm = 0;
  d.emps[2].ename = std::nullopt;
  d.emps[2].job = std::string{"line\nbreak"};
  const auto& deptemps = doc_kind_info(demo::deptemps_kind).plan;
  const auto& dept = doc_kind_info(demo::dept_kind).plan;
  const auto& emp = doc_kind_info(demo::emp_kind).plan;
  CAF_CHECK_EQUAL(encode(deptemps, department_rows(d)), demo::encode_deptemps(d));
  CAF_CHECK_EQUAL(encode(dept, department_rows(d)), demo::encode_dept(d.dept));
  auto none = test::make_dept(11, 0);
  CAF_CHECK_EQUAL(encode(deptemps, department_rows(none)), demo::encode_deptemps(none));
  for (const auto& e : d.emps) {
    auto row = department_row(d, &e);
    row.erase(row.begin(), row.begin() + 3); // the employee statement's columns
    CAF_CHECK_EQUAL(encode(emp, {row}), demo::encode_emp(e));
  }
}

CAF_TEST(a document with many detail rows is whole and the next one too) {
  document_plan p{object_plan{{{"id", 0, value_type::number}}},
                  detail_plan{"lines", 1, object_plan{{{"n", 1, value_type::number}}}}, false};
  std::vector<std::vector<cell>> rows;
  std::string expected = "{\"id\":1,\"lines\":[";
  for (int i = 1; i <= 20'000; ++i) {
    rows.push_back({std::string{"1"}, std::to_string(i)});
    expected += (i > 1 ? ",{\"n\":" : "{\"n\":") + std::to_string(i) + "}";
  }
  expected += "]}";
  CAF_CHECK(encode(p, std::move(rows)) == expected);
  // The thread gave back the room it took; the next document is unharmed.
  CAF_CHECK_EQUAL(encode(p, {{std::string{"2"}, std::string{"7"}}}), "{\"id\":2,\"lines\":[{\"n\":7}]}");
}
