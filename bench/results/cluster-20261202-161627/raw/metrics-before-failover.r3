# HELP restcache_cache_hits_total Lookups answered from a tier, by shard and tier.
# TYPE restcache_cache_hits_total counter
restcache_cache_hits_total{shard="0",tier="memory"} 261342
restcache_cache_hits_total{shard="0",tier="lmdb"} 0
restcache_cache_hits_total{shard="1",tier="memory"} 263298
restcache_cache_hits_total{shard="1",tier="lmdb"} 0
# HELP restcache_cache_answers_total Lookups answered, by the Cache-Status they carried (README: Cache-Status).
# TYPE restcache_cache_answers_total counter
restcache_cache_answers_total{cache_status="memory"} 524640
restcache_cache_answers_total{cache_status="lmdb"} 0
restcache_cache_answers_total{cache_status="stored"} 365497
restcache_cache_answers_total{cache_status="miss"} 5
restcache_cache_answers_total{cache_status="collapsed"} 170
restcache_cache_answers_total{cache_status="refresh"} 0
restcache_cache_answers_total{cache_status="refresh_unkept"} 0
restcache_cache_answers_total{cache_status="bypass"} 0
restcache_cache_answers_total{cache_status="stale_if_error"} 0
restcache_cache_answers_total{cache_status="negative"} 1277
# HELP restcache_cache_negative_entries Ids remembered as missing (in the memory budget).
# TYPE restcache_cache_negative_entries gauge
restcache_cache_negative_entries{shard="0"} 57
restcache_cache_negative_entries{shard="1"} 62
# HELP restcache_cache_memory_misses_total Lookups not found in memory (then answered from LMDB or by a fill).
# TYPE restcache_cache_memory_misses_total counter
restcache_cache_memory_misses_total{shard="0"} 183281
restcache_cache_memory_misses_total{shard="1"} 183668
# HELP restcache_cache_coalesced_total Misses that joined a fill already in flight.
# TYPE restcache_cache_coalesced_total counter
restcache_cache_coalesced_total{shard="0"} 96
restcache_cache_coalesced_total{shard="1"} 74
# HELP restcache_cache_fills_total Fills started (one database query each).
# TYPE restcache_cache_fills_total counter
restcache_cache_fills_total{shard="0"} 182528
restcache_cache_fills_total{shard="1"} 182974
# HELP restcache_cache_fill_errors_total Fills that failed or timed out.
# TYPE restcache_cache_fill_errors_total counter
restcache_cache_fill_errors_total{shard="0"} 0
restcache_cache_fill_errors_total{shard="1"} 0
# HELP restcache_cache_fills_discarded_total Fills overtaken by an invalidation, not cached.
# TYPE restcache_cache_fills_discarded_total counter
restcache_cache_fills_discarded_total{shard="0"} 2
restcache_cache_fills_discarded_total{shard="1"} 3
# HELP restcache_cache_evictions_total Entries evicted to stay within the byte budget.
# TYPE restcache_cache_evictions_total counter
restcache_cache_evictions_total{shard="0"} 177214
restcache_cache_evictions_total{shard="1"} 177276
# HELP restcache_cache_invalidations_total Invalidations applied.
# TYPE restcache_cache_invalidations_total counter
restcache_cache_invalidations_total{shard="0"} 2542
restcache_cache_invalidations_total{shard="1"} 3389
# HELP restcache_cache_populated_total Entries stored by cache.populate.
# TYPE restcache_cache_populated_total counter
restcache_cache_populated_total{shard="0"} 0
restcache_cache_populated_total{shard="1"} 0
# HELP restcache_cache_entries Documents held in memory.
# TYPE restcache_cache_entries gauge
restcache_cache_entries{shard="0"} 4428
restcache_cache_entries{shard="1"} 4433
# HELP restcache_cache_bytes Bytes charged against the memory budget.
# TYPE restcache_cache_bytes gauge
restcache_cache_bytes{shard="0"} 7118938
restcache_cache_bytes{shard="1"} 7119089
# HELP restcache_dept_ids Department ids /depts/random picks from.
# TYPE restcache_dept_ids gauge
restcache_dept_ids 30036
# HELP restcache_listener_notifications_total Change notifications received.
# TYPE restcache_listener_notifications_total counter
restcache_listener_notifications_total 4966
# HELP restcache_listener_connects_total LISTEN sessions established (the first and every reconnect).
# TYPE restcache_listener_connects_total counter
restcache_listener_connects_total 1
# HELP restcache_listener_connected 1 while the LISTEN session is up.
# TYPE restcache_listener_connected gauge
restcache_listener_connected 1
# HELP restcache_listener_caught_up 1 once a watermark mark of the live session is applied.
# TYPE restcache_listener_caught_up gauge
restcache_listener_caught_up 1
# HELP restcache_listener_replayed_total Change-log entries re-applied after a (re)connect.
# TYPE restcache_listener_replayed_total counter
restcache_listener_replayed_total 0
# HELP restcache_listener_tier_drops_total Both tiers dropped: the log was pruned past the watermark, or a storm overflowed.
# TYPE restcache_listener_tier_drops_total counter
restcache_listener_tier_drops_total 0
# HELP restcache_listener_truncates_total TRUNCATEs of dept or emp seen, live or on replay: both tiers dropped.
# TYPE restcache_listener_truncates_total counter
restcache_listener_truncates_total 0
# HELP restcache_listener_history_resets_total (Re)connects that found another history than the tiers held (by the rule that fired): both tiers dropped, the watermark restarted.
# TYPE restcache_listener_history_resets_total counter
restcache_listener_history_resets_total{rule="first_use"} 1
restcache_listener_history_resets_total{rule="other_cluster"} 0
restcache_listener_history_resets_total{rule="other_database"} 0
restcache_listener_history_resets_total{rule="other_timeline"} 0
restcache_listener_history_resets_total{rule="went_backwards"} 0
# HELP restcache_listener_invalidations_total Keys invalidated after coalescing.
# TYPE restcache_listener_invalidations_total counter
restcache_listener_invalidations_total 5283
# HELP restcache_listener_already_applied_total Notifications of changes this instance's own writes had applied already.
# TYPE restcache_listener_already_applied_total counter
restcache_listener_already_applied_total 282
# HELP restcache_listener_pruned_total Change-log entries pruned by retention.
# TYPE restcache_listener_pruned_total counter
restcache_listener_pruned_total 0
# HELP restcache_changelog_bytes The change log's table and indexes, as last measured (each minute); -1: not yet.
# TYPE restcache_changelog_bytes gauge
restcache_changelog_bytes 598016
# HELP restcache_changelog_oldest_entry_age_seconds Age of the change log's oldest entry, as last measured; -1: not yet.
# TYPE restcache_changelog_oldest_entry_age_seconds gauge
restcache_changelog_oldest_entry_age_seconds 299
# HELP restcache_listener_watermark_xid Replay watermark: every change of a transaction below it is applied.
# TYPE restcache_listener_watermark_xid gauge
restcache_listener_watermark_xid 20403
# HELP restcache_listener_applied_seq Highest change sequence applied.
# TYPE restcache_listener_applied_seq gauge
restcache_listener_applied_seq 4966
# HELP restcache_invalidation_latency_seconds From a change (trigger time) to its keys dropped from both tiers.
# TYPE restcache_invalidation_latency_seconds histogram
restcache_invalidation_latency_seconds_bucket{le="0.0005"} 0
restcache_invalidation_latency_seconds_bucket{le="0.001"} 0
restcache_invalidation_latency_seconds_bucket{le="0.002"} 19
restcache_invalidation_latency_seconds_bucket{le="0.005"} 934
restcache_invalidation_latency_seconds_bucket{le="0.01"} 2195
restcache_invalidation_latency_seconds_bucket{le="0.025"} 3488
restcache_invalidation_latency_seconds_bucket{le="0.05"} 4374
restcache_invalidation_latency_seconds_bucket{le="0.1"} 5087
restcache_invalidation_latency_seconds_bucket{le="0.25"} 5283
restcache_invalidation_latency_seconds_bucket{le="0.5"} 5283
restcache_invalidation_latency_seconds_bucket{le="1"} 5283
restcache_invalidation_latency_seconds_bucket{le="2.5"} 5283
restcache_invalidation_latency_seconds_bucket{le="5"} 5283
restcache_invalidation_latency_seconds_bucket{le="10"} 5283
restcache_invalidation_latency_seconds_bucket{le="+Inf"} 5283
restcache_invalidation_latency_seconds_sum 142.163
restcache_invalidation_latency_seconds_count 5283
# HELP restcache_serving_stale_since_seconds Unix time of the first stale-if-error answer since the listener was last caught up; 0: none.
# TYPE restcache_serving_stale_since_seconds gauge
restcache_serving_stale_since_seconds 0
# HELP restcache_http_requests_total HTTP requests answered, by route and status (HEAD counts as GET).
# TYPE restcache_http_requests_total counter
restcache_http_requests_total{method="GET",route="/deptemps/{id}",status="200"} 888251
restcache_http_requests_total{method="GET",route="/deptemps/{id}",status="404"} 1300
restcache_http_requests_total{method="GET",route="/depts/{id}",status="200"} 309
restcache_http_requests_total{method="GET",route="/depts/emps/{id}",status="200"} 1014
restcache_http_requests_total{method="GET",route="/depts/emps/{id}",status="404"} 713
restcache_http_requests_total{method="POST",route="/depts",status="201"} 3
restcache_http_requests_total{method="PUT",route="/depts/{id}",status="204"} 321
restcache_http_requests_total{method="GET",route="/health",status="200"} 306
restcache_http_requests_total{method="GET",route="/ready",status="200"} 308
restcache_http_requests_total{method="GET",route="/metrics",status="200"} 984
# HELP restcache_http_request_duration_seconds From a request read to its response handed to the socket, by route.
# TYPE restcache_http_request_duration_seconds histogram
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="5e-05"} 498183
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.0001"} 512031
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.00025"} 528066
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.0005"} 574336
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.001"} 681962
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.0025"} 804684
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.005"} 847436
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.01"} 869426
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.025"} 883662
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.05"} 887484
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.1"} 888862
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.25"} 889550
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.5"} 889551
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="1"} 889551
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="2.5"} 889551
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="10"} 889551
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="+Inf"} 889551
restcache_http_request_duration_seconds_sum{method="GET",route="/deptemps/{id}"} 1111.54
restcache_http_request_duration_seconds_count{method="GET",route="/deptemps/{id}"} 889551
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/{id}",le="5e-05"} 2
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/{id}",le="0.0001"} 3
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/{id}",le="0.00025"} 3
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/{id}",le="0.0005"} 3
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/{id}",le="0.001"} 3
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/{id}",le="0.0025"} 3
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/{id}",le="0.005"} 3
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/{id}",le="0.01"} 3
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/{id}",le="0.025"} 3
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/{id}",le="0.05"} 3
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/{id}",le="0.1"} 3
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/{id}",le="0.25"} 309
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/{id}",le="0.5"} 309
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/{id}",le="1"} 309
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/{id}",le="2.5"} 309
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/{id}",le="10"} 309
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/{id}",le="+Inf"} 309
restcache_http_request_duration_seconds_sum{method="GET",route="/depts/{id}"} 34.7392
restcache_http_request_duration_seconds_count{method="GET",route="/depts/{id}"} 309
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="5e-05"} 225
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.0001"} 232
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.00025"} 290
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.0005"} 411
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.001"} 693
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.0025"} 1031
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.005"} 1153
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.01"} 1226
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.025"} 1291
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.05"} 1319
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.1"} 1369
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.25"} 1726
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.5"} 1727
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="1"} 1727
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="2.5"} 1727
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="10"} 1727
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="+Inf"} 1727
restcache_http_request_duration_seconds_sum{method="GET",route="/depts/emps/{id}"} 47.2809
restcache_http_request_duration_seconds_count{method="GET",route="/depts/emps/{id}"} 1727
restcache_http_request_duration_seconds_bucket{method="POST",route="/depts",le="5e-05"} 0
restcache_http_request_duration_seconds_bucket{method="POST",route="/depts",le="0.0001"} 0
restcache_http_request_duration_seconds_bucket{method="POST",route="/depts",le="0.00025"} 0
restcache_http_request_duration_seconds_bucket{method="POST",route="/depts",le="0.0005"} 0
restcache_http_request_duration_seconds_bucket{method="POST",route="/depts",le="0.001"} 0
restcache_http_request_duration_seconds_bucket{method="POST",route="/depts",le="0.0025"} 0
restcache_http_request_duration_seconds_bucket{method="POST",route="/depts",le="0.005"} 1
restcache_http_request_duration_seconds_bucket{method="POST",route="/depts",le="0.01"} 1
restcache_http_request_duration_seconds_bucket{method="POST",route="/depts",le="0.025"} 3
restcache_http_request_duration_seconds_bucket{method="POST",route="/depts",le="0.05"} 3
restcache_http_request_duration_seconds_bucket{method="POST",route="/depts",le="0.1"} 3
restcache_http_request_duration_seconds_bucket{method="POST",route="/depts",le="0.25"} 3
restcache_http_request_duration_seconds_bucket{method="POST",route="/depts",le="0.5"} 3
restcache_http_request_duration_seconds_bucket{method="POST",route="/depts",le="1"} 3
restcache_http_request_duration_seconds_bucket{method="POST",route="/depts",le="2.5"} 3
restcache_http_request_duration_seconds_bucket{method="POST",route="/depts",le="10"} 3
restcache_http_request_duration_seconds_bucket{method="POST",route="/depts",le="+Inf"} 3
restcache_http_request_duration_seconds_sum{method="POST",route="/depts"} 0.027268
restcache_http_request_duration_seconds_count{method="POST",route="/depts"} 3
restcache_http_request_duration_seconds_bucket{method="PUT",route="/depts/{id}",le="5e-05"} 0
restcache_http_request_duration_seconds_bucket{method="PUT",route="/depts/{id}",le="0.0001"} 0
restcache_http_request_duration_seconds_bucket{method="PUT",route="/depts/{id}",le="0.00025"} 0
restcache_http_request_duration_seconds_bucket{method="PUT",route="/depts/{id}",le="0.0005"} 0
restcache_http_request_duration_seconds_bucket{method="PUT",route="/depts/{id}",le="0.001"} 0
restcache_http_request_duration_seconds_bucket{method="PUT",route="/depts/{id}",le="0.0025"} 2
restcache_http_request_duration_seconds_bucket{method="PUT",route="/depts/{id}",le="0.005"} 31
restcache_http_request_duration_seconds_bucket{method="PUT",route="/depts/{id}",le="0.01"} 92
restcache_http_request_duration_seconds_bucket{method="PUT",route="/depts/{id}",le="0.025"} 170
restcache_http_request_duration_seconds_bucket{method="PUT",route="/depts/{id}",le="0.05"} 236
restcache_http_request_duration_seconds_bucket{method="PUT",route="/depts/{id}",le="0.1"} 304
restcache_http_request_duration_seconds_bucket{method="PUT",route="/depts/{id}",le="0.25"} 321
restcache_http_request_duration_seconds_bucket{method="PUT",route="/depts/{id}",le="0.5"} 321
restcache_http_request_duration_seconds_bucket{method="PUT",route="/depts/{id}",le="1"} 321
restcache_http_request_duration_seconds_bucket{method="PUT",route="/depts/{id}",le="2.5"} 321
restcache_http_request_duration_seconds_bucket{method="PUT",route="/depts/{id}",le="10"} 321
restcache_http_request_duration_seconds_bucket{method="PUT",route="/depts/{id}",le="+Inf"} 321
restcache_http_request_duration_seconds_sum{method="PUT",route="/depts/{id}"} 11.3301
restcache_http_request_duration_seconds_count{method="PUT",route="/depts/{id}"} 321
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="5e-05"} 305
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="0.0001"} 305
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="0.00025"} 305
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="0.0005"} 306
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="0.001"} 306
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="0.0025"} 306
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="0.005"} 306
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="0.01"} 306
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="0.025"} 306
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="0.05"} 306
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="0.1"} 306
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="0.25"} 306
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="0.5"} 306
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="1"} 306
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="2.5"} 306
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="10"} 306
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="+Inf"} 306
restcache_http_request_duration_seconds_sum{method="GET",route="/health"} 0.001395
restcache_http_request_duration_seconds_count{method="GET",route="/health"} 306
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="5e-05"} 302
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="0.0001"} 305
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="0.00025"} 307
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="0.0005"} 308
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="0.001"} 308
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="0.0025"} 308
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="0.005"} 308
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="0.01"} 308
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="0.025"} 308
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="0.05"} 308
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="0.1"} 308
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="0.25"} 308
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="0.5"} 308
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="1"} 308
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="2.5"} 308
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="10"} 308
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="+Inf"} 308
restcache_http_request_duration_seconds_sum{method="GET",route="/ready"} 0.003878
restcache_http_request_duration_seconds_count{method="GET",route="/ready"} 308
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="5e-05"} 0
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="0.0001"} 0
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="0.00025"} 23
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="0.0005"} 760
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="0.001"} 919
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="0.0025"} 982
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="0.005"} 983
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="0.01"} 984
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="0.025"} 984
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="0.05"} 984
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="0.1"} 984
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="0.25"} 984
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="0.5"} 984
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="1"} 984
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="2.5"} 984
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="10"} 984
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="+Inf"} 984
restcache_http_request_duration_seconds_sum{method="GET",route="/metrics"} 0.454007
restcache_http_request_duration_seconds_count{method="GET",route="/metrics"} 984
# HELP restcache_http_bad_requests_total Requests rejected by the parser (400, 413, 431).
# TYPE restcache_http_bad_requests_total counter
restcache_http_bad_requests_total 0
# HELP restcache_http_lookup_timeouts_total Lookups answered 504 after lookup_timeout.
# TYPE restcache_http_lookup_timeouts_total counter
restcache_http_lookup_timeouts_total 0
# HELP restcache_http_not_modified_total 304 answers to If-None-Match.
# TYPE restcache_http_not_modified_total counter
restcache_http_not_modified_total 0
# HELP restcache_http_responses_coalesced_total Responses to pipelined requests sent in one write with the next ones.
# TYPE restcache_http_responses_coalesced_total counter
restcache_http_responses_coalesced_total 0
# HELP restcache_http_connections_accepted_total Connections accepted.
# TYPE restcache_http_connections_accepted_total counter
restcache_http_connections_accepted_total 1636
# HELP restcache_http_connections_rejected_total Connections over max_connections, answered 503.
# TYPE restcache_http_connections_rejected_total counter
restcache_http_connections_rejected_total 0
# HELP restcache_http_connections_open Connections currently open.
# TYPE restcache_http_connections_open gauge
restcache_http_connections_open 11
# HELP restcache_db_queries_total Statements (jobs) run on pooled connections.
# TYPE restcache_db_queries_total counter
restcache_db_queries_total{pool="fill"} 1142
restcache_db_queries_total{pool="write"} 324
restcache_db_queries_total{pool="replica-0"} 374889
# HELP restcache_db_query_errors_total Statements that failed.
# TYPE restcache_db_query_errors_total counter
restcache_db_query_errors_total{pool="fill"} 0
restcache_db_query_errors_total{pool="write"} 0
restcache_db_query_errors_total{pool="replica-0"} 1
# HELP restcache_db_query_timeouts_total Statements cancelled by the query timeout.
# TYPE restcache_db_query_timeouts_total counter
restcache_db_query_timeouts_total{pool="fill"} 0
restcache_db_query_timeouts_total{pool="write"} 0
restcache_db_query_timeouts_total{pool="replica-0"} 0
# HELP restcache_db_connects_total Successful (re)connections.
# TYPE restcache_db_connects_total counter
restcache_db_connects_total{pool="fill"} 8
restcache_db_connects_total{pool="write"} 2
restcache_db_connects_total{pool="replica-0"} 8
# HELP restcache_db_connections_up Pooled connections established.
# TYPE restcache_db_connections_up gauge
restcache_db_connections_up{pool="fill"} 8
restcache_db_connections_up{pool="write"} 2
restcache_db_connections_up{pool="replica-0"} 8
# HELP restcache_db_connections_in_use Pooled connections lent out now.
# TYPE restcache_db_connections_in_use gauge
restcache_db_connections_in_use{pool="fill"} 0
restcache_db_connections_in_use{pool="write"} 0
restcache_db_connections_in_use{pool="replica-0"} 0
# HELP restcache_db_borrow_waiting Borrowers waiting for a connection.
# TYPE restcache_db_borrow_waiting gauge
restcache_db_borrow_waiting{pool="fill"} 0
restcache_db_borrow_waiting{pool="write"} 0
restcache_db_borrow_waiting{pool="replica-0"} 0
# HELP restcache_db_borrow_rejected_total Borrowers refused because the wait queue was full.
# TYPE restcache_db_borrow_rejected_total counter
restcache_db_borrow_rejected_total{pool="fill"} 0
restcache_db_borrow_rejected_total{pool="write"} 0
restcache_db_borrow_rejected_total{pool="replica-0"} 0
# HELP restcache_db_query_duration_seconds Statements on pooled connections, sent to result decoded.
# TYPE restcache_db_query_duration_seconds histogram
restcache_db_query_duration_seconds_bucket{pool="fill",le="0.0005"} 390
restcache_db_query_duration_seconds_bucket{pool="fill",le="0.001"} 583
restcache_db_query_duration_seconds_bucket{pool="fill",le="0.002"} 697
restcache_db_query_duration_seconds_bucket{pool="fill",le="0.005"} 840
restcache_db_query_duration_seconds_bucket{pool="fill",le="0.01"} 921
restcache_db_query_duration_seconds_bucket{pool="fill",le="0.025"} 1056
restcache_db_query_duration_seconds_bucket{pool="fill",le="0.05"} 1114
restcache_db_query_duration_seconds_bucket{pool="fill",le="0.1"} 1137
restcache_db_query_duration_seconds_bucket{pool="fill",le="0.25"} 1142
restcache_db_query_duration_seconds_bucket{pool="fill",le="0.5"} 1142
restcache_db_query_duration_seconds_bucket{pool="fill",le="1"} 1142
restcache_db_query_duration_seconds_bucket{pool="fill",le="2.5"} 1142
restcache_db_query_duration_seconds_bucket{pool="fill",le="5"} 1142
restcache_db_query_duration_seconds_bucket{pool="fill",le="10"} 1142
restcache_db_query_duration_seconds_bucket{pool="fill",le="+Inf"} 1142
restcache_db_query_duration_seconds_sum{pool="fill"} 7.85656
restcache_db_query_duration_seconds_count{pool="fill"} 1142
restcache_db_query_duration_seconds_bucket{pool="write",le="0.0005"} 0
restcache_db_query_duration_seconds_bucket{pool="write",le="0.001"} 0
restcache_db_query_duration_seconds_bucket{pool="write",le="0.002"} 2
restcache_db_query_duration_seconds_bucket{pool="write",le="0.005"} 54
restcache_db_query_duration_seconds_bucket{pool="write",le="0.01"} 97
restcache_db_query_duration_seconds_bucket{pool="write",le="0.025"} 177
restcache_db_query_duration_seconds_bucket{pool="write",le="0.05"} 243
restcache_db_query_duration_seconds_bucket{pool="write",le="0.1"} 307
restcache_db_query_duration_seconds_bucket{pool="write",le="0.25"} 324
restcache_db_query_duration_seconds_bucket{pool="write",le="0.5"} 324
restcache_db_query_duration_seconds_bucket{pool="write",le="1"} 324
restcache_db_query_duration_seconds_bucket{pool="write",le="2.5"} 324
restcache_db_query_duration_seconds_bucket{pool="write",le="5"} 324
restcache_db_query_duration_seconds_bucket{pool="write",le="10"} 324
restcache_db_query_duration_seconds_bucket{pool="write",le="+Inf"} 324
restcache_db_query_duration_seconds_sum{pool="write"} 11.138
restcache_db_query_duration_seconds_count{pool="write"} 324
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="0.0005"} 461620
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="0.001"} 598422
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="0.002"} 666555
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="0.005"} 715647
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="0.01"} 733150
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="0.025"} 745393
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="0.05"} 748571
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="0.1"} 749640
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="0.25"} 749777
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="0.5"} 749777
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="1"} 749777
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="2.5"} 749777
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="5"} 749777
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="10"} 749777
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="+Inf"} 749777
restcache_db_query_duration_seconds_sum{pool="replica-0"} 958.712
restcache_db_query_duration_seconds_count{pool="replica-0"} 749777
# HELP restcache_replica_up 1 while the standby answers its monitor.
# TYPE restcache_replica_up gauge
restcache_replica_up{replica="0"} 1
# HELP restcache_replica_usable 1 while fills read from the standby (up, within db.replica-max-lag-ms).
# TYPE restcache_replica_usable gauge
restcache_replica_usable{replica="0"} 1
# HELP restcache_replica_lag_seconds Time since the standby's last replayed commit while received WAL waits to be replayed; 0 when none waits.
# TYPE restcache_replica_lag_seconds gauge
restcache_replica_lag_seconds{replica="0"} 2.032
# HELP restcache_replica_replay_lsn The WAL position the standby has replayed, as a number.
# TYPE restcache_replica_replay_lsn gauge
restcache_replica_replay_lsn{replica="0"} 186836400
# HELP restcache_replica_fills_total Document reads sent to a standby (retries included).
# TYPE restcache_replica_fills_total counter
restcache_replica_fills_total 374889
# HELP restcache_replica_fills_behind_total Standby answers read before the standby had replayed the key's last change: not used.
# TYPE restcache_replica_fills_behind_total counter
restcache_replica_fills_behind_total 10517
# HELP restcache_replica_fills_to_primary_total Fills that gave up on the standbys (behind past db.replica-wait-ms, or unreachable) and read db.dsn.
# TYPE restcache_replica_fills_to_primary_total counter
restcache_replica_fills_to_primary_total 1131
# HELP restcache_replica_keys_waiting Keys whose last change some standby may not have replayed yet.
# TYPE restcache_replica_keys_waiting gauge
restcache_replica_keys_waiting 34
# HELP restcache_actor_mailbox_messages Messages waiting in a long-lived actor's mailbox, as the actor last reported (about every second).
# TYPE restcache_actor_mailbox_messages gauge
restcache_actor_mailbox_messages{actor="shard-0"} 0
restcache_actor_mailbox_messages{actor="shard-1"} 0
restcache_actor_mailbox_messages{actor="db-pool"} 0
restcache_actor_mailbox_messages{actor="db-write-pool"} 0
restcache_actor_mailbox_messages{actor="db-replica-0"} 0
restcache_actor_mailbox_messages{actor="notify-listener"} 0
# HELP process_cpu_seconds_total User and system CPU time spent.
# TYPE process_cpu_seconds_total counter
process_cpu_seconds_total 60.06
# HELP process_start_time_seconds Start time since the epoch.
# TYPE process_start_time_seconds gauge
process_start_time_seconds 1.79623e+09
# HELP process_resident_memory_bytes Resident memory size.
# TYPE process_resident_memory_bytes gauge
process_resident_memory_bytes 38535168
# HELP process_open_fds Open file descriptors.
# TYPE process_open_fds gauge
process_open_fds 47
# HELP process_max_fds The open-file limit (soft).
# TYPE process_max_fds gauge
process_max_fds 20000
