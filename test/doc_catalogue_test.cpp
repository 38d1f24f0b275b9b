// SPDX-License-Identifier: Apache-2.0
#define CAF_SUITE doc_catalogue

// The document catalogue (the demo's, and one with kinds of every key type
// beside it) against everything that lists document kinds outside it:
// schema.sql's watched keys, the router, /metrics, openapi.json, the LMDB
// key codec, the prepared statements, the fan-out. A new kind that misses
// one of them fails here.

#include "messages/doc_catalogue.hpp"

#include <caf/test/dsl.hpp>

#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "demo/demo_catalogue.hpp"
#include "http/http_metrics.hpp"
#include "http/request_handler.hpp"
#include "http/server.hpp"
#include "persistence/lmdb/record_codec.hpp"
#include "persistence/pg/doc_queries.hpp"
#include "persistence/pg/schema.hpp"
#include "persistence/pg/statements.hpp"
#include "test/fixtures/catalogue_guard.hpp"
#include "test/fixtures/table_cells.hpp"

using namespace restcache;

namespace {

class no_gateway : public http::cache_gateway {
public:
  void lookup(doc_key, reply_callback) override {}
  std::vector<http::readiness_check> readiness() const override { return {}; }
  std::string metrics_text() const override { return {}; }
};

std::string read_file(const std::string& path) {
  std::ifstream in{path};
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

} // namespace

CAF_TEST(every kind has one entry with its own name found by value and by name) {
  std::set<std::string_view> names;
  for (const auto& e : doc_catalogue()) {
    CAF_CHECK(names.insert(e.name).second);
    CAF_CHECK_EQUAL(find_doc_kind(static_cast<uint8_t>(e.kind)), &e);
    CAF_CHECK_EQUAL(find_doc_kind(e.name), &e);
    CAF_CHECK_EQUAL(&doc_kind_info(e.kind), &e);
  }
  CAF_CHECK(find_doc_kind(uint8_t{0}) == nullptr);
  CAF_CHECK(find_doc_kind(static_cast<uint8_t>(doc_catalogue().size() + 1)) == nullptr);
  CAF_CHECK(find_doc_kind(std::string_view{"truncate"}) == nullptr);
}

CAF_TEST(a catalogue is refused when an entry would break a path a label or a key space) {
  auto refused = [](auto change) {
    auto kinds = demo::demo_kinds();
    change(kinds);
    try {
      install_catalogue(kinds);
    } catch (const std::invalid_argument&) {
      demo::install_demo_catalogue();
      return true;
    }
    demo::install_demo_catalogue();
    return false;
  };
  using entries = std::vector<doc_kind_entry>;
  CAF_CHECK(!refused([](entries&) {}));
  CAF_CHECK(refused([](entries& k) { k[1].name = "deptemps"; }));
  CAF_CHECK(refused([](entries& k) { k[1].name = ""; }));
  CAF_CHECK(refused([](entries& k) { k[1].name = "Emp"; }));
  CAF_CHECK(refused([](entries& k) { k[1].name = "e\"mp"; }));
  CAF_CHECK(refused([](entries& k) { k[1].entity = "emp:x"; }));
  CAF_CHECK(refused([](entries& k) { k[1].route = "/depts/emps"; }));
  CAF_CHECK(refused([](entries& k) { k[1].route = "depts/emps/"; }));
  CAF_CHECK(refused([](entries& k) { k[1].route = "/de\"pts/"; }));
  CAF_CHECK(refused([](entries& k) { k[1].route = "/a b/"; }));
  CAF_CHECK(refused([](entries& k) { k[2].key = key_type::text; })); // dept shares deptemps' space
  CAF_CHECK(refused([](entries& k) { k.resize(max_kinds + 1, k[0]); }));
  CAF_CHECK(doc_catalogue().size() == 3u); // the demo's is back
}

CAF_TEST(schema.sql creates and watches no table of any kind) {
  // The kinds' reads watch their tables (watch_catalogue_keys); the demo's
  // tables come with the demo (demo::ensure_demo_schema).
  std::string sql = pg::schema_sql;
  CAF_CHECK_EQUAL(sql.find("INSERT INTO restcache_watched_key"), std::string::npos);
  CAF_CHECK_EQUAL(sql.find("CREATE TABLE IF NOT EXISTS dept"), std::string::npos);
  CAF_CHECK_EQUAL(sql.find("CREATE TABLE IF NOT EXISTS emp"), std::string::npos);
}

CAF_TEST(a change keys the first kind of its entity and fans out to the others) {
  CAF_CHECK(change_kind("dept") == demo::deptemps_kind);
  CAF_CHECK(change_kind("emp") == demo::emp_kind);
  CAF_CHECK(!change_kind("truncate"));
  for (const auto& e : doc_catalogue()) {
    auto first = change_kind(e.entity);
    CAF_REQUIRE(first.has_value());
    std::set<doc_kind> reached{*first};
    for_each_fanned_out(*first, [&](doc_kind k) { CAF_CHECK(reached.insert(k).second); });
    CAF_CHECK_EQUAL(reached.count(e.kind), 1u); // every kind of the entity is invalidated
  }
}

CAF_TEST(every route asks for its own kind and openapi.json describes it) {
  http::server_options opts;
  no_gateway gateway;
  http::http_metrics metrics;
  http::request_handler handler{opts, gateway, metrics};
  auto openapi = read_file(std::string{RESTCACHE_SOURCE_DIR} + "/openapi.json");
  CAF_REQUIRE(!openapi.empty());
  for (const auto& e : doc_catalogue()) {
    http::request_head h;
    h.method = "GET";
    h.target = std::string{e.route} + "7";
    http::request_state st;
    http::reply out;
    CAF_CHECK(handler.start(h, true, st, out) == http::next_step::lookup);
    CAF_CHECK(st.key == (doc_key{e.kind, 7}));
    std::string path{e.route};
    path += "{" + e.key_name + "}";
    CAF_CHECK(openapi.find('"' + path + '"') != std::string::npos);
  }
}

CAF_TEST(the LMDB key codec takes exactly the kinds of the catalogue) {
  for (const auto& e : doc_catalogue()) {
    auto k = lmdb::encode_key({e.kind, 12345});
    CAF_CHECK(lmdb::decode_key(k.view()) == (doc_key{e.kind, 12345}));
  }
  auto k = std::string{lmdb::encode_key({demo::emp_kind, 1}).view()};
  k[0] = static_cast<char>(doc_catalogue().size() + 1);
  CAF_CHECK(!lmdb::decode_key(k));
}

CAF_TEST(every kind is read by a prepared statement and written by its plan) {
  std::set<std::string> prepared;
  for (auto& [name, sql] : pg::statement_texts())
    prepared.insert(name);
  for (const auto& e : doc_catalogue()) {
    CAF_CHECK_EQUAL(prepared.count(e.statement.name), 1u);
    CAF_CHECK(e.statement.sql.find("$1") != std::string::npos);
    CAF_CHECK(!e.plan.master.fields.empty());
    CAF_CHECK(!e.noun.empty()); // its problem details name what is missing
    CAF_CHECK(encode_document(e.plan, test::table_cells{}).empty()); // no rows: no document
  }
}

namespace {

/// A kind beside the demo's: keyed by `key`, in a key space of its own
/// unless `space` names one.
doc_kind_entry extra_kind(std::string name, key_type key, std::string route, std::string space = {}) {
  doc_kind_entry e;
  e.name = name;
  e.entity = space.empty() ? name : space;
  e.key = key;
  e.statement = {"test_fetch_" + name, "SELECT id, note FROM " + name + " WHERE id = $1"};
  e.route = std::move(route);
  e.plan = {{{{"id", 0, value_type::text}, {"note", 1, value_type::text}}}, std::nullopt, false};
  e.reads = {{name, "id,note", e.entity + ":id", {}}};
  e.noun = name;
  return e;
}

/// One key of each kind as a path spells it and as it is meant.
struct spelled_key {
  std::string in_path;
  std::string meant;
};

spelled_key key_for(key_type t) {
  switch (t) {
    case key_type::int4: return {"7", "7"};
    case key_type::int8: return {"9007199254740993", "9007199254740993"};
    case key_type::text: return {"a%2Fb%20c%25", "a/b c%"};
    case key_type::uuid: return {"0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0", "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0"};
  }
  return {};
}

} // namespace

CAF_TEST(the checks hold for kinds beyond the demo of every key type) {
  auto kinds = demo::demo_kinds();
  kinds.push_back(extra_kind("ledger", key_type::int8, "/ledgers/"));
  kinds.push_back(extra_kind("tag", key_type::text, "/tags/"));
  kinds.push_back(extra_kind("device", key_type::uuid, "/devices/"));
  kinds.push_back(extra_kind("tag_note", key_type::text, "/tags/notes/", "tag")); // the tag's space
  test::catalogue_guard installed{kinds};
  CAF_REQUIRE_EQUAL(doc_catalogue().size(), 7u);

  http::server_options opts;
  no_gateway gateway;
  http::http_metrics metrics;
  http::request_handler handler{opts, gateway, metrics};
  std::set<std::string> statements;
  for (auto& [name, sql] : pg::statement_texts())
    statements.insert(name);
  for (const auto& e : doc_catalogue()) {
    CAF_MESSAGE("kind " << e.name);
    CAF_CHECK_EQUAL(find_doc_kind(e.name), &e);
    // Routed to a lookup of its own key, spelled and parsed by its type.
    auto spelled = key_for(e.key);
    doc_key meant;
    CAF_REQUIRE(parse_key(e.key, e.kind, spelled.meant, meant) == key_error::none);
    CAF_CHECK_EQUAL(key_spelling(e.key, meant), spelled.meant);
    http::request_head h;
    h.method = "GET";
    h.target = e.route + spelled.in_path;
    http::request_state st;
    http::reply out;
    CAF_REQUIRE(handler.start(h, true, st, out) == http::next_step::lookup);
    CAF_CHECK(st.key == meant);
    CAF_CHECK(st.key.kind() == e.kind);
    metrics.record(st.metric_route, 200, 10);
    // Stored in LMDB under its kind and its key's bytes, and read back.
    CAF_CHECK(lmdb::decode_key(lmdb::encode_key(meant).view()) == meant);
    // Its statement prepared on every connection.
    CAF_CHECK_EQUAL(statements.count(e.statement.name), 1u);
    // A change of its key space reaches it.
    auto first = change_kind(e.entity);
    CAF_REQUIRE(first.has_value());
    bool reached = *first == e.kind;
    for_each_fanned_out(*first, [&](doc_kind k) { reached = reached || k == e.kind; });
    CAF_CHECK(reached);
  }
  // One /metrics route per kind, labelled by its key's sort.
  std::string text;
  metrics.append_prometheus(text);
  for (auto label : {"/deptemps/{id}", "/depts/emps/{id}", "/depts/{id}", "/ledgers/{id}", "/tags/{key}",
                     "/devices/{key}", "/tags/notes/{key}"})
    CAF_CHECK(text.find(std::string{"method=\"GET\",route=\""} + label + "\",status=\"200\"") != std::string::npos);
  // The longest route wins: /tags/notes/x is a tag_note, /tags/x a tag.
  CAF_CHECK(http::parse_route("GET", "/tags/notes/x").doc == find_doc_kind("tag_note")->kind);
  CAF_CHECK(http::parse_route("GET", "/tags/notesx").doc == find_doc_kind("tag")->kind);
  // A key of another kind's type is refused with that type's reason.
  auto r = http::parse_route("GET", "/ledgers/x");
  CAF_CHECK(r.kind == http::route_kind::bad_request);
  CAF_CHECK(r.detail == to_detail(key_error::non_digit, key_type::int8));
  // One spelling, lower case: another is redirected to it.
  auto upper = http::parse_route("GET", "/devices/0F1E2D3C-4B5A-6978-8796-A5B4C3D2E1F0");
  CAF_CHECK(upper.kind == http::route_kind::document && upper.spelled_otherwise);
  // A kind id past the catalogue is no LMDB key.
  auto k = std::string{lmdb::encode_key({demo::emp_kind, 1}).view()};
  k[0] = static_cast<char>(doc_catalogue().size() + 1);
  CAF_CHECK(!lmdb::decode_key(k));
}
