// SPDX-License-Identifier: Apache-2.0
#pragma once

// Every typed actor interface of restcache, each handler documented.

#include <caf/allowed_unsafe_message_type.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "db/db_connection.hpp"
#include "persistence/record_store.hpp"
#include "messages/atoms.hpp"
#include "messages/cache_types.hpp"
#include "messages/history.hpp"
#include "messages/inspect_types.hpp"

// Local-only message types: they hold callbacks or shared pointers and never
// cross a process boundary.
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(restcache::doc_key)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(restcache::reply_callback)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(restcache::fetch_outcome)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(restcache::db_lease)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(restcache::borrow_result)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(restcache::doc_ptr)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(restcache::page_outcome)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(restcache::change_batch)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(restcache::row_batch)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(restcache::write_pool_outcome)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(restcache::history_identity)

namespace restcache {

/// How often each long-lived actor stores its own mailbox size into its
/// metrics (CAF 0.17: only the owner may read it): one mailbox_atom per
/// interval per actor from a helper holding a weak reference
/// (actors/mailbox_report.hpp), never per request.
inline constexpr std::chrono::seconds mailbox_report_interval{1};

/// Owns the keys that hash to it (doc_key_hash mod shards): their cached
/// documents and the fills in flight for them. The one place that orders what
/// happens to a key.
using cache_shard_actor = caf::typed_actor<
  /// Answers the document for the key through the callback, exactly once:
  /// from memory, or after a fill (one query per key however many wait).
  caf::reacts_to<get_atom, doc_key, reply_callback>,
  /// The same for a client that accepts gzip: a cached document gets its
  /// gzip variant made once and kept with it (counted in the budget); a
  /// document answered from LMDB or a fill comes without one.
  caf::reacts_to<gzip_atom, doc_key, reply_callback>,
  /// A lookup that skips what the tiers hold (the client sent no-cache):
  /// joins a fill in flight for the key, else starts one whose document is
  /// kept as a fill's is.
  caf::reacts_to<refill_atom, doc_key, reply_callback>,
  /// Drops the entries of the changed keys; a fill in flight for one of them
  /// was started before the change became visible, so its result answers its
  /// waiters but is not kept. With a second tier the keys are also deleted
  /// there (shielded from tier reads until then). Answers the highest change
  /// sequence of the batch once both tiers are rid of the keys.
  caf::replies_to<invalidate_atom, change_batch>::with<uint64_t>,
  /// Changed rows whose old keys the change did not carry: drops the
  /// entries whose documents hold one (cached_doc::rows), treats the fills
  /// in flight of the rows' kinds as overtaken, and with a second tier has
  /// the writer drop its records holding one (the kinds not read from it
  /// until then). Answers the highest change sequence of the batch.
  caf::replies_to<invalidate_atom, row_batch>::with<uint64_t>,
  /// Drops every entry and treats every fill in flight as overtaken; with a
  /// second tier, clears it too. Answers once both tiers are empty.
  caf::replies_to<clear_atom>::with<uint64_t>,
  /// The same for the documents of the kinds in the set (kind_bit) only.
  caf::replies_to<clear_atom, uint64_t>::with<uint64_t>,
  /// The outcome of fill number `uint64_t` for the key: sent by the
  /// connection's thread that read it, or by the shard itself when no
  /// connection could be borrowed.
  caf::reacts_to<filled_atom, doc_key, uint64_t, fetch_outcome>,
  /// The shard's fill timer: every fill in flight for longer than
  /// cache.fill-timeout answers its waiters with db_timeout and is forgotten.
  caf::reacts_to<fill_tmo_atom>,
  /// Fill number `uint64_t` of the key read a standby that had not yet
  /// replayed the key's last change (or could not be reached): sent to
  /// itself, it reads again, from a standby while db.replica-wait-ms lasts,
  /// then from the primary.
  caf::reacts_to<refetch_atom, doc_key, uint64_t>,
  /// A document read by cache.populate while the shard's invalidation epoch
  /// was `uint64_t`: kept only if no invalidation came since, the key is not
  /// cached and no fill is in flight for it.
  caf::reacts_to<put_atom, doc_key, doc_ptr, uint64_t>,
  /// Once a second (from its mailbox reporter): stores its mailbox size into cache_metrics::mailbox.
  caf::reacts_to<mailbox_atom>,
  /// Describes the shard: entries, bytes, fills in flight, shielded keys,
  /// applied change sequence (and stores its mailbox size).
  caf::replies_to<inspect_atom>::with<actor_report>,
  /// What the shard holds for one key: memory copy, LMDB record (read with
  /// the shard's own tier reader), fill in flight, shielded, change sequence.
  /// Local only (doc_key is not serializable): the inspector asks it.
  caf::replies_to<inspect_atom, doc_key>::with<key_report>>;

/// Lends database connections, at most one borrower each, and queues
/// borrowers (bounded) while all are busy.
using db_pool_actor = caf::typed_actor<
  /// A connection to run one statement on; answers overloaded when the wait
  /// queue is full and db_unavailable when no connection is up (after the
  /// reconnect grace when the last one just went down: a blip waits).
  caf::replies_to<borrow_atom>::with<borrow_result>,
  /// Gives a borrowed connection back.
  caf::reacts_to<release_atom, db_lease>,
  /// Connection number `uint64_t` (its slot) is established, first time or after a
  /// reconnect; sent by the connection's own thread.
  caf::reacts_to<conn_up_atom, uint64_t>,
  /// Connection number `uint64_t` broke; sent by the connection's own thread.
  caf::reacts_to<conn_down_atom, uint64_t>,
  /// The reconnect grace of outage `uint64_t` (the last connection went
  /// down) is over: borrowers still waiting fail (db_unavailable), and later
  /// ones at once, until a connection is up again.
  caf::reacts_to<regrace_atom, uint64_t>,
  /// Once a second (from its mailbox reporter): stores its mailbox size into db_metrics::mailbox.
  caf::reacts_to<mailbox_atom>,
  /// Describes the pool: size, up, in use, idle, waiting borrowers.
  caf::replies_to<inspect_atom>::with<actor_report>>;

/// cache.populate: reads a kind's documents page by page and hands them to
/// their shards until all are cached or the memory budget is nearly used.
using cache_populator_actor = caf::typed_actor<
  /// A page of documents (or the error that stopped it), from the connection's thread.
  caf::reacts_to<page_atom, page_outcome>,
  /// Try the next page again after a failure.
  caf::reacts_to<retry_atom>>;

/// Gathers records for the LMDB tier and writes them in large transactions
/// (lmdb.batch-size records, or every lmdb.flush-interval, and at shutdown);
/// deletes invalidated keys promptly in small ones. Runs detached: LMDB
/// writes block only its own thread.
using batch_writer_actor = caf::typed_actor<
  /// A record from a fill. Queued (the newest per key wins); dropped and
  /// counted when the queue is full: the tier is a cache.
  caf::reacts_to<put_atom, doc_key, doc_ptr, uint64_t>,
  /// Discards any queued record for the keys and deletes them from the tier
  /// (a small transaction within milliseconds); answers the highest change
  /// sequence once the delete has committed, so the shard can stop shielding
  /// the keys from tier reads.
  caf::replies_to<invalidate_atom, change_batch>::with<uint64_t>,
  /// Changed rows: discards the queued records whose documents hold one
  /// and deletes the stored ones (found by the tier's index of rows), as
  /// deletes of keys are; answers once committed.
  caf::replies_to<invalidate_atom, row_batch>::with<uint64_t>,
  /// Discards the queue and drops every record; answers once committed.
  caf::replies_to<clear_atom>::with<uint64_t>,
  /// Discards the queued records of the kinds in the set (kind_bit) and
  /// drops their stored ones; answers once committed.
  caf::replies_to<clear_atom, uint64_t>::with<uint64_t>,
  /// The replay watermark: every change below it is applied in both tiers.
  /// Stored with the next transaction.
  /// xmin, its position, the witness entry (to_text) and the catalog
  /// fingerprint (pg/catalog_drift.hpp); empty: not known.
  caf::reacts_to<watermark_atom, uint64_t, std::string, std::string, std::string>,
  /// The listener reaches another history than the one the tier holds (or
  /// the first one): discards everything queued and clears the tier, storing
  /// this identity and a watermark of 0 in the same transaction. The shards'
  /// own clears follow; the listener's next watermark comes after this.
  caf::reacts_to<history_atom, history_identity>,
  /// The listener carried the tiers across a switch of feed: the watermark
  /// restarts in the new feed's positions (the pending one is of the old
  /// feed and goes; the stored one stays, still true, until the next).
  caf::reacts_to<rebase_atom>,
  /// Writes the queued records now (timer, or batch size reached).
  caf::reacts_to<flush_atom, uint64_t>,
  /// Writes the pending deletes now.
  caf::reacts_to<flush_del_atom>,
  /// Shutdown, once the shards are gone: writes everything queued and answers
  /// the records written in total. A normal-priority message, so it comes
  /// after every record already in the mailbox (an exit_msg would overtake
  /// them in CAF 0.17).
  caf::replies_to<drain_atom>::with<uint64_t>,
  /// Once a second (from its mailbox reporter): stores its mailbox size into batch_metrics::mailbox.
  caf::reacts_to<mailbox_atom>,
  /// Describes the writer: queued records, pending deletes, flushes, last flush.
  caf::replies_to<inspect_atom>::with<actor_report>>;

/// Applies the change stream: takes rounds of coalesced changes from the
/// listener's inbox, sends each shard its share, and advances the replay
/// watermark once every change before a mark is applied in both tiers.
using notify_listener_actor = caf::typed_actor<
  /// The inbox holds a new round (sent by the connection thread, once per round).
  caf::reacts_to<changes_atom>,
  /// LISTEN session number `uint64_t` is in place and its replay is in the
  /// inbox; the second number is the primary's WAL position read after the
  /// replay (0 when not read): every change committed before the session
  /// lies below it, so a standby must have replayed that far before a fill
  /// may read from it (listener_status::lsn_floor).
  caf::reacts_to<listen_up_atom, uint64_t, uint64_t>,
  /// The LISTEN session broke: notifications may be missed until the next one.
  caf::reacts_to<listen_dn_atom>,
  /// A write of this instance committed these changes: apply them now (not
  /// waiting for the notification) and answer once both tiers are rid of
  /// the keys, so the write can answer read-your-writes.
  caf::replies_to<invalidate_atom, change_batch>::with<uint64_t>,
  /// A write of this instance committed below this WAL position and logged
  /// no keys (the WAL feed): answers once the feed has applied everything
  /// committed before it in both tiers, or at once where no WAL feed runs
  /// (not caught up, every read goes to PostgreSQL anyway).
  caf::replies_to<passed_atom, uint64_t>::with<uint64_t>,
  /// Once a second (from its mailbox reporter): stores its mailbox size into listener_metrics::mailbox.
  caf::reacts_to<mailbox_atom>,
  /// Describes the listener: connected, caught up, applied change sequence,
  /// watermark, rounds in flight.
  caf::replies_to<inspect_atom>::with<actor_report>>;

/// One write or uncached read: borrows a connection of the write pool, runs
/// its job there, gives the connection back, applies the write's own
/// invalidations through the listener, answers, and quits.
using write_pool_job_actor = caf::typed_actor<
  /// The job's outcome, sent by the connection's thread.
  caf::reacts_to<done_atom, write_pool_outcome>>;

/// Asked by the daemon's inspect socket for restcache-inspect in another
/// process: it answers only serializable types (messages/inspect_types.hpp).
using inspector_actor = caf::typed_actor<
  /// Every long-lived actor's report, in a fixed order (shards, pools,
  /// writer, listener, id loader, inspector). An actor that does not answer
  /// within the inspector's timeout is listed with answered = false and a note.
  caf::replies_to<list_atom>::with<std::vector<actor_report>>,
  /// "<key space>:<key>": one report per kind of that key space, or
  /// "<kind>:<key>": that kind's (parse_inspected_key), each from the shard
  /// that owns it. Anything else answers sec::invalid_argument with a
  /// message saying what is wrong.
  caf::replies_to<key_atom, std::string>::with<std::vector<key_report>>>;

} // namespace restcache
