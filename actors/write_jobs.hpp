#pragma once

// The jobs db_direct runs on a connection of the direct pool: a write from
// the HTTP edge (persistence/pg/writes) and a page of GET /depts.

#include "actors/db_direct.hpp"
#include "messages/write_types.hpp"

namespace restcache {

/// Runs the write in one transaction; the outcome carries the change-log
/// rows it wrote, which db_direct applies before the write answers.
direct_job make_write_job(write_request req);

/// Reads and encodes one page of departments.
direct_job make_page_job(int32_t after, int32_t limit);

/// The write's answer for the edge, from the job's outcome.
write_result to_write_result(const direct_outcome& outcome, bool applied);

} // namespace restcache
