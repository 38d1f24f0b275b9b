// SPDX-License-Identifier: Apache-2.0
#pragma once

// restcache-freshness's one PostgreSQL session, reconnected when it breaks
// (PostgreSQL restarted, the session terminated): writes, the truth, and
// what the write generators read to pick their writes.

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <thread>
#include <utility>

#include "persistence/pg/connection.hpp"

namespace restcache::freshness {

class database {
public:
  database(std::string dsn, int64_t retry_s, bool quiet) : dsn_(std::move(dsn)), retry_s_(retry_s), quiet_(quiet) {}

  /// The connection, connecting (and waiting up to retry_s) when needed.
  pg::connection& conn();

  /// Runs f(conn), again on a new connection when the connection broke
  /// (bounded by retry_s). f must be safe to repeat (reads).
  template <class F>
  auto run(F&& f) -> decltype(f(std::declval<pg::connection&>())) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds{retry_s_};
    for (;;) {
      try {
        return f(conn());
      } catch (const pg::error& e) {
        if (!lost(e) || std::chrono::steady_clock::now() >= deadline)
          throw;
        conn_.reset();
        std::this_thread::sleep_for(std::chrono::milliseconds{100});
      }
    }
  }

  /// Whether `e` means the session is gone (rather than a statement failed).
  bool lost(const pg::error& e) const { return e.connection_lost() || !conn_ || !conn_->ok(); }
  void drop() { conn_.reset(); }

private:
  std::string dsn_;
  int64_t retry_s_;
  bool quiet_;
  std::optional<pg::connection> conn_;
  int reconnects_ = 0;
  bool waiting_ = false;
};

/// An integer as a statement parameter.
inline std::string param(int64_t v) {
  return std::to_string(v);
}

} // namespace restcache::freshness
