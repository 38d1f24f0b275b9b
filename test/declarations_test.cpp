// SPDX-License-Identifier: Apache-2.0
#define CAF_SUITE declarations

// Declaration files: the demo's as the catalogue it declares, the defaults
// a short file takes, and each refusal with its place and its reason.

#include "declarations/declaration_file.hpp"

#include <caf/test/dsl.hpp>

#include <string>

#include "demo/demo_catalogue.hpp"

using namespace restcache;
using namespace restcache::declarations;

namespace {

/// A file of one kind of a shop's orders; `extra` is appended to its
/// [[kind]] table, `more` after it.
std::string orders_file(const std::string& extra = {}, const std::string& more = {}) {
  return "format = 1\n"
         "[[kind]]\n"
         "name = \"orders\"\n"
         "route = \"/orders/{code}\"\n"
         "key = \"text\"\n"
         "sql = \"SELECT code, placed, total, note FROM orders WHERE code = $1\"\n"
         "fields = [\n"
         "  { name = \"code\", column = 1, type = \"text\" },\n"
         "  { name = \"placed\", column = 2, type = \"timestamp\" },\n"
         "  { name = \"total\", column = 3, type = \"number\" },\n"
         "  { name = \"note\", column = 4, type = \"json\" },\n"
         "]\n"
         "reads = [{ table = \"orders\", columns = [\"code\", \"placed\", \"total\", \"note\"], keys = [\"orders:code\"] }]\n"
         + extra + more;
}

/// The errors of `toml`, one per line; "" when it is taken.
std::string refusal(const std::string& toml) {
  auto d = parse_declarations(toml, "shop.toml");
  if (d.ok())
    return {};
  CAF_CHECK(d.kinds.empty()); // nothing of a refused file is taken
  return d.error_text();
}

bool refused_with(const std::string& toml, const std::string& what) {
  auto text = refusal(toml);
  if (text.find(what) == std::string::npos) {
    CAF_MESSAGE("expected '" << what << "' in: " << (text.empty() ? std::string{"(taken)"} : text));
    return false;
  }
  return true;
}

} // namespace

CAF_TEST(the demo file declares the kinds of the demo in id order) {
  auto d = parse_declarations(demo::demo_declarations, "demo/demo.toml");
  CAF_REQUIRE(d.ok());
  CAF_REQUIRE_EQUAL(d.kinds.size(), 3u);
  const auto& deptemps = d.kinds[0];
  const auto& emp = d.kinds[1];
  const auto& dept = d.kinds[2];
  CAF_CHECK_EQUAL(deptemps.name, "deptemps");
  CAF_CHECK_EQUAL(emp.name, "emp");
  CAF_CHECK_EQUAL(dept.name, "dept");
  CAF_CHECK_EQUAL(deptemps.route, "/deptemps/");
  CAF_CHECK_EQUAL(emp.route, "/depts/emps/");
  CAF_CHECK_EQUAL(dept.route, "/depts/");
  CAF_CHECK_EQUAL(deptemps.entity, "dept");
  CAF_CHECK_EQUAL(dept.entity, "dept");
  CAF_CHECK_EQUAL(emp.entity, "emp");
  CAF_CHECK_EQUAL(deptemps.noun, "department");
  CAF_CHECK_EQUAL(emp.noun, "employee");
  // The department alone shares the department statement (one prepared statement).
  CAF_CHECK_EQUAL(dept.statement.name, deptemps.statement.name);
  CAF_CHECK_EQUAL(dept.statement.sql, deptemps.statement.sql);
  CAF_CHECK_EQUAL(deptemps.statement.name, "restcache_fetch_deptemps");
  CAF_REQUIRE(deptemps.plan.detail.has_value());
  CAF_CHECK_EQUAL(deptemps.plan.detail->name, "emps");
  CAF_CHECK_EQUAL(deptemps.plan.detail->present_column, 3); // the file counts from 1
  CAF_CHECK_EQUAL(deptemps.plan.detail->element.fields.size(), 8u);
  CAF_CHECK_EQUAL(deptemps.plan.master.fields[0].name, "deptNumber");
  CAF_CHECK(deptemps.plan.master.fields[0].type == value_type::number);
  CAF_CHECK(!dept.plan.detail);
  CAF_CHECK(!deptemps.plan.write_nulls);
  CAF_CHECK_EQUAL(deptemps.populate.statement.name, "restcache_fetch_deptemps_batch");
  CAF_CHECK_EQUAL(deptemps.populate.count.sql, "SELECT count(*) FROM dept");
  CAF_CHECK_EQUAL(deptemps.populate.key_column, 0);
  CAF_CHECK_EQUAL(deptemps.populate.plural, "departments");
  CAF_CHECK(emp.populate.statement.name.empty()); // not populated
  CAF_REQUIRE_EQUAL(deptemps.reads.size(), 2u);
  CAF_CHECK_EQUAL(deptemps.reads[0].table, "dept");
  CAF_CHECK_EQUAL(deptemps.reads[0].columns, "deptno,dname,loc");
  CAF_CHECK_EQUAL(deptemps.reads[1].keys, "dept:deptno");
  // The constants the demo's own code names are the file's places.
  CAF_CHECK(find_doc_kind("deptemps")->kind == demo::deptemps_kind);
  CAF_CHECK(find_doc_kind("emp")->kind == demo::emp_kind);
  CAF_CHECK(find_doc_kind("dept")->kind == demo::dept_kind);
}

CAF_TEST(a short file takes the defaults) {
  auto d = parse_declarations(orders_file("nulls = \"null\"\n"), "shop.toml");
  CAF_REQUIRE(d.ok());
  CAF_REQUIRE_EQUAL(d.kinds.size(), 1u);
  const auto& k = d.kinds[0];
  CAF_CHECK_EQUAL(k.entity, "orders");  // its own key space
  CAF_CHECK_EQUAL(k.noun, "orders");    // its name in problem details
  CAF_CHECK_EQUAL(k.statement.name, "restcache_kind_orders");
  CAF_CHECK(k.key == key_type::text);
  CAF_CHECK(k.plan.write_nulls);
  CAF_CHECK(k.plan.master.fields[1].type == value_type::timestamp);
  CAF_CHECK(k.plan.master.fields[3].type == value_type::json);
  CAF_CHECK_EQUAL(k.plan.master.fields[3].column, 3);
  CAF_CHECK(k.populate.statement.name.empty());
  CAF_CHECK_EQUAL(k.ttl.count(), 0);    // kept until a change
  CAF_CHECK_EQUAL(k.max_bytes, 0);      // no cap but the budgets
}

CAF_TEST(a ttl and a size cap and a kind kept for its ttl alone) {
  auto d = parse_declarations(orders_file("ttl = 30\nmax_bytes = 65536\n",
                                          "[[kind]]\nname = \"rates\"\nroute = \"/rates/{currency}\"\nkey = \"text\"\n"
                                          "sql = \"SELECT $1::text, now()\"\n"
                                          "fields = [{ name = \"at\", column = 2, type = \"timestamp\" }]\n"
                                          "ttl = 5\n"),
                              "shop.toml");
  CAF_REQUIRE(d.ok());
  CAF_REQUIRE_EQUAL(d.kinds.size(), 2u);
  CAF_CHECK_EQUAL(d.kinds[0].ttl.count(), 30);
  CAF_CHECK_EQUAL(d.kinds[0].max_bytes, 65536);
  CAF_CHECK_EQUAL(d.kinds[1].ttl.count(), 5);
  CAF_CHECK(d.kinds[1].reads.empty()); // no table watched: the TTL alone bounds it
  // With a ttl, reads need not key the kind's own key space either.
  auto other_space = orders_file("ttl = 60\n");
  other_space.replace(other_space.find("keys = [\"orders:code\"]"), 23, "keys = [\"customers:id\"]");
  CAF_CHECK(parse_declarations(other_space, "shop.toml").ok());
}

CAF_TEST(a populate plan and a uuid key) {
  auto d = parse_declarations(orders_file("[kind.populate]\n"
                                          "sql = \"SELECT code, placed, total, note FROM orders WHERE code > $1 "
                                          "ORDER BY code LIMIT $2\"\n"
                                          "count_sql = \"SELECT count(*) FROM orders\"\n"
                                          "key_column = 1\n",
                                          "[[kind]]\nname = \"devices\"\nroute = \"/devices/{id}\"\nkey = \"uuid\"\n"
                                          "sql = \"SELECT id FROM devices WHERE id = $1::uuid\"\n"
                                          "fields = [{ name = \"id\", column = 1, type = \"text\" }]\n"
                                          "reads = [{ table = \"devices\", columns = [\"id\"], keys = [\"devices:id\"] }]\n"),
                              "shop.toml");
  CAF_REQUIRE(d.ok());
  CAF_REQUIRE_EQUAL(d.kinds.size(), 2u);
  CAF_CHECK_EQUAL(d.kinds[0].populate.statement.name, "restcache_populate_orders");
  CAF_CHECK_EQUAL(d.kinds[0].populate.count.name, "restcache_count_orders");
  CAF_CHECK_EQUAL(d.kinds[0].populate.plural, "orders");
  CAF_CHECK(d.kinds[1].key == key_type::uuid);
  CAF_CHECK_EQUAL(d.kinds[1].route, "/devices/");
}

CAF_TEST(what the file alone shows wrong is refused with its line and its kind) {
  // Where: the file, the line, the kind.
  CAF_CHECK(refused_with(orders_file("key_spce = \"x\"\n"), "shop.toml:14: kind 'orders': a kind has no member 'key_spce'"));
  CAF_CHECK(refused_with("format = 1\n[[kind]\n", "shop.toml:2:"));                     // not TOML
  CAF_CHECK(refused_with("[[kind]]\nname = \"x\"\n", "'format' is missing"));
  CAF_CHECK(refusal(orders_file()).empty());
  CAF_CHECK(refused_with("format = 2\n", "format 2 is not the format this build reads (1)"));
  CAF_CHECK(refused_with("format = 1\n", "no [[kind]] is declared"));
  // A duplicate kind, a route clash.
  CAF_CHECK(refused_with(orders_file({}, orders_file().substr(11)), "a duplicate kind"));
  auto clash = orders_file({}, "[[kind]]\nname = \"order_lines\"\nroute = \"/orders/{id}\"\nkey = \"int4\"\n"
                               "sql = \"SELECT 1 WHERE $1 = 1\"\nfields = [{ name = \"x\", column = 1, type = \"number\" }]\n"
                               "reads = [{ table = \"lines\", columns = [\"id\"], keys = [\"order_lines:id\"] }]\n");
  CAF_CHECK(refused_with(clash, "kind 'order_lines': a route clash: kind 'orders' is served at '/orders/{id}' too"));
  // Routes.
  auto with_route = [](std::string route) {
    auto f = orders_file();
    f.replace(f.find("/orders/{code}"), 14, route);
    return f;
  };
  CAF_CHECK(refused_with(with_route("/tenants/{t}/orders/{id}"), "composite keys are not supported in this version"));
  CAF_CHECK(refused_with(with_route("/orders/"), "a path followed by one key"));
  CAF_CHECK(refused_with(with_route("/orders/x{id}"), "a path followed by one key"));
  CAF_CHECK(refused_with(with_route("/ord ers/{id}"), "has characters a path escapes"));
  // Keys and key spaces.
  auto with_key = [](std::string key) {
    auto f = orders_file();
    f.replace(f.find("\"text\"\nsql"), 6, "\"" + key + "\"");
    return f;
  };
  CAF_CHECK(refused_with(with_key("serial"), "key 'serial' is none of int4, int8, text, uuid"));
  CAF_CHECK(refused_with(orders_file({}, "[[kind]]\nname = \"order_ids\"\nroute = \"/order-ids/{id}\"\nkey = \"int8\"\n"
                                         "key_space = \"orders\"\nsql = \"SELECT $1\"\n"
                                         "fields = [{ name = \"x\", column = 1, type = \"number\" }]\n"
                                         "reads = [{ table = \"orders\", columns = [\"code\"], keys = [\"orders:id\"] }]\n"),
                         "one key space, one key type"));
  // Statements.
  auto with_sql = [](std::string sql) {
    auto f = orders_file();
    auto at = f.find("sql = ");
    f.replace(at, f.find('\n', at) - at, "sql = \"" + sql + "\"");
    return f;
  };
  CAF_CHECK(refused_with(with_sql("SELECT code FROM orders"), "the statement does not read $1"));
  CAF_CHECK(refused_with(with_sql("SELECT code FROM orders WHERE code = $1 OR code = $2"),
                         "the statement reads more than 1 parameter(s)"));
  auto no_sql = orders_file();
  no_sql.erase(no_sql.find("sql = "), no_sql.find('\n', no_sql.find("sql = ")) + 1 - no_sql.find("sql = "));
  CAF_CHECK(refused_with(no_sql, "'sql' is missing"));
  auto twice = orders_file("statement = \"shared\"\n",
                           "[[kind]]\nname = \"notes\"\nroute = \"/notes/{code}\"\nkey = \"text\"\n"
                           "statement = \"shared\"\nsql = \"SELECT note FROM orders WHERE code = $1\"\n"
                           "fields = [{ name = \"x\", column = 1, type = \"json\" }]\n"
                           "reads = [{ table = \"orders\", columns = [\"note\"], keys = [\"notes:code\"] }]\n");
  CAF_CHECK(refused_with(twice, "statement 'shared' is declared twice with different SQL"));
  auto unknown_statement = no_sql;
  unknown_statement.insert(unknown_statement.find("fields ="), "statement = \"nowhere\"\n");
  CAF_CHECK(refused_with(unknown_statement, "statement 'nowhere' has no 'sql' here and no kind above declares it"));
  // Fields.
  auto with_field = [](std::string field) {
    auto f = orders_file();
    f.insert(f.find("]\nreads"), "  " + field + ",\n");
    return f;
  };
  CAF_CHECK(refused_with(with_field("{ name = \"x\", column = 5, type = \"money\" }"),
                         "type 'money' is none of number, text, date, timestamp, boolean, json"));
  CAF_CHECK(refused_with(with_field("{ name = \"x\", column = 0, type = \"text\" }"),
                         "'column' is a result column's position, from 1"));
  CAF_CHECK(refused_with(with_field("{ name = \"code\", column = 5, type = \"text\" }"), "two fields are called 'code'"));
  CAF_CHECK(refused_with(with_field("{ name = \"x\", column = \"total\", type = \"text\" }"), "'column' must be an integer"));
  CAF_CHECK(refused_with(orders_file("nulls = \"skip\"\n"), "nulls is 'omit'"));
  // Reads.
  auto with_reads = [](std::string reads) {
    auto f = orders_file();
    auto at = f.find("reads = ");
    f.replace(at, f.find('\n', at) - at, "reads = " + reads);
    return f;
  };
  CAF_CHECK(refused_with(with_reads("[{ table = \"orders\", columns = [\"code\"], keys = [\"customers:id\"] }]"),
                         "no read keys its changes in its key space 'orders': nothing would ever invalidate its documents"));
  CAF_CHECK(refused_with(with_reads("[{ table = \"orders\", columns = [\"code\"], keys = [\"orders\"] }]"),
                         "key 'orders' is written '<key space>:<column>'"));
  CAF_CHECK(refused_with(with_reads("[{ table = \"orders\", columns = [], keys = [\"orders:code\"] }]"),
                         "'columns' must be a non-empty array of strings"));
  CAF_CHECK(refused_with(with_reads("[]"), "'reads' is missing"));
  CAF_CHECK(refused_with(with_reads("[{ table = \"orders\", columns = [\"code\"], keys = [\"orders:code\"], "
                                    "row_columns = [0] }]"),
                         "'row_columns' holds result columns' positions, from 1"));
  CAF_CHECK(refused_with(with_reads("[{ table = \"orders\", columns = [\"code\"], keys = [\"orders:code\"], "
                                    "row_columns = 1 }]"),
                         "'row_columns' is an array of result columns' positions, from 1"));
  // A ttl and a cap.
  CAF_CHECK(refused_with(orders_file("ttl = 0\n"), "ttl is a number of seconds, 1 to 2592000"));
  CAF_CHECK(refused_with(orders_file("ttl = 2592001\n"), "ttl is a number of seconds, 1 to 2592000"));
  CAF_CHECK(refused_with(orders_file("ttl = \"30s\"\n"), "'ttl' must be an integer"));
  CAF_CHECK(refused_with(orders_file("max_bytes = 0\n"), "max_bytes is a number of bytes, at least 1"));
  // Populate.
  CAF_CHECK(refused_with(orders_file("[kind.populate]\nsql = \"SELECT code FROM orders WHERE code > $1\"\n"
                                     "count_sql = \"SELECT count(*) FROM orders\"\nkey_column = 1\n"),
                         "the statement does not read $2"));
  CAF_CHECK(refused_with(orders_file("[kind.populate]\nsql = \"SELECT 1 WHERE $1 > $2\"\nkey_column = 1\n"),
                         "'count_sql' is missing"));
  // Every error at once, not the first alone.
  auto many = refusal(with_key("serial") + "nulls = \"skip\"\n");
  CAF_CHECK(many.find("key 'serial'") != std::string::npos);
  CAF_CHECK(many.find("nulls is 'omit'") != std::string::npos);
}

CAF_TEST(a file that cannot be read is an error) {
  auto d = read_declaration_file("/nonexistent/restcache.toml");
  CAF_CHECK(!d.ok());
  CAF_CHECK_EQUAL(d.error_text(), "/nonexistent/restcache.toml: cannot be read\n");
}
