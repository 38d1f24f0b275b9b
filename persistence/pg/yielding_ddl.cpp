// SPDX-License-Identifier: Apache-2.0
#include "persistence/pg/yielding_ddl.hpp"

#include <algorithm>
#include <chrono>
#include <thread>

#include "persistence/pg/schema.hpp"

namespace restcache::pg {

void begin_yielding_ddl(connection& c) {
  c.exec(std::string{"BEGIN; SET LOCAL client_min_messages = warning; "} + schema_lock_sql
         + "; SELECT set_config('lock_timeout', greatest(10, least(200, (SELECT setting::int / 2 FROM pg_settings"
           " WHERE name = 'deadlock_timeout')))::text || 'ms', true)");
}

void yielding_to_writers(const std::function<void()>& attempt) {
  using namespace std::chrono_literals;
  const auto until = std::chrono::steady_clock::now() + 30s;
  for (int tries = 1;; ++tries) {
    try {
      attempt();
      return;
    } catch (const error& e) {
      const bool yielded = e.sqlstate() == "55P03" || e.sqlstate() == "40P01"; // lock_timeout, deadlock
      if (!yielded || std::chrono::steady_clock::now() >= until)
        throw;
      std::this_thread::sleep_for(std::chrono::milliseconds{std::min(20 * tries, 500)});
    }
  }
}

} // namespace restcache::pg
