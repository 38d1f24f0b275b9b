// SPDX-License-Identifier: Apache-2.0
#pragma once

// Command-line scanning shared by the tools (restcache-load,
// restcache-freshness, restcache-inspect): "--name value" and "--name=value",
// with a usage error for a missing or unexpected value, and their --version.
// Header-only; no CAF.

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

#include "config/version_text.hpp"

namespace restcache::tools {

/// --version: exactly what restcached --version prints, so a tool and a
/// daemon of one build are seen to belong together.
[[noreturn]] inline void print_version_and_exit() {
  std::fputs(restcache_version_notice().c_str(), stdout);
  std::exit(0);
}

class cli_args {
public:
  using error_fn = void (*)(const std::string&); ///< must not return

  cli_args(int argc, char** argv, error_fn usage_error) : argc_(argc), argv_(argv), error_(usage_error) {}

  /// Moves to the next argument; false after the last.
  bool next() {
    if (++i_ >= argc_)
      return false;
    name_ = argv_[i_];
    inline_value_.reset();
    if (name_.rfind("--", 0) == 0) {
      if (auto eq = name_.find('='); eq != std::string_view::npos) {
        inline_value_ = name_.substr(eq + 1);
        name_ = name_.substr(0, eq);
      }
    }
    return true;
  }

  /// The option's name, without an inline "=value".
  std::string_view name() const noexcept { return name_; }

  /// The inline value, else the next argument (consumed).
  std::string_view value() {
    if (inline_value_)
      return *inline_value_;
    if (i_ + 1 >= argc_)
      error_("option " + std::string{name_} + " needs a value");
    return argv_[++i_];
  }

  /// For options that take no value: refuses "--flag=x".
  void flag() const {
    if (inline_value_)
      error_("option " + std::string{name_} + " takes no value");
  }

private:
  int argc_;
  char** argv_;
  error_fn error_;
  int i_ = 0;
  std::string_view name_;
  std::optional<std::string_view> inline_value_;
};

} // namespace restcache::tools
