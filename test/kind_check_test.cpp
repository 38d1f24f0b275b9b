// SPDX-License-Identifier: Apache-2.0
#define CAF_SUITE kind_check

// Declared kinds checked against the database before they are served: the
// types judged as the encoder writes them, a plan's relations read from
// EXPLAIN, and on a private cluster the demo and a shop (a partitioned
// detail table, a view over watched tables) taken, each refusal with its
// message.

#include "persistence/pg/kind_check.hpp"

#include <caf/test/dsl.hpp>

#include <algorithm>
#include <optional>
#include <string>

#include "declarations/declaration_file.hpp"
#include "demo/demo_routes.hpp"
#include "messages/doc_catalogue.hpp"
#include "persistence/pg/connection.hpp"
#include "test/fixtures/private_pg.hpp"
#include "test/fixtures/test_support.hpp"

using namespace restcache;
using namespace restcache::pg;
using namespace restcache::test;

namespace {

type_facts type(uint32_t oid, char category, std::string name) {
  return type_facts{oid, oid, category, name, name};
}

const type_facts int4_type = type(23, 'N', "integer");
const type_facts int8_type = type(20, 'N', "bigint");
const type_facts numeric_type = type(1700, 'N', "numeric");
const type_facts money_type = type(790, 'N', "money");
const type_facts text_type = type(25, 'S', "text");
const type_facts uuid_type = type(2950, 'U', "uuid");
const type_facts bool_type = type(16, 'B', "boolean");
const type_facts jsonb_type = type(3802, 'U', "jsonb");
const type_facts date_type = type(1082, 'D', "date");
const type_facts timestamptz_type = type(1184, 'D', "timestamp with time zone");

/// The shop's tables: orders keyed by text, their lines in a table
/// partitioned by the order, customers, products, and views over them.
const std::string& shop_dsn() {
  static const std::string dsn = [] {
    auto d = shared_private_pg().create_database("kindcheck");
    connection c{d};
    c.exec(R"sql(
      CREATE DOMAIN order_code AS text CHECK (VALUE <> '');
      CREATE TABLE customer (id int PRIMARY KEY, name text);
      CREATE TABLE product (sku text PRIMARY KEY, title text);
      CREATE TABLE shop_order (code order_code PRIMARY KEY, customer_id int, placed timestamptz,
                               total numeric(10,2), paid boolean, note jsonb, ref uuid);
      CREATE TABLE shop_line (order_code text, sku text, qty int) PARTITION BY HASH (order_code);
      CREATE TABLE shop_line_0 PARTITION OF shop_line FOR VALUES WITH (MODULUS 2, REMAINDER 0);
      CREATE TABLE shop_line_1 PARTITION OF shop_line FOR VALUES WITH (MODULUS 2, REMAINDER 1);
      CREATE VIEW order_only AS SELECT code, placed, total FROM shop_order;
      CREATE VIEW order_with_customer AS
        SELECT o.code, o.placed, c.name FROM shop_order o JOIN customer c ON c.id = o.customer_id;
      CREATE FUNCTION lines_of(text) RETURNS SETOF shop_line LANGUAGE plpgsql STABLE
        AS $$ BEGIN RETURN QUERY SELECT * FROM shop_line WHERE order_code = $1; END $$;
      CREATE TYPE order_state AS ENUM ('open', 'shipped');
      ALTER TABLE shop_order ADD COLUMN state order_state;
      CREATE FUNCTION customer_name(int) RETURNS text LANGUAGE sql STABLE
        BEGIN ATOMIC SELECT name FROM customer WHERE id = $1; END;
      CREATE FUNCTION order_label(text) RETURNS text LANGUAGE plpgsql STABLE AS $$ BEGIN RETURN upper($1); END $$;
      CREATE FUNCTION order_tag(text) RETURNS text LANGUAGE plpgsql IMMUTABLE AS $$ BEGIN RETURN upper($1); END $$;
      CREATE MATERIALIZED VIEW order_totals AS SELECT code, placed, total FROM shop_order;
      CREATE EXTENSION citext;
      CREATE TABLE citem (code citext PRIMARY KEY, title text);
      CREATE TABLE bitem (code char(8) PRIMARY KEY, title text);
      CREATE COLLATION nocase (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
      CREATE TABLE nitem (code text COLLATE nocase PRIMARY KEY, title text);
    )sql");
    return d;
  }();
  return dsn;
}

const char* const order_reads =
  R"({ table = "shop_order", columns = ["code", "placed", "total"], keys = ["orders:code"] })";

/// A file of one kind, "orders": `sql` reads it, `fields` and `reads` as
/// TOML arrays' insides; `extra` ends the [[kind]] table.
std::string orders_file(const std::string& sql, const std::string& fields, const std::string& reads,
                        const std::string& key = "text", const std::string& extra = {}) {
  return "format = 1\n[[kind]]\nname = \"orders\"\nroute = \"/orders/{code}\"\nkey = \"" + key
         + "\"\nsql = '''" + sql + "'''\nfields = [" + fields + "]\nreads = [" + reads + "]\n" + extra;
}

const char* const order_fields = R"({ name = "code", column = 1, type = "text" },
  { name = "placed", column = 2, type = "timestamp" }, { name = "total", column = 3, type = "number" })";

/// The reasons check_kinds gives for the kinds of `toml`, one per line ("" when taken).
std::string reasons(const std::string& toml) {
  auto d = declarations::parse_declarations(toml, "shop.toml");
  if (!d.ok()) {
    CAF_FAIL("the file itself is refused: " << d.error_text());
  }
  install_catalogue(std::move(d.kinds));
  connection c{shop_dsn()};
  std::string text;
  for (const auto& r : check_kinds(c))
    text += r.reason + (r.missing ? " [missing]\n" : "\n");
  // The session is as it was: no transaction left open, no statement left.
  CAF_CHECK_EQUAL(c.exec("SELECT count(*) FROM pg_prepared_statements").int64(0, 0), 0);
  CAF_CHECK_EQUAL(PQtransactionStatus(c.get()), PQTRANS_IDLE);
  demo::install_demo();
  return text;
}

bool refused_with(const std::string& toml, const std::string& what) {
  auto text = reasons(toml);
  if (text.find(what) == std::string::npos) {
    CAF_MESSAGE("expected '" << what << "' in: " << (text.empty() ? std::string{"(taken)"} : text));
    return false;
  }
  return true;
}

const char* const plan_json = R"([{"Plan": {"Node Type": "Nested Loop", "Plans": [
  {"Node Type": "Index Scan", "Relation Name": "dept", "Schema": "public", "Alias": "d"},
  {"Node Type": "Append", "Plans": [
    {"Node Type": "Seq Scan", "Relation Name": "emp_0", "Schema": "public", "Alias": "e"},
    {"Node Type": "Function Scan", "Function Name": "lines_of", "Schema": "shop", "Alias": "l"},
    {"Node Type": "Seq Scan", "Relation Name": "dept", "Schema": "public", "Alias": "d2",
     "Parent Relationship": "SubPlan"}]}]}}])";

} // namespace

CAF_TEST(key parameters and key columns take the types that hold the key) {
  CAF_CHECK(fits_key_parameter(key_type::int4, int4_type));
  CAF_CHECK(fits_key_parameter(key_type::int4, int8_type));
  CAF_CHECK(!fits_key_parameter(key_type::int4, text_type));
  CAF_CHECK(!fits_key_parameter(key_type::int8, int4_type)); // an int8 key overflows it
  CAF_CHECK(fits_key_parameter(key_type::text, text_type));
  CAF_CHECK(!fits_key_parameter(key_type::text, int4_type));
  CAF_CHECK(fits_key_parameter(key_type::uuid, uuid_type));
  CAF_CHECK(fits_key_column(key_type::int8, int4_type));
  CAF_CHECK(!fits_key_column(key_type::int4, numeric_type)); // "7.0" is not the key 7
  CAF_CHECK(!fits_key_column(key_type::uuid, text_type));    // its text need not be canonical
  CAF_CHECK(is_integer_type(int8_type));
  CAF_CHECK(!is_integer_type(numeric_type));
}

CAF_TEST(field types take the columns the encoder writes them from) {
  CAF_CHECK(fits_value(value_type::number, numeric_type));
  CAF_CHECK(!fits_value(value_type::number, money_type)); // '$1.00' is no JSON number
  CAF_CHECK(!fits_value(value_type::number, text_type));
  CAF_CHECK(fits_value(value_type::text, jsonb_type));
  CAF_CHECK(fits_value(value_type::json, jsonb_type));
  CAF_CHECK(!fits_value(value_type::json, text_type)); // embedded as it is: it must be JSON
  CAF_CHECK(fits_value(value_type::boolean, bool_type));
  CAF_CHECK(!fits_value(value_type::boolean, int4_type));
  CAF_CHECK(fits_value(value_type::date, date_type));
  CAF_CHECK(fits_value(value_type::date, text_type)); // to_char(hiredate, 'YYYY-MM-DD')
  CAF_CHECK(fits_value(value_type::timestamp, timestamptz_type));
  CAF_CHECK(!fits_value(value_type::timestamp, int8_type));
  // A domain is judged by its base type.
  CAF_CHECK(fits_value(value_type::boolean, type_facts{91234, 16, 'B', "paid_flag", "boolean"}));
  // So is how a key parameter compares keys.
  CAF_CHECK(comparison_of_key_parameter(type_facts{1042, 1042, 'S', "character", "character"}).trailing_blanks);
  CAF_CHECK(comparison_of_key_parameter(type_facts{91235, 91230, 'S', "item_code", "public.citext"}).ignore_case);
  CAF_CHECK(comparison_of_key_parameter(text_type) == key_comparison{});
}

CAF_TEST(a plan names every relation and function it scans once) {
  auto reads = read_plan(plan_json);
  CAF_REQUIRE_EQUAL(reads.relations.size(), 2u);
  CAF_CHECK_EQUAL(reads.relations[0].name, "dept");
  CAF_CHECK_EQUAL(reads.relations[1].name, "emp_0");
  CAF_CHECK_EQUAL(reads.relations[1].schema, "public");
  CAF_REQUIRE_EQUAL(reads.functions.size(), 1u);
  CAF_CHECK_EQUAL(reads.functions[0].schema, "shop");
  CAF_CHECK(!reads.writes);
  CAF_CHECK(read_plan(R"([{"Plan": {"Node Type": "ModifyTable", "Relation Name": "x", "Schema": "public"}}])").writes);
  bool thrown = false;
  try {
    read_plan("{");
  } catch (const std::invalid_argument&) {
    thrown = true;
  }
  CAF_CHECK(thrown);
}

CAF_TEST(the demo kinds pass against the demo schema) {
  auto dsn = create_demo_database("kindcheck_demo", 2, 1);
  connection c{dsn};
  auto found = check_kinds(c);
  for (const auto& r : found)
    CAF_MESSAGE(r.reason);
  CAF_CHECK(found.empty());
}

CAF_TEST(a master with partitioned details and a view over watched tables pass) {
  const char* const line_reads =
    R"({ table = "shop_line", columns = ["order_code", "sku", "qty"], keys = ["orders:order_code"] })";
  auto master_detail = orders_file(R"(
SELECT o.code, o.placed, o.total, o.paid, o.note, l.sku, l.qty
  FROM shop_order o LEFT JOIN shop_line l ON l.order_code = o.code WHERE o.code = $1 ORDER BY l.sku)",
                                   std::string{order_fields} + R"(, { name = "paid", column = 4, type = "boolean" },
  { name = "note", column = 5, type = "json" })",
                                   std::string{order_reads} + ", " + line_reads, "text",
                                   R"(
[kind.detail]
name = "lines"
present_column = 6
fields = [{ name = "sku", column = 6, type = "text" }, { name = "qty", column = 7, type = "number" }]
[kind.populate]
sql = '''
SELECT o.code, o.placed, o.total, o.paid, o.note, l.sku, l.qty
  FROM (SELECT * FROM shop_order WHERE code > $1 ORDER BY code LIMIT $2) o
  LEFT JOIN shop_line l ON l.order_code = o.code ORDER BY o.code, l.sku'''
count_sql = "SELECT count(*) FROM shop_order"
key_column = 1
)");
  CAF_CHECK_EQUAL(reasons(master_detail), "");
  CAF_CHECK_EQUAL(reasons(orders_file("SELECT code, placed, total FROM order_only WHERE code = $1", order_fields,
                                      order_reads)),
                  "");
}

CAF_TEST(a key parameter of another type is refused) {
  CAF_CHECK(refused_with(orders_file("SELECT code, placed, total FROM shop_order WHERE code = $1", order_fields,
                                     order_reads, "int4"),
                         "kind 'orders': its statement's $1 is text, which does not take the kind's int4 keys"
                         " (cast it: $1::int4)"));
}

CAF_TEST(a column of a type its field is not written from is refused) {
  CAF_CHECK(refused_with(orders_file("SELECT code, placed, total, code FROM shop_order WHERE code = $1",
                                     std::string{order_fields} + R"(, { name = "extra", column = 4, type = "json" })",
                                     order_reads),
                         "field 'extra' (json) is column 4 of its statement, which is text:"
                         " a json field takes json or jsonb"));
  CAF_CHECK(refused_with(orders_file("SELECT code, placed, total FROM shop_order WHERE code = $1",
                                     std::string{order_fields} + R"(, { name = "extra", column = 4, type = "text" })",
                                     order_reads),
                         "field 'extra' reads column 4 but its statement answers 3"));
}

CAF_TEST(row columns must be the primary key of the table read as the statement returns it) {
  auto with_rows = [](const std::string& rows) {
    return std::string{R"({ table = "shop_order", columns = ["code", "placed", "total"], keys = ["orders:code"], )"}
           + "row_columns = " + rows + " }";
  };
  auto sql = "SELECT code, placed, total, code || '' FROM shop_order WHERE code = $1";
  CAF_CHECK_EQUAL(reasons(orders_file(sql, order_fields, with_rows("[1]"))), "");
  CAF_CHECK(refused_with(orders_file(sql, order_fields, with_rows("[4]")),
                         "kind 'orders': its read of shop_order declares row_columns that are not, column for "
                         "column, its statement's plain columns shop_order.code (the table's key column)"));
  CAF_CHECK(refused_with(orders_file(sql, order_fields, with_rows("[2]")), "declares row_columns that are not"));
  CAF_CHECK(refused_with(orders_file(sql, order_fields, with_rows("[1, 2]")), "declares row_columns that are not"));
  // A table with no primary key has no identity to name its rows by.
  auto lines = std::string{order_reads}
               + R"(, { table = "shop_line", columns = ["order_code", "sku"], keys = ["orders:order_code"], )"
                 R"(row_columns = [4] })";
  CAF_CHECK(refused_with(orders_file("SELECT o.code, o.placed, o.total, l.sku FROM shop_order o"
                                     " LEFT JOIN shop_line l ON l.order_code = o.code WHERE o.code = $1",
                                     order_fields, lines),
                         "its read of shop_line declares row_columns, but shop_line has no primary key"));
}

CAF_TEST(a table read but not watched is refused also through a view) {
  const char* const named = "its statement reads table public.customer, which its reads do not name";
  CAF_CHECK(refused_with(orders_file("SELECT o.code, o.placed, c.name FROM shop_order o"
                                     " JOIN customer c ON c.id = o.customer_id WHERE o.code = $1",
                                     order_fields, order_reads),
                         named));
  CAF_CHECK(refused_with(orders_file("SELECT code, placed, name FROM order_with_customer WHERE code = $1",
                                     order_fields, order_reads),
                         named));
}

CAF_TEST(a kind with a ttl may read tables no trigger watches and through functions) {
  // The TTL bounds how long a change to them goes unseen.
  CAF_CHECK_EQUAL(reasons(orders_file("SELECT o.code, o.placed, o.total FROM shop_order o"
                                      " JOIN customer c ON c.id = o.customer_id WHERE o.code = $1 AND c.name > ''",
                                      order_fields, order_reads, "text", "ttl = 30\n")),
                  "");
  CAF_CHECK_EQUAL(reasons(orders_file("SELECT order_code, now(), sum(qty) FROM lines_of($1) GROUP BY 1",
                                      order_fields, order_reads, "text", "ttl = 30\n")),
                  "");
  // What it reads must still exist, and the statement must still only read.
  CAF_CHECK(refused_with(orders_file("SELECT code, placed, total FROM no_such_table WHERE code = $1", order_fields,
                                     order_reads, "text", "ttl = 30\n"),
                         "relation \"no_such_table\" does not exist"));
}

CAF_TEST(a dependency two hops away is refused) {
  // A product's title in an order's lines: a product row names no order.
  auto file = orders_file(R"(
SELECT o.code, o.placed, o.total, p.title FROM shop_order o
  LEFT JOIN shop_line l ON l.order_code = o.code LEFT JOIN product p ON p.sku = l.sku WHERE o.code = $1)",
                          std::string{order_fields} + R"(, { name = "title", column = 4, type = "text" })",
                          std::string{order_reads}
                            + R"(, { table = "shop_line", columns = ["order_code", "sku"], keys = ["orders:order_code"] },
  { table = "product", columns = ["sku", "title"], keys = ["products:sku"] })");
  CAF_CHECK(refused_with(file, "its statement reads table public.product, whose rows give no key of key space 'orders'"
                               " (its reads key it as 'products:sku'): a change to it would change documents no logged"
                               " key names, a dependency more than one hop away"));
}

CAF_TEST(statements that do not prepare or write or read through functions are refused) {
  CAF_CHECK(refused_with(orders_file("SELECT code, placed, total FROM no_such_table WHERE code = $1", order_fields,
                                     order_reads),
                         "kind 'orders': its statement does not prepare: prepare restcache_kind_check_1: ERROR:  "
                         "relation \"no_such_table\" does not exist"));
  CAF_CHECK(refused_with(orders_file("SELECT code, placed, total FROM no_such_table WHERE code = $1", order_fields,
                                     order_reads),
                         "(SQLSTATE 42P01) [missing]"));
  // A syntax error is the file's own mistake, not something the database lacks.
  auto syntax = reasons(orders_file("SELECT code, placed, total FRM shop_order WHERE code = $1", order_fields,
                                    order_reads));
  CAF_CHECK(syntax.find("(SQLSTATE 42601)\n") != std::string::npos);
  CAF_CHECK(refused_with(orders_file("SELECT order_code, NULL::timestamptz, qty FROM lines_of($1)", order_fields,
                                     order_reads),
                         "its statement calls function public.lines_of (LANGUAGE plpgsql, STABLE), whose body "
                         "PostgreSQL does not parse ahead: the tables it reads cannot be seen"));
  CAF_CHECK(refused_with(orders_file("WITH gone AS (DELETE FROM shop_order WHERE code = $1 RETURNING *)"
                                     " SELECT code, placed, total FROM gone",
                                     order_fields, order_reads),
                         "its statement writes (INSERT, UPDATE, DELETE or MERGE)"));
}

CAF_TEST(reads of missing tables and columns and keys of the wrong type are refused) {
  CAF_CHECK(refused_with(orders_file("SELECT code, placed, total FROM shop_order WHERE code = $1", order_fields,
                                     std::string{order_reads}
                                       + R"(, { table = "shop_lines", columns = ["sku"], keys = ["orders:sku"] })"),
                         "it reads table shop_lines, which does not exist (as the session's search_path resolves it)"
                         " [missing]"));
  CAF_CHECK(refused_with(orders_file("SELECT code, placed, total FROM shop_order WHERE code = $1", order_fields,
                                     R"({ table = "shop_order", columns = ["code", "placd"], keys = ["orders:code"] })"),
                         "table shop_order has no column placd (its reads name it) [missing]"));
  CAF_CHECK(refused_with(orders_file("SELECT code, placed, total FROM shop_order WHERE code = $1", order_fields,
                                     std::string{order_reads}
                                       + R"(, { table = "shop_line", columns = ["qty"], keys = ["orders:qty"] })"),
                         "column shop_line.qty is integer, which does not give the text keys of key space 'orders'"
                         " [missing]\n"));
}

CAF_TEST(what a view or a function reads counts as read and a body not parsed ahead is refused) {
  // A function with a SQL-standard body: PostgreSQL records what it reads.
  CAF_CHECK(refused_with(orders_file("SELECT code, placed, customer_name(customer_id) FROM shop_order WHERE code = $1",
                                     order_fields, order_reads),
                         "its statement reads table public.customer, which its reads do not name"));
  // One whose body is plpgsql records only that it is called.
  CAF_CHECK(refused_with(orders_file("SELECT code, placed, total FROM shop_order WHERE code = $1"
                                     " AND order_label(code) <> ''",
                                     order_fields, order_reads),
                         "its statement calls function public.order_label (LANGUAGE plpgsql, STABLE), whose body "
                         "PostgreSQL does not parse ahead"));
  // IMMUTABLE says it reads no table.
  CAF_CHECK_EQUAL(reasons(orders_file("SELECT order_tag(code), placed, total FROM shop_order WHERE code = $1",
                                      order_fields, order_reads)),
                  "");
}

CAF_TEST(a materialized view is refused with the reason) {
  CAF_CHECK(refused_with(orders_file("SELECT code, placed, total FROM order_totals WHERE code = $1", order_fields,
                                     R"({ table = "order_totals", columns = ["code", "placed", "total"], keys = ["orders:code"] })"),
                         "it reads order_totals, a materialized view: REFRESH MATERIALIZED VIEW replaces its rows "
                         "without firing a row trigger"));
  CAF_CHECK(refused_with(orders_file("SELECT code, placed, total FROM order_totals WHERE code = $1", order_fields,
                                     order_reads),
                         "its statement reads materialized view public.order_totals"));
}

CAF_TEST(what a kind depends on is found from pg_depend) {
  auto d = declarations::parse_declarations(
    orders_file("SELECT v.code, v.placed, v.total, o.state, customer_name(o.customer_id) FROM order_only v"
                " JOIN shop_order o ON o.code = v.code WHERE v.code = $1",
                order_fields, std::string{order_reads} + R"(, { table = "customer", columns = ["id", "name"], keys = ["customers:id"] })"),
    "shop.toml");
  CAF_REQUIRE(d.ok());
  install_catalogue(std::move(d.kinds));
  connection c{shop_dsn()};
  auto checked = check_kinds_and_dependencies(c);
  demo::install_demo();
  CAF_REQUIRE_EQUAL(checked.dependencies.size(), 1u);
  const auto& deps = checked.dependencies[0];
  CAF_CHECK(deps.known);
  auto has = [&](const std::string& sql) {
    auto id = std::string{c.exec(sql).text(0, 0)};
    return std::find(deps.objects.begin(), deps.objects.end(), id) != deps.objects.end();
  };
  CAF_CHECK(has("SELECT 'c' || 'order_only'::regclass::oid"));                    // the view
  CAF_CHECK(has("SELECT 'p' || 'customer_name(int)'::regprocedure::oid"));        // the function
  CAF_CHECK(has("SELECT 'a' || 'shop_order'::regclass::oid || '.' || attnum FROM pg_attribute"
                " WHERE attrelid = 'shop_order'::regclass AND attname = 'state'")); // the enum column
  CAF_CHECK(has("SELECT 'a' || 'customer'::regclass::oid || '.' || attnum FROM pg_attribute"
                " WHERE attrelid = 'customer'::regclass AND attname = 'name'"));  // read in the function's body
  CAF_CHECK(std::is_sorted(deps.objects.begin(), deps.objects.end()));
}

namespace {

/// A file of one text kind "items" reading `table` by `where`.
std::string items_file(const std::string& table, const std::string& where) {
  return "format = 1\n[[kind]]\nname = \"items\"\nroute = \"/items/{code}\"\nkey = \"text\"\n"
         "sql = \"SELECT code::text, title FROM " + table + " WHERE " + where + "\"\n"
         "fields = [{ name = \"code\", column = 1, type = \"text\" }, { name = \"title\", column = 2, type = \"text\" }]\n"
         "reads = [{ table = \"" + table + "\", columns = [\"code\", \"title\"], keys = [\"items:code\"] }]\n";
}

/// How check_kinds_and_dependencies finds the one kind of `toml` compares its keys.
std::optional<key_comparison> comparison_of(const std::string& toml) {
  auto d = declarations::parse_declarations(toml, "items.toml");
  if (!d.ok()) {
    CAF_FAIL("the file itself is refused: " << d.error_text());
  }
  install_catalogue(std::move(d.kinds));
  connection c{shop_dsn()};
  auto checked = check_kinds_and_dependencies(c);
  demo::install_demo();
  for (const auto& r : checked.refusals)
    CAF_MESSAGE(r.reason);
  if (checked.comparisons.size() != 1)
    return std::nullopt;
  return checked.comparisons[0].comparison;
}

} // namespace

CAF_TEST(how a text kind compares its keys is found from its key parameter) {
  CAF_CHECK(comparison_of(items_file("citem", "code = $1")) == (key_comparison{true, false}));
  CAF_CHECK(comparison_of(items_file("bitem", "code = $1")) == (key_comparison{false, true}));
  // Cast to text, a citext column is compared byte for byte.
  CAF_CHECK(comparison_of(items_file("citem", "code = $1::text")) == key_comparison{});
  CAF_CHECK(comparison_of(items_file("bitem", "code::text = $1")) == key_comparison{});
  CAF_CHECK(refused_with(items_file("nitem", "code = $1"),
                         "column nitem.code (its key of key space 'items') is compared under the nondeterministic "
                         "collation nocase: restcache cannot tell which spellings of a key are one document"));
}
