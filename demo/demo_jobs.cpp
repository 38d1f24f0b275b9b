// SPDX-License-Identifier: Apache-2.0
#include "demo/demo_jobs.hpp"

#include "messages/document_encoder.hpp"
#include "persistence/pg/statements.hpp"
#include "demo/writes.hpp"
#include "demo/demo_encoders.hpp"
#include "demo/demo_reads.hpp"

namespace restcache::demo {

namespace {

demo::write_outcome run(pg::connection& c, const write_request& req) {
  switch (req.op) {
    case write_op::create_dept: return demo::create_dept(c, *req.dept);
    case write_op::replace_dept: return demo::replace_dept(c, *req.dept, req.if_match);
    case write_op::rewrite_random_dept: return demo::rewrite_random_dept(c);
    case write_op::delete_dept: return demo::delete_dept(c, req.id, req.if_match);
    case write_op::create_emp: return demo::create_emp(c, *req.emp);
    case write_op::replace_emp: return demo::replace_emp(c, *req.emp, req.if_match);
    case write_op::delete_emp: return demo::delete_emp(c, req.id, req.if_match);
  }
  return demo::write_outcome{rc_error::unprocessable, false, req.id, "unknown write", {}};
}

} // namespace

write_pool_task make_write_job(write_request req, bool stamp_lsn) {
  return [req = std::move(req), stamp_lsn](pg::connection& c) {
    auto w = run(c, req);
    if (stamp_lsn && !w.changes.empty()) {
      auto lsn = pg::insert_lsn(c); // after the COMMIT: the write lies below it
      for (auto& ch : w.changes)
        ch.lsn = lsn;
    }
    write_pool_outcome out;
    out.error = w.error;
    out.id = w.id;
    out.created = w.created;
    out.detail = std::move(w.detail);
    out.changes = std::move(w.changes);
    if (out.error == rc_error::none && out.changes.empty())
      out.commit_lsn = pg::insert_lsn(c); // after the COMMIT: the write lies below it
    return out;
  };
}

write_pool_task make_page_job(int32_t after, int32_t limit) {
  return [after, limit](pg::connection& c) {
    write_pool_outcome out;
    out.body = encode_dept_list(demo::fetch_dept_page(c, after, limit));
    return out;
  };
}

} // namespace restcache::demo
