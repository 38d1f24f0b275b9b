// SPDX-License-Identifier: Apache-2.0
#include "demo/demo_actions.hpp"

#include <caf/all.hpp>

#include <random>

#include "actors/write_pool_job.hpp"
#include "demo/demo_catalogue.hpp"
#include "demo/demo_routes.hpp"
#include "demo/body_parser.hpp"
#include "messages/prometheus.hpp"

namespace restcache::demo {

namespace {

/// Unique over the process, so a thread's copy of one id set is never taken
/// for another's (an object made later at the same address).
uint64_t next_ids_generation() {
  static std::atomic<uint64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

http::action_start answer_now(http::action_answer a) {
  http::action_start s;
  s.answer = std::move(a);
  return s;
}

http::action_start problem_now(rc_error e, std::string detail) {
  http::action_answer a;
  a.error = e;
  a.detail = std::move(detail);
  return answer_now(std::move(a));
}

bool is_emp_write(write_op op) noexcept {
  return op == write_op::create_emp || op == write_op::replace_emp || op == write_op::delete_emp;
}

} // namespace

http::action_answer write_answer(write_op op, const write_pool_outcome& o, bool applied) {
  http::action_answer a;
  a.applied = applied;
  if (o.error != rc_error::none) {
    a.error = o.error;
    a.detail = o.detail;
    return a;
  }
  const bool emp = is_emp_write(op);
  switch (op) {
    case write_op::create_dept:
    case write_op::create_emp:
      a.status = 201;
      a.body = std::string{emp ? "{\"empNo\":" : "{\"deptNumber\":"} + std::to_string(o.id) + "}";
      a.location = (emp ? "/depts/emps/" : "/depts/") + std::to_string(o.id);
      return a;
    case write_op::rewrite_random_dept:
      a.body = "{\"deptNumber\":" + std::to_string(o.id) + "}";
      return a;
    default:
      a.status = 204;
      return a;
  }
}

demo_actions::demo_actions(demo_wiring wiring)
  : wiring_(std::move(wiring)), ids_generation_(next_ids_generation()) {
}

http::action_start demo_actions::run_write(write_request req) const {
  http::action_start s;
  s.work = [this, req = std::move(req)](http::action_callback cb) mutable {
    const auto op = req.op;
    wiring_.sys->spawn(write_pool_job, wiring_.write_pool, wiring_.listener,
                       make_write_job(std::move(req), wiring_.stamp_lsn),
                       std::function<void(write_pool_outcome, bool)>{
                         [cb = std::move(cb), op](write_pool_outcome o, bool applied) {
                           cb(write_answer(op, o, applied));
                         }},
                       wiring_.apply_timeout);
  };
  return s;
}

std::vector<http::action_handler> demo_actions::handlers() {
  std::vector<http::action_handler> h(demo_route_count);
  auto at = [&](demo_route r) -> http::action_handler& { return h[static_cast<size_t>(r)]; };
  at(demo_route::list_depts) = [this](const http::action_call& call) {
    auto q = parse_page_query(call.query); // checked when routed
    http::action_start s;
    s.work = [this, q](http::action_callback cb) {
      wiring_.sys->spawn(write_pool_job, wiring_.list_pool, notify_listener_actor{}, make_page_job(q.after, q.limit),
                         std::function<void(write_pool_outcome, bool)>{[cb = std::move(cb)](write_pool_outcome o, bool) {
                           http::action_answer a;
                           a.error = o.error;
                           a.body = std::move(o.body);
                           a.compressible = true;
                           cb(std::move(a));
                         }},
                         wiring_.apply_timeout);
    };
    return s;
  };
  at(demo_route::random_dept) = [this](const http::action_call&) {
    auto key = random_dept();
    if (!key)
      return problem_now(rc_error::overloaded, "no department ids are loaded yet; retry later");
    http::action_answer a;
    a.document = std::move(*key);
    // The id set is read again every 30 s: a department deleted since is
    // skipped, not answered 404 to a request for "any department".
    a.ask_again_if_missing = true;
    return answer_now(std::move(a));
  };
  // A write route: its body parsed (when it takes one), then run.
  auto write_of = [this](write_op op) {
    return [this, op](const http::action_call& call) {
      write_request w;
      w.op = op;
      w.id = static_cast<int32_t>(call.id);
      w.if_match = call.if_match;
      if (op == write_op::create_dept || op == write_op::replace_dept) {
        auto parsed = parse_dept_body(call.body, call.id > 0 ? std::optional<int32_t>{w.id} : std::nullopt,
                                      op == write_op::replace_dept ? dept_body::whole : dept_body::partial_allowed);
        if (!parsed)
          return problem_now(parsed.error, parsed.detail);
        w.id = parsed.value->dept.deptno;
        w.dept = std::make_shared<const dept_with_emps>(std::move(*parsed.value));
      } else if (op == write_op::create_emp || op == write_op::replace_emp) {
        auto parsed = parse_emp_body(call.body, call.id > 0 ? std::optional<int32_t>{w.id} : std::nullopt);
        if (!parsed)
          return problem_now(parsed.error, parsed.detail);
        w.id = parsed.value->empno;
        w.emp = std::make_shared<const emp_row>(std::move(*parsed.value));
      }
      return run_write(std::move(w));
    };
  };
  at(demo_route::create_dept) = write_of(write_op::create_dept);
  at(demo_route::replace_dept) = write_of(write_op::replace_dept);
  at(demo_route::replace_dept_by_body) = write_of(write_op::replace_dept);
  at(demo_route::rewrite_random_dept) = write_of(write_op::rewrite_random_dept);
  at(demo_route::delete_dept) = write_of(write_op::delete_dept);
  at(demo_route::create_emp) = write_of(write_op::create_emp);
  at(demo_route::replace_emp) = write_of(write_op::replace_emp);
  at(demo_route::delete_emp) = write_of(write_op::delete_emp);
  return h;
}

void demo_actions::set_dept_ids(std::shared_ptr<const std::vector<int32_t>> ids) {
  std::lock_guard guard{ids_mtx_};
  dept_ids_ = std::move(ids);
  ids_generation_.store(next_ids_generation(), std::memory_order_release);
}

size_t demo_actions::dept_id_count() const {
  std::lock_guard guard{ids_mtx_};
  return dept_ids_ ? dept_ids_->size() : 0;
}

std::optional<doc_key> demo_actions::random_dept() {
  // This thread's copy of the set, valid while the generation is unchanged.
  struct cached {
    const demo_actions* owner = nullptr;
    uint64_t generation = 0;
    std::shared_ptr<const std::vector<int32_t>> ids;
  };
  thread_local cached mine;
  auto gen = ids_generation_.load(std::memory_order_acquire);
  if (mine.owner != this || mine.generation != gen) {
    std::lock_guard guard{ids_mtx_};
    mine.owner = this;
    mine.generation = ids_generation_.load(std::memory_order_relaxed);
    mine.ids = dept_ids_;
  }
  const auto& ids = mine.ids;
  if (!ids || ids->empty())
    return std::nullopt;
  thread_local std::mt19937_64 rng{std::random_device{}()};
  std::uniform_int_distribution<size_t> pick{0, ids->size() - 1};
  return doc_key{deptemps_kind, (*ids)[pick(rng)]};
}

std::string demo_actions::metrics_text() const {
  std::string out;
  append_metric(out, "restcache_dept_ids", "Department ids /depts/random picks from.", "gauge",
                static_cast<int64_t>(dept_id_count()));
  return out;
}

} // namespace restcache::demo
