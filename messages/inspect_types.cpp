// SPDX-License-Identifier: Apache-2.0
#include "messages/inspect_types.hpp"

#include <algorithm>

#include "messages/doc_catalogue.hpp"
#include "messages/key_comparison.hpp"

namespace restcache {

std::string inspected_key_names() {
  std::vector<std::string_view> names;
  auto add = [&](std::string_view n) {
    if (std::find(names.begin(), names.end(), n) == names.end())
      names.push_back(n);
  };
  for (const auto& e : doc_catalogue())
    add(e.entity);
  for (const auto& e : doc_catalogue())
    add(e.name);
  std::string out;
  for (auto n : names)
    out += (out.empty() ? "" : ", ") + std::string{n};
  return out;
}

bool parse_inspected_key(const std::string& text, inspected_key& key, std::string& why) {
  auto bad = [&](std::string_view detail) {
    why = "bad key '" + text + "': " + std::string{detail} + " (expected <name>:<key>, where <name> is one of "
          + inspected_key_names() + ")";
    return false;
  };
  auto colon = text.find(':');
  if (colon == std::string::npos)
    return bad("no ':' in it");
  auto name = std::string_view{text}.substr(0, colon);
  // A key space names what a change of that key invalidates: its kind and
  // the kinds it fans out to, as the listener sends them.
  std::vector<doc_kind> kinds;
  if (auto changed = change_kind(name)) {
    kinds.push_back(*changed);
    for_each_fanned_out(*changed, [&](doc_kind k) { kinds.push_back(k); });
  } else if (const auto* e = find_doc_kind(name)) {
    kinds.push_back(e->kind);
  }
  if (kinds.empty())
    return bad("no key space or kind is called '" + std::string{name} + "'");
  // Kinds of one space share their key type (install_catalogue checks).
  doc_key first;
  auto type = doc_kind_info(kinds.front()).key;
  if (auto err = parse_canonical_key(type, kinds.front(), std::string_view{text}.substr(colon + 1), first);
      err != key_error::none)
    return bad(to_detail(err, type));
  key.keys.clear();
  for (auto k : kinds)
    key.keys.push_back(first.of_kind(k));
  return true;
}

std::string render_actor_table(const std::vector<actor_report>& reports) {
  const std::string h_name = "NAME", h_id = "ACTOR-ID", h_mbox = "MAILBOX", h_holds = "HOLDS";
  auto id_text = [](const actor_report& r) { return r.id == 0 ? std::string{"-"} : std::to_string(r.id); };
  auto mbox_text = [](const actor_report& r) {
    return r.answered && r.mailbox >= 0 ? std::to_string(r.mailbox) : std::string{"-"};
  };
  size_t w_name = h_name.size(), w_id = h_id.size(), w_mbox = h_mbox.size();
  for (auto& r : reports) {
    w_name = std::max(w_name, r.name.size());
    w_id = std::max(w_id, id_text(r).size());
    w_mbox = std::max(w_mbox, mbox_text(r).size());
  }
  auto pad_right = [](std::string s, size_t w) {
    s.resize(std::max(w, s.size()), ' ');
    return s;
  };
  auto pad_left = [](const std::string& s, size_t w) {
    return std::string(w > s.size() ? w - s.size() : 0, ' ') + s;
  };
  std::string out;
  out += pad_right(h_name, w_name) + "  " + pad_left(h_id, w_id) + "  " + pad_left(h_mbox, w_mbox) + "  "
         + h_holds + "\n";
  for (auto& r : reports) {
    std::string holds;
    if (!r.answered) {
      holds = "(no report: " + r.note + ")";
    } else {
      for (auto& f : r.holds) {
        if (!holds.empty())
          holds += ", ";
        holds += f.name + " " + f.value;
      }
      if (!r.note.empty())
        holds += (holds.empty() ? "" : "; ") + r.note;
    }
    out += pad_right(r.name, w_name) + "  " + pad_left(id_text(r), w_id) + "  "
           + pad_left(mbox_text(r), w_mbox) + "  " + holds + "\n";
  }
  return out;
}

std::string render_key_reports(const std::string& key, const std::vector<key_report>& reports) {
  std::string out = key + ":\n";
  auto yes_no = [](bool b) { return std::string{b ? "yes" : "no"}; };
  for (auto& r : reports) {
    std::string where;
    if (r.in_memory && r.in_lmdb)
      where = "cached in memory and in LMDB";
    else if (r.in_memory)
      where = "cached in memory";
    else if (r.in_lmdb)
      where = "cached in LMDB";
    else
      where = "not cached";
    if (r.fill_in_flight)
      where += " (a fill is in flight)";
    out += "  " + r.key + " on " + r.shard + ": " + where + "\n";
    out += "    memory:          " + yes_no(r.in_memory);
    if (r.in_memory)
      out += ", " + std::to_string(r.memory_bytes) + " bytes, ETag " + r.etag;
    out += "\n";
    out += "    LMDB:            ";
    if (!r.tier_enabled)
      out += "off (no LMDB tier in this cache.mode)";
    else if (r.shielded)
      out += yes_no(r.in_lmdb) + (r.in_lmdb ? ", " + std::to_string(r.lmdb_bytes) + " bytes" : std::string{})
             + " (not read: shielded)";
    else
      out += yes_no(r.in_lmdb) + (r.in_lmdb ? ", " + std::to_string(r.lmdb_bytes) + " bytes" : std::string{});
    out += "\n";
    out += "    fill in flight:  " + yes_no(r.fill_in_flight) + "\n";
    out += "    shielded:        " + yes_no(r.shielded)
           + (r.shielded ? " (invalidated; its LMDB delete is not yet confirmed, so LMDB is not read for it)"
                         : std::string{})
           + "\n";
    out += "    change seq:      ";
    if (r.in_memory || r.fill_in_flight)
      out += std::to_string(r.doc_seq) + " = the shard's applied change sequence when this "
             + (r.in_memory ? "copy was read" : "fill started")
             + " (it reflects every change up to it); ";
    out += r.shard + " has applied changes up to seq " + std::to_string(r.shard_applied_seq) + "\n";
  }
  return out;
}

} // namespace restcache
