// SPDX-License-Identifier: Apache-2.0
#include "actors/db_query.hpp"

#include <caf/all.hpp>

#include <functional>

namespace restcache {

bool read_worth_retrying(rc_error e) noexcept {
  return e == rc_error::db_unavailable;
}

namespace {

using finish_fn = std::function<void(fetch_outcome)>;

void borrow_and_fetch(db_query_actor::stateful_pointer<db_query_state> self, const db_pool_actor& pool,
                      const doc_key& key, const finish_fn& finish) {
  // No timeout here: the shard runs one timer per fill (cache.fill-timeout)
  // and the pool answers promptly when it is full or has no connection.
  self->request(pool, caf::infinite, borrow_atom::value)
    .then(
      [self, key, finish](borrow_result& borrowed) {
        if (borrowed.error != rc_error::none) {
          finish(fetch_outcome{borrowed.error, nullptr});
          return;
        }
        self->state.lease = std::move(borrowed.lease);
        auto me = caf::actor_cast<db_query_actor>(self);
        self->state.lease->fetch_document(key, [me](fetch_outcome outcome) {
          caf::anon_send(me, fetched_atom::value, std::move(outcome));
        });
      },
      [finish](caf::error&) { finish(fetch_outcome{rc_error::db_unavailable, nullptr}); });
}

} // namespace

db_query_actor::behavior_type db_query(db_query_actor::stateful_pointer<db_query_state> self,
                                       db_pool_actor pool, cache_shard_actor shard, doc_key key,
                                       uint64_t fill_id) {
  // The connection's pending job holds a handle to this actor while this
  // actor holds the connection: the link ends both when the shard goes away.
  self->link_to(shard);
  finish_fn finish = [self, shard, key, fill_id](fetch_outcome outcome) {
    self->send(shard, filled_atom::value, key, fill_id, std::move(outcome));
    self->quit();
  };
  borrow_and_fetch(self, pool, key, finish);
  return {
    [self, pool, key, finish](fetched_atom, fetch_outcome& outcome) {
      if (self->state.lease)
        self->send(pool, release_atom::value, std::move(self->state.lease));
      if (read_worth_retrying(outcome.error) && self->state.tries < max_read_tries) {
        ++self->state.tries;
        borrow_and_fetch(self, pool, key, finish);
        return;
      }
      finish(std::move(outcome));
    },
  };
}

} // namespace restcache
