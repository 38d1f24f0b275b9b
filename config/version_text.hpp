// SPDX-License-Identifier: Apache-2.0
#pragma once

// The one version string every program prints for --version (restcached and
// its tools alike), apart from options.hpp so a tool needs no CAF for it.

#include <string>

namespace restcache {

/// "restcached 0.1.0 (<git revision>)".
std::string restcache_version_text();

/// What --version prints: the version line, then the copyright and the
/// licence (its SPDX identifier), as help2man puts them in the man pages.
std::string restcache_version_notice();

} // namespace restcache
