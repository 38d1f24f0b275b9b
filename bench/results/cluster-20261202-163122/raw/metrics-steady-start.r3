# HELP restcache_cache_hits_total Lookups answered from a tier, by shard and tier.
# TYPE restcache_cache_hits_total counter
restcache_cache_hits_total{shard="0",tier="memory"} 45977
restcache_cache_hits_total{shard="0",tier="lmdb"} 0
restcache_cache_hits_total{shard="1",tier="memory"} 46134
restcache_cache_hits_total{shard="1",tier="lmdb"} 0
# HELP restcache_cache_answers_total Lookups answered, by the Cache-Status they carried (README: Cache-Status).
# TYPE restcache_cache_answers_total counter
restcache_cache_answers_total{cache_status="memory"} 92111
restcache_cache_answers_total{cache_status="lmdb"} 0
restcache_cache_answers_total{cache_status="stored"} 24366
restcache_cache_answers_total{cache_status="miss"} 0
restcache_cache_answers_total{cache_status="collapsed"} 8
restcache_cache_answers_total{cache_status="refresh"} 0
restcache_cache_answers_total{cache_status="refresh_unkept"} 0
restcache_cache_answers_total{cache_status="bypass"} 0
restcache_cache_answers_total{cache_status="stale_if_error"} 0
restcache_cache_answers_total{cache_status="negative"} 140
# HELP restcache_cache_negative_entries Ids remembered as missing (in the memory budget).
# TYPE restcache_cache_negative_entries gauge
restcache_cache_negative_entries{shard="0"} 49
restcache_cache_negative_entries{shard="1"} 55
# HELP restcache_cache_memory_misses_total Lookups not found in memory (then answered from LMDB or by a fill).
# TYPE restcache_cache_memory_misses_total counter
restcache_cache_memory_misses_total{shard="0"} 12145
restcache_cache_memory_misses_total{shard="1"} 12370
# HELP restcache_cache_coalesced_total Misses that joined a fill already in flight.
# TYPE restcache_cache_coalesced_total counter
restcache_cache_coalesced_total{shard="0"} 5
restcache_cache_coalesced_total{shard="1"} 3
# HELP restcache_cache_fills_total Fills started (one database query each).
# TYPE restcache_cache_fills_total counter
restcache_cache_fills_total{shard="0"} 12081
restcache_cache_fills_total{shard="1"} 12286
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
restcache_cache_evictions_total{shard="0"} 7475
restcache_cache_evictions_total{shard="1"} 7624
# HELP restcache_cache_invalidations_total Invalidations applied.
# TYPE restcache_cache_invalidations_total counter
restcache_cache_invalidations_total{shard="0"} 545
restcache_cache_invalidations_total{shard="1"} 667
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
restcache_cache_bytes{shard="0"} 7119712
restcache_cache_bytes{shard="1"} 7119843
# HELP restcache_dept_ids Department ids /depts/random picks from.
# TYPE restcache_dept_ids gauge
restcache_dept_ids 30000
# HELP restcache_listener_notifications_total Change notifications received.
# TYPE restcache_listener_notifications_total counter
restcache_listener_notifications_total 1082
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
restcache_listener_invalidations_total 1102
# HELP restcache_listener_already_applied_total Notifications of changes this instance's own writes had applied already.
# TYPE restcache_listener_already_applied_total counter
restcache_listener_already_applied_total 46
# HELP restcache_listener_pruned_total Change-log entries pruned by retention.
# TYPE restcache_listener_pruned_total counter
restcache_listener_pruned_total 0
# HELP restcache_changelog_bytes The change log's table and indexes, as last measured (each minute); -1: not yet.
# TYPE restcache_changelog_bytes gauge
restcache_changelog_bytes 204800
# HELP restcache_changelog_oldest_entry_age_seconds Age of the change log's oldest entry, as last measured; -1: not yet.
# TYPE restcache_changelog_oldest_entry_age_seconds gauge
restcache_changelog_oldest_entry_age_seconds 59
# HELP restcache_listener_watermark_xid Replay watermark: every change of a transaction below it is applied.
# TYPE restcache_listener_watermark_xid gauge
restcache_listener_watermark_xid 5885
# HELP restcache_listener_applied_seq Highest change sequence applied.
# TYPE restcache_listener_applied_seq gauge
restcache_listener_applied_seq 1082
# HELP restcache_invalidation_latency_seconds From a change (trigger time) to its keys dropped from both tiers.
# TYPE restcache_invalidation_latency_seconds histogram
restcache_invalidation_latency_seconds_bucket{le="0.0005"} 0
restcache_invalidation_latency_seconds_bucket{le="0.001"} 0
restcache_invalidation_latency_seconds_bucket{le="0.002"} 1
restcache_invalidation_latency_seconds_bucket{le="0.005"} 534
restcache_invalidation_latency_seconds_bucket{le="0.01"} 928
restcache_invalidation_latency_seconds_bucket{le="0.025"} 1002
restcache_invalidation_latency_seconds_bucket{le="0.05"} 1068
restcache_invalidation_latency_seconds_bucket{le="0.1"} 1094
restcache_invalidation_latency_seconds_bucket{le="0.25"} 1100
restcache_invalidation_latency_seconds_bucket{le="0.5"} 1102
restcache_invalidation_latency_seconds_bucket{le="1"} 1102
restcache_invalidation_latency_seconds_bucket{le="2.5"} 1102
restcache_invalidation_latency_seconds_bucket{le="5"} 1102
restcache_invalidation_latency_seconds_bucket{le="10"} 1102
restcache_invalidation_latency_seconds_bucket{le="+Inf"} 1102
restcache_invalidation_latency_seconds_sum 11.1797
restcache_invalidation_latency_seconds_count 1102
# HELP restcache_serving_stale_since_seconds Unix time of the first stale-if-error answer since the listener was last caught up; 0: none.
# TYPE restcache_serving_stale_since_seconds gauge
restcache_serving_stale_since_seconds 0
# HELP restcache_http_requests_total HTTP requests answered, by route and status (HEAD counts as GET).
# TYPE restcache_http_requests_total counter
restcache_http_requests_total{method="GET",route="/deptemps/{id}",status="200"} 116121
restcache_http_requests_total{method="GET",route="/deptemps/{id}",status="404"} 125
restcache_http_requests_total{method="GET",route="/depts/{id}",status="200"} 52
restcache_http_requests_total{method="GET",route="/depts/emps/{id}",status="200"} 178
restcache_http_requests_total{method="GET",route="/depts/emps/{id}",status="404"} 149
restcache_http_requests_total{method="POST",route="/depts",status="201"} 3
restcache_http_requests_total{method="PUT",route="/depts/{id}",status="204"} 52
restcache_http_requests_total{method="GET",route="/health",status="200"} 61
restcache_http_requests_total{method="GET",route="/ready",status="200"} 62
restcache_http_requests_total{method="GET",route="/ready",status="503"} 1
restcache_http_requests_total{method="GET",route="/metrics",status="200"} 140
# HELP restcache_http_request_duration_seconds From a request read to its response handed to the socket, by route.
# TYPE restcache_http_request_duration_seconds histogram
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="5e-05"} 80300
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.0001"} 88448
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.00025"} 91654
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.0005"} 96324
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.001"} 103047
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.0025"} 110196
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.005"} 113524
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.01"} 115135
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.025"} 115801
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.05"} 116012
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.1"} 116062
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.25"} 116238
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.5"} 116246
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="1"} 116246
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="2.5"} 116246
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="10"} 116246
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="+Inf"} 116246
restcache_http_request_duration_seconds_sum{method="GET",route="/deptemps/{id}"} 85.2779
restcache_http_request_duration_seconds_count{method="GET",route="/deptemps/{id}"} 116246
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/{id}",le="5e-05"} 0
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/{id}",le="0.0001"} 0
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/{id}",le="0.00025"} 0
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/{id}",le="0.0005"} 0
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/{id}",le="0.001"} 0
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/{id}",le="0.0025"} 0
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/{id}",le="0.005"} 0
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/{id}",le="0.01"} 0
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/{id}",le="0.025"} 0
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/{id}",le="0.05"} 0
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/{id}",le="0.1"} 0
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/{id}",le="0.25"} 52
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/{id}",le="0.5"} 52
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/{id}",le="1"} 52
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/{id}",le="2.5"} 52
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/{id}",le="10"} 52
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/{id}",le="+Inf"} 52
restcache_http_request_duration_seconds_sum{method="GET",route="/depts/{id}"} 5.57205
restcache_http_request_duration_seconds_count{method="GET",route="/depts/{id}"} 52
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="5e-05"} 34
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.0001"} 40
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.00025"} 59
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.0005"} 97
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.001"} 157
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.0025"} 208
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.005"} 233
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.01"} 242
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.025"} 244
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.05"} 247
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.1"} 250
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.25"} 327
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.5"} 327
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="1"} 327
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="2.5"} 327
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="10"} 327
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="+Inf"} 327
restcache_http_request_duration_seconds_sum{method="GET",route="/depts/emps/{id}"} 8.89169
restcache_http_request_duration_seconds_count{method="GET",route="/depts/emps/{id}"} 327
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
restcache_http_request_duration_seconds_bucket{method="PUT",route="/depts/{id}",le="0.0025"} 1
restcache_http_request_duration_seconds_bucket{method="PUT",route="/depts/{id}",le="0.005"} 20
restcache_http_request_duration_seconds_bucket{method="PUT",route="/depts/{id}",le="0.01"} 41
restcache_http_request_duration_seconds_bucket{method="PUT",route="/depts/{id}",le="0.025"} 46
restcache_http_request_duration_seconds_bucket{method="PUT",route="/depts/{id}",le="0.05"} 48
restcache_http_request_duration_seconds_bucket{method="PUT",route="/depts/{id}",le="0.1"} 50
restcache_http_request_duration_seconds_bucket{method="PUT",route="/depts/{id}",le="0.25"} 51
restcache_http_request_duration_seconds_bucket{method="PUT",route="/depts/{id}",le="0.5"} 52
restcache_http_request_duration_seconds_bucket{method="PUT",route="/depts/{id}",le="1"} 52
restcache_http_request_duration_seconds_bucket{method="PUT",route="/depts/{id}",le="2.5"} 52
restcache_http_request_duration_seconds_bucket{method="PUT",route="/depts/{id}",le="10"} 52
restcache_http_request_duration_seconds_bucket{method="PUT",route="/depts/{id}",le="+Inf"} 52
restcache_http_request_duration_seconds_sum{method="PUT",route="/depts/{id}"} 0.955664
restcache_http_request_duration_seconds_count{method="PUT",route="/depts/{id}"} 52
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="5e-05"} 61
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="0.0001"} 61
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="0.00025"} 61
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="0.0005"} 61
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="0.001"} 61
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="0.0025"} 61
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="0.005"} 61
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="0.01"} 61
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="0.025"} 61
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="0.05"} 61
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="0.1"} 61
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="0.25"} 61
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="0.5"} 61
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="1"} 61
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="2.5"} 61
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="10"} 61
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="+Inf"} 61
restcache_http_request_duration_seconds_sum{method="GET",route="/health"} 0.000305
restcache_http_request_duration_seconds_count{method="GET",route="/health"} 61
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="5e-05"} 61
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="0.0001"} 62
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="0.00025"} 63
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="0.0005"} 63
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="0.001"} 63
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="0.0025"} 63
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="0.005"} 63
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="0.01"} 63
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="0.025"} 63
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="0.05"} 63
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="0.1"} 63
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="0.25"} 63
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="0.5"} 63
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="1"} 63
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="2.5"} 63
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="10"} 63
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="+Inf"} 63
restcache_http_request_duration_seconds_sum{method="GET",route="/ready"} 0.000995
restcache_http_request_duration_seconds_count{method="GET",route="/ready"} 63
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="5e-05"} 0
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="0.0001"} 0
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="0.00025"} 0
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="0.0005"} 118
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="0.001"} 133
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="0.0025"} 139
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="0.005"} 140
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="0.01"} 140
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="0.025"} 140
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="0.05"} 140
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="0.1"} 140
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="0.25"} 140
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="0.5"} 140
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="1"} 140
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="2.5"} 140
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="10"} 140
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="+Inf"} 140
restcache_http_request_duration_seconds_sum{method="GET",route="/metrics"} 0.064221
restcache_http_request_duration_seconds_count{method="GET",route="/metrics"} 140
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
restcache_http_connections_accepted_total 295
# HELP restcache_http_connections_rejected_total Connections over max_connections, answered 503.
# TYPE restcache_http_connections_rejected_total counter
restcache_http_connections_rejected_total 0
# HELP restcache_http_connections_open Connections currently open.
# TYPE restcache_http_connections_open gauge
restcache_http_connections_open 19
# HELP restcache_db_queries_total Statements (jobs) run on pooled connections.
# TYPE restcache_db_queries_total counter
restcache_db_queries_total{pool="fill"} 293
restcache_db_queries_total{pool="write"} 55
restcache_db_queries_total{pool="replica-0"} 26878
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
restcache_db_query_duration_seconds_bucket{pool="fill",le="0.0005"} 203
restcache_db_query_duration_seconds_bucket{pool="fill",le="0.001"} 239
restcache_db_query_duration_seconds_bucket{pool="fill",le="0.002"} 261
restcache_db_query_duration_seconds_bucket{pool="fill",le="0.005"} 271
restcache_db_query_duration_seconds_bucket{pool="fill",le="0.01"} 279
restcache_db_query_duration_seconds_bucket{pool="fill",le="0.025"} 287
restcache_db_query_duration_seconds_bucket{pool="fill",le="0.05"} 292
restcache_db_query_duration_seconds_bucket{pool="fill",le="0.1"} 293
restcache_db_query_duration_seconds_bucket{pool="fill",le="0.25"} 293
restcache_db_query_duration_seconds_bucket{pool="fill",le="0.5"} 293
restcache_db_query_duration_seconds_bucket{pool="fill",le="1"} 293
restcache_db_query_duration_seconds_bucket{pool="fill",le="2.5"} 293
restcache_db_query_duration_seconds_bucket{pool="fill",le="5"} 293
restcache_db_query_duration_seconds_bucket{pool="fill",le="10"} 293
restcache_db_query_duration_seconds_bucket{pool="fill",le="+Inf"} 293
restcache_db_query_duration_seconds_sum{pool="fill"} 0.59748
restcache_db_query_duration_seconds_count{pool="fill"} 293
restcache_db_query_duration_seconds_bucket{pool="write",le="0.0005"} 0
restcache_db_query_duration_seconds_bucket{pool="write",le="0.001"} 0
restcache_db_query_duration_seconds_bucket{pool="write",le="0.002"} 0
restcache_db_query_duration_seconds_bucket{pool="write",le="0.005"} 34
restcache_db_query_duration_seconds_bucket{pool="write",le="0.01"} 48
restcache_db_query_duration_seconds_bucket{pool="write",le="0.025"} 50
restcache_db_query_duration_seconds_bucket{pool="write",le="0.05"} 52
restcache_db_query_duration_seconds_bucket{pool="write",le="0.1"} 53
restcache_db_query_duration_seconds_bucket{pool="write",le="0.25"} 54
restcache_db_query_duration_seconds_bucket{pool="write",le="0.5"} 55
restcache_db_query_duration_seconds_bucket{pool="write",le="1"} 55
restcache_db_query_duration_seconds_bucket{pool="write",le="2.5"} 55
restcache_db_query_duration_seconds_bucket{pool="write",le="5"} 55
restcache_db_query_duration_seconds_bucket{pool="write",le="10"} 55
restcache_db_query_duration_seconds_bucket{pool="write",le="+Inf"} 55
restcache_db_query_duration_seconds_sum{pool="write"} 0.883381
restcache_db_query_duration_seconds_count{pool="write"} 55
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="0.0005"} 37639
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="0.001"} 44936
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="0.002"} 49032
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="0.005"} 51964
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="0.01"} 52884
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="0.025"} 53584
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="0.05"} 53713
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="0.1"} 53738
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="0.25"} 53748
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="0.5"} 53756
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="1"} 53756
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="2.5"} 53756
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="5"} 53756
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="10"} 53756
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="+Inf"} 53756
restcache_db_query_duration_seconds_sum{pool="replica-0"} 54.5423
restcache_db_query_duration_seconds_count{pool="replica-0"} 53756
# HELP restcache_replica_up 1 while the standby answers its monitor.
# TYPE restcache_replica_up gauge
restcache_replica_up{replica="0"} 1
# HELP restcache_replica_usable 1 while fills read from the standby (up, within db.replica-max-lag-ms).
# TYPE restcache_replica_usable gauge
restcache_replica_usable{replica="0"} 1
# HELP restcache_replica_lag_seconds Time since the standby's last replayed commit while received WAL waits to be replayed; 0 when none waits.
# TYPE restcache_replica_lag_seconds gauge
restcache_replica_lag_seconds{replica="0"} 2.025
# HELP restcache_replica_replay_lsn The WAL position the standby has replayed, as a number.
# TYPE restcache_replica_replay_lsn gauge
restcache_replica_replay_lsn{replica="0"} 172814272
# HELP restcache_replica_fills_total Document reads sent to a standby (retries included).
# TYPE restcache_replica_fills_total counter
restcache_replica_fills_total 26878
# HELP restcache_replica_fills_behind_total Standby answers read before the standby had replayed the key's last change: not used.
# TYPE restcache_replica_fills_behind_total counter
restcache_replica_fills_behind_total 2802
# HELP restcache_replica_fills_to_primary_total Fills that gave up on the standbys (behind past db.replica-wait-ms, or unreachable) and read db.dsn.
# TYPE restcache_replica_fills_to_primary_total counter
restcache_replica_fills_to_primary_total 290
# HELP restcache_replica_keys_waiting Keys whose last change some standby may not have replayed yet.
# TYPE restcache_replica_keys_waiting gauge
restcache_replica_keys_waiting 87
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
process_cpu_seconds_total 7.79
# HELP process_start_time_seconds Start time since the epoch.
# TYPE process_start_time_seconds gauge
process_start_time_seconds 1.79623e+09
# HELP process_resident_memory_bytes Resident memory size.
# TYPE process_resident_memory_bytes gauge
process_resident_memory_bytes 38252544
# HELP process_open_fds Open file descriptors.
# TYPE process_open_fds gauge
process_open_fds 55
# HELP process_max_fds The open-file limit (soft).
# TYPE process_max_fds gauge
process_max_fds 20000
