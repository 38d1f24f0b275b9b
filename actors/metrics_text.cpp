#include "actors/metrics_text.hpp"

#include "http/prometheus.hpp"
#include "persistence/lmdb/store.hpp"

namespace restcache {

using http::append_metric;

std::string lmdb_metrics_text(const lmdb::store& store, const batch_metrics& m) {
  std::string out;
  auto rd = [](const auto& a) { return static_cast<int64_t>(a.load(std::memory_order_relaxed)); };
  auto c = store.counters();
  append_metric(out, "restcache_lmdb_bytes", "Bytes of pages in use in the LMDB file.", "gauge",
                static_cast<int64_t>(store.bytes()));
  append_metric(out, "restcache_lmdb_records", "Documents held in the LMDB tier.", "gauge",
                static_cast<int64_t>(store.count()));
  append_metric(out, "restcache_lmdb_evicted_total", "Records evicted to stay within lmdb.max-bytes.",
                "counter", static_cast<int64_t>(c.evicted));
  append_metric(out, "restcache_lmdb_garbled_total", "Stored values that failed to decode (not served).",
                "counter", static_cast<int64_t>(c.garbled));
  append_metric(out, "restcache_batch_flushes_total", "Record transactions committed by the batch writer.",
                "counter", rd(m.flushes));
  append_metric(out, "restcache_batch_records_written_total", "Records written to the LMDB tier.",
                "counter", rd(m.records_written));
  append_metric(out, "restcache_batch_records_dropped_total",
                "Records not written: queue full or a failed transaction.", "counter",
                rd(m.records_dropped));
  append_metric(out, "restcache_batch_records_discarded_total",
                "Queued records discarded by an invalidation of their key.", "counter",
                rd(m.records_discarded));
  append_metric(out, "restcache_batch_deletes_total", "Invalidated keys deleted from the LMDB tier.",
                "counter", rd(m.deletes_written));
  append_metric(out, "restcache_batch_write_errors_total", "Failed LMDB write transactions.", "counter",
                rd(m.write_errors));
  append_metric(out, "restcache_batch_queued", "Records waiting for the next write transaction.", "gauge",
                rd(m.queued));
  append_metric(out, "restcache_batch_mailbox", "Records sent to the batch writer, not yet queued.",
                "gauge", rd(m.in_mailbox));
  append_metric(out, "restcache_batch_last_flush_seconds", "Duration of the last record transaction.",
                "gauge", double(m.last_flush_us.load(std::memory_order_relaxed)) / 1e6);
  return out;
}

std::string listener_metrics_text(const listener_metrics& m) {
  std::string out;
  auto rd = [](const auto& a) { return static_cast<int64_t>(a.load(std::memory_order_relaxed)); };
  append_metric(out, "restcache_listener_notifications_total", "Change notifications received.",
                "counter", rd(m.notifications));
  append_metric(out, "restcache_listener_connects_total",
                "LISTEN sessions established (the first and every reconnect).", "counter", rd(m.connects));
  append_metric(out, "restcache_listener_connected", "1 while the LISTEN session is up.", "gauge",
                rd(m.connected));
  append_metric(out, "restcache_listener_caught_up",
                "1 once a watermark mark of the live session is applied.", "gauge", rd(m.caught_up));
  append_metric(out, "restcache_listener_replayed_total",
                "Change-log entries re-applied after a (re)connect.", "counter", rd(m.replayed));
  append_metric(out, "restcache_listener_tier_drops_total",
                "Both tiers dropped: the log was pruned past the watermark, or a storm overflowed.",
                "counter", rd(m.tier_drops));
  append_metric(out, "restcache_listener_invalidations_total", "Keys invalidated after coalescing.",
                "counter", rd(m.invalidations));
  append_metric(out, "restcache_listener_already_applied_total",
                "Notifications of changes this instance's own writes had applied already.", "counter",
                rd(m.already_applied));
  append_metric(out, "restcache_listener_pruned_total", "Change-log entries pruned by retention.",
                "counter", rd(m.pruned));
  append_metric(out, "restcache_listener_watermark_xid",
                "Replay watermark: every change of a transaction below it is applied.", "gauge",
                rd(m.watermark));
  append_metric(out, "restcache_listener_applied_seq", "Highest change sequence applied.", "gauge",
                rd(m.applied_seq));
  auto& h = m.invalidation_latency;
  uint64_t counts[latency_histogram::bucket_count];
  for (size_t i = 0; i < latency_histogram::bucket_count; ++i)
    counts[i] = h.buckets[i].load(std::memory_order_relaxed);
  http::append_histogram(out, "restcache_invalidation_latency_seconds",
                         "From a change (trigger time) to its keys dropped from both tiers.",
                         latency_histogram::bounds, counts, std::size(latency_histogram::bounds),
                         double(h.sum_us.load(std::memory_order_relaxed)) / 1e6);
  return out;
}

} // namespace restcache
