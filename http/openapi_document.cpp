// SPDX-License-Identifier: Apache-2.0
#include "http/openapi_document.hpp"

#include <simdjson.h>

#include <charconv>
#include <utility>
#include <vector>

#include "messages/doc_catalogue.hpp"
#include "messages/document_encoder.hpp"

namespace restcache::http {

namespace {

/// A JSON value that keeps its members in order: readers of an OpenAPI
/// document show them so, and the committed file diffs line by line.
struct node {
  enum class type { null, boolean, number, string, array, object };
  type t = type::null;
  std::string text; ///< a number's digits, a string's value, "true" or "false"
  std::vector<node> items;
  std::vector<std::pair<std::string, node>> members;

  node* find(std::string_view key) {
    for (auto& [k, v] : members)
      if (k == key)
        return &v;
    return nullptr;
  }

  /// The member `key`, appended (null) when missing.
  node& operator[](const std::string& key) {
    if (auto* v = find(key))
      return *v;
    t = type::object;
    members.emplace_back(key, node{});
    return members.back().second;
  }
};

node str(std::string s) {
  node n;
  n.t = node::type::string;
  n.text = std::move(s);
  return n;
}

node num(int64_t v) {
  node n;
  n.t = node::type::number;
  n.text = std::to_string(v);
  return n;
}

node flag(bool v) {
  node n;
  n.t = node::type::boolean;
  n.text = v ? "true" : "false";
  return n;
}

node obj(std::initializer_list<std::pair<std::string, node>> members) {
  node n;
  n.t = node::type::object;
  n.members.assign(members.begin(), members.end());
  return n;
}

node arr(std::initializer_list<node> items) {
  node n;
  n.t = node::type::array;
  n.items.assign(items.begin(), items.end());
  return n;
}

node component_ref(const std::string& to) {
  return obj({{"$ref", str("#/components/" + to)}});
}

node from_dom(simdjson::dom::element e) {
  node n;
  switch (e.type()) {
    case simdjson::dom::element_type::ARRAY: {
      n.t = node::type::array;
      simdjson::dom::array items = e.get_array().value_unsafe();
      for (auto item : items)
        n.items.push_back(from_dom(item));
      break;
    }
    case simdjson::dom::element_type::OBJECT: {
      n.t = node::type::object;
      simdjson::dom::object members = e.get_object().value_unsafe();
      for (auto [key, value] : members)
        n.members.emplace_back(std::string{key}, from_dom(value));
      break;
    }
    case simdjson::dom::element_type::STRING:
      n.t = node::type::string;
      n.text = std::string{e.get_string().value_unsafe()};
      break;
    case simdjson::dom::element_type::INT64:
      n = num(e.get_int64().value_unsafe());
      break;
    case simdjson::dom::element_type::UINT64:
      n.t = node::type::number;
      n.text = std::to_string(e.get_uint64().value_unsafe());
      break;
    case simdjson::dom::element_type::DOUBLE: {
      n.t = node::type::number;
      char buf[32];
      auto [end, ec] = std::to_chars(buf, buf + sizeof buf, e.get_double().value_unsafe());
      n.text.assign(buf, ec == std::errc{} ? end : buf);
      break;
    }
    case simdjson::dom::element_type::BOOL:
      n = flag(e.get_bool().value_unsafe());
      break;
    case simdjson::dom::element_type::NULL_VALUE:
      break;
  }
  return n;
}

node parse(std::string_view text, const char* what) {
  simdjson::dom::parser parser;
  simdjson::padded_string padded{text};
  simdjson::dom::element root;
  if (parser.parse(padded).get(root) != simdjson::SUCCESS || !root.is_object())
    throw std::invalid_argument(std::string{what} + " is not a JSON object");
  return from_dom(root);
}

std::string written(const node& n);

/// Objects merge member by member; an array takes the items it lacks (tags);
/// anything else is replaced.
void merge(node& into, const node& from) {
  if (into.t == node::type::object && from.t == node::type::object) {
    for (const auto& [key, value] : from.members)
      merge(into[key], value);
    return;
  }
  if (into.t == node::type::array && from.t == node::type::array) {
    for (const auto& item : from.items) {
      bool present = false;
      for (const auto& have : into.items)
        present = present || written(have) == written(item);
      if (!present)
        into.items.push_back(item);
    }
    return;
  }
  into = from;
}

void write(const node& n, std::string& out, int indent) {
  auto newline = [&](int level) {
    out += '\n';
    out.append(static_cast<size_t>(level) * 2, ' ');
  };
  switch (n.t) {
    case node::type::null: out += "null"; return;
    case node::type::boolean:
    case node::type::number: out += n.text; return;
    case node::type::string: append_json_string(out, n.text); return;
    case node::type::array:
      if (n.items.empty()) {
        out += "[]";
        return;
      }
      out += '[';
      for (size_t i = 0; i < n.items.size(); ++i) {
        if (i > 0)
          out += ',';
        newline(indent + 1);
        write(n.items[i], out, indent + 1);
      }
      newline(indent);
      out += ']';
      return;
    case node::type::object:
      if (n.members.empty()) {
        out += "{}";
        return;
      }
      out += '{';
      for (size_t i = 0; i < n.members.size(); ++i) {
        if (i > 0)
          out += ',';
        newline(indent + 1);
        append_json_string(out, n.members[i].first);
        out += ": ";
        write(n.members[i].second, out, indent + 1);
      }
      newline(indent);
      out += '}';
      return;
  }
}

std::string written(const node& n) {
  std::string out;
  write(n, out, 0);
  return out;
}

node key_schema(key_type key) {
  switch (key) {
    case key_type::int4:
      return obj({{"type", str("integer")}, {"format", str("int32")}, {"minimum", num(1)},
                  {"maximum", num(2147483647)}});
    case key_type::int8:
      return obj({{"type", str("integer")}, {"format", str("int64")}, {"minimum", num(1)}});
    case key_type::text:
      return obj({{"type", str("string")}, {"minLength", num(1)}, {"maxLength", num(max_text_key_bytes)}});
    case key_type::uuid: return obj({{"type", str("string")}, {"format", str("uuid")}});
  }
  return obj({});
}

std::string key_description(key_type key) {
  switch (key) {
    case key_type::int4:
      return "A positive 32-bit integer in decimal digits, without a sign or leading zeros (anything else is 400).";
    case key_type::int8:
      return "A positive 64-bit integer in decimal digits, without a sign or leading zeros (anything else is 400).";
    case key_type::text:
      return "Text of 1 to " + std::to_string(max_text_key_bytes)
             + " bytes of UTF-8 without control characters, in the path with letters, digits and -._~ as they are "
               "and every other byte as %XX in upper case (another spelling of a valid key is 308 to that one; "
               "anything else is 400).";
    case key_type::uuid:
      return "A UUID in lower-case 8-4-4-4-12 hexadecimal form (another spelling of a valid one is 308 to that "
             "one; anything else is 400).";
  }
  return {};
}

node value_schema(value_type type, bool nullable) {
  node s;
  switch (type) {
    case value_type::number: s = obj({{"type", str("number")}}); break;
    case value_type::text: s = obj({{"type", str("string")}}); break;
    case value_type::date: s = obj({{"type", str("string")}, {"format", str("date")}}); break;
    case value_type::timestamp: s = obj({{"type", str("string")}, {"format", str("date-time")}}); break;
    case value_type::boolean: s = obj({{"type", str("boolean")}}); break;
    case value_type::json:
      s = obj({{"description", str("JSON as the database holds it.")}});
      break;
  }
  if (nullable)
    s["nullable"] = flag(true);
  return s;
}

node object_schema(const object_plan& plan, bool nullable) {
  node properties = obj({});
  for (const auto& f : plan.fields)
    properties[f.name] = value_schema(f.type, nullable);
  return obj({{"type", str("object")}, {"properties", properties}});
}

node document_schema(const doc_kind_entry& kind) {
  const bool nulls = kind.plan.write_nulls;
  node s = obj({{"description", str("One " + kind.noun + ", as kind '" + kind.name + "' serves it. "
                                    + (nulls ? "A SQL NULL is written as null." : "A SQL NULL leaves its member out."))}});
  merge(s, object_schema(kind.plan.master, nulls));
  if (const auto& detail = kind.plan.detail)
    s["properties"][detail->name] = obj({{"type", str("array")}, {"items", object_schema(detail->element, nulls)}});
  return s;
}

node document_operation(const doc_kind_entry& kind, bool head) {
  const std::string about = "The " + kind.noun + " its " + kind.key_name
                            + " names: answered from memory or the LMDB tier, read with the statement of kind '" + kind.name
                            + "' on a miss, and read again after every committed change to what it reads.";
  node headers = obj({{"ETag", component_ref("headers/ETag")},
                      {"Cache-Control", component_ref("headers/CacheControl")},
                      {"Vary", component_ref("headers/Vary")},
                      {"Content-Encoding", component_ref("headers/ContentEncoding")},
                      {"X-Request-Id", component_ref("headers/XRequestId")}});
  node not_modified_headers = obj({{"ETag", component_ref("headers/ETag")},
                                   {"Cache-Control", component_ref("headers/CacheControl")},
                                   {"Vary", component_ref("headers/Vary")},
                                   {"X-Request-Id", component_ref("headers/XRequestId")}});
  node key = obj({{"name", str(kind.key_name)},
                  {"in", str("path")},
                  {"required", flag(true)},
                  {"description", str(key_description(kind.key))},
                  {"schema", key_schema(kind.key)}});
  return obj(
    {{"operationId", str((head ? "head_" : "get_") + kind.name)},
     {"summary", str((head ? "HEAD: one " : "One ") + kind.noun)},
     {"description",
      str(head ? "The same answer as GET without the body (Content-Length says the size GET would send). " + about
               : about)},
     {"parameters",
      arr({key, component_ref("parameters/IfNoneMatch"), component_ref("parameters/AcceptEncoding"), component_ref("parameters/XRequestId")})},
     {"responses",
      obj({{"200", obj({{"description", str("The document.")},
                        {"headers", headers},
                        {"content", obj({{"application/json", obj({{"schema", component_ref("schemas/" + kind.name)}})}})}})},
           {"304", obj({{"description", str("If-None-Match matched the current ETag (of the representation the "
                                            "request accepts): no body.")},
                        {"headers", not_modified_headers}})},
           {"400", component_ref("responses/BadRequest")},
           {"404", component_ref("responses/NotFound")},
           {"500", component_ref("responses/InternalError")},
           {"503", component_ref("responses/ServiceUnavailable")},
           {"504", component_ref("responses/GatewayTimeout")}})},
     {"tags", arr({str("documents")})}});
}

} // namespace

std::string openapi_document(std::string_view module_part) {
  node doc = parse(openapi_base, "the engine's OpenAPI part");
  // The kinds' paths first, then the engine's.
  node paths = obj({});
  for (const auto& kind : doc_catalogue()) {
    paths[kind.route + "{" + kind.key_name + "}"] =
      obj({{"get", document_operation(kind, false)}, {"head", document_operation(kind, true)}});
    doc["components"]["schemas"][kind.name] = document_schema(kind);
  }
  if (auto* engine = doc.find("paths"))
    merge(paths, *engine);
  doc["paths"] = std::move(paths);
  if (!module_part.empty())
    merge(doc, parse(module_part, "the module's OpenAPI part"));
  auto out = written(doc);
  out += '\n';
  return out;
}

} // namespace restcache::http
