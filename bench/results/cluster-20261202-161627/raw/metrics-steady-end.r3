# HELP restcache_cache_hits_total Lookups answered from a tier, by shard and tier.
# TYPE restcache_cache_hits_total counter
restcache_cache_hits_total{shard="0",tier="memory"} 142862
restcache_cache_hits_total{shard="0",tier="lmdb"} 0
restcache_cache_hits_total{shard="1",tier="memory"} 143834
restcache_cache_hits_total{shard="1",tier="lmdb"} 0
# HELP restcache_cache_answers_total Lookups answered, by the Cache-Status they carried (README: Cache-Status).
# TYPE restcache_cache_answers_total counter
restcache_cache_answers_total{cache_status="memory"} 286696
restcache_cache_answers_total{cache_status="lmdb"} 0
restcache_cache_answers_total{cache_status="stored"} 183177
restcache_cache_answers_total{cache_status="miss"} 2
restcache_cache_answers_total{cache_status="collapsed"} 76
restcache_cache_answers_total{cache_status="refresh"} 0
restcache_cache_answers_total{cache_status="refresh_unkept"} 0
restcache_cache_answers_total{cache_status="bypass"} 0
restcache_cache_answers_total{cache_status="stale_if_error"} 0
restcache_cache_answers_total{cache_status="negative"} 433
# HELP restcache_cache_negative_entries Ids remembered as missing (in the memory budget).
# TYPE restcache_cache_negative_entries gauge
restcache_cache_negative_entries{shard="0"} 41
restcache_cache_negative_entries{shard="1"} 77
# HELP restcache_cache_memory_misses_total Lookups not found in memory (then answered from LMDB or by a fill).
# TYPE restcache_cache_memory_misses_total counter
restcache_cache_memory_misses_total{shard="0"} 91867
restcache_cache_memory_misses_total{shard="1"} 91821
# HELP restcache_cache_coalesced_total Misses that joined a fill already in flight.
# TYPE restcache_cache_coalesced_total counter
restcache_cache_coalesced_total{shard="0"} 45
restcache_cache_coalesced_total{shard="1"} 31
# HELP restcache_cache_fills_total Fills started (one database query each).
# TYPE restcache_cache_fills_total counter
restcache_cache_fills_total{shard="0"} 91608
restcache_cache_fills_total{shard="1"} 91571
# HELP restcache_cache_fill_errors_total Fills that failed or timed out.
# TYPE restcache_cache_fill_errors_total counter
restcache_cache_fill_errors_total{shard="0"} 0
restcache_cache_fill_errors_total{shard="1"} 0
# HELP restcache_cache_fills_discarded_total Fills overtaken by an invalidation, not cached.
# TYPE restcache_cache_fills_discarded_total counter
restcache_cache_fills_discarded_total{shard="0"} 1
restcache_cache_fills_discarded_total{shard="1"} 1
# HELP restcache_cache_evictions_total Entries evicted to stay within the byte budget.
# TYPE restcache_cache_evictions_total counter
restcache_cache_evictions_total{shard="0"} 86688
restcache_cache_evictions_total{shard="1"} 86419
# HELP restcache_cache_invalidations_total Invalidations applied.
# TYPE restcache_cache_invalidations_total counter
restcache_cache_invalidations_total{shard="0"} 1487
restcache_cache_invalidations_total{shard="1"} 2005
# HELP restcache_cache_populated_total Entries stored by cache.populate.
# TYPE restcache_cache_populated_total counter
restcache_cache_populated_total{shard="0"} 0
restcache_cache_populated_total{shard="1"} 0
# HELP restcache_cache_entries Documents held in memory.
# TYPE restcache_cache_entries gauge
restcache_cache_entries{shard="0"} 4433
restcache_cache_entries{shard="1"} 4433
# HELP restcache_cache_bytes Bytes charged against the memory budget.
# TYPE restcache_cache_bytes gauge
restcache_cache_bytes{shard="0"} 7119252
restcache_cache_bytes{shard="1"} 7119634
# HELP restcache_dept_ids Department ids /depts/random picks from.
# TYPE restcache_dept_ids gauge
restcache_dept_ids 30027
# HELP restcache_listener_notifications_total Change notifications received.
# TYPE restcache_listener_notifications_total counter
restcache_listener_notifications_total 2967
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
restcache_listener_invalidations_total 3118
# HELP restcache_listener_already_applied_total Notifications of changes this instance's own writes had applied already.
# TYPE restcache_listener_already_applied_total counter
restcache_listener_already_applied_total 170
# HELP restcache_listener_pruned_total Change-log entries pruned by retention.
# TYPE restcache_listener_pruned_total counter
restcache_listener_pruned_total 0
# HELP restcache_changelog_bytes The change log's table and indexes, as last measured (each minute); -1: not yet.
# TYPE restcache_changelog_bytes gauge
restcache_changelog_bytes 409600
# HELP restcache_changelog_oldest_entry_age_seconds Age of the change log's oldest entry, as last measured; -1: not yet.
# TYPE restcache_changelog_oldest_entry_age_seconds gauge
restcache_changelog_oldest_entry_age_seconds 179
# HELP restcache_listener_watermark_xid Replay watermark: every change of a transaction below it is applied.
# TYPE restcache_listener_watermark_xid gauge
restcache_listener_watermark_xid 13544
# HELP restcache_listener_applied_seq Highest change sequence applied.
# TYPE restcache_listener_applied_seq gauge
restcache_listener_applied_seq 2967
# HELP restcache_invalidation_latency_seconds From a change (trigger time) to its keys dropped from both tiers.
# TYPE restcache_invalidation_latency_seconds histogram
restcache_invalidation_latency_seconds_bucket{le="0.0005"} 0
restcache_invalidation_latency_seconds_bucket{le="0.001"} 0
restcache_invalidation_latency_seconds_bucket{le="0.002"} 3
restcache_invalidation_latency_seconds_bucket{le="0.005"} 457
restcache_invalidation_latency_seconds_bucket{le="0.01"} 1214
restcache_invalidation_latency_seconds_bucket{le="0.025"} 1974
restcache_invalidation_latency_seconds_bucket{le="0.05"} 2532
restcache_invalidation_latency_seconds_bucket{le="0.1"} 3001
restcache_invalidation_latency_seconds_bucket{le="0.25"} 3118
restcache_invalidation_latency_seconds_bucket{le="0.5"} 3118
restcache_invalidation_latency_seconds_bucket{le="1"} 3118
restcache_invalidation_latency_seconds_bucket{le="2.5"} 3118
restcache_invalidation_latency_seconds_bucket{le="5"} 3118
restcache_invalidation_latency_seconds_bucket{le="10"} 3118
restcache_invalidation_latency_seconds_bucket{le="+Inf"} 3118
restcache_invalidation_latency_seconds_sum 89.3605
restcache_invalidation_latency_seconds_count 3118
# HELP restcache_serving_stale_since_seconds Unix time of the first stale-if-error answer since the listener was last caught up; 0: none.
# TYPE restcache_serving_stale_since_seconds gauge
restcache_serving_stale_since_seconds 0
# HELP restcache_http_requests_total HTTP requests answered, by route and status (HEAD counts as GET).
# TYPE restcache_http_requests_total counter
restcache_http_requests_total{method="GET",route="/deptemps/{id}",status="200"} 468814
restcache_http_requests_total{method="GET",route="/deptemps/{id}",status="404"} 415
restcache_http_requests_total{method="GET",route="/depts/{id}",status="200"} 186
restcache_http_requests_total{method="GET",route="/depts/emps/{id}",status="200"} 550
restcache_http_requests_total{method="GET",route="/depts/emps/{id}",status="404"} 419
restcache_http_requests_total{method="POST",route="/depts",status="201"} 3
restcache_http_requests_total{method="PUT",route="/depts/{id}",status="204"} 184
restcache_http_requests_total{method="GET",route="/health",status="200"} 181
restcache_http_requests_total{method="GET",route="/ready",status="200"} 182
restcache_http_requests_total{method="GET",route="/metrics",status="200"} 575
# HELP restcache_http_request_duration_seconds From a request read to its response handed to the socket, by route.
# TYPE restcache_http_request_duration_seconds histogram
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="5e-05"} 271995
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.0001"} 280243
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.00025"} 288601
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.0005"} 312391
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.001"} 364840
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.0025"} 423083
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.005"} 445218
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.01"} 457379
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.025"} 465699
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.05"} 467970
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.1"} 468806
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.25"} 469228
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.5"} 469229
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="1"} 469229
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="2.5"} 469229
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="10"} 469229
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="+Inf"} 469229
restcache_http_request_duration_seconds_sum{method="GET",route="/deptemps/{id}"} 613.693
restcache_http_request_duration_seconds_count{method="GET",route="/deptemps/{id}"} 469229
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/{id}",le="5e-05"} 2
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/{id}",le="0.0001"} 2
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/{id}",le="0.00025"} 2
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/{id}",le="0.0005"} 2
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/{id}",le="0.001"} 2
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/{id}",le="0.0025"} 2
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/{id}",le="0.005"} 2
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/{id}",le="0.01"} 2
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/{id}",le="0.025"} 2
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/{id}",le="0.05"} 2
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/{id}",le="0.1"} 2
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/{id}",le="0.25"} 186
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/{id}",le="0.5"} 186
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/{id}",le="1"} 186
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/{id}",le="2.5"} 186
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/{id}",le="10"} 186
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/{id}",le="+Inf"} 186
restcache_http_request_duration_seconds_sum{method="GET",route="/depts/{id}"} 21.0059
restcache_http_request_duration_seconds_count{method="GET",route="/depts/{id}"} 186
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="5e-05"} 119
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.0001"} 121
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.00025"} 160
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.0005"} 230
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.001"} 382
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.0025"} 574
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.005"} 651
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.01"} 693
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.025"} 732
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.05"} 752
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.1"} 781
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.25"} 969
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.5"} 969
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="1"} 969
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="2.5"} 969
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="10"} 969
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="+Inf"} 969
restcache_http_request_duration_seconds_sum{method="GET",route="/depts/emps/{id}"} 25.4355
restcache_http_request_duration_seconds_count{method="GET",route="/depts/emps/{id}"} 969
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
restcache_http_request_duration_seconds_bucket{method="PUT",route="/depts/{id}",le="0.0025"} 0
restcache_http_request_duration_seconds_bucket{method="PUT",route="/depts/{id}",le="0.005"} 14
restcache_http_request_duration_seconds_bucket{method="PUT",route="/depts/{id}",le="0.01"} 49
restcache_http_request_duration_seconds_bucket{method="PUT",route="/depts/{id}",le="0.025"} 97
restcache_http_request_duration_seconds_bucket{method="PUT",route="/depts/{id}",le="0.05"} 127
restcache_http_request_duration_seconds_bucket{method="PUT",route="/depts/{id}",le="0.1"} 172
restcache_http_request_duration_seconds_bucket{method="PUT",route="/depts/{id}",le="0.25"} 184
restcache_http_request_duration_seconds_bucket{method="PUT",route="/depts/{id}",le="0.5"} 184
restcache_http_request_duration_seconds_bucket{method="PUT",route="/depts/{id}",le="1"} 184
restcache_http_request_duration_seconds_bucket{method="PUT",route="/depts/{id}",le="2.5"} 184
restcache_http_request_duration_seconds_bucket{method="PUT",route="/depts/{id}",le="10"} 184
restcache_http_request_duration_seconds_bucket{method="PUT",route="/depts/{id}",le="+Inf"} 184
restcache_http_request_duration_seconds_sum{method="PUT",route="/depts/{id}"} 6.84223
restcache_http_request_duration_seconds_count{method="PUT",route="/depts/{id}"} 184
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="5e-05"} 180
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="0.0001"} 180
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="0.00025"} 180
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="0.0005"} 181
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="0.001"} 181
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="0.0025"} 181
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="0.005"} 181
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="0.01"} 181
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="0.025"} 181
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="0.05"} 181
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="0.1"} 181
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="0.25"} 181
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="0.5"} 181
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="1"} 181
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="2.5"} 181
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="10"} 181
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="+Inf"} 181
restcache_http_request_duration_seconds_sum{method="GET",route="/health"} 0.001002
restcache_http_request_duration_seconds_count{method="GET",route="/health"} 181
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="5e-05"} 180
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="0.0001"} 182
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="0.00025"} 182
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="0.0005"} 182
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="0.001"} 182
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="0.0025"} 182
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="0.005"} 182
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="0.01"} 182
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="0.025"} 182
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="0.05"} 182
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="0.1"} 182
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="0.25"} 182
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="0.5"} 182
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="1"} 182
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="2.5"} 182
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="10"} 182
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="+Inf"} 182
restcache_http_request_duration_seconds_sum{method="GET",route="/ready"} 0.002024
restcache_http_request_duration_seconds_count{method="GET",route="/ready"} 182
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="5e-05"} 0
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="0.0001"} 0
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="0.00025"} 7
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="0.0005"} 437
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="0.001"} 532
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="0.0025"} 573
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="0.005"} 574
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="0.01"} 575
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="0.025"} 575
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="0.05"} 575
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="0.1"} 575
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="0.25"} 575
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="0.5"} 575
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="1"} 575
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="2.5"} 575
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="10"} 575
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="+Inf"} 575
restcache_http_request_duration_seconds_sum{method="GET",route="/metrics"} 0.278929
restcache_http_request_duration_seconds_count{method="GET",route="/metrics"} 575
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
restcache_http_connections_accepted_total 963
# HELP restcache_http_connections_rejected_total Connections over max_connections, answered 503.
# TYPE restcache_http_connections_rejected_total counter
restcache_http_connections_rejected_total 0
# HELP restcache_http_connections_open Connections currently open.
# TYPE restcache_http_connections_open gauge
restcache_http_connections_open 11
# HELP restcache_db_queries_total Statements (jobs) run on pooled connections.
# TYPE restcache_db_queries_total counter
restcache_db_queries_total{pool="fill"} 648
restcache_db_queries_total{pool="write"} 187
restcache_db_queries_total{pool="replica-0"} 188564
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
restcache_db_query_duration_seconds_bucket{pool="fill",le="0.0005"} 233
restcache_db_query_duration_seconds_bucket{pool="fill",le="0.001"} 348
restcache_db_query_duration_seconds_bucket{pool="fill",le="0.002"} 412
restcache_db_query_duration_seconds_bucket{pool="fill",le="0.005"} 483
restcache_db_query_duration_seconds_bucket{pool="fill",le="0.01"} 530
restcache_db_query_duration_seconds_bucket{pool="fill",le="0.025"} 598
restcache_db_query_duration_seconds_bucket{pool="fill",le="0.05"} 631
restcache_db_query_duration_seconds_bucket{pool="fill",le="0.1"} 644
restcache_db_query_duration_seconds_bucket{pool="fill",le="0.25"} 648
restcache_db_query_duration_seconds_bucket{pool="fill",le="0.5"} 648
restcache_db_query_duration_seconds_bucket{pool="fill",le="1"} 648
restcache_db_query_duration_seconds_bucket{pool="fill",le="2.5"} 648
restcache_db_query_duration_seconds_bucket{pool="fill",le="5"} 648
restcache_db_query_duration_seconds_bucket{pool="fill",le="10"} 648
restcache_db_query_duration_seconds_bucket{pool="fill",le="+Inf"} 648
restcache_db_query_duration_seconds_sum{pool="fill"} 4.45846
restcache_db_query_duration_seconds_count{pool="fill"} 648
restcache_db_query_duration_seconds_bucket{pool="write",le="0.0005"} 0
restcache_db_query_duration_seconds_bucket{pool="write",le="0.001"} 0
restcache_db_query_duration_seconds_bucket{pool="write",le="0.002"} 0
restcache_db_query_duration_seconds_bucket{pool="write",le="0.005"} 26
restcache_db_query_duration_seconds_bucket{pool="write",le="0.01"} 52
restcache_db_query_duration_seconds_bucket{pool="write",le="0.025"} 101
restcache_db_query_duration_seconds_bucket{pool="write",le="0.05"} 133
restcache_db_query_duration_seconds_bucket{pool="write",le="0.1"} 175
restcache_db_query_duration_seconds_bucket{pool="write",le="0.25"} 187
restcache_db_query_duration_seconds_bucket{pool="write",le="0.5"} 187
restcache_db_query_duration_seconds_bucket{pool="write",le="1"} 187
restcache_db_query_duration_seconds_bucket{pool="write",le="2.5"} 187
restcache_db_query_duration_seconds_bucket{pool="write",le="5"} 187
restcache_db_query_duration_seconds_bucket{pool="write",le="10"} 187
restcache_db_query_duration_seconds_bucket{pool="write",le="+Inf"} 187
restcache_db_query_duration_seconds_sum{pool="write"} 6.75565
restcache_db_query_duration_seconds_count{pool="write"} 187
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="0.0005"} 224482
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="0.001"} 293410
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="0.002"} 329915
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="0.005"} 356917
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="0.01"} 367341
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="0.025"} 374459
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="0.05"} 376386
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="0.1"} 377032
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="0.25"} 377127
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="0.5"} 377127
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="1"} 377127
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="2.5"} 377127
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="5"} 377127
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="10"} 377127
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="+Inf"} 377127
restcache_db_query_duration_seconds_sum{pool="replica-0"} 540.098
restcache_db_query_duration_seconds_count{pool="replica-0"} 377127
# HELP restcache_replica_up 1 while the standby answers its monitor.
# TYPE restcache_replica_up gauge
restcache_replica_up{replica="0"} 1
# HELP restcache_replica_usable 1 while fills read from the standby (up, within db.replica-max-lag-ms).
# TYPE restcache_replica_usable gauge
restcache_replica_usable{replica="0"} 1
# HELP restcache_replica_lag_seconds Time since the standby's last replayed commit while received WAL waits to be replayed; 0 when none waits.
# TYPE restcache_replica_lag_seconds gauge
restcache_replica_lag_seconds{replica="0"} 2.005
# HELP restcache_replica_replay_lsn The WAL position the standby has replayed, as a number.
# TYPE restcache_replica_replay_lsn gauge
restcache_replica_replay_lsn{replica="0"} 179060384
# HELP restcache_replica_fills_total Document reads sent to a standby (retries included).
# TYPE restcache_replica_fills_total counter
restcache_replica_fills_total 188564
# HELP restcache_replica_fills_behind_total Standby answers read before the standby had replayed the key's last change: not used.
# TYPE restcache_replica_fills_behind_total counter
restcache_replica_fills_behind_total 6025
# HELP restcache_replica_fills_to_primary_total Fills that gave up on the standbys (behind past db.replica-wait-ms, or unreachable) and read db.dsn.
# TYPE restcache_replica_fills_to_primary_total counter
restcache_replica_fills_to_primary_total 641
# HELP restcache_replica_keys_waiting Keys whose last change some standby may not have replayed yet.
# TYPE restcache_replica_keys_waiting gauge
restcache_replica_keys_waiting 71
# HELP restcache_actor_mailbox_messages Messages waiting in a long-lived actor's mailbox, as the actor last reported (about every second).
# TYPE restcache_actor_mailbox_messages gauge
restcache_actor_mailbox_messages{actor="shard-0"} 4
restcache_actor_mailbox_messages{actor="shard-1"} 4
restcache_actor_mailbox_messages{actor="db-pool"} 0
restcache_actor_mailbox_messages{actor="db-write-pool"} 0
restcache_actor_mailbox_messages{actor="db-replica-0"} 0
restcache_actor_mailbox_messages{actor="notify-listener"} 0
# HELP process_cpu_seconds_total User and system CPU time spent.
# TYPE process_cpu_seconds_total counter
process_cpu_seconds_total 32.9
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
