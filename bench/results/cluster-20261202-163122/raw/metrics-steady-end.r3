# HELP restcache_cache_hits_total Lookups answered from a tier, by shard and tier.
# TYPE restcache_cache_hits_total counter
restcache_cache_hits_total{shard="0",tier="memory"} 156428
restcache_cache_hits_total{shard="0",tier="lmdb"} 0
restcache_cache_hits_total{shard="1",tier="memory"} 157238
restcache_cache_hits_total{shard="1",tier="lmdb"} 0
# HELP restcache_cache_answers_total Lookups answered, by the Cache-Status they carried (README: Cache-Status).
# TYPE restcache_cache_answers_total counter
restcache_cache_answers_total{cache_status="memory"} 313666
restcache_cache_answers_total{cache_status="lmdb"} 0
restcache_cache_answers_total{cache_status="stored"} 66216
restcache_cache_answers_total{cache_status="miss"} 0
restcache_cache_answers_total{cache_status="collapsed"} 29
restcache_cache_answers_total{cache_status="refresh"} 0
restcache_cache_answers_total{cache_status="refresh_unkept"} 0
restcache_cache_answers_total{cache_status="bypass"} 0
restcache_cache_answers_total{cache_status="stale_if_error"} 0
restcache_cache_answers_total{cache_status="negative"} 758
# HELP restcache_cache_negative_entries Ids remembered as missing (in the memory budget).
# TYPE restcache_cache_negative_entries gauge
restcache_cache_negative_entries{shard="0"} 50
restcache_cache_negative_entries{shard="1"} 66
# HELP restcache_cache_memory_misses_total Lookups not found in memory (then answered from LMDB or by a fill).
# TYPE restcache_cache_memory_misses_total counter
restcache_cache_memory_misses_total{shard="0"} 32913
restcache_cache_memory_misses_total{shard="1"} 34090
# HELP restcache_cache_coalesced_total Misses that joined a fill already in flight.
# TYPE restcache_cache_coalesced_total counter
restcache_cache_coalesced_total{shard="0"} 15
restcache_cache_coalesced_total{shard="1"} 14
# HELP restcache_cache_fills_total Fills started (one database query each).
# TYPE restcache_cache_fills_total counter
restcache_cache_fills_total{shard="0"} 32618
restcache_cache_fills_total{shard="1"} 33598
# HELP restcache_cache_fill_errors_total Fills that failed or timed out.
# TYPE restcache_cache_fill_errors_total counter
restcache_cache_fill_errors_total{shard="0"} 0
restcache_cache_fill_errors_total{shard="1"} 0
# HELP restcache_cache_fills_discarded_total Fills overtaken by an invalidation, not cached.
# TYPE restcache_cache_fills_discarded_total counter
restcache_cache_fills_discarded_total{shard="0"} 0
restcache_cache_fills_discarded_total{shard="1"} 0
# HELP restcache_cache_evictions_total Entries evicted to stay within the byte budget.
# TYPE restcache_cache_evictions_total counter
restcache_cache_evictions_total{shard="0"} 27680
restcache_cache_evictions_total{shard="1"} 28473
# HELP restcache_cache_invalidations_total Invalidations applied.
# TYPE restcache_cache_invalidations_total counter
restcache_cache_invalidations_total{shard="0"} 1541
restcache_cache_invalidations_total{shard="1"} 1885
# HELP restcache_cache_populated_total Entries stored by cache.populate.
# TYPE restcache_cache_populated_total counter
restcache_cache_populated_total{shard="0"} 0
restcache_cache_populated_total{shard="1"} 0
# HELP restcache_cache_entries Documents held in memory.
# TYPE restcache_cache_entries gauge
restcache_cache_entries{shard="0"} 4433
restcache_cache_entries{shard="1"} 4434
# HELP restcache_cache_bytes Bytes charged against the memory budget.
# TYPE restcache_cache_bytes gauge
restcache_cache_bytes{shard="0"} 7119525
restcache_cache_bytes{shard="1"} 7118639
# HELP restcache_dept_ids Department ids /depts/random picks from.
# TYPE restcache_dept_ids gauge
restcache_dept_ids 30004
# HELP restcache_listener_notifications_total Change notifications received.
# TYPE restcache_listener_notifications_total counter
restcache_listener_notifications_total 3120
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
restcache_listener_invalidations_total 3102
# HELP restcache_listener_already_applied_total Notifications of changes this instance's own writes had applied already.
# TYPE restcache_listener_already_applied_total counter
restcache_listener_already_applied_total 168
# HELP restcache_listener_pruned_total Change-log entries pruned by retention.
# TYPE restcache_listener_pruned_total counter
restcache_listener_pruned_total 0
# HELP restcache_changelog_bytes The change log's table and indexes, as last measured (each minute); -1: not yet.
# TYPE restcache_changelog_bytes gauge
restcache_changelog_bytes 417792
# HELP restcache_changelog_oldest_entry_age_seconds Age of the change log's oldest entry, as last measured; -1: not yet.
# TYPE restcache_changelog_oldest_entry_age_seconds gauge
restcache_changelog_oldest_entry_age_seconds 179
# HELP restcache_listener_watermark_xid Replay watermark: every change of a transaction below it is applied.
# TYPE restcache_listener_watermark_xid gauge
restcache_listener_watermark_xid 13535
# HELP restcache_listener_applied_seq Highest change sequence applied.
# TYPE restcache_listener_applied_seq gauge
restcache_listener_applied_seq 3120
# HELP restcache_invalidation_latency_seconds From a change (trigger time) to its keys dropped from both tiers.
# TYPE restcache_invalidation_latency_seconds histogram
restcache_invalidation_latency_seconds_bucket{le="0.0005"} 0
restcache_invalidation_latency_seconds_bucket{le="0.001"} 0
restcache_invalidation_latency_seconds_bucket{le="0.002"} 7
restcache_invalidation_latency_seconds_bucket{le="0.005"} 1562
restcache_invalidation_latency_seconds_bucket{le="0.01"} 2584
restcache_invalidation_latency_seconds_bucket{le="0.025"} 2849
restcache_invalidation_latency_seconds_bucket{le="0.05"} 2961
restcache_invalidation_latency_seconds_bucket{le="0.1"} 3051
restcache_invalidation_latency_seconds_bucket{le="0.25"} 3090
restcache_invalidation_latency_seconds_bucket{le="0.5"} 3100
restcache_invalidation_latency_seconds_bucket{le="1"} 3102
restcache_invalidation_latency_seconds_bucket{le="2.5"} 3102
restcache_invalidation_latency_seconds_bucket{le="5"} 3102
restcache_invalidation_latency_seconds_bucket{le="10"} 3102
restcache_invalidation_latency_seconds_bucket{le="+Inf"} 3102
restcache_invalidation_latency_seconds_sum 37.2479
restcache_invalidation_latency_seconds_count 3102
# HELP restcache_serving_stale_since_seconds Unix time of the first stale-if-error answer since the listener was last caught up; 0: none.
# TYPE restcache_serving_stale_since_seconds gauge
restcache_serving_stale_since_seconds 0
# HELP restcache_http_requests_total HTTP requests answered, by route and status (HEAD counts as GET).
# TYPE restcache_http_requests_total counter
restcache_http_requests_total{method="GET",route="/deptemps/{id}",status="200"} 378783
restcache_http_requests_total{method="GET",route="/deptemps/{id}",status="404"} 731
restcache_http_requests_total{method="GET",route="/depts/{id}",status="200"} 159
restcache_http_requests_total{method="GET",route="/depts/emps/{id}",status="200"} 555
restcache_http_requests_total{method="GET",route="/depts/emps/{id}",status="404"} 441
restcache_http_requests_total{method="POST",route="/depts",status="201"} 3
restcache_http_requests_total{method="PUT",route="/depts/{id}",status="204"} 159
restcache_http_requests_total{method="GET",route="/health",status="200"} 180
restcache_http_requests_total{method="GET",route="/ready",status="200"} 182
restcache_http_requests_total{method="GET",route="/ready",status="503"} 1
restcache_http_requests_total{method="GET",route="/metrics",status="200"} 426
# HELP restcache_http_request_duration_seconds From a request read to its response handed to the socket, by route.
# TYPE restcache_http_request_duration_seconds histogram
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="5e-05"} 274708
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.0001"} 301307
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.00025"} 312387
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.0005"} 327847
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.001"} 346656
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.0025"} 364378
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.005"} 372298
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.01"} 376124
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.025"} 378056
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.05"} 378916
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.1"} 379151
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.25"} 379500
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.5"} 379514
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="1"} 379514
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="2.5"} 379514
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="10"} 379514
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="+Inf"} 379514
restcache_http_request_duration_seconds_sum{method="GET",route="/deptemps/{id}"} 227.847
restcache_http_request_duration_seconds_count{method="GET",route="/deptemps/{id}"} 379514
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/{id}",le="5e-05"} 0
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/{id}",le="0.0001"} 0
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/{id}",le="0.00025"} 0
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/{id}",le="0.0005"} 1
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/{id}",le="0.001"} 1
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/{id}",le="0.0025"} 1
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/{id}",le="0.005"} 1
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/{id}",le="0.01"} 1
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/{id}",le="0.025"} 1
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/{id}",le="0.05"} 1
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/{id}",le="0.1"} 1
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/{id}",le="0.25"} 158
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/{id}",le="0.5"} 159
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/{id}",le="1"} 159
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/{id}",le="2.5"} 159
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/{id}",le="10"} 159
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/{id}",le="+Inf"} 159
restcache_http_request_duration_seconds_sum{method="GET",route="/depts/{id}"} 17.0096
restcache_http_request_duration_seconds_count{method="GET",route="/depts/{id}"} 159
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="5e-05"} 111
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.0001"} 125
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.00025"} 186
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.0005"} 313
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.001"} 464
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.0025"} 619
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.005"} 691
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.01"} 725
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.025"} 741
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.05"} 758
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.1"} 775
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.25"} 995
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.5"} 996
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="1"} 996
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="2.5"} 996
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="10"} 996
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="+Inf"} 996
restcache_http_request_duration_seconds_sum{method="GET",route="/depts/emps/{id}"} 26.5453
restcache_http_request_duration_seconds_count{method="GET",route="/depts/emps/{id}"} 996
restcache_http_request_duration_seconds_bucket{method="POST",route="/depts",le="5e-05"} 0
restcache_http_request_duration_seconds_bucket{method="POST",route="/depts",le="0.0001"} 0
restcache_http_request_duration_seconds_bucket{method="POST",route="/depts",le="0.00025"} 0
restcache_http_request_duration_seconds_bucket{method="POST",route="/depts",le="0.0005"} 0
restcache_http_request_duration_seconds_bucket{method="POST",route="/depts",le="0.001"} 0
restcache_http_request_duration_seconds_bucket{method="POST",route="/depts",le="0.0025"} 0
restcache_http_request_duration_seconds_bucket{method="POST",route="/depts",le="0.005"} 2
restcache_http_request_duration_seconds_bucket{method="POST",route="/depts",le="0.01"} 3
restcache_http_request_duration_seconds_bucket{method="POST",route="/depts",le="0.025"} 3
restcache_http_request_duration_seconds_bucket{method="POST",route="/depts",le="0.05"} 3
restcache_http_request_duration_seconds_bucket{method="POST",route="/depts",le="0.1"} 3
restcache_http_request_duration_seconds_bucket{method="POST",route="/depts",le="0.25"} 3
restcache_http_request_duration_seconds_bucket{method="POST",route="/depts",le="0.5"} 3
restcache_http_request_duration_seconds_bucket{method="POST",route="/depts",le="1"} 3
restcache_http_request_duration_seconds_bucket{method="POST",route="/depts",le="2.5"} 3
restcache_http_request_duration_seconds_bucket{method="POST",route="/depts",le="10"} 3
restcache_http_request_duration_seconds_bucket{method="POST",route="/depts",le="+Inf"} 3
restcache_http_request_duration_seconds_sum{method="POST",route="/depts"} 0.01653
restcache_http_request_duration_seconds_count{method="POST",route="/depts"} 3
restcache_http_request_duration_seconds_bucket{method="PUT",route="/depts/{id}",le="5e-05"} 0
restcache_http_request_duration_seconds_bucket{method="PUT",route="/depts/{id}",le="0.0001"} 0
restcache_http_request_duration_seconds_bucket{method="PUT",route="/depts/{id}",le="0.00025"} 0
restcache_http_request_duration_seconds_bucket{method="PUT",route="/depts/{id}",le="0.0005"} 0
restcache_http_request_duration_seconds_bucket{method="PUT",route="/depts/{id}",le="0.001"} 0
restcache_http_request_duration_seconds_bucket{method="PUT",route="/depts/{id}",le="0.0025"} 7
restcache_http_request_duration_seconds_bucket{method="PUT",route="/depts/{id}",le="0.005"} 81
restcache_http_request_duration_seconds_bucket{method="PUT",route="/depts/{id}",le="0.01"} 137
restcache_http_request_duration_seconds_bucket{method="PUT",route="/depts/{id}",le="0.025"} 147
restcache_http_request_duration_seconds_bucket{method="PUT",route="/depts/{id}",le="0.05"} 150
restcache_http_request_duration_seconds_bucket{method="PUT",route="/depts/{id}",le="0.1"} 155
restcache_http_request_duration_seconds_bucket{method="PUT",route="/depts/{id}",le="0.25"} 158
restcache_http_request_duration_seconds_bucket{method="PUT",route="/depts/{id}",le="0.5"} 159
restcache_http_request_duration_seconds_bucket{method="PUT",route="/depts/{id}",le="1"} 159
restcache_http_request_duration_seconds_bucket{method="PUT",route="/depts/{id}",le="2.5"} 159
restcache_http_request_duration_seconds_bucket{method="PUT",route="/depts/{id}",le="10"} 159
restcache_http_request_duration_seconds_bucket{method="PUT",route="/depts/{id}",le="+Inf"} 159
restcache_http_request_duration_seconds_sum{method="PUT",route="/depts/{id}"} 2.01113
restcache_http_request_duration_seconds_count{method="PUT",route="/depts/{id}"} 159
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="5e-05"} 180
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="0.0001"} 180
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="0.00025"} 180
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="0.0005"} 180
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="0.001"} 180
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="0.0025"} 180
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="0.005"} 180
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="0.01"} 180
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="0.025"} 180
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="0.05"} 180
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="0.1"} 180
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="0.25"} 180
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="0.5"} 180
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="1"} 180
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="2.5"} 180
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="10"} 180
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="+Inf"} 180
restcache_http_request_duration_seconds_sum{method="GET",route="/health"} 0.000841
restcache_http_request_duration_seconds_count{method="GET",route="/health"} 180
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="5e-05"} 180
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="0.0001"} 182
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="0.00025"} 183
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="0.0005"} 183
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="0.001"} 183
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="0.0025"} 183
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="0.005"} 183
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="0.01"} 183
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="0.025"} 183
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="0.05"} 183
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="0.1"} 183
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="0.25"} 183
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="0.5"} 183
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="1"} 183
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="2.5"} 183
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="10"} 183
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="+Inf"} 183
restcache_http_request_duration_seconds_sum{method="GET",route="/ready"} 0.002371
restcache_http_request_duration_seconds_count{method="GET",route="/ready"} 183
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="5e-05"} 0
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="0.0001"} 0
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="0.00025"} 0
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="0.0005"} 348
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="0.001"} 396
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="0.0025"} 418
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="0.005"} 426
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="0.01"} 426
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="0.025"} 426
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="0.05"} 426
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="0.1"} 426
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="0.25"} 426
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="0.5"} 426
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="1"} 426
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="2.5"} 426
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="10"} 426
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="+Inf"} 426
restcache_http_request_duration_seconds_sum{method="GET",route="/metrics"} 0.220592
restcache_http_request_duration_seconds_count{method="GET",route="/metrics"} 426
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
restcache_http_connections_accepted_total 845
# HELP restcache_http_connections_rejected_total Connections over max_connections, answered 503.
# TYPE restcache_http_connections_rejected_total counter
restcache_http_connections_rejected_total 0
# HELP restcache_http_connections_open Connections currently open.
# TYPE restcache_http_connections_open gauge
restcache_http_connections_open 16
# HELP restcache_db_queries_total Statements (jobs) run on pooled connections.
# TYPE restcache_db_queries_total counter
restcache_db_queries_total{pool="fill"} 666
restcache_db_queries_total{pool="write"} 162
restcache_db_queries_total{pool="replica-0"} 72074
# HELP restcache_db_query_errors_total Statements that failed.
# TYPE restcache_db_query_errors_total counter
restcache_db_query_errors_total{pool="fill"} 0
restcache_db_query_errors_total{pool="write"} 0
restcache_db_query_errors_total{pool="replica-0"} 0
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
restcache_db_query_duration_seconds_bucket{pool="fill",le="0.0005"} 468
restcache_db_query_duration_seconds_bucket{pool="fill",le="0.001"} 555
restcache_db_query_duration_seconds_bucket{pool="fill",le="0.002"} 591
restcache_db_query_duration_seconds_bucket{pool="fill",le="0.005"} 616
restcache_db_query_duration_seconds_bucket{pool="fill",le="0.01"} 630
restcache_db_query_duration_seconds_bucket{pool="fill",le="0.025"} 652
restcache_db_query_duration_seconds_bucket{pool="fill",le="0.05"} 663
restcache_db_query_duration_seconds_bucket{pool="fill",le="0.1"} 665
restcache_db_query_duration_seconds_bucket{pool="fill",le="0.25"} 666
restcache_db_query_duration_seconds_bucket{pool="fill",le="0.5"} 666
restcache_db_query_duration_seconds_bucket{pool="fill",le="1"} 666
restcache_db_query_duration_seconds_bucket{pool="fill",le="2.5"} 666
restcache_db_query_duration_seconds_bucket{pool="fill",le="5"} 666
restcache_db_query_duration_seconds_bucket{pool="fill",le="10"} 666
restcache_db_query_duration_seconds_bucket{pool="fill",le="+Inf"} 666
restcache_db_query_duration_seconds_sum{pool="fill"} 1.49382
restcache_db_query_duration_seconds_count{pool="fill"} 666
restcache_db_query_duration_seconds_bucket{pool="write",le="0.0005"} 0
restcache_db_query_duration_seconds_bucket{pool="write",le="0.001"} 0
restcache_db_query_duration_seconds_bucket{pool="write",le="0.002"} 1
restcache_db_query_duration_seconds_bucket{pool="write",le="0.005"} 117
restcache_db_query_duration_seconds_bucket{pool="write",le="0.01"} 145
restcache_db_query_duration_seconds_bucket{pool="write",le="0.025"} 151
restcache_db_query_duration_seconds_bucket{pool="write",le="0.05"} 154
restcache_db_query_duration_seconds_bucket{pool="write",le="0.1"} 158
restcache_db_query_duration_seconds_bucket{pool="write",le="0.25"} 161
restcache_db_query_duration_seconds_bucket{pool="write",le="0.5"} 162
restcache_db_query_duration_seconds_bucket{pool="write",le="1"} 162
restcache_db_query_duration_seconds_bucket{pool="write",le="2.5"} 162
restcache_db_query_duration_seconds_bucket{pool="write",le="5"} 162
restcache_db_query_duration_seconds_bucket{pool="write",le="10"} 162
restcache_db_query_duration_seconds_bucket{pool="write",le="+Inf"} 162
restcache_db_query_duration_seconds_sum{pool="write"} 1.82584
restcache_db_query_duration_seconds_count{pool="write"} 162
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="0.0005"} 106607
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="0.001"} 123173
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="0.002"} 132103
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="0.005"} 138849
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="0.01"} 141141
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="0.025"} 143350
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="0.05"} 143951
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="0.1"} 144079
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="0.25"} 144140
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="0.5"} 144148
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="1"} 144148
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="2.5"} 144148
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="5"} 144148
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="10"} 144148
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="+Inf"} 144148
restcache_db_query_duration_seconds_sum{pool="replica-0"} 157.196
restcache_db_query_duration_seconds_count{pool="replica-0"} 144148
# HELP restcache_replica_up 1 while the standby answers its monitor.
# TYPE restcache_replica_up gauge
restcache_replica_up{replica="0"} 1
# HELP restcache_replica_usable 1 while fills read from the standby (up, within db.replica-max-lag-ms).
# TYPE restcache_replica_usable gauge
restcache_replica_usable{replica="0"} 1
# HELP restcache_replica_lag_seconds Time since the standby's last replayed commit while received WAL waits to be replayed; 0 when none waits.
# TYPE restcache_replica_lag_seconds gauge
restcache_replica_lag_seconds{replica="0"} 2.014
# HELP restcache_replica_replay_lsn The WAL position the standby has replayed, as a number.
# TYPE restcache_replica_replay_lsn gauge
restcache_replica_replay_lsn{replica="0"} 179631968
# HELP restcache_replica_fills_total Document reads sent to a standby (retries included).
# TYPE restcache_replica_fills_total counter
restcache_replica_fills_total 72074
# HELP restcache_replica_fills_behind_total Standby answers read before the standby had replayed the key's last change: not used.
# TYPE restcache_replica_fills_behind_total counter
restcache_replica_fills_behind_total 6517
# HELP restcache_replica_fills_to_primary_total Fills that gave up on the standbys (behind past db.replica-wait-ms, or unreachable) and read db.dsn.
# TYPE restcache_replica_fills_to_primary_total counter
restcache_replica_fills_to_primary_total 659
# HELP restcache_replica_keys_waiting Keys whose last change some standby may not have replayed yet.
# TYPE restcache_replica_keys_waiting gauge
restcache_replica_keys_waiting 37
# HELP restcache_actor_mailbox_messages Messages waiting in a long-lived actor's mailbox, as the actor last reported (about every second).
# TYPE restcache_actor_mailbox_messages gauge
restcache_actor_mailbox_messages{actor="shard-0"} 0
restcache_actor_mailbox_messages{actor="shard-1"} 2
restcache_actor_mailbox_messages{actor="db-pool"} 0
restcache_actor_mailbox_messages{actor="db-write-pool"} 0
restcache_actor_mailbox_messages{actor="db-replica-0"} 0
restcache_actor_mailbox_messages{actor="notify-listener"} 0
# HELP process_cpu_seconds_total User and system CPU time spent.
# TYPE process_cpu_seconds_total counter
process_cpu_seconds_total 23.55
# HELP process_start_time_seconds Start time since the epoch.
# TYPE process_start_time_seconds gauge
process_start_time_seconds 1.79623e+09
# HELP process_resident_memory_bytes Resident memory size.
# TYPE process_resident_memory_bytes gauge
process_resident_memory_bytes 38383616
# HELP process_open_fds Open file descriptors.
# TYPE process_open_fds gauge
process_open_fds 52
# HELP process_max_fds The open-file limit (soft).
# TYPE process_max_fds gauge
process_max_fds 20000
