// SPDX-License-Identifier: Apache-2.0
#include "messages/document_plan.hpp"

#include <algorithm>
#include <cassert>
#include <vector>
#include <utility>

#include "messages/document_encoder.hpp"
#include "messages/json_sink.hpp"

namespace restcache {

namespace {

bool is_digit(char c) noexcept {
  return c >= '0' && c <= '9';
}

/// Whether `s` is a number as JSON writes one (RFC 8259: -?int frac? exp?).
bool json_number(std::string_view s) noexcept {
  size_t i = 0;
  auto digits = [&] {
    auto from = i;
    while (i < s.size() && is_digit(s[i]))
      ++i;
    return i - from;
  };
  if (i < s.size() && s[i] == '-')
    ++i;
  if (i < s.size() && s[i] == '0')
    ++i;
  else if (digits() == 0)
    return false;
  if (i < s.size() && s[i] == '.') {
    ++i;
    if (digits() == 0)
      return false;
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-'))
      ++i;
    if (digits() == 0)
      return false;
  }
  return i == s.size();
}

/// PostgreSQL's ISO output ('2026-12-05 08:31:35.5+00') as ISO 8601
/// ('2026-12-05T08:31:35.5+00:00'); a BC one keeps its ' BC' after the
/// offset, as PostgreSQL's own JSON writes it; anything else ('infinity')
/// as it is. The sink writes the quotes and escapes nothing: none is needed.
template <class Sink>
void put_timestamp(Sink& out, std::string_view s) {
  bool iso = s.size() >= 19 && s[10] == ' ' && s[13] == ':' && s[16] == ':';
  if (!iso) {
    out.string(s);
    return;
  }
  constexpr std::string_view bc = " BC";
  const bool is_bc = s.size() >= 19 + bc.size() && s.substr(s.size() - bc.size()) == bc;
  if (is_bc)
    s.remove_suffix(bc.size());
  // A whole-hour offset comes as '+HH': RFC 3339 wants '+HH:MM'.
  bool short_offset = s.size() >= 22 && (s[s.size() - 3] == '+' || s[s.size() - 3] == '-')
                      && is_digit(s[s.size() - 2]) && is_digit(s.back());
  out.ch('"');
  out.raw(s.substr(0, 10));
  out.ch('T');
  out.raw(s.substr(11));
  if (short_offset)
    out.raw(":00");
  if (is_bc)
    out.raw(bc);
  out.ch('"');
}

/// How a gathered value is written.
enum class write_as : uint8_t {
  raw,    ///< as it is (a number, true/false, json, null)
  string, ///< a JSON string, escaped
  timestamp,
};

/// One member of an object, gathered from the result before the two passes
/// that measure and write the document (each cell is read from the result
/// once, and checked once).
struct piece {
  std::string_view member; ///< `"name":`
  std::string_view text;
  write_as how;
};

piece gather_one(const field_plan& f, std::string_view v) {
  switch (f.type) {
    case value_type::number:
      return {f.member, v, json_number(v) ? write_as::raw : write_as::string}; // NaN, Infinity: strings
    case value_type::text:
    case value_type::date:
      return {f.member, v, write_as::string};
    case value_type::timestamp:
      return {f.member, v, write_as::timestamp};
    case value_type::boolean:
      return {f.member, v == "t" ? std::string_view{"true"} : std::string_view{"false"}, write_as::raw};
    case value_type::json:
      return {f.member, v, write_as::raw};
  }
  return {f.member, v, write_as::string};
}

template <class Sink>
void put_piece(Sink& out, const piece& p) {
  out.raw(p.member);
  switch (p.how) {
    case write_as::raw: out.raw(p.text); break;
    case write_as::string: out.string(p.text); break;
    case write_as::timestamp: put_timestamp(out, p.text); break;
  }
}

template <class Sink>
void put_members(Sink& out, const piece* begin, const piece* end) {
  for (const piece* p = begin; p != end; ++p) {
    if (p != begin)
      out.ch(',');
    put_piece(out, *p);
  }
}

/// Pieces a thread keeps room for between documents (a few hundred KB).
constexpr size_t max_kept_pieces = 8192;

/// The gathered document: the master's pieces up to ends[0], then each
/// detail element's up to the next end.
struct gathered {
  std::vector<piece> pieces;
  std::vector<size_t> ends;
  json_sink::size_sink pieces_size; ///< what the pieces take, measured as they are gathered

  void add(const piece& p) {
    pieces.push_back(p);
    put_piece(pieces_size, p);
  }
  void gather(const object_plan& o, bool write_nulls, const text_cells& cells, int row) {
    for (const auto& f : o.fields) {
      if (auto v = cells.value(row, f.column))
        add(gather_one(f, *v));
      else if (write_nulls)
        add({f.member, "null", write_as::raw});
    }
    ends.push_back(pieces.size());
  }
  /// The document's size: the pieces, and the braces, brackets and commas
  /// put_document writes around them.
  size_t document_size(const document_plan& plan) const {
    auto members = [](size_t n) { return n == 0 ? 0 : n - 1; }; // commas between n
    size_t n = pieces_size.n + 2 + members(ends[0]);
    if (plan.detail) {
      n += (ends[0] > 0 ? 1 : 0) + plan.detail->member.size() + 2 + members(ends.size() - 1);
      for (size_t i = 1; i < ends.size(); ++i)
        n += 2 + members(ends[i] - ends[i - 1]);
    }
    return n;
  }
};

template <class Sink>
void put_document(Sink& out, const document_plan& plan, const gathered& g) {
  const piece* p = g.pieces.data();
  out.ch('{');
  put_members(out, p, p + g.ends[0]);
  if (plan.detail) {
    if (g.ends[0] > 0)
      out.ch(',');
    out.raw(plan.detail->member);
    out.ch('[');
    for (size_t i = 1; i < g.ends.size(); ++i) {
      if (i > 1)
        out.ch(',');
      out.ch('{');
      put_members(out, p + g.ends[i - 1], p + g.ends[i]);
      out.ch('}');
    }
    out.ch(']');
  }
  out.ch('}');
}

/// `"name":` as JSON writes it.
std::string json_member(std::string_view name) {
  std::string member;
  append_json_string(member, name);
  member += ':';
  return member;
}

} // namespace

field_plan::field_plan(std::string name_, int column_, value_type type_)
  : name(std::move(name_)), column(column_), type(type_), member(json_member(name)) {}

detail_plan::detail_plan(std::string name_, int present_column_, object_plan element_)
  : name(std::move(name_)), present_column(present_column_), element(std::move(element_)),
    member(json_member(name)) {}

std::string encode_document(const document_plan& plan, const text_cells& cells) {
  auto rows = cells.rows();
  if (rows == 0)
    return {};
  // Kept by the thread between documents: a fill allocates nothing here.
  thread_local gathered g;
  g.pieces.clear();
  g.ends.clear();
  g.pieces_size = {};
  g.gather(plan.master, plan.write_nulls, cells, 0);
  if (plan.detail)
    for (int row = 0; row < rows; ++row)
      if (!cells.is_null(row, plan.detail->present_column))
        g.gather(plan.detail->element, plan.write_nulls, cells, row);
  std::string out(g.document_size(plan), '\0');
  json_sink::write_sink w{out.data()};
  put_document(w, plan, g);
  assert(w.p == out.data() + out.size());
  // One document with many detail rows must not leave the thread holding
  // room for them for ever.
  if (g.pieces.capacity() > max_kept_pieces) {
    g.pieces = {};
    g.ends = {};
  }
  return out;
}

std::string_view value_type_name(value_type type) noexcept {
  switch (type) {
    case value_type::number: return "number";
    case value_type::text: return "text";
    case value_type::date: return "date";
    case value_type::timestamp: return "timestamp";
    case value_type::boolean: return "boolean";
    case value_type::json: return "json";
  }
  return "";
}

int last_column(const document_plan& plan) noexcept {
  int last = -1;
  auto of = [&](const object_plan& o) {
    for (const auto& f : o.fields)
      last = std::max(last, f.column);
  };
  of(plan.master);
  if (plan.detail) {
    last = std::max(last, plan.detail->present_column);
    of(plan.detail->element);
  }
  return last;
}

} // namespace restcache
