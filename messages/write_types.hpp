#pragma once

// What the HTTP edge asks of the database beyond cached documents: writes,
// and the uncached department list. Plain types shared by http/ and actors/.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "messages/errors.hpp"
#include "messages/records.hpp"

namespace restcache {

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

struct write_result {
  /// none, not_found, conflict, precondition_failed, unprocessable, or a
  /// database failure (db_unavailable, db_timeout, overloaded, internal).
  rc_error error = rc_error::none;
  int32_t id = 0;          ///< the key written (the department picked by rewrite_random_dept)
  bool created = false;    ///< a POST that created its resource
  std::string detail;      ///< for an error: what the client did wrong (no SQL text)
  /// False when the instance's own invalidation did not complete in time
  /// (the write is committed; the notification will still apply it).
  bool applied = true;
};
using write_callback = std::function<void(write_result)>;

/// GET /depts: the encoded page, or why there is none.
struct page_result {
  rc_error error = rc_error::none;
  std::string body;
};
using page_callback = std::function<void(page_result)>;

} // namespace restcache
