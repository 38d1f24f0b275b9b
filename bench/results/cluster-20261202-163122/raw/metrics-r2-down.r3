# HELP restcache_cache_hits_total Lookups answered from a tier, by shard and tier.
# TYPE restcache_cache_hits_total counter
restcache_cache_hits_total{shard="0",tier="memory"} 209484
restcache_cache_hits_total{shard="0",tier="lmdb"} 0
restcache_cache_hits_total{shard="1",tier="memory"} 209771
restcache_cache_hits_total{shard="1",tier="lmdb"} 0
# HELP restcache_cache_answers_total Lookups answered, by the Cache-Status they carried (README: Cache-Status).
# TYPE restcache_cache_answers_total counter
restcache_cache_answers_total{cache_status="memory"} 419255
restcache_cache_answers_total{cache_status="lmdb"} 0
restcache_cache_answers_total{cache_status="stored"} 134002
restcache_cache_answers_total{cache_status="miss"} 0
restcache_cache_answers_total{cache_status="collapsed"} 44
restcache_cache_answers_total{cache_status="refresh"} 0
restcache_cache_answers_total{cache_status="refresh_unkept"} 0
restcache_cache_answers_total{cache_status="bypass"} 0
restcache_cache_answers_total{cache_status="stale_if_error"} 0
restcache_cache_answers_total{cache_status="negative"} 1291
# HELP restcache_cache_negative_entries Ids remembered as missing (in the memory budget).
# TYPE restcache_cache_negative_entries gauge
restcache_cache_negative_entries{shard="0"} 55
restcache_cache_negative_entries{shard="1"} 73
# HELP restcache_cache_memory_misses_total Lookups not found in memory (then answered from LMDB or by a fill).
# TYPE restcache_cache_memory_misses_total counter
restcache_cache_memory_misses_total{shard="0"} 66667
restcache_cache_memory_misses_total{shard="1"} 68672
# HELP restcache_cache_coalesced_total Misses that joined a fill already in flight.
# TYPE restcache_cache_coalesced_total counter
restcache_cache_coalesced_total{shard="0"} 24
restcache_cache_coalesced_total{shard="1"} 20
# HELP restcache_cache_fills_total Fills started (one database query each).
# TYPE restcache_cache_fills_total counter
restcache_cache_fills_total{shard="0"} 66148
restcache_cache_fills_total{shard="1"} 67856
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
restcache_cache_evictions_total{shard="0"} 61003
restcache_cache_evictions_total{shard="1"} 62432
# HELP restcache_cache_invalidations_total Invalidations applied.
# TYPE restcache_cache_invalidations_total counter
restcache_cache_invalidations_total{shard="0"} 2043
restcache_cache_invalidations_total{shard="1"} 2547
# HELP restcache_cache_populated_total Entries stored by cache.populate.
# TYPE restcache_cache_populated_total counter
restcache_cache_populated_total{shard="0"} 0
restcache_cache_populated_total{shard="1"} 0
# HELP restcache_cache_entries Documents held in memory.
# TYPE restcache_cache_entries gauge
restcache_cache_entries{shard="0"} 4429
restcache_cache_entries{shard="1"} 4430
# HELP restcache_cache_bytes Bytes charged against the memory budget.
# TYPE restcache_cache_bytes gauge
restcache_cache_bytes{shard="0"} 7118727
restcache_cache_bytes{shard="1"} 7119560
# HELP restcache_dept_ids Department ids /depts/random picks from.
# TYPE restcache_dept_ids gauge
restcache_dept_ids 30011
# HELP restcache_listener_notifications_total Change notifications received.
# TYPE restcache_listener_notifications_total counter
restcache_listener_notifications_total 4088
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
restcache_listener_invalidations_total 4136
# HELP restcache_listener_already_applied_total Notifications of changes this instance's own writes had applied already.
# TYPE restcache_listener_already_applied_total counter
restcache_listener_already_applied_total 226
# HELP restcache_listener_pruned_total Change-log entries pruned by retention.
# TYPE restcache_listener_pruned_total counter
restcache_listener_pruned_total 0
# HELP restcache_changelog_bytes The change log's table and indexes, as last measured (each minute); -1: not yet.
# TYPE restcache_changelog_bytes gauge
restcache_changelog_bytes 499712
# HELP restcache_changelog_oldest_entry_age_seconds Age of the change log's oldest entry, as last measured; -1: not yet.
# TYPE restcache_changelog_oldest_entry_age_seconds gauge
restcache_changelog_oldest_entry_age_seconds 239
# HELP restcache_listener_watermark_xid Replay watermark: every change of a transaction below it is applied.
# TYPE restcache_listener_watermark_xid gauge
restcache_listener_watermark_xid 16302
# HELP restcache_listener_applied_seq Highest change sequence applied.
# TYPE restcache_listener_applied_seq gauge
restcache_listener_applied_seq 4088
# HELP restcache_invalidation_latency_seconds From a change (trigger time) to its keys dropped from both tiers.
# TYPE restcache_invalidation_latency_seconds histogram
restcache_invalidation_latency_seconds_bucket{le="0.0005"} 0
restcache_invalidation_latency_seconds_bucket{le="0.001"} 0
restcache_invalidation_latency_seconds_bucket{le="0.002"} 29
restcache_invalidation_latency_seconds_bucket{le="0.005"} 2198
restcache_invalidation_latency_seconds_bucket{le="0.01"} 3493
restcache_invalidation_latency_seconds_bucket{le="0.025"} 3797
restcache_invalidation_latency_seconds_bucket{le="0.05"} 3934
restcache_invalidation_latency_seconds_bucket{le="0.1"} 4073
restcache_invalidation_latency_seconds_bucket{le="0.25"} 4124
restcache_invalidation_latency_seconds_bucket{le="0.5"} 4134
restcache_invalidation_latency_seconds_bucket{le="1"} 4136
restcache_invalidation_latency_seconds_bucket{le="2.5"} 4136
restcache_invalidation_latency_seconds_bucket{le="5"} 4136
restcache_invalidation_latency_seconds_bucket{le="10"} 4136
restcache_invalidation_latency_seconds_bucket{le="+Inf"} 4136
restcache_invalidation_latency_seconds_sum 47.5064
restcache_invalidation_latency_seconds_count 4136
# HELP restcache_serving_stale_since_seconds Unix time of the first stale-if-error answer since the listener was last caught up; 0: none.
# TYPE restcache_serving_stale_since_seconds gauge
restcache_serving_stale_since_seconds 0
# HELP restcache_http_requests_total HTTP requests answered, by route and status (HEAD counts as GET).
# TYPE restcache_http_requests_total counter
restcache_http_requests_total{method="GET",route="/deptemps/{id}",status="200"} 551671
restcache_http_requests_total{method="GET",route="/deptemps/{id}",status="404"} 1263
restcache_http_requests_total{method="GET",route="/depts/{id}",status="200"} 223
restcache_http_requests_total{method="GET",route="/depts/emps/{id}",status="200"} 811
restcache_http_requests_total{method="GET",route="/depts/emps/{id}",status="404"} 624
restcache_http_requests_total{method="POST",route="/depts",status="201"} 3
restcache_http_requests_total{method="PUT",route="/depts/{id}",status="204"} 224
restcache_http_requests_total{method="GET",route="/health",status="200"} 242
restcache_http_requests_total{method="GET",route="/ready",status="200"} 243
restcache_http_requests_total{method="GET",route="/ready",status="503"} 1
restcache_http_requests_total{method="GET",route="/metrics",status="200"} 599
# HELP restcache_http_request_duration_seconds From a request read to its response handed to the socket, by route.
# TYPE restcache_http_request_duration_seconds histogram
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="5e-05"} 371318
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.0001"} 403282
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.00025"} 420131
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.0005"} 450033
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.001"} 488472
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.0025"} 525867
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.005"} 541237
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.01"} 548755
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.025"} 551294
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.05"} 552216
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.1"} 552472
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.25"} 552920
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.5"} 552934
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="1"} 552934
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="2.5"} 552934
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="10"} 552934
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="+Inf"} 552934
restcache_http_request_duration_seconds_sum{method="GET",route="/deptemps/{id}"} 353.807
restcache_http_request_duration_seconds_count{method="GET",route="/deptemps/{id}"} 552934
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
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/{id}",le="0.25"} 222
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/{id}",le="0.5"} 223
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/{id}",le="1"} 223
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/{id}",le="2.5"} 223
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/{id}",le="10"} 223
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/{id}",le="+Inf"} 223
restcache_http_request_duration_seconds_sum{method="GET",route="/depts/{id}"} 23.6622
restcache_http_request_duration_seconds_count{method="GET",route="/depts/{id}"} 223
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="5e-05"} 173
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.0001"} 190
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.00025"} 270
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.0005"} 452
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.001"} 675
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.0025"} 889
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.005"} 982
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.01"} 1029
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.025"} 1052
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.05"} 1073
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.1"} 1105
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.25"} 1434
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.5"} 1435
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="1"} 1435
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="2.5"} 1435
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="10"} 1435
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="+Inf"} 1435
restcache_http_request_duration_seconds_sum{method="GET",route="/depts/emps/{id}"} 39.7121
restcache_http_request_duration_seconds_count{method="GET",route="/depts/emps/{id}"} 1435
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
restcache_http_request_duration_seconds_bucket{method="PUT",route="/depts/{id}",le="0.0025"} 13
restcache_http_request_duration_seconds_bucket{method="PUT",route="/depts/{id}",le="0.005"} 118
restcache_http_request_duration_seconds_bucket{method="PUT",route="/depts/{id}",le="0.01"} 192
restcache_http_request_duration_seconds_bucket{method="PUT",route="/depts/{id}",le="0.025"} 208
restcache_http_request_duration_seconds_bucket{method="PUT",route="/depts/{id}",le="0.05"} 213
restcache_http_request_duration_seconds_bucket{method="PUT",route="/depts/{id}",le="0.1"} 218
restcache_http_request_duration_seconds_bucket{method="PUT",route="/depts/{id}",le="0.25"} 223
restcache_http_request_duration_seconds_bucket{method="PUT",route="/depts/{id}",le="0.5"} 224
restcache_http_request_duration_seconds_bucket{method="PUT",route="/depts/{id}",le="1"} 224
restcache_http_request_duration_seconds_bucket{method="PUT",route="/depts/{id}",le="2.5"} 224
restcache_http_request_duration_seconds_bucket{method="PUT",route="/depts/{id}",le="10"} 224
restcache_http_request_duration_seconds_bucket{method="PUT",route="/depts/{id}",le="+Inf"} 224
restcache_http_request_duration_seconds_sum{method="PUT",route="/depts/{id}"} 2.7376
restcache_http_request_duration_seconds_count{method="PUT",route="/depts/{id}"} 224
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="5e-05"} 241
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="0.0001"} 242
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="0.00025"} 242
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="0.0005"} 242
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="0.001"} 242
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="0.0025"} 242
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="0.005"} 242
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="0.01"} 242
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="0.025"} 242
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="0.05"} 242
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="0.1"} 242
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="0.25"} 242
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="0.5"} 242
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="1"} 242
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="2.5"} 242
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="10"} 242
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="+Inf"} 242
restcache_http_request_duration_seconds_sum{method="GET",route="/health"} 0.001109
restcache_http_request_duration_seconds_count{method="GET",route="/health"} 242
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="5e-05"} 241
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="0.0001"} 243
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="0.00025"} 244
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="0.0005"} 244
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="0.001"} 244
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="0.0025"} 244
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="0.005"} 244
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="0.01"} 244
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="0.025"} 244
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="0.05"} 244
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="0.1"} 244
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="0.25"} 244
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="0.5"} 244
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="1"} 244
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="2.5"} 244
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="10"} 244
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="+Inf"} 244
restcache_http_request_duration_seconds_sum{method="GET",route="/ready"} 0.002956
restcache_http_request_duration_seconds_count{method="GET",route="/ready"} 244
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="5e-05"} 0
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="0.0001"} 0
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="0.00025"} 0
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="0.0005"} 498
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="0.001"} 562
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="0.0025"} 588
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="0.005"} 597
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="0.01"} 599
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="0.025"} 599
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="0.05"} 599
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="0.1"} 599
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="0.25"} 599
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="0.5"} 599
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="1"} 599
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="2.5"} 599
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="10"} 599
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="+Inf"} 599
restcache_http_request_duration_seconds_sum{method="GET",route="/metrics"} 0.301314
restcache_http_request_duration_seconds_count{method="GET",route="/metrics"} 599
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
restcache_http_connections_accepted_total 1153
# HELP restcache_http_connections_rejected_total Connections over max_connections, answered 503.
# TYPE restcache_http_connections_rejected_total counter
restcache_http_connections_rejected_total 0
# HELP restcache_http_connections_open Connections currently open.
# TYPE restcache_http_connections_open gauge
restcache_http_connections_open 18
# HELP restcache_db_queries_total Statements (jobs) run on pooled connections.
# TYPE restcache_db_queries_total counter
restcache_db_queries_total{pool="fill"} 937
restcache_db_queries_total{pool="write"} 227
restcache_db_queries_total{pool="replica-0"} 142366
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
restcache_db_query_duration_seconds_bucket{pool="fill",le="0.0005"} 668
restcache_db_query_duration_seconds_bucket{pool="fill",le="0.001"} 788
restcache_db_query_duration_seconds_bucket{pool="fill",le="0.002"} 835
restcache_db_query_duration_seconds_bucket{pool="fill",le="0.005"} 869
restcache_db_query_duration_seconds_bucket{pool="fill",le="0.01"} 888
restcache_db_query_duration_seconds_bucket{pool="fill",le="0.025"} 918
restcache_db_query_duration_seconds_bucket{pool="fill",le="0.05"} 932
restcache_db_query_duration_seconds_bucket{pool="fill",le="0.1"} 936
restcache_db_query_duration_seconds_bucket{pool="fill",le="0.25"} 937
restcache_db_query_duration_seconds_bucket{pool="fill",le="0.5"} 937
restcache_db_query_duration_seconds_bucket{pool="fill",le="1"} 937
restcache_db_query_duration_seconds_bucket{pool="fill",le="2.5"} 937
restcache_db_query_duration_seconds_bucket{pool="fill",le="5"} 937
restcache_db_query_duration_seconds_bucket{pool="fill",le="10"} 937
restcache_db_query_duration_seconds_bucket{pool="fill",le="+Inf"} 937
restcache_db_query_duration_seconds_sum{pool="fill"} 1.98785
restcache_db_query_duration_seconds_count{pool="fill"} 937
restcache_db_query_duration_seconds_bucket{pool="write",le="0.0005"} 0
restcache_db_query_duration_seconds_bucket{pool="write",le="0.001"} 0
restcache_db_query_duration_seconds_bucket{pool="write",le="0.002"} 7
restcache_db_query_duration_seconds_bucket{pool="write",le="0.005"} 169
restcache_db_query_duration_seconds_bucket{pool="write",le="0.01"} 204
restcache_db_query_duration_seconds_bucket{pool="write",le="0.025"} 213
restcache_db_query_duration_seconds_bucket{pool="write",le="0.05"} 217
restcache_db_query_duration_seconds_bucket{pool="write",le="0.1"} 221
restcache_db_query_duration_seconds_bucket{pool="write",le="0.25"} 226
restcache_db_query_duration_seconds_bucket{pool="write",le="0.5"} 227
restcache_db_query_duration_seconds_bucket{pool="write",le="1"} 227
restcache_db_query_duration_seconds_bucket{pool="write",le="2.5"} 227
restcache_db_query_duration_seconds_bucket{pool="write",le="5"} 227
restcache_db_query_duration_seconds_bucket{pool="write",le="10"} 227
restcache_db_query_duration_seconds_bucket{pool="write",le="+Inf"} 227
restcache_db_query_duration_seconds_sum{pool="write"} 2.44577
restcache_db_query_duration_seconds_count{pool="write"} 227
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="0.0005"} 218759
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="0.001"} 250660
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="0.002"} 266098
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="0.005"} 277868
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="0.01"} 281426
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="0.025"} 283878
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="0.05"} 284526
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="0.1"} 284663
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="0.25"} 284724
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="0.5"} 284732
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="1"} 284732
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="2.5"} 284732
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="5"} 284732
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="10"} 284732
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="+Inf"} 284732
restcache_db_query_duration_seconds_sum{pool="replica-0"} 227.449
restcache_db_query_duration_seconds_count{pool="replica-0"} 284732
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
restcache_replica_replay_lsn{replica="0"} 182577440
# HELP restcache_replica_fills_total Document reads sent to a standby (retries included).
# TYPE restcache_replica_fills_total counter
restcache_replica_fills_total 142366
# HELP restcache_replica_fills_behind_total Standby answers read before the standby had replayed the key's last change: not used.
# TYPE restcache_replica_fills_behind_total counter
restcache_replica_fills_behind_total 9292
# HELP restcache_replica_fills_to_primary_total Fills that gave up on the standbys (behind past db.replica-wait-ms, or unreachable) and read db.dsn.
# TYPE restcache_replica_fills_to_primary_total counter
restcache_replica_fills_to_primary_total 928
# HELP restcache_replica_keys_waiting Keys whose last change some standby may not have replayed yet.
# TYPE restcache_replica_keys_waiting gauge
restcache_replica_keys_waiting 60
# HELP restcache_actor_mailbox_messages Messages waiting in a long-lived actor's mailbox, as the actor last reported (about every second).
# TYPE restcache_actor_mailbox_messages gauge
restcache_actor_mailbox_messages{actor="shard-0"} 1
restcache_actor_mailbox_messages{actor="shard-1"} 0
restcache_actor_mailbox_messages{actor="db-pool"} 0
restcache_actor_mailbox_messages{actor="db-write-pool"} 0
restcache_actor_mailbox_messages{actor="db-replica-0"} 0
restcache_actor_mailbox_messages{actor="notify-listener"} 0
# HELP process_cpu_seconds_total User and system CPU time spent.
# TYPE process_cpu_seconds_total counter
process_cpu_seconds_total 33.87
# HELP process_start_time_seconds Start time since the epoch.
# TYPE process_start_time_seconds gauge
process_start_time_seconds 1.79623e+09
# HELP process_resident_memory_bytes Resident memory size.
# TYPE process_resident_memory_bytes gauge
process_resident_memory_bytes 38383616
# HELP process_open_fds Open file descriptors.
# TYPE process_open_fds gauge
process_open_fds 54
# HELP process_max_fds The open-file limit (soft).
# TYPE process_max_fds gauge
process_max_fds 20000
