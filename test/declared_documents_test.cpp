// SPDX-License-Identifier: Apache-2.0
#define CAF_SUITE declared_documents

// documents.file: a daemon serving the kinds a declaration file declares,
// and nothing of the demo's, over a table this suite creates (an order keyed
// by text, with a timestamp, a numeric, a boolean and a jsonb column). The
// table is watched as restcache-load --schema-only watches it
// (pg::ensure_schema, under the file's catalogue).

#include <caf/test/dsl.hpp>

#include <chrono>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "app/startup.hpp"
#include "demo/demo_routes.hpp"
#include "messages/doc_catalogue.hpp"
#include "persistence/pg/connection.hpp"
#include "persistence/pg/schema.hpp"
#include "test/fixtures/child_program.hpp"
#include "test/fixtures/http_client.hpp"
#include "test/fixtures/in_process_daemon.hpp"
#include "test/fixtures/private_pg.hpp"
#include "test/fixtures/test_support.hpp"

using namespace restcache;
using namespace restcache::test;

namespace {

// A key with characters a path escapes: '/', ' ' and a non-ASCII letter.
const std::string odd_code = "A/1 \xc3\xbc";
const std::string odd_path = "/orders/A%2F1%20%C3%BC";

const char* const shop_declarations = R"toml(
format = 1

[[kind]]
name = "orders"
route = "/orders/{code}"
key = "text"
noun = "order"
sql = '''
SELECT code, placed, total, paid, note FROM shop_order WHERE code = $1'''
fields = [
  { name = "code", column = 1, type = "text" },
  { name = "placed", column = 2, type = "timestamp" },
  { name = "total", column = 3, type = "number" },
  { name = "paid", column = 4, type = "boolean" },
  { name = "note", column = 5, type = "json" },
]
reads = [
  { table = "shop_order", columns = ["code", "placed", "total", "paid", "note"], keys = ["orders:code"] },
]
)toml";

const std::string& shop_dsn() {
  static const std::string dsn = [] {
    auto d = create_demo_database("declared", 3, 1);
    pg::connection c{d};
    c.exec("CREATE TABLE shop_order (code text PRIMARY KEY, placed timestamptz, total numeric(10,2),"
           " paid boolean, note jsonb)");
    c.exec_params("INSERT INTO shop_order VALUES ($1, '2026-01-02 03:04:05+00', 12.50, true, '{\"gift\": true}'),"
                  " ('B2', '2026-02-03 04:05:06+00', 7, false, NULL)",
                  {odd_code});
    return d;
  }();
  return dsn;
}

/// Puts the demo back (its kinds and its routes) when a test is done.
struct demo_back {
  ~demo_back() { demo::install_demo(); }
};

std::string write_file(const temp_dir& dir, const std::string& text) {
  auto path = dir.path + "/shop.toml";
  std::ofstream{path} << text;
  return path;
}

} // namespace

CAF_TEST(a declared file is served alone and kept fresh) {
  demo_back restore;
  temp_dir dir{"declared"};
  daemon_options o;
  o.documents_file = write_file(dir, shop_declarations);
  startup::install_documents(o);
  CAF_REQUIRE_EQUAL(doc_catalogue().size(), 1u);
  CAF_CHECK_EQUAL(doc_catalogue()[0].name, "orders");
  {
    pg::connection c{shop_dsn()};
    pg::ensure_schema(c); // watches shop_order, as restcache-load --schema-only does
    CAF_CHECK_EQUAL(c.exec("SELECT count(*) FROM restcache_watched_key WHERE table_name = 'shop_order'"
                           " AND key_space = 'orders' AND key_column = 'code'")
                      .int64(0, 0),
                    1);
  }
  in_process_daemon d{shop_dsn(), {"--documents.file=" + o.documents_file, "--cache.mode=memory"}};
  auto ready = get_until(d.port(), "/ready", [](const http_response& r) { return r.status == 200; });
  CAF_REQUIRE_EQUAL(ready.status, 200);
  http_client c{d.port()};
  auto first = c.get(odd_path);
  CAF_CHECK_EQUAL(first.status, 200);
  CAF_CHECK_EQUAL(first.body, R"({"code":"A/1 ü","placed":"2026-01-02T03:04:05+00:00","total":12.50,"paid":true,)"
                              R"("note":{"gift": true}})");
  CAF_CHECK_EQUAL(c.get(odd_path).header_or_empty("Cache-Status"), "restcache; hit; detail=memory");
  auto second = c.get("/orders/B2");
  CAF_CHECK_EQUAL(second.body, R"({"code":"B2","placed":"2026-02-03T04:05:06+00:00","total":7.00,"paid":false})");
  auto missing = c.get("/orders/C3");
  CAF_CHECK_EQUAL(missing.status, 404);
  CAF_CHECK(missing.body.find("order C3 does not exist") != std::string::npos);
  // Nothing of the demo: its documents, its writes, its list, its id set.
  CAF_CHECK_EQUAL(c.get("/deptemps/1").status, 404);
  CAF_CHECK_EQUAL(c.get("/depts/random").status, 404);
  CAF_CHECK_EQUAL(c.get("/depts?after=0").status, 404);
  CAF_CHECK_EQUAL(c.request("DELETE", "/depts/1").status, 404);
  auto metrics = c.get("/metrics");
  CAF_CHECK(metrics.body.find("restcache_dept_ids") == std::string::npos);
  // Its OpenAPI document describes its kind and nothing of the demo's.
  auto openapi = c.get("/openapi.json").body;
  CAF_CHECK(openapi.find("\"/orders/{code}\": {") != std::string::npos);
  CAF_CHECK(openapi.find("\"maxLength\": 255") != std::string::npos);
  CAF_CHECK(openapi.find("\"format\": \"date-time\"") != std::string::npos);
  CAF_CHECK(openapi.find("/deptemps/") == std::string::npos);
  CAF_CHECK(openapi.find("/depts") == std::string::npos);
  CAF_CHECK(metrics.body.find(R"(restcache_http_requests_total{method="GET",route="/orders/{key}",status="200"})")
            != std::string::npos);
  // A committed change reaches the cached document.
  pg::connection db{shop_dsn()};
  db.exec_params("UPDATE shop_order SET paid = false, note = NULL WHERE code = $1", {odd_code});
  auto changed = get_until(d.port(), odd_path, [](const http_response& r) {
    return r.body.find(R"("paid":false)") != std::string::npos;
  });
  CAF_CHECK_EQUAL(changed.body, R"({"code":"A/1 ü","placed":"2026-01-02T03:04:05+00:00","total":12.50,"paid":false})");
}

CAF_TEST(a refused file stops the start with every reason and changes nothing) {
  demo_back restore;
  temp_dir dir{"declared-refused"};
  std::string text = shop_declarations;
  text.replace(text.find("\"text\"\nnoun"), 6, "\"serial\"");
  text.replace(text.find("type = \"json\""), 13, "type = \"jsonb\"");
  daemon_options o;
  o.documents_file = write_file(dir, text);
  std::string what;
  try {
    startup::install_documents(o);
  } catch (const std::runtime_error& e) {
    what = e.what();
  }
  CAF_CHECK(what.find("documents.file " + o.documents_file + " is refused") != std::string::npos);
  CAF_CHECK(what.find(o.documents_file + ":7: kind 'orders': key 'serial' is none of int4, int8, text, uuid")
            != std::string::npos);
  CAF_CHECK(what.find("type 'jsonb' is none of") != std::string::npos);
  CAF_CHECK(find_doc_kind("deptemps") != nullptr); // the catalogue is as it was
  o.documents_file = dir.path + "/none.toml";
  what.clear();
  try {
    startup::install_documents(o);
  } catch (const std::runtime_error& e) {
    what = e.what();
  }
  CAF_CHECK(what.find("none.toml: cannot be read") != std::string::npos);
}

CAF_TEST(a file the database refuses stops the start and restcache-load installs nothing for it) {
  demo_back restore;
  temp_dir dir{"declared-db-refused"};
  // The customer's name joined in, its table not among the reads. (A
  // column of it is read: a join that reads none is removed by the planner.)
  std::string text = shop_declarations;
  text.replace(text.find("note FROM shop_order WHERE code = $1"), 36,
               "note, shop_customer.name FROM shop_order LEFT JOIN shop_customer ON shop_customer.id = 1"
               " WHERE code = $1");
  {
    pg::connection c{shop_dsn()};
    c.exec("CREATE TABLE IF NOT EXISTS shop_customer (id int PRIMARY KEY, name text)");
  }
  auto path = write_file(dir, text);
  auto loaded = run_program({RESTCACHE_LOAD_BIN, "--dsn", shop_dsn(), "--documents", path, "--schema-only", "--feed", "triggers"});
  CAF_CHECK_EQUAL(loaded.status, 2);
  CAF_CHECK(loaded.err.find("--documents is refused by the database; nothing installed") != std::string::npos);
  CAF_CHECK(loaded.err.find("kind 'orders': its statement reads table public.shop_customer, which its reads do "
                            "not name")
            != std::string::npos);
  auto verified = run_program({RESTCACHE_LOAD_BIN, "--dsn", shop_dsn(), "--documents", path, "--verify"});
  CAF_CHECK_EQUAL(verified.status, 3);
  auto planned = run_program({RESTCACHE_LOAD_BIN, "--dsn", shop_dsn(), "--documents", path, "--plan"});
  CAF_CHECK_EQUAL(planned.status, 3);
  CAF_CHECK(planned.out.find("kinds: refused: --schema-only installs nothing") != std::string::npos);
  CAF_CHECK(verified.out.find("kinds: refused") != std::string::npos);
  daemon_options o;
  o.documents_file = path;
  startup::install_documents(o);
  {
    pg::connection c{shop_dsn()};
    pg::ensure_schema(c); // this build's schema: the daemon checks its kinds
  }
  std::string what;
  try {
    in_process_daemon d{shop_dsn(), {"--documents.file=" + path, "--cache.mode=memory"}};
  } catch (const std::runtime_error& e) {
    what = e.what();
  }
  CAF_CHECK(what.find("documents.file " + path + " refused by the database:\nkind 'orders': its statement reads "
                      "table public.shop_customer")
            != std::string::npos);
}

CAF_TEST(restcache-load plans then watches a file's tables and creates none of the demo's) {
  temp_dir dir{"declared-load"};
  auto dsn = shared_private_pg().create_database("declared_load");
  {
    pg::connection c{dsn};
    c.exec("CREATE TABLE shop_order (code text PRIMARY KEY, placed timestamptz, total numeric(10,2),"
           " paid boolean, note jsonb)");
  }
  auto path = write_file(dir, shop_declarations);
  // --plan says what --schema-only would install, and installs nothing.
  auto planned = run_program({RESTCACHE_LOAD_BIN, "--dsn", dsn, "--documents", path, "--plan"});
  CAF_CHECK_EQUAL(planned.status, 0);
  CAF_CHECK(planned.out.find("schema: would install version") != std::string::npos);
  CAF_CHECK(planned.out.find("watch: would log key space orders from shop_order.code") != std::string::npos);
  CAF_CHECK(planned.out.find("demo:") == std::string::npos);
  CAF_CHECK(pg::connection{dsn}.exec("SELECT to_regclass('restcache_schema') IS NULL").text(0, 0) == "t");
  auto loaded = run_program({RESTCACHE_LOAD_BIN, "--dsn", dsn, "--documents", path, "--schema-only", "--feed", "triggers"});
  CAF_CHECK_EQUAL(loaded.status, 0);
  CAF_CHECK(planned.out.find("declarations: would apply this file's") != std::string::npos);
  auto again = run_program({RESTCACHE_LOAD_BIN, "--dsn", dsn, "--documents", path, "--plan"});
  CAF_CHECK(again.out.find("watch: every key the kinds need is watched already") != std::string::npos);
  CAF_CHECK(again.out.find("declarations: applied from " + path + " at ") != std::string::npos);
  CAF_CHECK(again.out.find(", this file's\n") != std::string::npos);
  // Without --documents, the demo's plan: its tables would be created first.
  auto demo = run_program({RESTCACHE_LOAD_BIN, "--dsn", dsn, "--plan"});
  CAF_CHECK_EQUAL(demo.status, 0);
  CAF_CHECK(demo.out.find("kinds: the demo's, checked once its tables exist") != std::string::npos);
  CAF_CHECK(demo.out.find("demo: would create table dept\ndemo: would create table emp") != std::string::npos);
  CAF_CHECK(demo.out.find("watch: would log key space dept from emp.deptno") != std::string::npos);
  pg::connection c{dsn};
  CAF_CHECK_EQUAL(c.exec("SELECT count(*) FROM pg_trigger WHERE tgrelid = 'shop_order'::regclass"
                         " AND tgname IN ('restcache_changed', 'restcache_truncated')")
                    .int64(0, 0),
                  2);
  CAF_CHECK(c.exec("SELECT to_regclass('dept') IS NULL AND to_regclass('emp') IS NULL").text(0, 0) == "t");
  CAF_CHECK_EQUAL(c.exec("SELECT count(*) FROM restcache_watched_key WHERE table_name <> 'shop_order'").int64(0, 0),
                  0);
  auto verified = run_program({RESTCACHE_LOAD_BIN, "--dsn", dsn, "--documents", path, "--verify"});
  CAF_CHECK_EQUAL(verified.status, 0);
  CAF_CHECK(verified.out.find("kinds: every statement prepares and every table it reads is watched")
            != std::string::npos);
  CAF_CHECK(verified.out.find("declarations: applied from " + path) != std::string::npos);
}

CAF_TEST(a key joined from two columns by a generated column is served as one escaped segment) {
  demo_back restore;
  temp_dir dir{"declared-joined"};
  auto dsn = shared_private_pg().create_database("declared_joined");
  {
    pg::connection c{dsn};
    c.exec("CREATE TABLE tenant_order (tenant text NOT NULL, id int NOT NULL, item text,"
           " doc_key text GENERATED ALWAYS AS (tenant || '/' || id) STORED, PRIMARY KEY (tenant, id))");
    c.exec("INSERT INTO tenant_order (tenant, id, item) VALUES ('acme', 7, 'anvil'), ('acme', 8, 'rope')");
  }
  auto path = write_file(dir, R"(format = 1
[[kind]]
name = "tenant_orders"
route = "/tenant-orders/{key}"
key = "text"
sql = "SELECT tenant, id, item FROM tenant_order WHERE doc_key = $1"
fields = [
  { name = "tenant", column = 1, type = "text" },
  { name = "id", column = 2, type = "number" },
  { name = "item", column = 3, type = "text" },
]
reads = [{ table = "tenant_order", columns = ["tenant", "id", "item", "doc_key"], keys = ["tenant_orders:doc_key"] }]
)");
  CAF_REQUIRE_EQUAL(run_program({RESTCACHE_LOAD_BIN, "--dsn", dsn, "--documents", path, "--schema-only", "--feed", "triggers"}).status, 0);
  daemon_options o;
  o.documents_file = path;
  startup::install_documents(o);
  in_process_daemon d{dsn, {"--documents.file=" + path, "--cache.mode=memory"}};
  CAF_REQUIRE_EQUAL(get_until(d.port(), "/ready", [](const http_response& r) { return r.status == 200; }).status, 200);
  http_client c{d.port()};
  CAF_CHECK_EQUAL(c.get("/tenant-orders/acme%2F7").body, R"({"tenant":"acme","id":7,"item":"anvil"})");
  CAF_CHECK_EQUAL(c.get("/tenant-orders/acme%2F7").header_or_empty("Cache-Status"), "restcache; hit; detail=memory");
  // A change to either part changes the key: the old and the new document.
  pg::connection{dsn}.exec("UPDATE tenant_order SET id = 9, item = 'anvil (boxed)' WHERE tenant = 'acme' AND id = 7");
  CAF_CHECK_EQUAL(get_until(d.port(), "/tenant-orders/acme%2F7", [](const http_response& r) { return r.status == 404; })
                    .status,
                  404);
  CAF_CHECK_EQUAL(c.get("/tenant-orders/acme%2F9").body, R"j({"tenant":"acme","id":9,"item":"anvil (boxed)"})j");
}

namespace {

/// One row of docs/declarations.md's "How values are written" table.
struct value_format {
  std::string field_type; ///< the declaration's field type
  std::string column_type;
  std::string stored;     ///< the SQL value stored in the column
  std::string served;     ///< the JSON text the document holds for it
};

/// The table as the documentation prints it: the test serves exactly what
/// the page says, so the page cannot drift from the daemon.
std::vector<value_format> documented_value_formats() {
  std::ifstream in{std::string{RESTCACHE_SOURCE_DIR} + "/docs/declarations.md"};
  std::vector<value_format> rows;
  bool in_section = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("## ", 0) == 0)
      in_section = line == "## How values are written";
    if (!in_section || line.rfind("| `", 0) != 0)
      continue;
    std::vector<std::string> cells;
    std::string_view rest{line};
    rest.remove_prefix(2);
    while (!rest.empty()) {
      auto end = rest.find(" |");
      auto cell = rest.substr(0, end);
      CAF_REQUIRE(cell.size() >= 2 && cell.front() == '`' && cell.back() == '`');
      cells.emplace_back(cell.substr(1, cell.size() - 2));
      rest = end == std::string_view::npos ? std::string_view{} : rest.substr(std::min(rest.size(), end + 3));
    }
    CAF_REQUIRE_EQUAL(cells.size(), 4u);
    rows.push_back({cells[0], cells[1], cells[2], cells[3]});
  }
  return rows;
}

} // namespace

CAF_TEST(every value is served as the table in the documentation says) {
  demo_back restore;
  auto formats = documented_value_formats();
  CAF_REQUIRE(formats.size() >= 20);
  temp_dir dir{"declared-formats"};
  auto dsn = shared_private_pg().create_database("value_formats");
  std::string columns, values, selected, fields, read_columns = "\"k\"";
  std::string with_nulls = "{", without_nulls = "{";
  for (size_t i = 0; i < formats.size(); ++i) {
    const auto& f = formats[i];
    std::string name = "c";
    name += std::to_string(i + 1);
    columns += ", " + name + " " + f.column_type;
    values += ", (" + f.stored + ")::" + f.column_type;
    selected += (i ? ", " : "") + name;
    fields += "  { name = \"" + name + "\", column = " + std::to_string(i + 1) + ", type = \"" + f.field_type + "\" },\n";
    read_columns += ", \"" + name + "\"";
    const auto member = "\"" + name + "\":" + f.served;
    with_nulls += (i ? "," : "") + member;
    if (f.stored != "NULL")
      without_nulls += (without_nulls.size() > 1 ? "," : "") + member;
  }
  with_nulls += "}";
  without_nulls += "}";
  {
    pg::connection c{dsn};
    c.exec("CREATE TABLE value_formats (k int PRIMARY KEY" + columns + ")");
    c.exec("INSERT INTO value_formats VALUES (1" + values + ")");
  }
  // The database's own output settings differ from the ones restcache pins
  // on its sessions, and then the role's in it do: the documents must not
  // follow either.
  auto set_output = [&](const std::string& level, const std::vector<std::string>& settings) {
    pg::connection c{dsn};
    for (const auto& s : settings)
      c.exec("DO $$ BEGIN EXECUTE format('ALTER " + level + " SET " + s + "', current_database()); END $$");
  };
  set_output("DATABASE %I", {"TimeZone = ''Asia/Kolkata''", "DateStyle = ''SQL, DMY''", "IntervalStyle = ''postgres''",
                             "extra_float_digits = 0", "bytea_output = ''escape''"});
  auto kind = [&](const std::string& name, const std::string& route, const std::string& nulls) {
    return "[[kind]]\nname = \"" + name + "\"\nroute = \"" + route + "\"\nkey = \"int4\"\nkey_space = \"formats\"\n"
           + "nulls = \"" + nulls + "\"\nsql = \"SELECT " + selected + " FROM value_formats WHERE k = $1::int\"\n"
           + "fields = [\n" + fields + "]\nreads = [{ table = \"value_formats\", columns = [" + read_columns
           + "], keys = [\"formats:k\"] }]\n";
  };
  auto path = write_file(dir, "format = 1\n" + kind("formats", "/formats/{k}", "null")
                                + kind("formats_omitted", "/formats-omitted/{k}", "omit"));
  auto loaded = run_program({RESTCACHE_LOAD_BIN, "--dsn", dsn, "--documents", path, "--schema-only", "--feed", "triggers"});
  CAF_REQUIRE_EQUAL(loaded.status, 0);
  // A first install says nothing that looks like a failure ("trigger ... does
  // not exist, skipping").
  CAF_CHECK(loaded.err.find("NOTICE") == std::string::npos);
  daemon_options o;
  o.documents_file = path;
  startup::install_documents(o);
  auto serves_the_table = [&] {
    in_process_daemon d{dsn, {"--documents.file=" + path, "--cache.mode=memory"}};
    CAF_REQUIRE_EQUAL(get_until(d.port(), "/ready", [](const http_response& r) { return r.status == 200; }).status,
                      200);
    http_client c{d.port()};
    auto served = c.get("/formats/1");
    CAF_CHECK_EQUAL(served.status, 200);
    CAF_CHECK_EQUAL(served.body, with_nulls);
    for (size_t i = 0; i < formats.size(); ++i) // each row on its own, so a failure names it
      CHECK_SAYING(served.body.find("\"c" + std::to_string(i + 1) + "\":" + formats[i].served) != std::string::npos,
                   formats[i].column_type << " " << formats[i].stored << " is not served as " << formats[i].served);
    CAF_CHECK_EQUAL(c.get("/formats-omitted/1").body, without_nulls);
  };
  serves_the_table();
  set_output("ROLE CURRENT_USER IN DATABASE %I",
             {"TimeZone = ''America/St_Johns''", "DateStyle = ''German''", "IntervalStyle = ''sql_standard''",
              "extra_float_digits = 3", "bytea_output = ''escape''"});
  serves_the_table();
}

CAF_TEST(a renamed key column fails no write and the file naming its new name is applied) {
  temp_dir dir{"declared-renamed"};
  auto dsn = shared_private_pg().create_database("declared_renamed");
  pg::connection db{dsn};
  db.exec("CREATE TABLE book (isbn text PRIMARY KEY, title text, author_id int)");
  db.exec("INSERT INTO book VALUES ('978-0', 'One', 1), ('978-1', 'Two', 2)");
  auto declaration = [](const std::string& author) {
    return "format = 1\n[[kind]]\nname = \"books\"\nroute = \"/books/{isbn}\"\nkey = \"text\"\n"
           "sql = \"SELECT isbn, title, " + author + " FROM book WHERE isbn = $1\"\n"
           "fields = [{ name = \"isbn\", column = 1, type = \"text\" }, { name = \"title\", column = 2, type = \"text\" },"
           " { name = \"author\", column = 3, type = \"number\" }]\n"
           "reads = [{ table = \"book\", columns = [\"isbn\", \"title\", \"" + author + "\"],"
           " keys = [\"books:isbn\", \"authors:" + author + "\"] }]\n";
  };
  auto path = write_file(dir, declaration("author_id"));
  CAF_REQUIRE_EQUAL(run_program({RESTCACHE_LOAD_BIN, "--dsn", dsn, "--documents", path, "--schema-only", "--feed", "triggers"}).status, 0);
  auto logged_keys = [&](const std::string& write) {
    auto before = db.exec("SELECT coalesce(max(seq), 0) FROM change_log").int64(0, 0);
    db.exec(write); // throws, failing the test, when the write fails
    auto r = db.exec_params("SELECT string_agg(k, ' ' ORDER BY k) FROM change_log, unnest(keys) AS k"
                            " WHERE seq > $1::bigint",
                            {std::to_string(before)});
    return std::string{r.text(0, 0)};
  };
  CAF_CHECK_EQUAL(logged_keys("UPDATE book SET title = 'One!' WHERE isbn = '978-0'"), "authors:1 books:978-0");
  // A migration renames the key column: writes go on, logging the whole table.
  db.exec("ALTER TABLE book RENAME COLUMN author_id TO writer_id");
  CAF_CHECK_EQUAL(logged_keys("UPDATE book SET writer_id = 3 WHERE isbn = '978-1'"), "*:public.book books:978-1");
  CAF_CHECK_EQUAL(logged_keys("DELETE FROM book WHERE isbn = '978-1'"), "*:public.book books:978-1");
  // The old file is refused, saying what to change; nothing is installed.
  auto old_file = run_program({RESTCACHE_LOAD_BIN, "--dsn", dsn, "--documents", path, "--schema-only", "--feed", "triggers"});
  CAF_CHECK_EQUAL(old_file.status, 2);
  CAF_CHECK(old_file.err.find("table book has no column author_id") != std::string::npos);
  CAF_CHECK(old_file.err.find("table book has no column author_id (its key of key space 'authors'): renamed to "
                              "writer_id since restcache watched it (name writer_id in the kind's sql and reads)")
            != std::string::npos);
  CAF_CHECK(old_file.err.find("writes to the watched tables are not affected") != std::string::npos);
  // The file naming the new column: its key replaces the gone one, and the
  // trigger names each key again.
  path = write_file(dir, declaration("writer_id"));
  auto applied = run_program({RESTCACHE_LOAD_BIN, "--dsn", dsn, "--documents", path, "--schema-only", "--feed", "triggers"});
  CAF_CHECK_EQUAL(applied.status, 0);
  auto watched = db.exec("SELECT string_agg(key_space || ':' || key_column, ' ' ORDER BY key_space)"
                         " FROM restcache_watched_key WHERE table_name = 'book'");
  CAF_CHECK_EQUAL(watched.text(0, 0), "authors:writer_id books:isbn");
  CAF_CHECK_EQUAL(logged_keys("UPDATE book SET writer_id = 4 WHERE isbn = '978-0'"),
                  "authors:1 authors:4 books:978-0");
}

namespace {

/// A [[kind]] of two fields: `first` (the key, a number or text) and
/// `second` (text), read by `sql` from `table`, which `columns` of it name
/// and whose key column `key_column` keys `key_space`.
std::string two_field_kind(const std::string& name, const std::string& key, const std::string& key_space,
                           const std::string& sql, const std::string& first, const std::string& second,
                           const std::string& table, const std::string& columns, const std::string& key_column) {
  return "[[kind]]\nname = \"" + name + "\"\nroute = \"/" + name + "/{" + first + "}\"\nkey = \"" + key
         + "\"\nkey_space = \"" + key_space + "\"\nsql = \"" + sql + "\"\nfields = [{ name = \"" + first
         + "\", column = 1, type = \"" + (key == "text" ? "text" : "number") + "\" }, { name = \"" + second
         + "\", column = 2, type = \"text\" }]\nreads = [{ table = \"" + table + "\", columns = [" + columns
         + "], keys = [\"" + key_space + ":" + key_column + "\"] }]\n";
}

/// Four kinds of one key space over one table: one through a view, one
/// calling a function, one reading an enum column, and one reading the
/// table's plain columns only.
std::string redefinable_kinds() {
  auto kind = [](const std::string& name, const std::string& sql, const std::string& second) {
    return two_field_kind(name, "int4", "pets", sql, "id", second, "pet", R"("id", "name", "mood")", "id");
  };
  return "format = 1\n" + kind("cards", "SELECT id, title FROM pet_card WHERE id = $1::int", "title")
         + kind("greetings", "SELECT id, pet_greeting(name) FROM pet WHERE id = $1::int", "greeting")
         + kind("moods", "SELECT id, mood FROM pet WHERE id = $1::int", "mood")
         + kind("pets", "SELECT id, name FROM pet WHERE id = $1::int", "name");
}

bool is_hit(const http_response& r) {
  return r.header_or_empty("Cache-Status").starts_with("restcache; hit");
}

/// Applies the file at `path` to the database (restcache-load --schema-only)
/// and installs its kinds in this process, as restcached's main does.
void apply_declarations(const std::string& dsn, const std::string& path, const std::string& feed = "triggers") {
  CAF_REQUIRE_EQUAL(run_program({RESTCACHE_LOAD_BIN, "--dsn", dsn, "--documents", path, "--schema-only", "--feed", feed}).status, 0);
  daemon_options o;
  o.documents_file = path;
  startup::install_documents(o);
}

void require_ready(const in_process_daemon& d) {
  CAF_REQUIRE_EQUAL(get_until(d.port(), "/ready", [](const http_response& r) { return r.status == 200; }).status, 200);
}

/// Whether `path` is answered from a tier within 10 s.
bool hit_again(uint16_t port, const std::string& path) {
  return is_hit(get_until(port, path, [](const http_response& r) { return is_hit(r); }));
}

/// Whether `path` is answered past the tiers (its kind bypassed) within 10 s.
bool bypassed(uint16_t port, const std::string& path) {
  auto bypass = [](const http_response& r) { return r.header_or_empty("Cache-Status") == "restcache; fwd=bypass"; };
  return bypass(get_until(port, path, bypass));
}

/// Checks that `path` answers `status` and, unless empty, `body` within 10 s.
void check_answers(uint16_t port, const std::string& path, int status, const std::string& body = {}) {
  auto r = get_until(port, path, [&](const http_response& a) {
    return a.status == status && (body.empty() || a.body == body);
  });
  CHECK_SAYING(r.status == status && (body.empty() || r.body == body),
               path << " answers " << r.status << " " << r.body << ", not " << status << " " << body);
}

} // namespace

CAF_TEST(a view or function redefined or an enum value renamed drops exactly the kinds that read it) {
  demo_back restore;
  temp_dir dir{"declared-redefined"};
  auto dsn = shared_private_pg().create_database("declared_redefined");
  pg::connection db{dsn};
  db.exec(R"sql(
    CREATE TYPE mood AS ENUM ('calm', 'cross');
    CREATE TABLE pet (id int PRIMARY KEY, name text, mood mood);
    INSERT INTO pet VALUES (1, 'Rex', 'calm'), (2, 'Tom', 'cross');
    CREATE VIEW pet_card AS SELECT id, upper(name) AS title FROM pet;
    CREATE FUNCTION pet_greeting(text) RETURNS text LANGUAGE sql STABLE BEGIN ATOMIC SELECT 'hello ' || $1; END;
  )sql");
  auto path = write_file(dir, redefinable_kinds());
  apply_declarations(dsn, path);
  // No periodic check within the test: the event trigger logs each
  // redefinition in its own transaction, and it is followed from the log.
  const std::vector<std::string> args{"--documents.file=" + path, "--lmdb.path=" + dir.path + "/lmdb",
                                      "--lmdb.flush-interval=20", "--changelog.drift-interval=600000"};
  {
    in_process_daemon d{dsn, args};
    require_ready(d);
    http_client c{d.port()};
    for (std::string p : {"/cards/1", "/greetings/1", "/moods/1", "/pets/1"})
      CHECK_SAYING(hit_again(d.port(), p), p << " is never a hit");
    CAF_CHECK_EQUAL(c.get("/cards/1").body, R"({"id":1,"title":"REX"})");
    auto redefined = [&](const std::string& ddl, const std::string& path, const std::string& body) {
      db.exec(ddl);
      check_answers(d.port(), path, 200, body);
      // The others stay: only what read the redefined object was dropped.
      CHECK_SAYING(is_hit(c.get("/pets/1")), "/pets/1 was dropped by " << ddl);
      // Followed without a repair: cached again.
      CHECK_SAYING(hit_again(d.port(), path), path << " is not cached again after " << ddl);
      CAF_CHECK_EQUAL(c.get(path).body, body);
    };
    redefined("CREATE OR REPLACE VIEW pet_card AS SELECT id, lower(name) AS title FROM pet", "/cards/1",
              R"({"id":1,"title":"rex"})");
    redefined("CREATE OR REPLACE FUNCTION pet_greeting(text) RETURNS text LANGUAGE sql STABLE"
              " BEGIN ATOMIC SELECT 'hi ' || $1; END",
              "/greetings/1", R"({"id":1,"greeting":"hi Rex"})");
    redefined("ALTER TYPE mood RENAME VALUE 'calm' TO 'serene'", "/moods/1", R"({"id":1,"mood":"serene"})");
    // A view redefined to read a table no trigger watches: bypassed, and
    // fresh, until it reads watched tables again.
    db.exec("CREATE TABLE nickname (id int PRIMARY KEY, nick text); INSERT INTO nickname VALUES (1, 'Rexy')");
    db.exec("CREATE OR REPLACE VIEW pet_card AS SELECT p.id, coalesce(n.nick, p.name) AS title FROM pet p"
            " LEFT JOIN nickname n ON n.id = p.id");
    CAF_CHECK(bypassed(d.port(), "/cards/1"));
    CAF_CHECK_EQUAL(c.get("/cards/1").body, R"({"id":1,"title":"Rexy"})");
    db.exec("UPDATE nickname SET nick = 'Rexie'");
    CAF_CHECK_EQUAL(c.get("/cards/1").body, R"({"id":1,"title":"Rexie"})");
    CAF_CHECK(c.get("/ready").body.find(R"("documents":"not cached (drift, see the log): cards")") != std::string::npos);
    CAF_CHECK(is_hit(c.get("/pets/1")));
    db.exec("CREATE OR REPLACE VIEW pet_card AS SELECT id, initcap(name) AS title, NULL::text AS nick FROM pet");
    CAF_CHECK(hit_again(d.port(), "/cards/1"));
    CAF_CHECK_EQUAL(c.get("/cards/1").body, R"({"id":1,"title":"Rex"})");
    CAF_CHECK(hit_again(d.port(), "/cards/2"));
    CAF_CHECK(hit_again(d.port(), "/greetings/2"));
    // Let the writer keep the last fingerprint with the documents.
    std::this_thread::sleep_for(std::chrono::milliseconds{500});
  }
  // Redefined while no daemon runs: the next start drops what the LMDB file
  // holds of that kind, and of no other.
  db.exec("CREATE OR REPLACE VIEW pet_card AS SELECT id, 'card of ' || name AS title, NULL::text AS nick FROM pet");
  db.exec("CREATE OR REPLACE FUNCTION pet_greeting(text) RETURNS text LANGUAGE sql STABLE"
          " BEGIN ATOMIC SELECT 'hey ' || $1; END");
  in_process_daemon d{dsn, args};
  require_ready(d);
  http_client c{d.port()};
  CAF_CHECK_EQUAL(c.get("/cards/2").body, R"({"id":2,"title":"card of Tom"})");
  CAF_CHECK_EQUAL(c.get("/greetings/2").body, R"({"id":2,"greeting":"hey Tom"})");
  CAF_CHECK_EQUAL(c.get("/pets/1").header_or_empty("Cache-Status"), "restcache; hit; detail=lmdb");
}

CAF_TEST(a key column altered to a type whose text is not the key is bypassed until it is back) {
  demo_back restore;
  temp_dir dir{"declared-keytype"};
  auto dsn = shared_private_pg().create_database("declared_keytype");
  pg::connection db{dsn};
  db.exec("CREATE TABLE pet (id int PRIMARY KEY, name text, mood text); INSERT INTO pet VALUES (1, 'Rex', 'calm')");
  auto path = write_file(dir, "format = 1\n" + two_field_kind("pets", "int4", "pets", "SELECT id, name FROM pet WHERE id = $1::int",
                                                            "id", "name", "pet", R"("id", "name")", "id"));
  apply_declarations(dsn, path);
  in_process_daemon d{dsn, {"--documents.file=" + path, "--cache.mode=memory", "--changelog.drift-interval=200"}};
  require_ready(d);
  http_client c{d.port()};
  CAF_CHECK(hit_again(d.port(), "/pets/1"));
  // A key column altered to a type whose text is not the key's (the log
  // would write 1.00 for document 1): bypassed until it is back.
  db.exec("ALTER TABLE pet ALTER COLUMN id TYPE numeric(10,2)");
  CAF_CHECK(bypassed(d.port(), "/pets/1"));
  db.exec("UPDATE pet SET name = 'Rex II' WHERE id = 1");
  CAF_CHECK_EQUAL(c.get("/pets/1").body, R"({"id":1.00,"name":"Rex II"})");
  db.exec("ALTER TABLE pet ALTER COLUMN id TYPE int");
  CAF_CHECK(hit_again(d.port(), "/pets/1"));
  CAF_CHECK_EQUAL(c.get("/pets/1").body, R"({"id":1,"name":"Rex II"})");
}

namespace {

/// Readings in a table partitioned by id, animals in a table others inherit
/// from: a read of either reads its partitions' or heirs' rows.
std::string partitioned_kinds() {
  return "format = 1\n"
         + two_field_kind("readings", "int4", "readings", "SELECT id, sensor FROM reading WHERE id = $1::int", "id",
                          "sensor", "reading", R"("id", "sensor")", "id")
         + two_field_kind("animals", "int4", "animals", "SELECT id, name FROM animal WHERE id = $1::int", "id", "name",
                          "animal", R"("id", "name")", "id");
}

/// What partitioned_kinds() read: readings 1 and 2 in a partition, 150 in a
/// table that is not one yet, animal 1.
void create_partitioned_tables(pg::connection& db) {
  db.exec(R"sql(
    CREATE TABLE reading (id int, sensor text) PARTITION BY RANGE (id);
    CREATE TABLE reading_0 PARTITION OF reading FOR VALUES FROM (0) TO (100);
    INSERT INTO reading VALUES (1, 'a'), (2, 'b');
    CREATE TABLE reading_1 (id int, sensor text);
    INSERT INTO reading_1 VALUES (150, 'c');
    CREATE TABLE animal (id int, name text);
    INSERT INTO animal VALUES (1, 'Ann');
  )sql");
}

} // namespace

CAF_TEST(partitions and inheriting tables are watched with their parent and seen attached or detached) {
  demo_back restore;
  temp_dir dir{"declared-partitions"};
  auto dsn = shared_private_pg().create_database("declared_partitions");
  pg::connection db{dsn};
  create_partitioned_tables(db);
  auto path = write_file(dir, partitioned_kinds());
  auto load = [&](const std::string& what) {
    return run_program({RESTCACHE_LOAD_BIN, "--dsn", dsn, "--documents", path, what});
  };
  apply_declarations(dsn, path);
  const std::vector<std::string> args{"--documents.file=" + path, "--lmdb.path=" + dir.path + "/lmdb",
                                      "--lmdb.flush-interval=20", "--changelog.drift-interval=200"};
  // As a non-superuser install has it (its functions then guard their reads).
  auto without_event_triggers = [&] {
    db.exec("DROP EVENT TRIGGER restcache_ddl_end; DROP EVENT TRIGGER restcache_ddl_drop;"
            "SELECT restcache_define_trigger_functions()");
  };
  // A copy: the result, and what text() views, is gone once this returns.
  auto triggers_on = [&](const std::string& table) {
    auto r = db.exec_params("SELECT string_agg(tgname || ':' || tgenabled::text, ' ' ORDER BY tgname) FROM pg_trigger"
                            " WHERE tgrelid = $1::regclass",
                            {table});
    return std::string{r.text(0, 0)};
  };
  {
    in_process_daemon d{dsn, args};
    require_ready(d);
    http_client c{d.port()};
    CAF_CHECK(hit_again(d.port(), "/readings/1"));
    CAF_CHECK(hit_again(d.port(), "/animals/1"));
    CAF_CHECK_EQUAL(c.get("/readings/150").status, 404);
    CAF_CHECK_EQUAL(c.get("/animals/5").status, 404);
    // With the event triggers: a partition attached, and a table created to
    // inherit, get their triggers in the DDL's own transaction.
    db.exec("ALTER TABLE reading ATTACH PARTITION reading_1 FOR VALUES FROM (100) TO (200)");
    check_answers(d.port(), "/readings/150", 200, R"({"id":150,"sensor":"c"})");
    CAF_CHECK_EQUAL(triggers_on("reading_1"), "restcache_changed:A restcache_truncated:A");
    CAF_CHECK(hit_again(d.port(), "/readings/150"));
    db.exec("UPDATE reading SET sensor = 'c2' WHERE id = 150");
    check_answers(d.port(), "/readings/150", 200, R"({"id":150,"sensor":"c2"})");
    // A partition truncated alone: its own statement trigger logs it
    // (PostgreSQL clones only row triggers to partitions).
    db.exec("TRUNCATE reading_1");
    check_answers(d.port(), "/readings/150", 404);
    db.exec("INSERT INTO reading VALUES (150, 'c3')");
    check_answers(d.port(), "/readings/150", 200, R"({"id":150,"sensor":"c3"})");
    CAF_CHECK(hit_again(d.port(), "/readings/150"));
    db.exec("ALTER TABLE reading DETACH PARTITION reading_0");
    check_answers(d.port(), "/readings/1", 404);
    db.exec("CREATE TABLE dog (breed text) INHERITS (animal)");
    CAF_CHECK_EQUAL(triggers_on("dog"), "restcache_changed:A restcache_truncated:A");
    db.exec("INSERT INTO dog VALUES (5, 'Rex', 'lab')");
    check_answers(d.port(), "/animals/5", 200, R"({"id":5,"name":"Rex"})");
    CAF_CHECK(hit_again(d.port(), "/animals/5"));
    db.exec("UPDATE dog SET name = 'Max' WHERE id = 5");
    check_answers(d.port(), "/animals/5", 200, R"({"id":5,"name":"Max"})");
    CAF_CHECK(hit_again(d.port(), "/animals/1"));

    // Without them (an install by a role that is not a superuser): the
    // periodic check sees a partition attached, and bypasses the kind until
    // the repair gives it its TRUNCATE trigger.
    without_event_triggers();
    db.exec("CREATE TABLE reading_2 (id int, sensor text); INSERT INTO reading_2 VALUES (250, 'e')");
    CAF_CHECK_EQUAL(c.get("/readings/250").status, 404);
    db.exec("ALTER TABLE reading ATTACH PARTITION reading_2 FOR VALUES FROM (200) TO (300)");
    check_answers(d.port(), "/readings/250", 200, R"({"id":250,"sensor":"e"})");
    CAF_CHECK(bypassed(d.port(), "/readings/250"));
    auto verify = load("--verify");
    CAF_CHECK_EQUAL(verify.status, 3);
    CHECK_SAYING(verify.out.find("public.reading_2 (a partition of public.reading) has no trigger "
                                     "restcache_truncated") != std::string::npos,
                     verify.out);
    CAF_REQUIRE_EQUAL(load("--schema-only").status, 0);
    CAF_CHECK(hit_again(d.port(), "/readings/250"));
    // A trigger clone disabled on one partition: writes to it go unseen, so
    // the kind is bypassed until the repair enables it again.
    db.exec("ALTER TABLE reading_2 DISABLE TRIGGER restcache_changed");
    CAF_CHECK(bypassed(d.port(), "/readings/250"));
    db.exec("UPDATE reading SET sensor = 'e2' WHERE id = 250");
    check_answers(d.port(), "/readings/250", 200, R"({"id":250,"sensor":"e2"})");
    verify = load("--verify");
    CHECK_SAYING(verify.out.find("restcache_changed on public.reading_2 (a partition of public.reading) is "
                                     "disabled") != std::string::npos,
                     verify.out);
    CAF_REQUIRE_EQUAL(load("--schema-only").status, 0);
    CAF_CHECK_EQUAL(triggers_on("reading_2"), "restcache_changed:A restcache_truncated:A");
    CAF_CHECK(hit_again(d.port(), "/readings/250"));
    // A table made to inherit (the repair put the event triggers back: drop
    // them again): its rows are read through the parent at once.
    without_event_triggers();
    db.exec("CREATE TABLE cat () INHERITS (animal); INSERT INTO cat VALUES (7, 'Tom')");
    check_answers(d.port(), "/animals/7", 200, R"({"id":7,"name":"Tom"})");
    CAF_CHECK(bypassed(d.port(), "/animals/7"));
    CAF_REQUIRE_EQUAL(load("--schema-only").status, 0);
    CAF_CHECK(hit_again(d.port(), "/animals/7"));
    db.exec("UPDATE cat SET name = 'Tim'");
    check_answers(d.port(), "/animals/7", 200, R"({"id":7,"name":"Tim"})");
    CAF_CHECK(hit_again(d.port(), "/animals/7"));
    // A partition detached, still without the event triggers: its rows go
    // with no row change, seen by the periodic check; the kind is cached
    // again at once (nothing needs repairing).
    without_event_triggers();
    CAF_CHECK(hit_again(d.port(), "/readings/250"));
    db.exec("ALTER TABLE reading DETACH PARTITION reading_2");
    check_answers(d.port(), "/readings/250", 404);
    db.exec("INSERT INTO reading VALUES (160, 'f')");
    CAF_CHECK(hit_again(d.port(), "/readings/160"));
    CAF_CHECK(hit_again(d.port(), "/animals/7")); // dropped with the functions' guards put back
    std::this_thread::sleep_for(std::chrono::milliseconds{500});
  }
  // Detached while no daemon runs: the next start drops what the LMDB file
  // holds of readings, and keeps the animals.
  db.exec("ALTER TABLE reading DETACH PARTITION reading_1");
  in_process_daemon d{dsn, args};
  require_ready(d);
  http_client c{d.port()};
  CAF_CHECK_EQUAL(c.get("/readings/160").status, 404);
  CAF_CHECK_EQUAL(c.get("/animals/7").header_or_empty("Cache-Status"), "restcache; hit; detail=lmdb");
}

namespace {

/// Items keyed by a citext code (compared without case) and by a char(8)
/// code (compared without trailing blanks).
std::string spelled_kinds() {
  return "format = 1\n"
         + two_field_kind("citems", "text", "citems", "SELECT code::text, title FROM citem WHERE code = $1", "code",
                          "title", "citem", R"("code", "title")", "code")
         + two_field_kind("bitems", "text", "bitems", "SELECT code::text, title FROM bitem WHERE code = $1", "code",
                          "title", "bitem", R"("code", "title")", "code");
}

} // namespace

CAF_TEST(keys compared without case or trailing blanks keep one entry per row under every spelling) {
  demo_back restore;
  temp_dir dir{"declared-spellings"};
  auto dsn = shared_private_pg().create_database("declared_spellings");
  pg::connection db{dsn};
  db.exec(R"sql(
    CREATE EXTENSION citext;
    CREATE TABLE citem (code citext PRIMARY KEY, title text);
    INSERT INTO citem VALUES ('Cc5', 'one'), ('Üx1', 'umlaut');
    CREATE TABLE bitem (code char(8) PRIMARY KEY, title text);
    INSERT INTO bitem VALUES ('c6', 'six');
  )sql");
  auto path = write_file(dir, spelled_kinds());
  apply_declarations(dsn, path);
  const std::vector<std::string> args{"--documents.file=" + path, "--lmdb.path=" + dir.path + "/lmdb",
                                      "--lmdb.flush-interval=20"};
  auto status_of = [](const http_response& r) { return r.header_or_empty("Cache-Status"); };
  {
    in_process_daemon d{dsn, args};
    require_ready(d);
    http_client c{d.port()};
    // One spelling per row: every other one is redirected to it (308),
    // nothing is kept under it, and the one entry serves them all.
    auto redirected = [&](const std::string& p, const std::string& to) {
      auto r = c.get(p);
      CHECK_SAYING(r.status == 308 && r.header_or_empty("Location") == to,
                   p << " answers " << r.status << " to '" << r.header_or_empty("Location") << "', not 308 to " << to);
    };
    auto first = c.get("/citems/cc5");
    CAF_CHECK_EQUAL(first.body, R"({"code":"Cc5","title":"one"})");
    CAF_CHECK_EQUAL(status_of(first), "restcache; fwd=uri-miss; stored");
    for (std::string p : {"/citems/CC5", "/citems/Cc5", "/citems/cC5"})
      redirected(p, "/citems/cc5");
    CAF_CHECK(is_hit(c.get("/citems/cc5")));
    redirected("/bitems/c6%20%20", "/bitems/c6");
    redirected("/bitems/c6%20", "/bitems/c6");
    CAF_CHECK_EQUAL(c.get("/bitems/c6").body, R"({"code":"c6","title":"six"})");
    CAF_CHECK(hit_again(d.port(), "/bitems/c6"));
    // The change is logged as the row's own spelling: the one entry sees it.
    db.exec("UPDATE citem SET title = 'two' WHERE code = 'cc5'");
    db.exec("UPDATE bitem SET title = 'seven' WHERE code = 'c6'");
    check_answers(d.port(), "/citems/cc5", 200, R"({"code":"Cc5","title":"two"})");
    check_answers(d.port(), "/bitems/c6", 200, R"({"code":"c6","title":"seven"})");
    CAF_CHECK(hit_again(d.port(), "/citems/cc5"));
    // A 404 kept goes when the row comes under another spelling.
    CAF_CHECK_EQUAL(c.get("/citems/dd7").status, 404);
    redirected("/citems/DD7", "/citems/dd7");
    db.exec("INSERT INTO citem VALUES ('Dd7', 'new')");
    check_answers(d.port(), "/citems/dd7", 200, R"({"code":"Dd7","title":"new"})");
    // A letter past ASCII: the database's lower() decides, so it is answered
    // from PostgreSQL and never kept (its ASCII letters lowered all the same).
    redirected("/citems/%C3%BCX1", "/citems/%C3%BCx1");
    auto umlaut = c.get("/citems/%C3%BCx1");
    CAF_CHECK_EQUAL(umlaut.body, R"({"code":"Üx1","title":"umlaut"})");
    CAF_CHECK_EQUAL(status_of(umlaut), "restcache; fwd=bypass");
    db.exec("UPDATE citem SET title = 'changed' WHERE code = 'üx1'");
    check_answers(d.port(), "/citems/%C3%9Cx1", 200, R"({"code":"Üx1","title":"changed"})");
    CAF_CHECK(hit_again(d.port(), "/citems/cc5"));
    CAF_CHECK(hit_again(d.port(), "/bitems/c6"));
    std::this_thread::sleep_for(std::chrono::milliseconds{500});
  }
  // Changed while no daemon runs: the replay drops the one entry, from LMDB too.
  db.exec("UPDATE citem SET title = 'three' WHERE code = 'CC5'");
  in_process_daemon d{dsn, args};
  require_ready(d);
  http_client c{d.port()};
  CAF_CHECK_EQUAL(c.get("/citems/cc5").body, R"({"code":"Cc5","title":"three"})");
  CAF_CHECK_EQUAL(status_of(c.get("/bitems/c6")), "restcache; hit; detail=lmdb");
}
CAF_TEST(partitions under the WAL feed: one truncated alone and one attached without an identity) {
  demo_back restore;
  temp_dir dir{"declared-wal-partitions"};
  auto dsn = shared_private_pg().create_database("declared_wal_partitions");
  pg::connection db{dsn};
  create_partitioned_tables(db);
  auto path = write_file(dir, partitioned_kinds());
  apply_declarations(dsn, path, "wal");
  // No primary key: each partition's identity is FULL, or its updates would
  // be refused once published.
  auto identities = db.exec("SELECT string_agg(relname || ':' || relreplident::text, ' ' ORDER BY relname)"
                            " FROM pg_class WHERE relname IN ('reading_0', 'animal')");
  CAF_CHECK_EQUAL(identities.text(0, 0), "animal:f reading_0:f");
  in_process_daemon d{dsn, {"--documents.file=" + path, "--cache.mode=memory", "--changelog.drift-interval=200"}};
  require_ready(d);
  CAF_CHECK(hit_again(d.port(), "/readings/1"));
  db.exec("UPDATE reading SET sensor = 'a2' WHERE id = 1");
  check_answers(d.port(), "/readings/1", 200, R"({"id":1,"sensor":"a2"})");
  CAF_CHECK(hit_again(d.port(), "/readings/2"));
  // A partition truncated alone (publish_via_partition_root off sends it).
  db.exec("TRUNCATE reading_0");
  check_answers(d.port(), "/readings/2", 404);
  // A partition attached whose identity names no old rows: its updates are
  // not refused, the table leaves the publication, the kind is bypassed.
  db.exec("ALTER TABLE reading ATTACH PARTITION reading_1 FOR VALUES FROM (100) TO (200)");
  db.exec("UPDATE reading SET sensor = 'c2' WHERE id = 150");
  CAF_CHECK(bypassed(d.port(), "/readings/150"));
  check_answers(d.port(), "/readings/150", 200, R"({"id":150,"sensor":"c2"})");
  // The repair: FULL on the new partition, the table published again.
  apply_declarations(dsn, path, "wal");
  CAF_CHECK(hit_again(d.port(), "/readings/150"));
  db.exec("UPDATE reading SET sensor = 'c3' WHERE id = 150");
  check_answers(d.port(), "/readings/150", 200, R"({"id":150,"sensor":"c3"})");
  // An inheriting table: its rows are read through the parent's publication.
  CAF_CHECK(hit_again(d.port(), "/animals/1"));
  db.exec("UPDATE animal SET name = 'Anne' WHERE id = 1");
  check_answers(d.port(), "/animals/1", 200, R"({"id":1,"name":"Anne"})");
}

