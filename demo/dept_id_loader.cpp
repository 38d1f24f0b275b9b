// SPDX-License-Identifier: Apache-2.0
#include "demo/dept_id_loader.hpp"

#include <caf/all.hpp>
#include <spdlog/spdlog.h>

#include "actors/mailbox_report.hpp"
#include "actors/write_pool_job.hpp"
#include "demo/demo_actions.hpp"
#include "persistence/pg/statements.hpp"
#include "demo/demo_reads.hpp"

namespace restcache::demo {

namespace {

struct dept_id_loader_state {
  static inline const char* name = "dept_id_loader";
  // Not an aggregate: CAF 0.17 would otherwise try to build the state from
  // the actor pointer (C++20 parenthesized aggregate init of `pool`).
  dept_id_loader_state() = default;
  db_pool_actor pool;
  demo_actions* actions = nullptr;
  bool reading = false;     ///< a read is running
  uint64_t loads = 0;       ///< successful reads of the id set
  uint64_t failures = 0;
  std::string last_error;   ///< of the last failed attempt, "" after a success

  void attempt(dept_id_loader_actor::stateful_pointer<dept_id_loader_state> self) {
    reading = true;
    auto me = caf::actor_cast<dept_id_loader_actor>(self);
    auto ids = std::make_shared<std::vector<int32_t>>();
    self->spawn(write_pool_job, pool, notify_listener_actor{},
                write_pool_task{[ids](pg::connection& c) {
                  *ids = demo::fetch_dept_ids(c);
                  return write_pool_outcome{};
                }},
                std::function<void(write_pool_outcome, bool)>{[me, ids](write_pool_outcome o, bool) {
                  dept_ids_outcome out{o.error, nullptr};
                  if (o.error == rc_error::none)
                    out.ids = std::move(ids);
                  caf::anon_send(me, ids_atom::value, std::move(out));
                }},
                std::chrono::milliseconds{0});
  }
};

// The pool is passed as a spawn argument, not captured: CAF 0.17 binds a
// null std::tuple<> reference when a function actor takes no arguments,
// which UBSan rightly reports.
dept_id_loader_actor::behavior_type
dept_id_loader(dept_id_loader_actor::stateful_pointer<dept_id_loader_state> self, db_pool_actor pool,
               demo_actions* actions) {
  self->state.pool = std::move(pool);
  self->state.actions = actions;
  self->state.attempt(self);
  return {
    [self](ids_atom, dept_ids_outcome& o) {
      auto& st = self->state;
      st.reading = false;
      if (o.error != rc_error::none) {
        ++st.failures;
        st.last_error = std::string{to_string(o.error)};
        spdlog::warn("loading department ids failed ({}); retrying", to_string(o.error));
        self->delayed_send(self, std::chrono::seconds(1), retry_atom::value);
        return;
      }
      ++st.loads;
      st.last_error.clear();
      if (st.actions->dept_id_count() == 0)
        spdlog::info("{} department ids loaded for /depts/random", o.ids->size());
      st.actions->set_dept_ids(std::move(o.ids));
      // Departments come and go through writes: read the set again now
      // and then (a deleted id picked meanwhile is asked for again).
      self->delayed_send(self, std::chrono::seconds(30), retry_atom::value);
    },
    [self](retry_atom) { self->state.attempt(self); },
    [self](inspect_atom) -> actor_report {
      auto& st = self->state;
      actor_report r;
      r.name = dept_id_loader_state::name;
      r.id = self->id();
      r.answered = true;
      r.mailbox = static_cast<int64_t>(mailbox_size(self));
      r.add("ids", st.actions->dept_id_count())
        .add("loads", st.loads)
        .add("failures", st.failures)
        .add("reading now", st.reading)
        .add("last error", st.last_error.empty() ? std::string{"none"} : st.last_error);
      return r;
    },
  };
}

} // namespace

dept_id_loader_actor spawn_dept_id_loader(caf::actor_system& sys, db_pool_actor pool, demo_actions& actions) {
  return sys.spawn(dept_id_loader, std::move(pool), &actions);
}

} // namespace restcache::demo
