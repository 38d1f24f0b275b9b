// SPDX-License-Identifier: Apache-2.0
#include "actors/mailbox_report.hpp"

#include <caf/all.hpp>

namespace restcache {

namespace {

caf::behavior mailbox_ticker(caf::event_based_actor* self, caf::weak_actor_ptr parent,
                             std::chrono::milliseconds every) {
  {
    auto strong = parent.lock();
    if (!strong) {
      self->quit();
      return {};
    }
    // Down (exit, or unreachable): nothing left to report for.
    self->monitor(caf::actor_cast<caf::actor>(strong));
  } // no strong reference kept
  self->set_down_handler([self](caf::down_msg&) { self->quit(); });
  self->delayed_send(self, every, mailbox_atom::value);
  return {
    [self, parent, every](mailbox_atom) {
      auto strong = parent.lock();
      if (!strong) {
        self->quit();
        return;
      }
      caf::anon_send(caf::actor_cast<caf::actor>(strong), mailbox_atom::value);
      self->delayed_send(self, every, mailbox_atom::value);
    },
  };
}

} // namespace

size_t mailbox_size(caf::scheduled_actor* self) {
  return self->mailbox().size();
}

actor_report begin_report(const char* name, caf::scheduled_actor* self, std::atomic<int64_t>* gauge) {
  actor_report r;
  r.name = name;
  r.id = self->id();
  r.answered = true;
  r.mailbox = static_cast<int64_t>(mailbox_size(self));
  if (gauge)
    gauge->store(r.mailbox, std::memory_order_relaxed);
  return r;
}

void start_mailbox_reports(caf::local_actor* self, std::chrono::milliseconds every) {
  // Hidden: never waited for at shutdown; it quits with its parent anyway.
  self->system().spawn<caf::hidden>(mailbox_ticker, caf::weak_actor_ptr{self->ctrl()}, every);
}

} // namespace restcache
