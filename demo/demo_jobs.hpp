// SPDX-License-Identifier: Apache-2.0
#pragma once

// The demo's database work on a connection of the write pool or the list
// pool (write_pool_job runs it): a write from the HTTP edge
// (demo/writes), and a page of GET /depts.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "actors/write_pool_job.hpp"
#include "demo/records.hpp"

namespace restcache::demo {

enum class write_op : uint8_t {
  create_dept,          ///< POST /depts
  replace_dept,         ///< PUT /depts/{id}, PUT /depts
  rewrite_random_dept,  ///< PUT /depts/random
  delete_dept,          ///< DELETE /depts/{id}
  create_emp,           ///< POST /depts/emps
  replace_emp,          ///< PUT /depts/emps/{id}
  delete_emp,           ///< DELETE /depts/emps/{id}
};

struct write_request {
  write_op op = write_op::create_dept;
  int32_t id = 0;                       ///< the key written (from the path or the body)
  std::optional<std::string> if_match;  ///< the If-Match header, when sent
  std::shared_ptr<const dept_with_emps> dept; ///< create_dept, replace_dept
  std::shared_ptr<const emp_row> emp;   ///< create_emp, replace_emp
};

/// Runs the write in one transaction; the outcome carries the change-log
/// rows it wrote, which write_pool_job applies before the write answers.
/// `stamp_lsn` (fills read from standbys): the rows carry the primary's WAL
/// position read after the commit, so no standby short of it answers a
/// read of what the write changed.
write_pool_task make_write_job(write_request req, bool stamp_lsn = false);

/// Reads and encodes one page of departments.
write_pool_task make_page_job(int32_t after, int32_t limit);

} // namespace restcache::demo
