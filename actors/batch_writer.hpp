// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <caf/fwd.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "config/defaults.hpp"
#include "actors/actors.hpp"
#include "actors/metrics.hpp"
#include "actors/tier_status.hpp"

namespace restcache {

struct batch_writer_config {
  size_t batch_size = defaults::lmdb_batch_size;                        ///< lmdb.batch-size
  std::chrono::milliseconds flush_interval{defaults::lmdb_flush_interval_ms}; ///< lmdb.flush-interval
  size_t max_queue = defaults::lmdb_max_queue;                          ///< beyond this, records are dropped
  std::chrono::milliseconds delete_delay{2};        ///< invalidations gathered per delete transaction
  std::chrono::milliseconds retry_delay{100};       ///< after a failed delete transaction, doubling
  std::chrono::milliseconds max_retry_delay{5000};  ///< while the failures go on
};

struct batch_metrics {
  std::atomic<uint64_t> flushes{0};          ///< record transactions committed
  std::atomic<uint64_t> records_written{0};
  std::atomic<uint64_t> records_dropped{0};  ///< queue full, or a failed record transaction
  std::atomic<uint64_t> records_discarded{0}; ///< queued, then invalidated before writing
  std::atomic<uint64_t> deletes_written{0};
  std::atomic<uint64_t> clears{0};           ///< the whole tier dropped
  std::atomic<uint64_t> write_errors{0};
  std::atomic<int64_t> queued{0};
  /// Records sent by the shards and not yet taken from the writer's mailbox:
  /// with `queued`, what the shards check before sending more, so neither the
  /// queue nor the mailbox grows past lmdb.max-queue while a commit runs.
  std::atomic<int64_t> in_mailbox{0};
  std::atomic<uint64_t> last_flush_us{0};    ///< duration of the last record transaction
  std::atomic<int64_t> mailbox{0};           ///< the writer's mailbox, as it last reported it
  latency_histogram flush_duration;          ///< record transactions, begin to commit
  /// What /ready and /metrics say of the tier; the writer marks it degraded
  /// while its commits fail and ok again after one succeeds.
  tier_status status;
};

struct batch_writer_state {
  static inline const char* name = "batch_writer";

  struct pending_delete {
    uint64_t seq;
    caf::typed_response_promise<uint64_t> promise;
  };

  batch_writer_config cfg;
  std::shared_ptr<record_store> store;
  batch_metrics* metrics = nullptr;
  std::unordered_map<doc_key, tier_record, doc_key_hash> queue;
  std::vector<pending_delete> delete_promises;
  std::vector<doc_key> deletes;
  /// Changed rows whose holding records are to be deleted with `deletes`.
  std::vector<std::string> changed_rows;
  /// A clear asked for and not yet committed, with the promises it answers.
  bool clear_pending = false;
  std::vector<pending_delete> clear_promises;
  /// Kinds (kind_bit) whose records are to be dropped before anything
  /// queued after the request is written; answered with clear_promises.
  uint64_t kinds_to_erase = 0;
  /// The replay watermark to store with the next transaction.
  std::optional<replay_watermark> watermark;
  /// The history identity to store with the pending clear.
  std::optional<history_identity> history;
  bool delete_flush_scheduled = false;
  uint64_t timer_generation = 0; ///< a flush timer fires only for its own round
  bool timer_armed = false;
  /// Commits failed in a row (0: the last one succeeded).
  uint64_t failures_in_a_row = 0;

  /// A commit failed with `what`: counts it, marks the tier degraded, logs
  /// the first failure of a streak and then every 100th.
  void note_failure(const char* doing, size_t n, const std::exception& e);
  /// A commit succeeded: ends a streak of failures.
  void note_success();
  /// The wait before retrying failed deletes: doubles with the streak.
  std::chrono::milliseconds retry_delay() const;
  /// While commits fail, invalidations pile up: past lmdb.max-queue keys a
  /// pending clear stands for them all (it answers their promises when it
  /// commits, and the shards read nothing from the tier until then).
  void bound_pending_deletes();

  /// Writes every queued record in one transaction, after the pending
  /// deletes in the same one: a record queued after an invalidation of its
  /// key is newer than it and must survive the delete. On failure the
  /// records are dropped and counted (the tier is a cache); the deletes stay
  /// pending.
  void flush_records();
  /// Writes a pending clear, then the pending deletes and the watermark, in
  /// small transactions, and answers their promises. On failure nothing is
  /// answered and false is returned: the caller retries, because an old
  /// record must not stay behind.
  bool flush_deletes();
  /// A clear is asked for: drops the queue and the pending deletes (their
  /// promises are answered by the clear) and marks the clear pending.
  void discard_for_clear();
  /// Commits a pending clear (or erase of kinds); false on failure (the
  /// caller retries).
  bool flush_clear();
  /// The records of some kinds are to be dropped: discards their queued
  /// ones and marks the erase pending (a whole clear pending covers it).
  void discard_for_erase(uint64_t kinds);
  /// Schedules flush_deletes after delete_delay unless already scheduled.
  void schedule_delete_flush(batch_writer_actor::pointer self);
  /// The deletes have committed: answer their promises.
  void confirm_deletes();
  /// The pending changed rows, each once (sorted in place).
  const std::vector<std::string>& unique_changed_rows();
  /// Keys or rows to delete were added, as of change `seq`: a promise
  /// answered once they commit (or once a pending clear does).
  caf::result<uint64_t> promise_deletes(batch_writer_actor::pointer self, uint64_t seq);
};

batch_writer_actor::behavior_type
batch_writer(batch_writer_actor::stateful_pointer<batch_writer_state> self, batch_writer_config cfg,
             std::shared_ptr<record_store> store, batch_metrics* metrics);

/// Spawns the writer detached (its own thread: LMDB writes block only it).
batch_writer_actor spawn_batch_writer(caf::actor_system& sys, batch_writer_config cfg,
                                      std::shared_ptr<record_store> store, batch_metrics* metrics);

} // namespace restcache
