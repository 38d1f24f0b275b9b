// SPDX-License-Identifier: Apache-2.0
#pragma once

// Checks a configuration file before CAF reads it: CAF 0.17 silently skips a
// value of the wrong type and an unknown key, and reports a syntax error
// only as parser_error(...). This reader understands the subset of CAF's
// INI syntax restcache documents ([group], key=value, "strings", ; comments)
// and names the file, line, option, value and what is allowed.

#include <optional>
#include <string>
#include <vector>

#include "config/options.hpp"

namespace restcache {

/// The problem with the file's first bad line, or nullopt. Groups that are
/// not restcache's (scheduler, middleman, ...) are left to CAF.
std::optional<std::string> check_config_file(const std::string& path, const std::vector<option_spec>& specs);

} // namespace restcache
