// SPDX-License-Identifier: Apache-2.0
#include "http/router.hpp"

#include <algorithm>
#include <cstring>

#include "http/action_routes.hpp"
#include "messages/doc_catalogue.hpp"
#include "messages/key_comparison.hpp"

namespace restcache::http {

namespace {

bool iequals_prefix(std::string_view s, std::string_view prefix) noexcept {
  if (s.size() < prefix.size())
    return false;
  for (size_t i = 0; i < prefix.size(); ++i) {
    char c = s[i];
    if (c >= 'A' && c <= 'Z')
      c = char(c - 'A' + 'a');
    if (c != prefix[i])
      return false;
  }
  return true;
}

/// The path of an origin-form or absolute-form request-target, without query
/// or fragment.
std::string_view path_of(std::string_view target) noexcept {
  // absolute-form (RFC 9112 3.2.2): scheme "://" authority path-abempty
  for (std::string_view scheme : {std::string_view{"http://"}, std::string_view{"https://"}}) {
    if (iequals_prefix(target, scheme)) {
      target.remove_prefix(scheme.size());
      auto slash = target.find_first_of("/?#");
      if (slash == std::string_view::npos || target[slash] != '/')
        return "/";
      target.remove_prefix(slash);
      break;
    }
  }
  // One pass, not find_first_of: that calls memchr for every character.
  for (size_t i = 0; i < target.size(); ++i)
    if (target[i] == '?' || target[i] == '#')
      return target.substr(0, i);
  return target;
}

} // namespace

id_parse_result parse_positive_id(std::string_view s) noexcept {
  int64_t v = 0;
  auto err = parse_integer_key(key_type::int4, s, v);
  return {err == id_error::none ? static_cast<int32_t>(v) : 0, err};
}

int percent_decode(std::string_view segment, char* out, size_t capacity) noexcept {
  auto hex = [](char c) {
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
  };
  size_t n = 0;
  for (size_t i = 0; i < segment.size(); ++i) {
    char c = segment[i];
    if (c == '%') {
      if (i + 2 >= segment.size())
        return -1;
      int hi = hex(segment[i + 1]), lo = hex(segment[i + 2]);
      if (hi < 0 || lo < 0)
        return -1;
      c = static_cast<char>(hi * 16 + lo);
      i += 2;
    }
    if (n == capacity)
      return -2;
    out[n++] = c;
  }
  return static_cast<int>(n);
}

std::string_view query_of(std::string_view target) noexcept {
  auto q = target.find('?');
  if (q == std::string_view::npos)
    return {};
  target = target.substr(q + 1);
  return target.substr(0, target.find('#'));
}

namespace {

/// Hands the canonical spelling of a key to `put`, a character at a time,
/// while it returns true.
template <class Put>
void spell_key(key_type type, std::string_view key, Put put) noexcept {
  static constexpr char upper[] = "0123456789ABCDEF";
  static constexpr char lower[] = "0123456789abcdef";
  if (type == key_type::uuid) {
    for (size_t i = 0; i < key.size(); ++i) {
      auto b = static_cast<unsigned char>(key[i]);
      if (((i == 4 || i == 6 || i == 8 || i == 10) && !put('-')) || !put(lower[b >> 4]) || !put(lower[b & 15]))
        return;
    }
    return;
  }
  for (char c : key) {
    auto b = static_cast<unsigned char>(c);
    const bool unreserved = (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') || (b >= '0' && b <= '9') || b == '-'
                            || b == '.' || b == '_' || b == '~';
    if (unreserved ? !put(c) : !put('%') || !put(upper[b >> 4]) || !put(upper[b & 15]))
      return;
  }
}

/// Whether `segment` is the key's canonical spelling (compared as it is
/// spelled, nothing written).
bool spelled_canonically(key_type type, std::string_view key, std::string_view segment) noexcept {
  size_t at = 0;
  bool same = true;
  spell_key(type, key, [&](char c) { return same = at < segment.size() && segment[at++] == c; });
  return same && at == segment.size();
}

} // namespace

size_t canonical_key_segment(key_type type, std::string_view key, char* out) noexcept {
  size_t n = 0;
  spell_key(type, key, [&](char c) {
    out[n++] = c;
    return true;
  });
  return n;
}

doc_key key_of(const route& r) {
  return r.integer_key ? doc_key{r.doc, r.id} : doc_key::of_bytes(r.doc, r.key_text());
}

namespace {

/// Whether `path` begins with `prefix` (not empty). Compared in place:
/// routes are short, and a call to memcmp per route costs more than the
/// bytes (bench/callgrind.sh).
bool starts_with(std::string_view path, std::string_view prefix) noexcept {
  size_t n = prefix.size();
  if (n == 0 || n > path.size())
    return false;
  const char *a = prefix.data(), *b = path.data();
  for (; n >= 8; n -= 8, a += 8, b += 8) {
    uint64_t x, y;
    std::memcpy(&x, a, 8);
    std::memcpy(&y, b, 8);
    if (x != y)
      return false;
  }
  for (; n > 0; --n)
    if (*a++ != *b++)
      return false;
  return true;
}

/// The kind whose route `path` starts with, the longest such route winning
/// ("/orders/lines/" before "/orders/"); null when none.
const doc_kind_entry* kind_of_path(std::string_view path) noexcept {
  const doc_kind_entry* best = nullptr;
  for (const auto& e : doc_catalogue())
    if ((best == nullptr || e.route.size() > best->route.size()) && starts_with(path, e.route))
      best = &e;
  return best;
}

/// The action path that is `path` itself; null when none.
const action_path* exact_action_path(const action_table& actions, std::string_view path) noexcept {
  for (const auto& p : actions.exact_paths)
    if (p.path.size() == path.size() && starts_with(path, p.path))
      return &actions.paths[p.at];
  return nullptr;
}

/// The keyed action path with the longest prefix of `path`, at least
/// `at_least` long; null when none.
const action_path* keyed_action_path(const action_table& actions, std::string_view path, size_t at_least) noexcept {
  const action_path_ref* best = nullptr;
  for (const auto& p : actions.keyed_paths)
    if (p.path.size() >= at_least && (best == nullptr || p.path.size() > best->path.size())
        && starts_with(path, p.path))
      best = &p;
  return best ? &actions.paths[best->at] : nullptr;
}

/// The key of a document route into r (id, or key_bytes); false with the
/// detail when the segment spells no key of the kind.
bool parse_document_key(const doc_kind_entry& kind, std::string_view segment, route& r) noexcept {
  auto fail = [&](std::string_view detail) {
    r.kind = route_kind::bad_request;
    r.detail = detail;
    return false;
  };
  key_error err = key_error::none;
  r.integer_key = is_integer(kind.key);
  if (r.integer_key) {
    err = parse_integer_key(kind.key, segment, r.id);
  } else {
    // Enough room for the longest key; a longer one is refused as such.
    char decoded[max_text_key_bytes + 1];
    int n = percent_decode(segment, decoded, sizeof decoded);
    if (n == -1)
      return fail("key has a malformed percent-encoding: '%' must be followed by two hex digits");
    // Past the room: longer than any key (check_text_key says so).
    std::string_view text{decoded, n < 0 ? sizeof decoded : static_cast<size_t>(n)};
    if (kind.key == key_type::text) {
      err = check_text_key(text);
      if (err == key_error::none) {
        std::copy(text.begin(), text.end(), r.key_bytes.begin());
        // One spelling per row where the database compares without case or
        // trailing blanks (messages/key_comparison.hpp).
        r.key_size = static_cast<uint16_t>(
          canonicalise_text_key(key_comparison_of(kind.kind), r.key_bytes.data(), text.size()));
      }
    } else {
      // Upper case is another spelling of the same uuid (redirected below).
      for (size_t i = 0; i < text.size(); ++i)
        if (decoded[i] >= 'A' && decoded[i] <= 'F')
          decoded[i] = static_cast<char>(decoded[i] - 'A' + 'a');
      char uuid[16];
      err = parse_uuid_key(text, uuid);
      if (err == key_error::none) {
        std::copy(std::begin(uuid), std::end(uuid), r.key_bytes.begin());
        r.key_size = 16;
      }
    }
  }
  if (err != key_error::none)
    return fail(to_detail(err, kind.key));
  if (!r.integer_key) {
    // Integers have one spelling already (parse_integer_key refuses others).
    r.spelled_otherwise = !spelled_canonically(kind.key, r.key_text(), segment);
    r.kind_route = kind.route;
    r.kind_key = kind.key;
  }
  return true;
}

} // namespace

route parse_route(std::string_view method, std::string_view target) noexcept {
  const std::string_view path = path_of(target);
  route r;
  r.head = method == "HEAD"; // also for error answers: HEAD never gets a body
  const bool read = r.head || method == "GET";
  // Every return below returns r itself, so it is built in the caller's
  // route (a copy would move the key's buffer on every request).
  auto not_allowed = [&](std::string_view allow) {
    r.kind = route_kind::method_not_allowed;
    r.detail = "this resource does not support that method; see Allow";
    r.allow = allow;
  };

  // The engine's own paths.
  route_kind fixed = route_kind::not_found;
  if (path == "/health")
    fixed = route_kind::health;
  else if (path == "/ready")
    fixed = route_kind::ready;
  else if (path == "/metrics")
    fixed = route_kind::metrics;
  else if (path == "/openapi.json")
    fixed = route_kind::openapi;
  if (fixed != route_kind::not_found) {
    if (read)
      r.kind = fixed;
    else
      not_allowed("GET, HEAD");
    return r;
  }

  // An action's exact path, else the longest prefix: a document kind's
  // route or a keyed action's (both when they are the same path).
  const action_table& actions = action_routes();
  const action_path* at = exact_action_path(actions, path);
  const doc_kind_entry* doc = nullptr;
  std::string_view key_text;
  if (at == nullptr) {
    doc = kind_of_path(path);
    at = keyed_action_path(actions, path, doc ? doc->route.size() : 0);
    if (doc && at && at->path.size() > doc->route.size())
      doc = nullptr;
    if (doc != nullptr || at != nullptr)
      key_text = path.substr(doc ? doc->route.size() : at->path.size());
    // No route, or a key followed by more path.
    if ((doc == nullptr && at == nullptr) || key_text.find('/') != std::string_view::npos) {
      r.kind = route_kind::not_found;
      r.detail = "no resource at this path";
      return r;
    }
  }

  // Methods first (405 before 400), then the key.
  if (read && doc != nullptr) {
    r.doc = doc->kind;
    if (parse_document_key(*doc, key_text, r))
      r.kind = route_kind::document;
    return r;
  }
  auto allow_here = [&]() -> std::string_view {
    if (at == nullptr)
      return "GET, HEAD";
    return doc ? at->allow_with_get : at->allow;
  };
  action_method m;
  if (read)
    m = action_method::get;
  else if (method == "POST")
    m = action_method::post;
  else if (method == "PUT")
    m = action_method::put;
  else if (method == "DELETE")
    m = action_method::del;
  else {
    not_allowed(allow_here());
    return r;
  }
  const int8_t id = at == nullptr ? -1 : at->route_of[static_cast<size_t>(m)];
  if (id < 0) {
    not_allowed(allow_here());
    return r;
  }
  const action_route& action = actions.routes[static_cast<size_t>(id)];
  if (action.keyed) {
    auto [value, err] = parse_positive_id(key_text);
    if (err != id_error::none) {
      r.kind = route_kind::bad_request;
      r.detail = to_detail(err);
      return r;
    }
    r.id = value;
  }
  if (action.check_query != nullptr) {
    if (auto detail = action.check_query(query_of(target)); !detail.empty()) {
      r.kind = route_kind::bad_request;
      r.detail = detail;
      return r;
    }
  }
  r.kind = route_kind::action;
  r.action = action.id;
  r.action_metric = action.metric;
  return r;
}

} // namespace restcache::http
