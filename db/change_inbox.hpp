// SPDX-License-Identifier: Apache-2.0
#pragma once

// Where the listener's connection thread leaves what it read for the
// notify_listener actor: changes coalesced per key (a storm of updates to one
// key is one invalidation), watermark marks in arrival order, and a request
// to drop both tiers. Bounded: past max_keys the pending changes are replaced
// by one drop of both tiers, so a storm never grows memory or a mailbox
// without bound. Thread-safe; the connection thread writes, the actor takes.

#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "messages/cache_types.hpp"
#include "messages/feed_position.hpp"
#include "messages/history.hpp"

namespace restcache {

class change_inbox {
public:
  /// What the actor takes in one go, to be applied in this order: the drop
  /// (if any), the changes, then the mark, which becomes the watermark once
  /// everything before it is applied.
  /// A mark the listener received back: the snapshot xmin it stands for,
  /// and the connection (generation) it came through.
  struct mark_point {
    uint64_t xmin = 0;
    uint64_t generation = 0;
    feed_position position; ///< the snapshot's (xmin among it); empty xip and xmax 0 when not known
    std::optional<log_witness> witness; ///< the newest entry read up to it, when there is one
    /// The catalog fingerprint checked last (pg/catalog_drift.hpp): the
    /// tiers hold nothing from before it once the mark is applied.
    std::string catalog;
    mark_point() = default;
    mark_point(uint64_t x, uint64_t g, feed_position p = {}, std::optional<log_witness> w = std::nullopt,
               std::string cat = {})
      : xmin(x), generation(g), position(std::move(p)), witness(w), catalog(std::move(cat)) {}
  };
  struct round {
    bool drop_tiers = false;
    /// Without drop_tiers: the kinds (kind_bit) to drop from both tiers.
    uint64_t drop_kinds = 0;
    /// With drop_tiers: the tiers are to hold this history from now on, and
    /// the watermark restarts from 0 (marks of the old history are gone).
    std::optional<history_identity> new_history;
    /// Without drop_tiers: the tiers were carried across a switch of feed;
    /// the watermark restarts from 0 in the new feed's positions, and marks
    /// taken before are gone. This round's changes are applied.
    bool rebase = false;
    change_batch changes;
    /// Changed rows whose old keys the WAL did not carry, each once.
    row_batch rows;
    std::optional<mark_point> mark;
  };

  explicit change_inbox(size_t max_keys);

  /// `wake` is called (outside the lock) when the inbox goes from empty to
  /// holding something, so the actor gets one message per round, not one
  /// per change. Set by the actor that takes the rounds.
  void set_wake(std::function<void()> wake);

  void add(const key_change& change);
  void add_all(const change_batch& changes);
  /// Changed rows, coalesced per row as keys are (and counted with them
  /// against max_keys).
  void add_rows(const row_batch& rows);
  void add_mark(mark_point mark);
  /// The log no longer reaches back far enough (or too much changed, or a
  /// table was truncated).
  void request_drop();
  /// The same for the documents of some kinds (kind_bit) only: what the
  /// catalog says changed under them.
  void request_drop_kinds(uint64_t kinds);
  /// The connection reaches another history than the tiers hold: a drop
  /// that also forgets the pending mark (it belongs to the old history).
  void request_reset(const history_identity& history);
  /// The tiers are carried across a switch of feed: what is pending stays
  /// and is applied, the watermark restarts (round::rebase).
  void request_rebase();

  /// Everything pending; the next add wakes the actor again.
  round take();

  /// The position of the last mark applied: the actor records it (and the
  /// daemon, from the LMDB file, at start), the connection replays from it
  /// after a reconnect when it is the watermark's. nullopt: unknown.
  void set_applied(std::optional<feed_position> position);
  std::optional<feed_position> applied() const;
  /// The same for the witness entry of the applied history (the connection
  /// checks the log still holds it before replaying).
  void set_applied_witness(std::optional<log_witness> witness);
  std::optional<log_witness> applied_witness() const;

  size_t pending() const;
  uint64_t coalesced() const;   ///< changes merged into a pending one for the same key
  uint64_t overflows() const;   ///< times max_keys was passed (each turned into a drop)

private:
  /// Called with the lock held; returns the wake function to call (empty
  /// when the actor was woken already).
  std::function<void()> note_added();
  /// Past max_keys pending keys and rows: one drop of both tiers stands for
  /// them all (called with the lock held).
  void overflow_if_full();

  const size_t max_keys_;
  std::function<void()> wake_;
  mutable std::mutex mtx_;
  std::unordered_map<doc_key, key_change, doc_key_hash> changes_;
  std::unordered_map<std::string, row_change> rows_;
  bool drop_ = false;
  uint64_t drop_kinds_ = 0;
  std::optional<history_identity> new_history_;
  bool rebase_ = false;
  std::optional<mark_point> mark_;
  std::optional<feed_position> applied_;
  std::optional<log_witness> applied_witness_;
  bool woken_ = false;
  uint64_t coalesced_ = 0;
  uint64_t overflows_ = 0;
};

} // namespace restcache
