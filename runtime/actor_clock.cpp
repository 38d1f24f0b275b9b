// SPDX-License-Identifier: Apache-2.0
#include "runtime/actor_clock.hpp"

#include <caf/abstract_actor.hpp>

namespace restcache::runtime {

void actor_clock::note(caf::abstract_actor* self) {
  std::lock_guard guard{mtx_};
  with_timeouts_.insert(self->id());
}

void actor_clock::set_ordinary_timeout(time_point t, caf::abstract_actor* self,
                                       caf::atom_value type, uint64_t id) {
  note(self);
  super::set_ordinary_timeout(t, self, type, id);
}

void actor_clock::set_request_timeout(time_point t, caf::abstract_actor* self,
                                      caf::message_id id) {
  note(self);
  super::set_request_timeout(t, self, id);
}

void actor_clock::set_multi_timeout(time_point t, caf::abstract_actor* self,
                                    caf::atom_value type, uint64_t id) {
  note(self);
  super::set_multi_timeout(t, self, type, id);
}

void actor_clock::cancel_timeouts(caf::abstract_actor* self) {
  {
    std::lock_guard guard{mtx_};
    if (with_timeouts_.erase(self->id()) == 0) {
      skipped_.fetch_add(1, std::memory_order_relaxed);
      return; // it never set one: nothing for the clock thread to drop
    }
  }
  forwarded_.fetch_add(1, std::memory_order_relaxed);
  super::cancel_timeouts(self);
}

} // namespace restcache::runtime
