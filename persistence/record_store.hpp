#pragma once

// What the batch writer writes to: the LMDB tier (persistence/lmdb adapts to
// this), or a fake in tests. Calls are blocking and come from the writer's
// own (detached) thread only.

#include <cstdint>
#include <vector>

#include "messages/cache_types.hpp"

namespace restcache {

/// A document for the second tier, with the change sequence it is as new as.
struct tier_record {
  doc_key key;
  doc_ptr doc;
  uint64_t seq = 0;
};

class record_store {
public:
  virtual ~record_store() = default;

  /// One write transaction: `deletes` first, then `puts`. Throws on failure
  /// (nothing of the call is then visible).
  virtual void write(const std::vector<tier_record>& puts, const std::vector<doc_key>& deletes) = 0;
};

} // namespace restcache
