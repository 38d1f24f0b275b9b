// SPDX-License-Identifier: Apache-2.0
#pragma once

// The LMDB tier (cache.mode tiered and lmdb): the file, opened before the
// actors exist, and the batch writer that fills it. Stopped after the shards,
// so the writer drains what they sent it.

#include <memory>

#include "actors/actors.hpp"
#include "actors/batch_writer.hpp"
#include "component/component.hpp"

namespace restcache {

namespace lmdb {
class store;
} // namespace lmdb

class lmdb_tier_component final : public component {
public:
  std::string_view name() const override { return "lmdb tier"; }
  void prepare(daemon_context& ctx) override;
  void start(daemon_context& ctx) override;
  void stop(daemon_context& ctx) override;

  /// Null when the tier is not used or could not be had.
  const std::shared_ptr<lmdb::store>& store() const { return store_; }
  const batch_writer_actor& writer() const { return writer_; }
  batch_metrics& writer_metrics() { return metrics_; }

private:
  void start_writer(daemon_context& ctx);

  batch_metrics metrics_;
  std::shared_ptr<lmdb::store> store_;
  batch_writer_actor writer_;
};

} // namespace restcache
