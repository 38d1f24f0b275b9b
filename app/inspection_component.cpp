// SPDX-License-Identifier: Apache-2.0
#include "app/inspection_component.hpp"

#include <caf/all.hpp>
#include <spdlog/spdlog.h>

#include <stdexcept>

#include "actors/inspector.hpp"
#include "actors/metrics_text.hpp"
#include "app/inspect_socket.hpp"
#include "app/shards_component.hpp"

namespace restcache {

inspection_component::inspection_component() = default;
inspection_component::~inspection_component() = default;

void inspection_component::start(daemon_context& ctx) {
  std::vector<mailbox_gauge> mailboxes;
  for (auto& a : ctx.long_lived)
    if (a.handle && a.mailbox)
      mailboxes.emplace_back(a.name, a.mailbox);
  ctx.board.add_metrics_writer([mailboxes] { return mailbox_metrics_text(mailboxes); });
  ctx.board.add_metrics_writer([] { return process_metrics_text(); });
  const auto& path = ctx.options().inspect_socket;
  if (path.empty())
    return;
  inspector_config cfg;
  cfg.actors = ctx.long_lived;
  cfg.shards = ctx.find<shards_component>().shards();
  inspector_ = spawn_inspector(*ctx.system, std::move(cfg));
  try { // before serving: a socket path that cannot be had stops start-up
    socket_ = std::make_unique<inspect_socket>(*ctx.system, inspector_, path);
  } catch (const std::exception& e) {
    throw std::runtime_error(std::string{"cannot start: "} + e.what());
  }
  spdlog::info("inspector served on the Unix socket {}, mode 0600 (restcache-inspect --socket {})", path, path);
}

void inspection_component::stop(daemon_context&) {
  socket_.reset(); // its thread may be asking the inspector: before it goes
  if (inspector_)
    caf::anon_send_exit(inspector_, caf::exit_reason::user_shutdown);
  inspector_ = nullptr;
}

} // namespace restcache
