// SPDX-License-Identifier: Apache-2.0
#include "tools/freshness/database.hpp"

#include <cstdio>

#include "persistence/pg/statements.hpp"

namespace restcache::freshness {

pg::connection& database::conn() {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds{retry_s_};
  while (!conn_ || !conn_->ok()) {
    try {
      conn_.reset();
      pg::connection c{dsn_};
      pg::prepare_statements(c);
      c.exec("SET application_name = 'restcache-freshness'");
      conn_.emplace(std::move(c));
      if (reconnects_++ > 0 && !quiet_)
        std::fprintf(stderr, "restcache-freshness: reconnected to PostgreSQL\n");
    } catch (const pg::error& e) {
      if (std::chrono::steady_clock::now() >= deadline)
        throw;
      if (!waiting_ && !quiet_)
        std::fprintf(stderr, "restcache-freshness: PostgreSQL unavailable, waiting: %s\n", e.what());
      waiting_ = true;
      std::this_thread::sleep_for(std::chrono::milliseconds{200});
      continue;
    }
    waiting_ = false;
  }
  return *conn_;
}

} // namespace restcache::freshness
