# HELP restcache_cache_hits_total Lookups answered from a tier, by shard and tier.
# TYPE restcache_cache_hits_total counter
restcache_cache_hits_total{shard="0",tier="memory"} 379373
restcache_cache_hits_total{shard="0",tier="lmdb"} 0
restcache_cache_hits_total{shard="1",tier="memory"} 379697
restcache_cache_hits_total{shard="1",tier="lmdb"} 0
# HELP restcache_cache_answers_total Lookups answered, by the Cache-Status they carried (README: Cache-Status).
# TYPE restcache_cache_answers_total counter
restcache_cache_answers_total{cache_status="memory"} 759070
restcache_cache_answers_total{cache_status="lmdb"} 0
restcache_cache_answers_total{cache_status="stored"} 207985
restcache_cache_answers_total{cache_status="miss"} 0
restcache_cache_answers_total{cache_status="collapsed"} 74
restcache_cache_answers_total{cache_status="refresh"} 0
restcache_cache_answers_total{cache_status="refresh_unkept"} 0
restcache_cache_answers_total{cache_status="bypass"} 119
restcache_cache_answers_total{cache_status="stale_if_error"} 231
restcache_cache_answers_total{cache_status="negative"} 3126
# HELP restcache_cache_negative_entries Ids remembered as missing (in the memory budget).
# TYPE restcache_cache_negative_entries gauge
restcache_cache_negative_entries{shard="0"} 64
restcache_cache_negative_entries{shard="1"} 68
# HELP restcache_cache_memory_misses_total Lookups not found in memory (then answered from LMDB or by a fill).
# TYPE restcache_cache_memory_misses_total counter
restcache_cache_memory_misses_total{shard="0"} 104223
restcache_cache_memory_misses_total{shard="1"} 107349
# HELP restcache_cache_coalesced_total Misses that joined a fill already in flight.
# TYPE restcache_cache_coalesced_total counter
restcache_cache_coalesced_total{shard="0"} 37
restcache_cache_coalesced_total{shard="1"} 37
# HELP restcache_cache_fills_total Fills started (one database query each).
# TYPE restcache_cache_fills_total counter
restcache_cache_fills_total{shard="0"} 102994
restcache_cache_fills_total{shard="1"} 105378
# HELP restcache_cache_fill_errors_total Fills that failed or timed out.
# TYPE restcache_cache_fill_errors_total counter
restcache_cache_fill_errors_total{shard="0"} 132
restcache_cache_fill_errors_total{shard="1"} 136
# HELP restcache_cache_fills_discarded_total Fills overtaken by an invalidation, not cached.
# TYPE restcache_cache_fills_discarded_total counter
restcache_cache_fills_discarded_total{shard="0"} 0
restcache_cache_fills_discarded_total{shard="1"} 0
# HELP restcache_cache_evictions_total Entries evicted to stay within the byte budget.
# TYPE restcache_cache_evictions_total counter
restcache_cache_evictions_total{shard="0"} 92657
restcache_cache_evictions_total{shard="1"} 94607
# HELP restcache_cache_invalidations_total Invalidations applied.
# TYPE restcache_cache_invalidations_total counter
restcache_cache_invalidations_total{shard="0"} 3624
restcache_cache_invalidations_total{shard="1"} 4497
# HELP restcache_cache_populated_total Entries stored by cache.populate.
# TYPE restcache_cache_populated_total counter
restcache_cache_populated_total{shard="0"} 0
restcache_cache_populated_total{shard="1"} 0
# HELP restcache_cache_entries Documents held in memory.
# TYPE restcache_cache_entries gauge
restcache_cache_entries{shard="0"} 4433
restcache_cache_entries{shard="1"} 4432
# HELP restcache_cache_bytes Bytes charged against the memory budget.
# TYPE restcache_cache_bytes gauge
restcache_cache_bytes{shard="0"} 7119631
restcache_cache_bytes{shard="1"} 7119584
# HELP restcache_dept_ids Department ids /depts/random picks from.
# TYPE restcache_dept_ids gauge
restcache_dept_ids 30011
# HELP restcache_listener_notifications_total Change notifications received.
# TYPE restcache_listener_notifications_total counter
restcache_listener_notifications_total 7211
# HELP restcache_listener_connects_total LISTEN sessions established (the first and every reconnect).
# TYPE restcache_listener_connects_total counter
restcache_listener_connects_total 2
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
restcache_listener_history_resets_total{rule="other_timeline"} 1
restcache_listener_history_resets_total{rule="went_backwards"} 0
# HELP restcache_listener_invalidations_total Keys invalidated after coalescing.
# TYPE restcache_listener_invalidations_total counter
restcache_listener_invalidations_total 7321
# HELP restcache_listener_already_applied_total Notifications of changes this instance's own writes had applied already.
# TYPE restcache_listener_already_applied_total counter
restcache_listener_already_applied_total 356
# HELP restcache_listener_pruned_total Change-log entries pruned by retention.
# TYPE restcache_listener_pruned_total counter
restcache_listener_pruned_total 0
# HELP restcache_changelog_bytes The change log's table and indexes, as last measured (each minute); -1: not yet.
# TYPE restcache_changelog_bytes gauge
restcache_changelog_bytes 876544
# HELP restcache_changelog_oldest_entry_age_seconds Age of the change log's oldest entry, as last measured; -1: not yet.
# TYPE restcache_changelog_oldest_entry_age_seconds gauge
restcache_changelog_oldest_entry_age_seconds 427
# HELP restcache_listener_watermark_xid Replay watermark: every change of a transaction below it is applied.
# TYPE restcache_listener_watermark_xid gauge
restcache_listener_watermark_xid 28198
# HELP restcache_listener_applied_seq Highest change sequence applied.
# TYPE restcache_listener_applied_seq gauge
restcache_listener_applied_seq 7239
# HELP restcache_invalidation_latency_seconds From a change (trigger time) to its keys dropped from both tiers.
# TYPE restcache_invalidation_latency_seconds histogram
restcache_invalidation_latency_seconds_bucket{le="0.0005"} 0
restcache_invalidation_latency_seconds_bucket{le="0.001"} 0
restcache_invalidation_latency_seconds_bucket{le="0.002"} 181
restcache_invalidation_latency_seconds_bucket{le="0.005"} 4009
restcache_invalidation_latency_seconds_bucket{le="0.01"} 6157
restcache_invalidation_latency_seconds_bucket{le="0.025"} 6707
restcache_invalidation_latency_seconds_bucket{le="0.05"} 6962
restcache_invalidation_latency_seconds_bucket{le="0.1"} 7222
restcache_invalidation_latency_seconds_bucket{le="0.25"} 7304
restcache_invalidation_latency_seconds_bucket{le="0.5"} 7319
restcache_invalidation_latency_seconds_bucket{le="1"} 7321
restcache_invalidation_latency_seconds_bucket{le="2.5"} 7321
restcache_invalidation_latency_seconds_bucket{le="5"} 7321
restcache_invalidation_latency_seconds_bucket{le="10"} 7321
restcache_invalidation_latency_seconds_bucket{le="+Inf"} 7321
restcache_invalidation_latency_seconds_sum 82.0435
restcache_invalidation_latency_seconds_count 7321
# HELP restcache_serving_stale_since_seconds Unix time of the first stale-if-error answer since the listener was last caught up; 0: none.
# TYPE restcache_serving_stale_since_seconds gauge
restcache_serving_stale_since_seconds 0
# HELP restcache_http_requests_total HTTP requests answered, by route and status (HEAD counts as GET).
# TYPE restcache_http_requests_total counter
restcache_http_requests_total{method="GET",route="/deptemps/{id}",status="200"} 964583
restcache_http_requests_total{method="GET",route="/deptemps/{id}",status="404"} 3175
restcache_http_requests_total{method="GET",route="/deptemps/{id}",status="503"} 36
restcache_http_requests_total{method="GET",route="/depts/{id}",status="200"} 396
restcache_http_requests_total{method="GET",route="/depts/emps/{id}",status="200"} 1403
restcache_http_requests_total{method="GET",route="/depts/emps/{id}",status="404"} 1048
restcache_http_requests_total{method="GET",route="/depts/emps/{id}",status="503"} 1
restcache_http_requests_total{method="POST",route="/depts",status="201"} 3
restcache_http_requests_total{method="PUT",route="/depts/{id}",status="204"} 397
restcache_http_requests_total{method="PUT",route="/depts/{id}",status="503"} 1
restcache_http_requests_total{method="GET",route="/health",status="200"} 428
restcache_http_requests_total{method="GET",route="/ready",status="200"} 431
restcache_http_requests_total{method="GET",route="/ready",status="503"} 4
restcache_http_requests_total{method="GET",route="/metrics",status="200"} 1065
# HELP restcache_http_request_duration_seconds From a request read to its response handed to the socket, by route.
# TYPE restcache_http_request_duration_seconds histogram
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="5e-05"} 678453
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.0001"} 733562
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.00025"} 761549
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.0005"} 809590
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.001"} 868959
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.0025"} 925593
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.005"} 949405
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.01"} 960721
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.025"} 964916
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.05"} 966522
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.1"} 966960
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.25"} 967771
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.5"} 967794
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="1"} 967794
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="2.5"} 967794
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="10"} 967794
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="+Inf"} 967794
restcache_http_request_duration_seconds_sum{method="GET",route="/deptemps/{id}"} 572.653
restcache_http_request_duration_seconds_count{method="GET",route="/deptemps/{id}"} 967794
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
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/{id}",le="0.25"} 395
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/{id}",le="0.5"} 396
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/{id}",le="1"} 396
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/{id}",le="2.5"} 396
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/{id}",le="10"} 396
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/{id}",le="+Inf"} 396
restcache_http_request_duration_seconds_sum{method="GET",route="/depts/{id}"} 41.7001
restcache_http_request_duration_seconds_count{method="GET",route="/depts/{id}"} 396
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="5e-05"} 278
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.0001"} 304
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.00025"} 452
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.0005"} 786
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.001"} 1164
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.0025"} 1537
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.005"} 1693
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.01"} 1761
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.025"} 1802
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.05"} 1832
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.1"} 1891
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.25"} 2451
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.5"} 2452
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="1"} 2452
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="2.5"} 2452
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="10"} 2452
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="+Inf"} 2452
restcache_http_request_duration_seconds_sum{method="GET",route="/depts/emps/{id}"} 67.2794
restcache_http_request_duration_seconds_count{method="GET",route="/depts/emps/{id}"} 2452
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
restcache_http_request_duration_seconds_bucket{method="PUT",route="/depts/{id}",le="0.0025"} 26
restcache_http_request_duration_seconds_bucket{method="PUT",route="/depts/{id}",le="0.005"} 224
restcache_http_request_duration_seconds_bucket{method="PUT",route="/depts/{id}",le="0.01"} 344
restcache_http_request_duration_seconds_bucket{method="PUT",route="/depts/{id}",le="0.025"} 376
restcache_http_request_duration_seconds_bucket{method="PUT",route="/depts/{id}",le="0.05"} 384
restcache_http_request_duration_seconds_bucket{method="PUT",route="/depts/{id}",le="0.1"} 391
restcache_http_request_duration_seconds_bucket{method="PUT",route="/depts/{id}",le="0.25"} 397
restcache_http_request_duration_seconds_bucket{method="PUT",route="/depts/{id}",le="0.5"} 398
restcache_http_request_duration_seconds_bucket{method="PUT",route="/depts/{id}",le="1"} 398
restcache_http_request_duration_seconds_bucket{method="PUT",route="/depts/{id}",le="2.5"} 398
restcache_http_request_duration_seconds_bucket{method="PUT",route="/depts/{id}",le="10"} 398
restcache_http_request_duration_seconds_bucket{method="PUT",route="/depts/{id}",le="+Inf"} 398
restcache_http_request_duration_seconds_sum{method="PUT",route="/depts/{id}"} 4.11576
restcache_http_request_duration_seconds_count{method="PUT",route="/depts/{id}"} 398
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="5e-05"} 427
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="0.0001"} 428
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="0.00025"} 428
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="0.0005"} 428
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="0.001"} 428
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="0.0025"} 428
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="0.005"} 428
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="0.01"} 428
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="0.025"} 428
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="0.05"} 428
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="0.1"} 428
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="0.25"} 428
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="0.5"} 428
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="1"} 428
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="2.5"} 428
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="10"} 428
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="+Inf"} 428
restcache_http_request_duration_seconds_sum{method="GET",route="/health"} 0.001946
restcache_http_request_duration_seconds_count{method="GET",route="/health"} 428
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="5e-05"} 430
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="0.0001"} 434
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="0.00025"} 435
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="0.0005"} 435
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="0.001"} 435
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="0.0025"} 435
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="0.005"} 435
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="0.01"} 435
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="0.025"} 435
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="0.05"} 435
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="0.1"} 435
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="0.25"} 435
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="0.5"} 435
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="1"} 435
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="2.5"} 435
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="10"} 435
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="+Inf"} 435
restcache_http_request_duration_seconds_sum{method="GET",route="/ready"} 0.005049
restcache_http_request_duration_seconds_count{method="GET",route="/ready"} 435
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="5e-05"} 0
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="0.0001"} 0
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="0.00025"} 0
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="0.0005"} 909
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="0.001"} 1008
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="0.0025"} 1047
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="0.005"} 1060
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="0.01"} 1064
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="0.025"} 1065
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="0.05"} 1065
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="0.1"} 1065
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="0.25"} 1065
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="0.5"} 1065
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="1"} 1065
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="2.5"} 1065
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="10"} 1065
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="+Inf"} 1065
restcache_http_request_duration_seconds_sum{method="GET",route="/metrics"} 0.525946
restcache_http_request_duration_seconds_count{method="GET",route="/metrics"} 1065
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
restcache_http_connections_accepted_total 2045
# HELP restcache_http_connections_rejected_total Connections over max_connections, answered 503.
# TYPE restcache_http_connections_rejected_total counter
restcache_http_connections_rejected_total 0
# HELP restcache_http_connections_open Connections currently open.
# TYPE restcache_http_connections_open gauge
restcache_http_connections_open 19
# HELP restcache_db_queries_total Statements (jobs) run on pooled connections.
# TYPE restcache_db_queries_total counter
restcache_db_queries_total{pool="fill"} 1778
restcache_db_queries_total{pool="write"} 401
restcache_db_queries_total{pool="replica-0"} 222816
# HELP restcache_db_query_errors_total Statements that failed.
# TYPE restcache_db_query_errors_total counter
restcache_db_query_errors_total{pool="fill"} 0
restcache_db_query_errors_total{pool="write"} 1
restcache_db_query_errors_total{pool="replica-0"} 0
# HELP restcache_db_query_timeouts_total Statements cancelled by the query timeout.
# TYPE restcache_db_query_timeouts_total counter
restcache_db_query_timeouts_total{pool="fill"} 0
restcache_db_query_timeouts_total{pool="write"} 0
restcache_db_query_timeouts_total{pool="replica-0"} 0
# HELP restcache_db_connects_total Successful (re)connections.
# TYPE restcache_db_connects_total counter
restcache_db_connects_total{pool="fill"} 16
restcache_db_connects_total{pool="write"} 3
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
restcache_db_query_duration_seconds_bucket{pool="fill",le="0.0005"} 1186
restcache_db_query_duration_seconds_bucket{pool="fill",le="0.001"} 1411
restcache_db_query_duration_seconds_bucket{pool="fill",le="0.002"} 1542
restcache_db_query_duration_seconds_bucket{pool="fill",le="0.005"} 1638
restcache_db_query_duration_seconds_bucket{pool="fill",le="0.01"} 1680
restcache_db_query_duration_seconds_bucket{pool="fill",le="0.025"} 1737
restcache_db_query_duration_seconds_bucket{pool="fill",le="0.05"} 1766
restcache_db_query_duration_seconds_bucket{pool="fill",le="0.1"} 1777
restcache_db_query_duration_seconds_bucket{pool="fill",le="0.25"} 1778
restcache_db_query_duration_seconds_bucket{pool="fill",le="0.5"} 1778
restcache_db_query_duration_seconds_bucket{pool="fill",le="1"} 1778
restcache_db_query_duration_seconds_bucket{pool="fill",le="2.5"} 1778
restcache_db_query_duration_seconds_bucket{pool="fill",le="5"} 1778
restcache_db_query_duration_seconds_bucket{pool="fill",le="10"} 1778
restcache_db_query_duration_seconds_bucket{pool="fill",le="+Inf"} 1778
restcache_db_query_duration_seconds_sum{pool="fill"} 4.06353
restcache_db_query_duration_seconds_count{pool="fill"} 1778
restcache_db_query_duration_seconds_bucket{pool="write",le="0.0005"} 1
restcache_db_query_duration_seconds_bucket{pool="write",le="0.001"} 1
restcache_db_query_duration_seconds_bucket{pool="write",le="0.002"} 28
restcache_db_query_duration_seconds_bucket{pool="write",le="0.005"} 311
restcache_db_query_duration_seconds_bucket{pool="write",le="0.01"} 364
restcache_db_query_duration_seconds_bucket{pool="write",le="0.025"} 381
restcache_db_query_duration_seconds_bucket{pool="write",le="0.05"} 388
restcache_db_query_duration_seconds_bucket{pool="write",le="0.1"} 394
restcache_db_query_duration_seconds_bucket{pool="write",le="0.25"} 400
restcache_db_query_duration_seconds_bucket{pool="write",le="0.5"} 401
restcache_db_query_duration_seconds_bucket{pool="write",le="1"} 401
restcache_db_query_duration_seconds_bucket{pool="write",le="2.5"} 401
restcache_db_query_duration_seconds_bucket{pool="write",le="5"} 401
restcache_db_query_duration_seconds_bucket{pool="write",le="10"} 401
restcache_db_query_duration_seconds_bucket{pool="write",le="+Inf"} 401
restcache_db_query_duration_seconds_sum{pool="write"} 3.52385
restcache_db_query_duration_seconds_count{pool="write"} 401
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="0.0005"} 344084
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="0.001"} 392487
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="0.002"} 416237
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="0.005"} 434408
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="0.01"} 439989
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="0.025"} 444186
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="0.05"} 445284
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="0.1"} 445536
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="0.25"} 445616
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="0.5"} 445632
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="1"} 445632
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="2.5"} 445632
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="5"} 445632
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="10"} 445632
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="+Inf"} 445632
restcache_db_query_duration_seconds_sum{pool="replica-0"} 362.436
restcache_db_query_duration_seconds_count{pool="replica-0"} 445632
# HELP restcache_replica_up 1 while the standby answers its monitor.
# TYPE restcache_replica_up gauge
restcache_replica_up{replica="0"} 1
# HELP restcache_replica_usable 1 while fills read from the standby (up, within db.replica-max-lag-ms).
# TYPE restcache_replica_usable gauge
restcache_replica_usable{replica="0"} 1
# HELP restcache_replica_lag_seconds Time since the standby's last replayed commit while received WAL waits to be replayed; 0 when none waits.
# TYPE restcache_replica_lag_seconds gauge
restcache_replica_lag_seconds{replica="0"} 2.001
# HELP restcache_replica_replay_lsn The WAL position the standby has replayed, as a number.
# TYPE restcache_replica_replay_lsn gauge
restcache_replica_replay_lsn{replica="0"} 191516240
# HELP restcache_replica_fills_total Document reads sent to a standby (retries included).
# TYPE restcache_replica_fills_total counter
restcache_replica_fills_total 222816
# HELP restcache_replica_fills_behind_total Standby answers read before the standby had replayed the key's last change: not used.
# TYPE restcache_replica_fills_behind_total counter
restcache_replica_fills_behind_total 16475
# HELP restcache_replica_fills_to_primary_total Fills that gave up on the standbys (behind past db.replica-wait-ms, or unreachable) and read db.dsn.
# TYPE restcache_replica_fills_to_primary_total counter
restcache_replica_fills_to_primary_total 1645
# HELP restcache_replica_keys_waiting Keys whose last change some standby may not have replayed yet.
# TYPE restcache_replica_keys_waiting gauge
restcache_replica_keys_waiting 67
# HELP restcache_actor_mailbox_messages Messages waiting in a long-lived actor's mailbox, as the actor last reported (about every second).
# TYPE restcache_actor_mailbox_messages gauge
restcache_actor_mailbox_messages{actor="shard-0"} 2
restcache_actor_mailbox_messages{actor="shard-1"} 0
restcache_actor_mailbox_messages{actor="db-pool"} 0
restcache_actor_mailbox_messages{actor="db-write-pool"} 0
restcache_actor_mailbox_messages{actor="db-replica-0"} 0
restcache_actor_mailbox_messages{actor="notify-listener"} 0
# HELP process_cpu_seconds_total User and system CPU time spent.
# TYPE process_cpu_seconds_total counter
process_cpu_seconds_total 58.01
# HELP process_start_time_seconds Start time since the epoch.
# TYPE process_start_time_seconds gauge
process_start_time_seconds 1.79623e+09
# HELP process_resident_memory_bytes Resident memory size.
# TYPE process_resident_memory_bytes gauge
process_resident_memory_bytes 39034880
# HELP process_open_fds Open file descriptors.
# TYPE process_open_fds gauge
process_open_fds 55
# HELP process_max_fds The open-file limit (soft).
# TYPE process_max_fds gauge
process_max_fds 20000
