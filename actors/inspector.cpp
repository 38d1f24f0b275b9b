// SPDX-License-Identifier: Apache-2.0
#include "actors/inspector.hpp"
#include "actors/mailbox_report.hpp"

#include <caf/all.hpp>

#include <memory>

#include "messages/cache_types.hpp"
#include "messages/doc_catalogue.hpp"

namespace restcache {

namespace {

/// The answers to one list request, gathered in the fixed order.
struct list_gathering {
  std::vector<actor_report> reports;
  size_t due = 0;
  caf::typed_response_promise<std::vector<actor_report>> promise;

  void done() {
    if (--due == 0)
      promise.deliver(std::move(reports));
  }
};

/// The answers to one key request (one document kind each).
struct key_gathering {
  std::vector<key_report> reports;
  size_t due = 0;
  std::string failure; ///< set when a shard did not answer
  caf::typed_response_promise<std::vector<key_report>> promise;

  void done() {
    if (--due != 0)
      return;
    if (!failure.empty())
      promise.deliver(caf::make_error(caf::sec::request_timeout, failure));
    else
      promise.deliver(std::move(reports));
  }
};

std::string no_answer_note(const caf::error& err, std::chrono::milliseconds timeout) {
  if (err == caf::sec::request_timeout)
    return "no answer within " + std::to_string(timeout.count()) + " ms (busy or stuck)";
  if (err == caf::sec::request_receiver_down)
    return "not running (the actor has exited)";
  return "no answer: " + caf::to_string(err);
}

} // namespace

actor_report inspector_state::report(inspector_actor::pointer self) const {
  auto r = begin_report("inspector", self, nullptr);
  r.add("actors inspected", cfg.actors.size())
    .add("lists answered", lists)
    .add("keys answered", keys)
    .add("timeout", std::to_string(cfg.timeout.count()) + " ms");
  return r;
}

inspector_actor::behavior_type inspector(inspector_actor::stateful_pointer<inspector_state> self,
                                         inspector_config cfg) {
  self->state.cfg = std::move(cfg);
  return {
    [self](list_atom) -> caf::result<std::vector<actor_report>> {
      auto& st = self->state;
      ++st.lists;
      auto g = std::make_shared<list_gathering>();
      g->reports.resize(st.cfg.actors.size() + 1);
      g->reports.back() = st.report(self);
      g->due = 1; // released below, once every request is out
      g->promise = self->make_response_promise<std::vector<actor_report>>();
      auto timeout = st.cfg.timeout;
      for (size_t i = 0; i < st.cfg.actors.size(); ++i) {
        auto& a = st.cfg.actors[i];
        auto& slot = g->reports[i];
        slot.name = a.name;
        if (!a.handle) {
          slot.note = "not running";
          continue;
        }
        slot.id = a.handle->id();
        ++g->due;
        auto name = a.name;
        auto last = a.mailbox;
        self->request(a.handle, timeout, inspect_atom::value)
          .then(
            [g, i, name](actor_report& r) {
              r.name = name; // the inspector's name for it, not its type's
              r.answered = true;
              g->reports[i] = std::move(r);
              g->done();
            },
            [g, i, timeout, last](caf::error& err) {
              auto& slot = g->reports[i];
              slot.answered = false;
              slot.mailbox = -1;
              slot.note = no_answer_note(err, timeout);
              if (last)
                slot.note += "; last reported mailbox " + std::to_string(last->load(std::memory_order_relaxed));
              g->done();
            });
      }
      auto rp = g->promise;
      g->done();
      return rp;
    },
    [self](key_atom, const std::string& text) -> caf::result<std::vector<key_report>> {
      auto& st = self->state;
      inspected_key asked;
      std::string why;
      if (!parse_inspected_key(text, asked, why))
        return caf::make_error(caf::sec::invalid_argument, why);
      if (st.cfg.shards.empty())
        return caf::make_error(caf::sec::invalid_argument, std::string{"no cache shards to ask"});
      ++st.keys;
      // Each kind hashes on its own, so each may live on another shard.
      auto& keys = asked.keys;
      auto g = std::make_shared<key_gathering>();
      g->reports.resize(keys.size());
      g->due = keys.size();
      g->promise = self->make_response_promise<std::vector<key_report>>();
      auto timeout = st.cfg.timeout;
      for (size_t i = 0; i < keys.size(); ++i) {
        auto idx = shard_index(keys[i], st.cfg.shards.size());
        auto shard_name = "shard-" + std::to_string(idx);
        self->request(st.cfg.shards[idx], timeout, inspect_atom::value, keys[i])
          .then(
            [g, i, shard_name](key_report& r) {
              r.shard = shard_name;
              g->reports[i] = std::move(r);
              g->done();
            },
            [g, shard_name, timeout](caf::error& err) {
              if (g->failure.empty())
                g->failure = shard_name + ": " + no_answer_note(err, timeout);
              g->done();
            });
      }
      return g->promise;
    },
  };
}

inspector_actor spawn_inspector(caf::actor_system& sys, inspector_config cfg) {
  return sys.spawn(inspector, std::move(cfg));
}

} // namespace restcache
