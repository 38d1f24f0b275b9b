#include "http/router.hpp"

#include <algorithm>
#include <cstring>

#include "messages/doc_catalogue.hpp"

namespace restcache::http {

namespace {

// The demo's keyed writes: PUT and DELETE on its department's and
// employee's document paths.
constexpr std::string_view dept_prefix = "/depts/";
constexpr std::string_view emp_prefix = "/depts/emps/";

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

enum class path_kind : uint8_t {
  unknown, document, dept_id, depts, random_dept, emp_id, emps, health, ready, metrics
};

/// Which methods a path supports (for 405 and its Allow header).
std::string_view allow_of(path_kind k) noexcept {
  switch (k) {
    case path_kind::dept_id:
    case path_kind::emp_id: return "GET, HEAD, PUT, DELETE";
    case path_kind::depts: return "GET, HEAD, POST, PUT";
    case path_kind::random_dept: return "GET, HEAD, PUT";
    case path_kind::emps: return "POST";
    default: return "GET, HEAD";
  }
}

std::string_view query_of(std::string_view target) noexcept {
  auto q = target.find('?');
  if (q == std::string_view::npos)
    return {};
  target = target.substr(q + 1);
  return target.substr(0, target.find('#'));
}

/// after and limit of GET /depts; false with a detail when malformed.
bool parse_page_query(std::string_view query, route& r) {
  while (!query.empty()) {
    auto amp = query.find('&');
    auto pair = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view{} : query.substr(amp + 1);
    if (pair.empty())
      continue;
    auto eq = pair.find('=');
    auto name = pair.substr(0, eq);
    auto value = eq == std::string_view::npos ? std::string_view{} : pair.substr(eq + 1);
    if (name == "after") {
      if (value == "0") {
        r.after = 0;
        continue;
      }
      auto [v, err] = parse_positive_id(value);
      if (err != id_error::none) {
        r.detail = "after must be a department number (0 or a positive integer in decimal digits)";
        return false;
      }
      r.after = v;
    } else if (name == "limit") {
      auto [v, err] = parse_positive_id(value);
      if (err != id_error::none && err != id_error::overflow) {
        r.detail = "limit must be a positive integer in decimal digits";
        return false;
      }
      r.limit = err == id_error::overflow ? max_page_limit : std::min(v, max_page_limit);
    } else {
      r.detail = "unknown query parameter: GET /depts takes after and limit";
      return false;
    }
  }
  return true;
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

doc_key key_of(const route& r) {
  return r.integer_key ? doc_key{r.doc, r.id} : doc_key::of_bytes(r.doc, r.key_text());
}

namespace {

/// The kind whose route `path` starts with, the longest such route winning
/// ("/depts/emps/" before "/depts/"); null when none.
const doc_kind_entry* kind_of_path(std::string_view path) noexcept {
  // Compared in place: routes are short, and a call to memcmp per kind
  // costs more than the bytes (bench/callgrind.sh).
  auto starts_with = [&](const std::string& route) {
    size_t n = route.size();
    if (n == 0 || n > path.size())
      return false;
    const char *a = route.data(), *b = path.data();
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
  };
  const doc_kind_entry* best = nullptr;
  for (const auto& e : doc_catalogue())
    if ((best == nullptr || e.route.size() > best->route.size()) && starts_with(e.route))
      best = &e;
  return best;
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
        r.key_size = static_cast<uint16_t>(text.size());
      }
    } else {
      char uuid[16];
      err = parse_uuid_key(text, uuid);
      if (err == key_error::none) {
        std::copy(std::begin(uuid), std::end(uuid), r.key_bytes.begin());
        r.key_size = 16;
      }
    }
  }
  return err == key_error::none || fail(to_detail(err, kind.key));
}

} // namespace

route parse_route(std::string_view method, std::string_view target) noexcept {
  const std::string_view path = path_of(target);
  path_kind kind = path_kind::unknown;
  const doc_kind_entry* doc = nullptr;
  std::string_view id_text;
  if (path == "/depts/random") {
    kind = path_kind::random_dept;
  } else if (path == "/depts/emps") {
    kind = path_kind::emps;
  } else if (path == "/depts") {
    kind = path_kind::depts;
  } else if (path == "/health") {
    kind = path_kind::health;
  } else if (path == "/ready") {
    kind = path_kind::ready;
  } else if (path == "/metrics") {
    kind = path_kind::metrics;
  } else if ((doc = kind_of_path(path)) != nullptr) {
    id_text = path.substr(doc->route.size());
    if (id_text.find('/') == std::string_view::npos)
      kind = doc->route == emp_prefix ? path_kind::emp_id : doc->route == dept_prefix ? path_kind::dept_id
                                                                                      : path_kind::document;
  }

  route r;
  r.head = method == "HEAD"; // also for error answers: HEAD never gets a body
  if (kind == path_kind::unknown) {
    r.kind = route_kind::not_found;
    r.detail = "no resource at this path";
    return r;
  }
  const bool read = r.head || method == "GET";
  const bool put = method == "PUT", post = method == "POST", del = method == "DELETE";
  // Every return below returns r itself, so it is built in the caller's
  // route (a copy would move the key's buffer on every request).
  auto not_allowed = [&] {
    r.kind = route_kind::method_not_allowed;
    r.detail = "this resource does not support that method; see Allow";
    r.allow = allow_of(kind);
  };
  // Methods first (405 before 400), then the id.
  route_kind chosen = route_kind::not_found;
  switch (kind) {
    case path_kind::document:
      chosen = read ? route_kind::document : route_kind::not_found;
      break;
    case path_kind::dept_id:
      chosen = read ? route_kind::document : put ? route_kind::replace_dept
                                                 : del ? route_kind::delete_dept : route_kind::not_found;
      break;
    case path_kind::emp_id:
      chosen = read ? route_kind::document : put ? route_kind::replace_emp
                                                 : del ? route_kind::delete_emp : route_kind::not_found;
      break;
    case path_kind::depts:
      chosen = read ? route_kind::list_depts : post ? route_kind::create_dept
                                                    : put ? route_kind::replace_dept : route_kind::not_found;
      break;
    case path_kind::random_dept:
      chosen = read ? route_kind::random_dept : put ? route_kind::rewrite_random_dept : route_kind::not_found;
      break;
    case path_kind::emps:
      chosen = post ? route_kind::create_emp : route_kind::not_found;
      break;
    case path_kind::health: chosen = read ? route_kind::health : route_kind::not_found; break;
    case path_kind::ready: chosen = read ? route_kind::ready : route_kind::not_found; break;
    case path_kind::metrics: chosen = read ? route_kind::metrics : route_kind::not_found; break;
    case path_kind::unknown: break;
  }
  if (chosen == route_kind::not_found) {
    not_allowed();
    return r;
  }
  if (chosen == route_kind::document) {
    r.doc = doc->kind;
    if (!parse_document_key(*doc, id_text, r))
      return r;
  } else if (kind == path_kind::dept_id || kind == path_kind::emp_id) {
    auto [value, err] = parse_positive_id(id_text);
    if (err != id_error::none) {
      r.kind = route_kind::bad_request;
      r.detail = to_detail(err);
      return r;
    }
    r.id = value;
  }
  if (chosen == route_kind::list_depts && !parse_page_query(query_of(target), r)) {
    r.kind = route_kind::bad_request;
    return r;
  }
  r.kind = chosen;
  return r;
}

} // namespace restcache::http
