#include "config/version_text.hpp"

#include "restcache_version.hpp"

namespace restcache {

std::string restcache_version_text() {
  return std::string{"restcached "} + RESTCACHE_VERSION + " (" + RESTCACHE_GIT_REVISION + ")";
}

} // namespace restcache
