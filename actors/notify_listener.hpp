// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <caf/fwd.hpp>

#include <atomic>
#include <cstdint>
#include <deque>
#include <map>
#include <unordered_map>
#include <memory>
#include <vector>

#include "config/defaults.hpp"
#include "actors/actors.hpp"
#include "db/change_inbox.hpp"
#include "db/listen_connection.hpp"
#include "actors/listener_status.hpp"
#include "actors/metrics.hpp"

namespace restcache {

struct notify_listener_config {
  listen_config connection;
  size_t max_pending_keys = defaults::changelog_max_pending; ///< coalesced keys beyond which both tiers are dropped
  size_t max_rounds_in_flight = 2;      ///< rounds sent to shards and not yet confirmed
  /// Tests feed the inbox themselves: no connection thread.
  bool start_connection = true;
};

struct notify_listener_state;
using notify_listener_ptr = notify_listener_actor::stateful_pointer<notify_listener_state>;

struct notify_listener_state {
  static inline const char* name = "notify_listener";

  notify_listener_config cfg;
  std::vector<cache_shard_actor> shards;
  batch_writer_actor writer;        ///< null without a second tier
  listener_metrics* metrics = nullptr;
  listener_status* status = nullptr; ///< what the shards and the daemon read
  std::shared_ptr<change_inbox> inbox;
  /// Destroyed with the state when the actor terminates (CAF 0.17 destroys
  /// state in on_exit), which stops and joins the connection thread.
  std::unique_ptr<listen_connection> connection;

  uint64_t session = 0;             ///< the live LISTEN session, 0 while down
  uint64_t next_round = 1;
  std::map<uint64_t, size_t> outstanding; ///< round -> shard replies still due
  /// round -> shards yet to answer its changed rows: the invalidation
  /// latency of a row is taken when the last shard is rid of it.
  std::map<uint64_t, size_t> rows_due;
  std::deque<std::pair<uint64_t, change_inbox::mark_point>> marks; ///< (round, mark)
  bool round_waiting = false;       ///< the inbox woke us while too many rounds were out
  std::optional<feed_position> applied_position; ///< of the watermark, when its mark carried one
  std::optional<log_witness> applied_witness;    ///< the newest entry applied, when known
  std::string applied_catalog; ///< the catalog fingerprint of the last mark applied (sent to the writer)
  /// Changes this instance's own writes applied directly (read-your-writes),
  /// by key: when the notification of exactly that change comes, it is not
  /// applied again (it would drop the document the next GET just refilled).
  /// Bounded; a forgotten entry only costs that extra drop.
  std::unordered_map<doc_key, uint64_t, doc_key_hash> applied_directly;
  std::deque<doc_key> applied_directly_order;
  static constexpr size_t max_applied_directly = 65'536;
  /// Writes of this instance waiting for the WAL feed to pass their commit
  /// (passed_atom), by LSN. Bounded by the writes in flight.
  std::multimap<uint64_t, caf::typed_response_promise<uint64_t>> lsn_waiters;

  /// Each shard's share of `changes` (by the key's owner); `top` gets the
  /// highest sequence.
  std::vector<change_batch> split_by_shard(const change_batch& changes, uint64_t& top) const;
  void remember_own_write(const change_batch& changes);
  /// True (and forgotten) when `c` is exactly a change applied directly.
  bool applied_before(const key_change& c);

  /// Takes the inbox's round and sends each shard its share.
  void dispatch(notify_listener_ptr self);
  /// The watermark back to 0 and every position and mark of the old
  /// history (or feed) forgotten: they mean nothing in the new one.
  void forget_positions();
  /// A shard answered for `round`.
  void confirm(notify_listener_ptr self, uint64_t round);
  /// A shard applied changes up to `seq`, made at `made` (microseconds
  /// since the epoch; 0: unknown): their invalidation latencies.
  void note_applied(uint64_t seq, const std::vector<int64_t>& made);
  /// One shard answered round `round`'s rows; true when it was the last.
  bool shards_answered_rows(uint64_t round);
  /// Applies every mark whose round and all before it are confirmed.
  void release_marks();
  void set_caught_up(bool yes);
  /// Answers the writes whose commit the watermark (an LSN under the WAL
  /// feed) has passed; every one with `all` (the feed is down or restarted:
  /// reads go to PostgreSQL until it catches up again).
  void release_lsn_waiters(bool all);
  /// What the listener holds (the inspect handler).
  actor_report report(notify_listener_ptr self) const;
};

/// The change log keys a change by its entity's first document kind; the
/// entity's other kinds change too (another document read from the same
/// rows). Appends their keys (messages/doc_catalogue.hpp).
void with_fanned_out_keys(change_batch& changes);

/// `inbox` is where the connection thread (or a test) leaves changes;
/// `status` is what the shards read (cache_shard_config::listener).
notify_listener_actor::behavior_type
notify_listener(notify_listener_ptr self,
                notify_listener_config cfg, std::vector<cache_shard_actor> shards,
                batch_writer_actor writer, std::shared_ptr<change_inbox> inbox,
                listener_metrics* metrics, listener_status* status);

} // namespace restcache
