// SPDX-License-Identifier: Apache-2.0
#include "app/database_check_component.hpp"

#include <stdexcept>
#include <string>

#include "app/startup.hpp"
#include "persistence/pg/schema.hpp"

namespace restcache {

void database_check_component::prepare(daemon_context& ctx) {
  const auto& o = ctx.options();
  // A newer schema may log changes where this build does not read them:
  // serving from its tiers could be stale.
  auto schema = startup::check_schema(o.db_dsn);
  // Without this build's schema nothing is cached, so nothing needs
  // vouching for; restcache-load checks the kinds before it installs it.
  if (schema == startup::schema_action::current) {
    startup::check_documents(o);
    startup::check_feed(o);
  }
  if (schema == startup::schema_action::newer)
    throw std::runtime_error("the database holds a restcache schema newer than this build's (version "
                             + std::to_string(pg::schema_version)
                             + "): upgrade restcached; this build cannot tell what changes it would miss");
}

} // namespace restcache
