// SPDX-License-Identifier: Apache-2.0
#include "actors/write_pool_job.hpp"

#include <caf/all.hpp>

namespace restcache {

write_pool_job_actor::behavior_type
write_pool_job(write_pool_job_actor::stateful_pointer<write_pool_job_state> self, db_pool_actor pool,
               notify_listener_actor listener, write_pool_task job,
               std::function<void(write_pool_outcome, bool)> done, std::chrono::milliseconds apply_timeout) {
  auto finish = [self, done](write_pool_outcome outcome, bool applied) {
    done(std::move(outcome), applied);
    self->quit();
  };
  self->request(pool, caf::infinite, borrow_atom::value)
    .then(
      [self, job, finish](borrow_result& borrowed) {
        if (borrowed.error != rc_error::none) {
          finish(write_pool_failure(borrowed.error), true);
          return;
        }
        self->state.lease = std::move(borrowed.lease);
        auto me = caf::actor_cast<write_pool_job_actor>(self);
        self->state.lease->execute(
          [me, job](pg::connection& c) { caf::anon_send(me, done_atom::value, job(c)); },
          [me](rc_error e) { caf::anon_send(me, done_atom::value, write_pool_failure(e)); });
      },
      [finish](caf::error&) { finish(write_pool_failure(rc_error::db_unavailable), true); });
  return {
    [self, pool, listener, finish, apply_timeout](done_atom, write_pool_outcome& outcome) {
      if (self->state.lease)
        self->send(pool, release_atom::value, std::move(self->state.lease));
      if (outcome.error == rc_error::none && outcome.changes.empty() && outcome.commit_lsn != 0 && listener) {
        // The WAL feed: answered once the feed has passed the commit.
        auto lsn = outcome.commit_lsn;
        auto held = std::make_shared<write_pool_outcome>(std::move(outcome));
        self->request(listener, apply_timeout, passed_atom::value, lsn)
          .then([held, finish](uint64_t) { finish(std::move(*held), true); },
                [held, finish](caf::error&) { finish(std::move(*held), false); });
        return;
      }
      if (outcome.error != rc_error::none || outcome.changes.empty() || !listener) {
        finish(std::move(outcome), true);
        return;
      }
      // Read-your-writes: the write answers once this instance dropped what
      // it changed. The notification will apply the same changes again.
      auto changes = outcome.changes;
      auto held = std::make_shared<write_pool_outcome>(std::move(outcome));
      self->request(listener, apply_timeout, invalidate_atom::value, std::move(changes))
        .then([held, finish](uint64_t) { finish(std::move(*held), true); },
              [held, finish](caf::error&) { finish(std::move(*held), false); });
    },
  };
}

} // namespace restcache
