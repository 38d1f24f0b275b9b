// SPDX-License-Identifier: Apache-2.0
#pragma once

// A page of documents read for cache.populate, as both drivers hand it to
// the actors.

#include <cstdint>

#include "db/db_connection.hpp"
#include "persistence/pg/doc_queries.hpp"

namespace restcache {

/// The page's documents made shareable, with the kind's count.
page_outcome make_page_outcome(pg::document_page page, int64_t total);

} // namespace restcache
