// SPDX-License-Identifier: Apache-2.0
#include "config/version_text.hpp"

#include "restcache_version.hpp"

namespace restcache {

std::string restcache_version_text() {
  return std::string{"restcached "} + RESTCACHE_VERSION + " (" + RESTCACHE_GIT_REVISION + ")";
}

std::string restcache_version_notice() {
  return restcache_version_text() + "\nCopyright 2026 the restcache developers.\n"
         + "Licensed under the Apache License, Version 2.0 (SPDX: " RESTCACHE_LICENSE ").\n";
}

} // namespace restcache
