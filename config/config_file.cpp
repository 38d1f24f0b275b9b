// SPDX-License-Identifier: Apache-2.0
#include "config/config_file.hpp"

#include "messages/text.hpp"

#include <fstream>

namespace restcache {

namespace {

/// A config line's text without surrounding blanks (and a CR of CRLF files).
std::string trim_line(std::string_view s) {
  return std::string{trim(s, " \t\r")};
}

/// Cuts a "; comment" that is not inside a quoted string.
std::string strip_comment(const std::string& s) {
  bool quoted = false;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && quoted)
      ++i;
    else if (s[i] == '"')
      quoted = !quoted;
    else if (s[i] == ';' && !quoted)
      return s.substr(0, i);
  }
  return s;
}

/// A "quoted string" literal's content, or nullopt when not one.
std::optional<std::string> unquote(const std::string& v) {
  if (v.size() < 2 || v.front() != '"' || v.back() != '"')
    return std::nullopt;
  std::string out;
  for (size_t i = 1; i + 1 < v.size(); ++i) {
    if (v[i] == '\\' && i + 2 < v.size())
      ++i;
    else if (v[i] == '"')
      return std::nullopt; // a quote in the middle
    out += v[i];
  }
  return out;
}

} // namespace

std::optional<std::string> check_config_file(const std::string& path, const std::vector<option_spec>& specs) {
  std::ifstream in{path};
  if (!in)
    return "cannot read config file " + path;
  auto ours = [&](const std::string& group) {
    for (auto& s : specs)
      if (s.group == group)
        return true;
    return false;
  };
  std::string line, group;
  for (int number = 1; std::getline(in, line); ++number) {
    auto where = path + ":" + std::to_string(number) + ": ";
    auto text = trim_line(strip_comment(line));
    if (text.empty())
      continue;
    if (text.front() == '[') {
      if (text.back() != ']')
        return where + "expected a group like [http], got '" + text + "'";
      group = trim_line(text.substr(1, text.size() - 2));
      continue;
    }
    if (!ours(group))
      continue; // CAF's own groups (scheduler, middleman, ...): CAF checks them
    auto eq = text.find('=');
    if (eq == std::string::npos)
      return where + "expected key = value, got '" + text + "'";
    auto key = group + "." + trim_line(text.substr(0, eq));
    auto value = trim_line(text.substr(eq + 1));
    const option_spec* spec = nullptr;
    for (auto& s : specs)
      if (s.key() == key)
        spec = &s;
    if (!spec) {
      if (auto note = removed_option_note(key))
        return where + *note;
      return where + "unknown option " + key + " (restcached --help lists them)";
    }
    std::string plain = value;
    if (spec->type == option_spec::kind::text) {
      auto s = unquote(value);
      if (!s)
        return where + "invalid value " + value + " for " + key + ": expected a quoted string, e.g. "
               + trim_line(text.substr(0, eq)) + " = \"" + value + "\"";
      plain = *s;
    }
    if (auto problem = spec->check_text(plain))
      return where + "invalid value " + value + " for " + key + ": " + *problem;
  }
  return std::nullopt;
}

} // namespace restcache
