// SPDX-License-Identifier: Apache-2.0
// restcached --options-page: docs/configuration.md, printed from the option
// table so the page cannot drift from the code (test/options_page.sh diffs
// them). Only declared values appear: the page is the same on every machine.

#include <caf/config_value.hpp>
#include <caf/settings.hpp>

#include <string>
#include <string_view>

#include "config/defaults.hpp"
#include "config/options.hpp"

namespace restcache {

namespace {

/// Plain text (a help line, allowed()) as Markdown that shows it as it is,
/// in a table cell: '|' would end the cell, '<token>' would be taken for
/// HTML, '*' for emphasis ('>' is harmless once '<' is escaped).
std::string plain_cell(std::string_view text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '|': out += "\\|"; break;
      case '*': out += "\\*"; break;
      case '\\': out += "\\\\"; break;
      case '<': out += "&lt;"; break;
      default: out += c;
    }
  }
  return out;
}

/// Markdown written for the page (a note) in a table cell: only '|' would
/// break the table (GFM takes "\|" even inside a code span).
std::string markdown_cell(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '|')
      out += '\\';
    out += c;
  }
  return out;
}

/// "2 MiB" for a whole number of KiB, MiB or GiB (the largest that fits), else "".
std::string binary_size(int64_t bytes) {
  static constexpr std::pair<int64_t, const char*> units[] = {
    {int64_t{1} << 40, "TiB"}, {int64_t{1} << 30, "GiB"}, {int64_t{1} << 20, "MiB"}, {int64_t{1} << 10, "KiB"}};
  if (bytes > 0)
    for (auto [size, name] : units)
      if (bytes % size == 0)
        return std::to_string(bytes / size) + " " + name;
  return {};
}

std::string default_cell(const option_spec& s) {
  std::string out;
  if (s.type == option_spec::kind::text)
    out = s.default_text.empty() ? "`\"\"` (empty)" : "`\"" + s.default_text + "\"`";
  else
    out = "`" + s.default_text + "`";
  if (s.in_bytes)
    if (auto size = binary_size(std::stoll(s.default_text)); !size.empty())
      out += " (" + size + ")";
  if (!s.default_means.empty())
    out += ": " + markdown_cell(s.default_means);
  return out;
}

std::string meaning_cell(const option_spec& s) {
  auto out = plain_cell(s.help);
  if (!s.note.empty())
    out += ". " + markdown_cell(s.note);
  return out;
}

} // namespace

std::string restcache_config::options_page() const {
  // The refusals the introduction shows, with what the table allows.
  auto* mode = find_spec("cache.mode");
  auto* port = find_spec("http.port");
  std::string out = R"(# restcached options

<!-- Printed by `restcached --options-page` from the option table in
config/options.cpp: edit the help texts and notes there, build, and write this
page again with `BUILD_DIR/restcached --options-page > docs/configuration.md`.
The options_page test fails while the two differ. -->

Every option `restcached` reads: its default as declared (automatic values are
worked out at start-up), what it allows, and what it means.

## How options are read

Options are read from a config file, then from the command line, which wins:

- the file is `--config-file=FILE`, else `)" + std::string{defaults::config_file} + R"(` when it exists
  (a missing default file is not an error; a missing `--config-file` is). It uses CAF's INI
  syntax: `[group]`, then `key = value`, strings in double quotes, `;` comments.
  `deploy/restcached.conf` is a commented example;
- `--group.option=value` on the command line. A flag is turned on by `--cache.populate`,
  and off by `--cache.populate=false` (to turn off what the file turned on);
- `db.dsn` leaves out what the standard `PGHOST`, `PGPORT`, `PGUSER`, `PGPASSWORD`,
  `PGDATABASE` (and the other `PG*`) variables and `~/.pgpass` supply; empty uses them alone.

`restcached --help` lists every option with its default and what is allowed,
`--version` prints the release, commit and licence, `--dump-config` prints the effective
configuration in the config-file syntax (automatic values resolved, passwords and the
write token masked), `--caf-help` lists CAF's own options, and `--options-page` prints
this page. A bad value stops start-up with exit status 2 and one line naming the option,
the value and what is allowed:

```
$ restcached --cache.mode=sometimes
restcached: invalid value 'sometimes' for --cache.mode: )" + mode->check_text("sometimes").value_or("") + R"(
$ restcached --config-file=bad.conf
restcached: bad.conf:3: invalid value "x" for http.port: )" + port->check_text("x").value_or("") + R"(
```
)";
  std::string group;
  for (auto& s : specs_) {
    if (s.group != group) {
      group = s.group;
      out += "\n## " + group + "\n\n| option | default | allowed | meaning |\n|---|---|---|---|\n";
    }
    out += "| `" + s.key() + "` | " + default_cell(s) + " | " + plain_cell(s.allowed()) + " | " + meaning_cell(s)
           + " |\n";
  }
  out += R"(
## scheduler

CAF's own options (`restcached --caf-help` lists them all); restcached changes two defaults.

| option | default | allowed | meaning |
|---|---|---|---|
| `scheduler.max-threads` | half the cores (at least 1) | an integer | with `runtime.scheduler=caf`: the threads of CAF's scheduler; with `io` it is `http.threads` |
| `scheduler.policy` | `')"
         + caf::to_string(caf::get_or(content, "scheduler.policy", caf::atom("sharing")))
         + R"('` | `'sharing'` or `'stealing'` | with `runtime.scheduler=caf`: how CAF's threads share work; sharing wakes a thread promptly for each request/response hop, stealing backs off with sleeps |
)";
  return out;
}

} // namespace restcache
