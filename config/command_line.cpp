// SPDX-License-Identifier: Apache-2.0
// restcache_config::read_options and what it prints: --help, --version,
// --dump-config, and the one-line refusal of a bad option (the options page:
// config/options_page.cpp).

#include <caf/config_value.hpp>
#include <caf/sec.hpp>
#include <caf/settings.hpp>

#include <sys/stat.h>

#include <cstdio>
#include <map>
#include <regex>

#include "config/config_file.hpp"
#include "config/defaults.hpp"
#include "config/options.hpp"
#include "config/version_text.hpp"

namespace restcache {

namespace {

int refuse(const std::string& line) {
  std::fprintf(stderr, "restcached: %s\n", line.c_str());
  return 2;
}

bool file_exists(const std::string& path) {
  struct stat st{};
  return ::stat(path.c_str(), &st) == 0;
}

/// Hides passwords in a libpq keyword/value string or URI.
std::string mask_dsn(const std::string& dsn) {
  static const std::regex keyword{R"((password\s*=\s*)('([^'\\]|\\.)*'|\S+))"};
  static const std::regex uri{R"((://[^:/@]*:)[^@]*@)"};
  auto out = std::regex_replace(dsn, keyword, "$1***");
  return std::regex_replace(out, uri, "$1***@");
}

/// CAF's parser_error(...) for a config file as words: its code and where.
std::string describe_caf_error(const caf::error& err, const std::string& file) {
  auto text = caf::to_string(err);
  std::smatch m;
  static const std::regex line_col{R"(\"column\" = (\d+), \"line\" = (\d+))"};
  static const std::regex code{R"(^\w+\((\w+))"};
  std::string what = std::regex_search(text, m, code) ? std::string{m[1]} : text;
  for (auto& c : what)
    if (c == '_')
      c = ' ';
  if (std::regex_search(text, m, line_col))
    return file + ":" + std::string{m[2]} + ":" + std::string{m[1]} + ": cannot read the file (" + what + ")";
  return "cannot read the options (" + text + ")";
}

} // namespace

std::optional<int> restcache_config::read_options(int argc, char** argv) {
  caf::actor_system_config::string_list caf_args;
  std::map<const option_spec*, bool> flags; // applied after CAF: it cannot set a flag false
  std::string file = defaults::config_file;
  bool file_given = false, want_help = false, want_version = false, want_page = false, want_dump = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--help" || a == "-h" || a == "-?") {
      want_help = true;
    } else if (a == "--version") {
      want_version = true;
    } else if (a == "--options-page") {
      want_page = true;
    } else if (a == "--dump-config") {
      want_dump = true;
    } else if (a == "--caf-help") {
      caf_args.push_back("--long-help"); // CAF's own options and groups
    } else if (a.rfind("--config-file=", 0) == 0) {
      file = a.substr(14);
      file_given = true;
    } else if (a.rfind("--", 0) == 0) {
      auto eq = a.find('=');
      auto key = a.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
      auto* spec = find_spec(key);
      if (!spec) {
        if (auto note = removed_option_note(key))
          return refuse(*note);
        auto group = key.substr(0, key.find('.'));
        bool ours = std::any_of(specs_.begin(), specs_.end(), [&](auto& s) { return s.group == group; });
        if (ours || key.find('.') == std::string::npos)
          return refuse("unknown option " + a + " (restcached --help lists every option)");
        caf_args.push_back(a); // scheduler.*, middleman.*, ...: CAF checks them
        continue;
      }
      if (spec->type == option_spec::kind::flag) {
        auto value = eq == std::string::npos ? std::string{"true"} : a.substr(eq + 1);
        if (auto problem = spec->check_text(value))
          return refuse("invalid value '" + value + "' for --" + key + ": " + *problem);
        flags[spec] = value == "true";
        continue;
      }
      if (eq == std::string::npos)
        return refuse("option --" + key + " needs a value: --" + key + "=<" + spec->allowed() + ">");
      auto value = a.substr(eq + 1);
      if (auto problem = spec->check_text(value))
        return refuse("invalid value '" + value + "' for --" + key + ": " + *problem);
      caf_args.push_back(a);
    } else {
      return refuse("unexpected argument '" + a
                    + "' (options look like --http.port=8080; restcached --help lists them)");
    }
  }
  if (want_help) {
    std::fputs(help_text().c_str(), stdout);
    return 0;
  }
  if (want_version) {
    std::fputs(restcache_version_notice().c_str(), stdout);
    return 0;
  }
  // Before the config file is read: the page shows the declared defaults.
  if (want_page) {
    std::fputs(options_page().c_str(), stdout);
    return 0;
  }
  config_file_used = file;
  config_file_found = file_exists(file);
  if (file_given && !config_file_found)
    return refuse("cannot read config file " + file + " (--config-file): no such file");
  if (config_file_found)
    if (auto problem = check_config_file(file, specs_))
      return refuse(*problem);
  if (auto err = parse(std::move(caf_args), config_file_found ? file.c_str() : nullptr))
    return refuse(describe_caf_error(err, file));
  if (cli_helptext_printed)
    return 0;
  for (auto& [spec, value] : flags)
    *static_cast<bool*>(spec->target) = value;
  if (auto problem = validate_and_resolve())
    return refuse(*problem);
  if (want_dump) {
    std::fputs(dump_text().c_str(), stdout);
    return 0;
  }
  return std::nullopt;
}

std::string restcache_config::help_text() const {
  std::string out = restcache_version_text() + R"(: a read-through cache of the JSON documents a
declaration file describes (documents.file; without one, the demo's departments
and employees) in front of PostgreSQL, with a memory tier and an LMDB tier.

usage: restcached [--config-file=FILE] [--group.option=value ...]

Options come from FILE (default )" + std::string{defaults::config_file} + R"(, skipped when it
does not exist), then from the command line, which wins. In FILE, options
are grouped: [http] then port = 8080, strings in double quotes, ; comments.
The PostgreSQL connection also honours PGHOST, PGPORT, PGUSER, PGPASSWORD,
PGDATABASE and the other PG* variables for whatever db.dsn leaves out.

  --help, -h          this text
  --version           the release, the commit it was built from and the licence
  --dump-config       print the effective configuration as a config file
  --options-page      print every option as Markdown (docs/configuration.md)
  --caf-help          CAF's own options: --scheduler.max-threads=N,
                      --scheduler.enable-profiling (per-actor CPU), ...
)";
  std::string group;
  for (auto& s : specs_) {
    if (s.group != group) {
      group = s.group;
      out += "\n[" + group + "]\n";
    }
    auto flag = s.type == option_spec::kind::flag;
    auto left = "  --" + s.key() + (flag ? "" : s.type == option_spec::kind::integer ? "=N" : "=TEXT");
    out += left + std::string(left.size() < 36 ? 36 - left.size() : 1, ' ') + s.help + "\n";
    out += std::string(36, ' ') + "default " + (s.type == option_spec::kind::text ? "\"" + s.default_text + "\"" : s.default_text);
    if (!flag)
      out += "; " + s.allowed();
    out += "\n";
  }
  return out;
}

std::string restcache_config::dump_text() const {
  std::string out = "; " + restcache_version_text() + ": effective configuration\n; config file: "
                    + config_file_used + (config_file_found ? "" : " (not found)")
                    + "\n; automatic values (0) are shown resolved; secrets are masked\n";
  std::string group;
  for (auto& s : specs_) {
    if (s.group != group) {
      group = s.group;
      out += "\n[" + group + "]\n";
    }
    auto value = s.current_literal();
    if (s.secret && value != "\"\"") {
      // Appended rather than "\"" + ...: GCC 12 warns (-Wrestrict) about a
      // literal prepended to a temporary string, wrongly.
      value = "\"";
      value += s.key() == "db.dsn" ? mask_dsn(*static_cast<const std::string*>(s.target)) : "***";
      value += '"';
    }
    out += s.name + " = " + value + "\n";
  }
  out += "\n[scheduler]\npolicy = '" + caf::to_string(caf::get_or(content, "scheduler.policy", caf::atom("sharing")))
         + "'\nmax-threads = " + std::to_string(caf::get_or(content, "scheduler.max-threads", size_t{0}))
         + "\n";
  return out;
}

} // namespace restcache
