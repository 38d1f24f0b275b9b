// SPDX-License-Identifier: Apache-2.0
#pragma once

// The HTTP edge: serves the front (the shards, the installed action routes,
// /metrics and /ready from the status board) on http.address:http.port.
// Last in the list: it serves once everything it calls is running, and
// stops first.

#include <cstdint>
#include <memory>

#include "component/component.hpp"

namespace restcache {

namespace http {
class server;
struct server_options;
} // namespace http

class http_component final : public component {
public:
  http_component();
  ~http_component() override;

  std::string_view name() const override { return "http"; }
  void start(daemon_context& ctx) override;
  void stop(daemon_context& ctx) override;

  /// The port bound (with http.port=0, the one picked); 0 before start().
  uint16_t port() const;

private:
  std::unique_ptr<http::server> server_;
};

} // namespace restcache
