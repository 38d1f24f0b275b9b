// SPDX-License-Identifier: Apache-2.0
// This file also provides the caf-test main of restcache_tests.
#define CAF_SUITE document_encoder
#include "messages/document_encoder.hpp"
#include "demo/demo_encoders.hpp"

#include <caf/test/unit_test_impl.hpp>

using namespace restcache;

namespace {

demo::dept_with_emps sample() {
  demo::dept_with_emps d;
  d.dept = demo::dept_row{10, "ACCOUNTING", "NEW YORK"};
  d.emps.push_back(demo::emp_row{7782, "CLARK", "MANAGER", 7839, "1981-06-09", 2450, std::nullopt, 10});
  d.emps.push_back(demo::emp_row{7934, "MILLER", "CLERK", 7782, "1982-01-23", 1300, 0, 10});
  return d;
}

} // namespace

CAF_TEST(deptemps document uses the original field names in order) {
  CAF_CHECK_EQUAL(demo::encode_deptemps(sample()),
                  R"({"deptNumber":10,"deptName":"ACCOUNTING","deptLocation":"NEW YORK","emps":[)"
                  R"({"empNo":7782,"empName":"CLARK","job":"MANAGER","mgr":7839,"hiredate":"1981-06-09","sal":2450,"deptNumber":10},)"
                  R"({"empNo":7934,"empName":"MILLER","job":"CLERK","mgr":7782,"hiredate":"1982-01-23","sal":1300,"comm":0,"deptNumber":10}]})");
}

CAF_TEST(a SQL null omits its key) {
  demo::dept_with_emps d;
  d.dept = demo::dept_row{7, std::nullopt, std::nullopt};
  d.emps.push_back(demo::emp_row{1, std::nullopt, std::nullopt, std::nullopt, std::nullopt,
                           std::nullopt, std::nullopt, std::nullopt});
  CAF_CHECK_EQUAL(demo::encode_deptemps(d), R"({"deptNumber":7,"emps":[{"empNo":1}]})");
}

CAF_TEST(a department without employees has an empty list) {
  demo::dept_with_emps d;
  d.dept = demo::dept_row{3, "X", "Y"};
  CAF_CHECK_EQUAL(demo::encode_deptemps(d), R"({"deptNumber":3,"deptName":"X","deptLocation":"Y","emps":[]})");
}

CAF_TEST(strings are escaped as JSON requires) {
  std::string out;
  append_json_string(out, std::string{"a\"b\\c\n\t\x01\x1f/é"});
  CAF_CHECK_EQUAL(out, "\"a\\\"b\\\\c\\n\\t\\u0001\\u001f/é\"");
}

CAF_TEST(every byte is escaped alike in every string member) {
  // What RFC 8259 asks, spelled out apart from the encoder.
  auto reference = [](unsigned char c) -> std::string {
    switch (c) {
      case '"': return "\\\"";
      case '\\': return "\\\\";
      case '\n': return "\\n";
      case '\r': return "\\r";
      case '\t': return "\\t";
      case '\b': return "\\b";
      case '\f': return "\\f";
      default:
        if (c >= 0x20)
          return std::string(1, static_cast<char>(c));
        static constexpr char hex[] = "0123456789abcdef";
        return std::string{"\\u00"} + hex[c >> 4] + hex[c & 0xf];
    }
  };
  for (int c = 0; c < 256; ++c) {
    auto b = static_cast<unsigned char>(c);
    // Appended, not added to a temporary: GCC 12 warns (-Wrestrict) falsely.
    std::string text = "a";
    text.append(2, static_cast<char>(b));
    text += 'z';
    std::string want = "\"a" + reference(b) + reference(b) + "z\"";
    CAF_CHECK_EQUAL(demo::encode_dept(demo::dept_row{1, text, text}),
                    "{\"deptNumber\":1,\"deptName\":" + want + ",\"deptLocation\":" + want + "}");
    demo::emp_row e{1, text, text, std::nullopt, text, std::nullopt, std::nullopt, std::nullopt};
    CAF_CHECK_EQUAL(demo::encode_emp(e), "{\"empNo\":1,\"empName\":" + want + ",\"job\":" + want
                                     + ",\"hiredate\":" + want + "}");
  }
}

CAF_TEST(a department list is its departments in order) {
  CAF_CHECK_EQUAL(demo::encode_dept_list({}), "[]");
  CAF_CHECK_EQUAL(demo::encode_dept_list({demo::dept_row{1, "A", std::nullopt}, demo::dept_row{-2, std::nullopt, "B"}}),
                  R"([{"deptNumber":1,"deptName":"A"},{"deptNumber":-2,"deptLocation":"B"}])");
}

CAF_TEST(negative and extreme integers are written exactly) {
  demo::emp_row e{2147483647, "Z", std::nullopt, std::nullopt, std::nullopt, -2147483647 - 1, 0, 1};
  CAF_CHECK_EQUAL(demo::encode_emp(e),
                  R"({"empNo":2147483647,"empName":"Z","sal":-2147483648,"comm":0,"deptNumber":1})");
}

CAF_TEST(the ETag is strong and quoted and a function of the bytes only) {
  auto a = strong_etag("hello");
  CAF_CHECK_EQUAL(a.size(), 18u);
  CAF_CHECK_EQUAL(a.front(), '"');
  CAF_CHECK_EQUAL(a.back(), '"');
  CAF_CHECK_EQUAL(a, strong_etag(std::string{"hel"} + "lo"));
  CAF_CHECK_NOT_EQUAL(a, strong_etag("hellp"));
  auto doc = make_doc("body");
  CAF_CHECK_EQUAL(doc->body, "body");
  CAF_CHECK_EQUAL(doc->etag, strong_etag("body"));
}
