#pragma once

// The jobs write_pool_job runs on a connection of the write pool: a write from
// the HTTP edge (persistence/pg/writes) and a page of GET /depts.

#include "actors/write_pool_job.hpp"
#include "messages/write_types.hpp"

namespace restcache {

/// Runs the write in one transaction; the outcome carries the change-log
/// rows it wrote, which write_pool_job applies before the write answers.
/// `stamp_lsn` (fills read from standbys): the rows carry the primary's WAL
/// position read after the commit, so no standby short of it answers a
/// read of what the write changed.
write_pool_task make_write_job(write_request req, bool stamp_lsn = false);

/// Reads and encodes one page of departments.
write_pool_task make_page_job(int32_t after, int32_t limit);

/// The write's answer for the edge, from the job's outcome.
write_result to_write_result(const write_pool_outcome& outcome, bool applied);

} // namespace restcache
