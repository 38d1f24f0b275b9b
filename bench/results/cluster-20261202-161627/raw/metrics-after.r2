# HELP restcache_cache_hits_total Lookups answered from a tier, by shard and tier.
# TYPE restcache_cache_hits_total counter
restcache_cache_hits_total{shard="0",tier="memory"} 144275
restcache_cache_hits_total{shard="0",tier="lmdb"} 0
restcache_cache_hits_total{shard="1",tier="memory"} 141212
restcache_cache_hits_total{shard="1",tier="lmdb"} 0
# HELP restcache_cache_answers_total Lookups answered, by the Cache-Status they carried (README: Cache-Status).
# TYPE restcache_cache_answers_total counter
restcache_cache_answers_total{cache_status="memory"} 285487
restcache_cache_answers_total{cache_status="lmdb"} 0
restcache_cache_answers_total{cache_status="stored"} 194822
restcache_cache_answers_total{cache_status="miss"} 3
restcache_cache_answers_total{cache_status="collapsed"} 84
restcache_cache_answers_total{cache_status="refresh"} 0
restcache_cache_answers_total{cache_status="refresh_unkept"} 0
restcache_cache_answers_total{cache_status="bypass"} 274
restcache_cache_answers_total{cache_status="stale_if_error"} 1759
restcache_cache_answers_total{cache_status="negative"} 1455
# HELP restcache_cache_negative_entries Ids remembered as missing (in the memory budget).
# TYPE restcache_cache_negative_entries gauge
restcache_cache_negative_entries{shard="0"} 69
restcache_cache_negative_entries{shard="1"} 55
# HELP restcache_cache_memory_misses_total Lookups not found in memory (then answered from LMDB or by a fill).
# TYPE restcache_cache_memory_misses_total counter
restcache_cache_memory_misses_total{shard="0"} 100699
restcache_cache_memory_misses_total{shard="1"} 98827
# HELP restcache_cache_coalesced_total Misses that joined a fill already in flight.
# TYPE restcache_cache_coalesced_total counter
restcache_cache_coalesced_total{shard="0"} 45
restcache_cache_coalesced_total{shard="1"} 39
# HELP restcache_cache_fills_total Fills started (one database query each).
# TYPE restcache_cache_fills_total counter
restcache_cache_fills_total{shard="0"} 99840
restcache_cache_fills_total{shard="1"} 98147
# HELP restcache_cache_fill_errors_total Fills that failed or timed out.
# TYPE restcache_cache_fill_errors_total counter
restcache_cache_fill_errors_total{shard="0"} 1395
restcache_cache_fill_errors_total{shard="1"} 1490
# HELP restcache_cache_fills_discarded_total Fills overtaken by an invalidation, not cached.
# TYPE restcache_cache_fills_discarded_total counter
restcache_cache_fills_discarded_total{shard="0"} 1
restcache_cache_fills_discarded_total{shard="1"} 2
# HELP restcache_cache_evictions_total Entries evicted to stay within the byte budget.
# TYPE restcache_cache_evictions_total counter
restcache_cache_evictions_total{shard="0"} 88921
restcache_cache_evictions_total{shard="1"} 87061
# HELP restcache_cache_invalidations_total Invalidations applied.
# TYPE restcache_cache_invalidations_total counter
restcache_cache_invalidations_total{shard="0"} 1511
restcache_cache_invalidations_total{shard="1"} 1897
# HELP restcache_cache_populated_total Entries stored by cache.populate.
# TYPE restcache_cache_populated_total counter
restcache_cache_populated_total{shard="0"} 0
restcache_cache_populated_total{shard="1"} 0
# HELP restcache_cache_entries Documents held in memory.
# TYPE restcache_cache_entries gauge
restcache_cache_entries{shard="0"} 4430
restcache_cache_entries{shard="1"} 4426
# HELP restcache_cache_bytes Bytes charged against the memory budget.
# TYPE restcache_cache_bytes gauge
restcache_cache_bytes{shard="0"} 7119722
restcache_cache_bytes{shard="1"} 7118833
# HELP restcache_dept_ids Department ids /depts/random picks from.
# TYPE restcache_dept_ids gauge
restcache_dept_ids 30039
# HELP restcache_listener_notifications_total Change notifications received.
# TYPE restcache_listener_notifications_total counter
restcache_listener_notifications_total 2943
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
restcache_listener_invalidations_total 3306
# HELP restcache_listener_already_applied_total Notifications of changes this instance's own writes had applied already.
# TYPE restcache_listener_already_applied_total counter
restcache_listener_already_applied_total 50
# HELP restcache_listener_pruned_total Change-log entries pruned by retention.
# TYPE restcache_listener_pruned_total counter
restcache_listener_pruned_total 0
# HELP restcache_changelog_bytes The change log's table and indexes, as last measured (each minute); -1: not yet.
# TYPE restcache_changelog_bytes gauge
restcache_changelog_bytes 851968
# HELP restcache_changelog_oldest_entry_age_seconds Age of the change log's oldest entry, as last measured; -1: not yet.
# TYPE restcache_changelog_oldest_entry_age_seconds gauge
restcache_changelog_oldest_entry_age_seconds 427
# HELP restcache_listener_watermark_xid Replay watermark: every change of a transaction below it is applied.
# TYPE restcache_listener_watermark_xid gauge
restcache_listener_watermark_xid 28177
# HELP restcache_listener_applied_seq Highest change sequence applied.
# TYPE restcache_listener_applied_seq gauge
restcache_listener_applied_seq 6841
# HELP restcache_invalidation_latency_seconds From a change (trigger time) to its keys dropped from both tiers.
# TYPE restcache_invalidation_latency_seconds histogram
restcache_invalidation_latency_seconds_bucket{le="0.0005"} 0
restcache_invalidation_latency_seconds_bucket{le="0.001"} 7
restcache_invalidation_latency_seconds_bucket{le="0.002"} 84
restcache_invalidation_latency_seconds_bucket{le="0.005"} 912
restcache_invalidation_latency_seconds_bucket{le="0.01"} 1689
restcache_invalidation_latency_seconds_bucket{le="0.025"} 2536
restcache_invalidation_latency_seconds_bucket{le="0.05"} 2971
restcache_invalidation_latency_seconds_bucket{le="0.1"} 3254
restcache_invalidation_latency_seconds_bucket{le="0.25"} 3306
restcache_invalidation_latency_seconds_bucket{le="0.5"} 3306
restcache_invalidation_latency_seconds_bucket{le="1"} 3306
restcache_invalidation_latency_seconds_bucket{le="2.5"} 3306
restcache_invalidation_latency_seconds_bucket{le="5"} 3306
restcache_invalidation_latency_seconds_bucket{le="10"} 3306
restcache_invalidation_latency_seconds_bucket{le="+Inf"} 3306
restcache_invalidation_latency_seconds_sum 64.3967
restcache_invalidation_latency_seconds_count 3306
# HELP restcache_serving_stale_since_seconds Unix time of the first stale-if-error answer since the listener was last caught up; 0: none.
# TYPE restcache_serving_stale_since_seconds gauge
restcache_serving_stale_since_seconds 0
# HELP restcache_http_requests_total HTTP requests answered, by route and status (HEAD counts as GET).
# TYPE restcache_http_requests_total counter
restcache_http_requests_total{method="GET",route="/deptemps/{id}",status="200"} 481392
restcache_http_requests_total{method="GET",route="/deptemps/{id}",status="404"} 1559
restcache_http_requests_total{method="GET",route="/deptemps/{id}",status="503"} 1126
restcache_http_requests_total{method="GET",route="/depts/{id}",status="200"} 54
restcache_http_requests_total{method="GET",route="/depts/emps/{id}",status="200"} 492
restcache_http_requests_total{method="GET",route="/depts/emps/{id}",status="404"} 386
restcache_http_requests_total{method="PUT",route="/depts/{id}",status="204"} 51
restcache_http_requests_total{method="PUT",route="/depts/{id}",status="503"} 1
restcache_http_requests_total{method="GET",route="/health",status="200"} 186
restcache_http_requests_total{method="GET",route="/ready",status="200"} 188
restcache_http_requests_total{method="GET",route="/ready",status="503"} 7
restcache_http_requests_total{method="GET",route="/metrics",status="200"} 619
# HELP restcache_http_request_duration_seconds From a request read to its response handed to the socket, by route.
# TYPE restcache_http_request_duration_seconds histogram
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="5e-05"} 276560
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.0001"} 283599
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.00025"} 293279
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.0005"} 321332
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.001"} 379658
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.0025"} 440078
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.005"} 461608
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.01"} 472840
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.025"} 480670
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.05"} 482832
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.1"} 483622
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.25"} 484077
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.5"} 484077
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="1"} 484077
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="2.5"} 484077
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="10"} 484077
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="+Inf"} 484077
restcache_http_request_duration_seconds_sum{method="GET",route="/deptemps/{id}"} 601.081
restcache_http_request_duration_seconds_count{method="GET",route="/deptemps/{id}"} 484077
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/{id}",le="5e-05"} 1
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/{id}",le="0.0001"} 1
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/{id}",le="0.00025"} 1
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/{id}",le="0.0005"} 1
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/{id}",le="0.001"} 2
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/{id}",le="0.0025"} 2
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/{id}",le="0.005"} 2
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/{id}",le="0.01"} 2
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/{id}",le="0.025"} 2
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/{id}",le="0.05"} 2
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/{id}",le="0.1"} 2
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/{id}",le="0.25"} 54
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/{id}",le="0.5"} 54
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/{id}",le="1"} 54
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/{id}",le="2.5"} 54
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/{id}",le="10"} 54
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/{id}",le="+Inf"} 54
restcache_http_request_duration_seconds_sum{method="GET",route="/depts/{id}"} 5.65281
restcache_http_request_duration_seconds_count{method="GET",route="/depts/{id}"} 54
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="5e-05"} 116
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.0001"} 119
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.00025"} 146
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.0005"} 218
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.001"} 351
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.0025"} 513
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.005"} 569
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.01"} 608
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.025"} 643
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.05"} 665
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.1"} 691
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.25"} 878
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.5"} 878
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="1"} 878
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="2.5"} 878
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="10"} 878
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="+Inf"} 878
restcache_http_request_duration_seconds_sum{method="GET",route="/depts/emps/{id}"} 25.3342
restcache_http_request_duration_seconds_count{method="GET",route="/depts/emps/{id}"} 878
restcache_http_request_duration_seconds_bucket{method="PUT",route="/depts/{id}",le="5e-05"} 0
restcache_http_request_duration_seconds_bucket{method="PUT",route="/depts/{id}",le="0.0001"} 0
restcache_http_request_duration_seconds_bucket{method="PUT",route="/depts/{id}",le="0.00025"} 0
restcache_http_request_duration_seconds_bucket{method="PUT",route="/depts/{id}",le="0.0005"} 1
restcache_http_request_duration_seconds_bucket{method="PUT",route="/depts/{id}",le="0.001"} 1
restcache_http_request_duration_seconds_bucket{method="PUT",route="/depts/{id}",le="0.0025"} 2
restcache_http_request_duration_seconds_bucket{method="PUT",route="/depts/{id}",le="0.005"} 15
restcache_http_request_duration_seconds_bucket{method="PUT",route="/depts/{id}",le="0.01"} 27
restcache_http_request_duration_seconds_bucket{method="PUT",route="/depts/{id}",le="0.025"} 36
restcache_http_request_duration_seconds_bucket{method="PUT",route="/depts/{id}",le="0.05"} 43
restcache_http_request_duration_seconds_bucket{method="PUT",route="/depts/{id}",le="0.1"} 51
restcache_http_request_duration_seconds_bucket{method="PUT",route="/depts/{id}",le="0.25"} 52
restcache_http_request_duration_seconds_bucket{method="PUT",route="/depts/{id}",le="0.5"} 52
restcache_http_request_duration_seconds_bucket{method="PUT",route="/depts/{id}",le="1"} 52
restcache_http_request_duration_seconds_bucket{method="PUT",route="/depts/{id}",le="2.5"} 52
restcache_http_request_duration_seconds_bucket{method="PUT",route="/depts/{id}",le="10"} 52
restcache_http_request_duration_seconds_bucket{method="PUT",route="/depts/{id}",le="+Inf"} 52
restcache_http_request_duration_seconds_sum{method="PUT",route="/depts/{id}"} 1.15704
restcache_http_request_duration_seconds_count{method="PUT",route="/depts/{id}"} 52
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="5e-05"} 185
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="0.0001"} 186
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="0.00025"} 186
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="0.0005"} 186
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="0.001"} 186
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="0.0025"} 186
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="0.005"} 186
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="0.01"} 186
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="0.025"} 186
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="0.05"} 186
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="0.1"} 186
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="0.25"} 186
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="0.5"} 186
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="1"} 186
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="2.5"} 186
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="10"} 186
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="+Inf"} 186
restcache_http_request_duration_seconds_sum{method="GET",route="/health"} 0.000746
restcache_http_request_duration_seconds_count{method="GET",route="/health"} 186
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="5e-05"} 193
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="0.0001"} 193
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="0.00025"} 195
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="0.0005"} 195
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="0.001"} 195
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="0.0025"} 195
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="0.005"} 195
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="0.01"} 195
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="0.025"} 195
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="0.05"} 195
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="0.1"} 195
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="0.25"} 195
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="0.5"} 195
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="1"} 195
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="2.5"} 195
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="10"} 195
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="+Inf"} 195
restcache_http_request_duration_seconds_sum{method="GET",route="/ready"} 0.00218
restcache_http_request_duration_seconds_count{method="GET",route="/ready"} 195
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="5e-05"} 0
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="0.0001"} 0
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="0.00025"} 34
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="0.0005"} 502
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="0.001"} 585
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="0.0025"} 615
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="0.005"} 618
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="0.01"} 619
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="0.025"} 619
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="0.05"} 619
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="0.1"} 619
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="0.25"} 619
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="0.5"} 619
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="1"} 619
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="2.5"} 619
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="10"} 619
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="+Inf"} 619
restcache_http_request_duration_seconds_sum{method="GET",route="/metrics"} 0.279636
restcache_http_request_duration_seconds_count{method="GET",route="/metrics"} 619
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
restcache_http_connections_accepted_total 1028
# HELP restcache_http_connections_rejected_total Connections over max_connections, answered 503.
# TYPE restcache_http_connections_rejected_total counter
restcache_http_connections_rejected_total 0
# HELP restcache_http_connections_open Connections currently open.
# TYPE restcache_http_connections_open gauge
restcache_http_connections_open 11
# HELP restcache_db_queries_total Statements (jobs) run on pooled connections.
# TYPE restcache_db_queries_total counter
restcache_db_queries_total{pool="fill"} 843
restcache_db_queries_total{pool="write"} 52
restcache_db_queries_total{pool="replica-0"} 199722
# HELP restcache_db_query_errors_total Statements that failed.
# TYPE restcache_db_query_errors_total counter
restcache_db_query_errors_total{pool="fill"} 0
restcache_db_query_errors_total{pool="write"} 1
restcache_db_query_errors_total{pool="replica-0"} 5
# HELP restcache_db_query_timeouts_total Statements cancelled by the query timeout.
# TYPE restcache_db_query_timeouts_total counter
restcache_db_query_timeouts_total{pool="fill"} 0
restcache_db_query_timeouts_total{pool="write"} 0
restcache_db_query_timeouts_total{pool="replica-0"} 0
# HELP restcache_db_connects_total Successful (re)connections.
# TYPE restcache_db_connects_total counter
restcache_db_connects_total{pool="fill"} 16
restcache_db_connects_total{pool="write"} 3
restcache_db_connects_total{pool="replica-0"} 9
# HELP restcache_db_connections_up Pooled connections established.
# TYPE restcache_db_connections_up gauge
restcache_db_connections_up{pool="fill"} 8
restcache_db_connections_up{pool="write"} 2
restcache_db_connections_up{pool="replica-0"} 8
# HELP restcache_db_connections_in_use Pooled connections lent out now.
# TYPE restcache_db_connections_in_use gauge
restcache_db_connections_in_use{pool="fill"} 0
restcache_db_connections_in_use{pool="write"} 0
restcache_db_connections_in_use{pool="replica-0"} 1
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
restcache_db_query_duration_seconds_bucket{pool="fill",le="0.0005"} 297
restcache_db_query_duration_seconds_bucket{pool="fill",le="0.001"} 460
restcache_db_query_duration_seconds_bucket{pool="fill",le="0.002"} 554
restcache_db_query_duration_seconds_bucket{pool="fill",le="0.005"} 648
restcache_db_query_duration_seconds_bucket{pool="fill",le="0.01"} 717
restcache_db_query_duration_seconds_bucket{pool="fill",le="0.025"} 790
restcache_db_query_duration_seconds_bucket{pool="fill",le="0.05"} 830
restcache_db_query_duration_seconds_bucket{pool="fill",le="0.1"} 842
restcache_db_query_duration_seconds_bucket{pool="fill",le="0.25"} 843
restcache_db_query_duration_seconds_bucket{pool="fill",le="0.5"} 843
restcache_db_query_duration_seconds_bucket{pool="fill",le="1"} 843
restcache_db_query_duration_seconds_bucket{pool="fill",le="2.5"} 843
restcache_db_query_duration_seconds_bucket{pool="fill",le="5"} 843
restcache_db_query_duration_seconds_bucket{pool="fill",le="10"} 843
restcache_db_query_duration_seconds_bucket{pool="fill",le="+Inf"} 843
restcache_db_query_duration_seconds_sum{pool="fill"} 4.49928
restcache_db_query_duration_seconds_count{pool="fill"} 843
restcache_db_query_duration_seconds_bucket{pool="write",le="0.0005"} 1
restcache_db_query_duration_seconds_bucket{pool="write",le="0.001"} 1
restcache_db_query_duration_seconds_bucket{pool="write",le="0.002"} 2
restcache_db_query_duration_seconds_bucket{pool="write",le="0.005"} 19
restcache_db_query_duration_seconds_bucket{pool="write",le="0.01"} 27
restcache_db_query_duration_seconds_bucket{pool="write",le="0.025"} 36
restcache_db_query_duration_seconds_bucket{pool="write",le="0.05"} 43
restcache_db_query_duration_seconds_bucket{pool="write",le="0.1"} 52
restcache_db_query_duration_seconds_bucket{pool="write",le="0.25"} 52
restcache_db_query_duration_seconds_bucket{pool="write",le="0.5"} 52
restcache_db_query_duration_seconds_bucket{pool="write",le="1"} 52
restcache_db_query_duration_seconds_bucket{pool="write",le="2.5"} 52
restcache_db_query_duration_seconds_bucket{pool="write",le="5"} 52
restcache_db_query_duration_seconds_bucket{pool="write",le="10"} 52
restcache_db_query_duration_seconds_bucket{pool="write",le="+Inf"} 52
restcache_db_query_duration_seconds_sum{pool="write"} 1.13108
restcache_db_query_duration_seconds_count{pool="write"} 52
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="0.0005"} 251627
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="0.001"} 319529
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="0.002"} 355152
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="0.005"} 380452
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="0.01"} 390168
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="0.025"} 396780
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="0.05"} 398768
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="0.1"} 399365
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="0.25"} 399433
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="0.5"} 399433
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="1"} 399433
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="2.5"} 399433
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="5"} 399433
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="10"} 399433
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="+Inf"} 399433
restcache_db_query_duration_seconds_sum{pool="replica-0"} 517.654
restcache_db_query_duration_seconds_count{pool="replica-0"} 399433
# HELP restcache_replica_up 1 while the standby answers its monitor.
# TYPE restcache_replica_up gauge
restcache_replica_up{replica="0"} 1
# HELP restcache_replica_usable 1 while fills read from the standby (up, within db.replica-max-lag-ms).
# TYPE restcache_replica_usable gauge
restcache_replica_usable{replica="0"} 1
# HELP restcache_replica_lag_seconds Time since the standby's last replayed commit while received WAL waits to be replayed; 0 when none waits.
# TYPE restcache_replica_lag_seconds gauge
restcache_replica_lag_seconds{replica="0"} 2.02
# HELP restcache_replica_replay_lsn The WAL position the standby has replayed, as a number.
# TYPE restcache_replica_replay_lsn gauge
restcache_replica_replay_lsn{replica="0"} 191203240
# HELP restcache_replica_fills_total Document reads sent to a standby (retries included).
# TYPE restcache_replica_fills_total counter
restcache_replica_fills_total 199723
# HELP restcache_replica_fills_behind_total Standby answers read before the standby had replayed the key's last change: not used.
# TYPE restcache_replica_fills_behind_total counter
restcache_replica_fills_behind_total 5452
# HELP restcache_replica_fills_to_primary_total Fills that gave up on the standbys (behind past db.replica-wait-ms, or unreachable) and read db.dsn.
# TYPE restcache_replica_fills_to_primary_total counter
restcache_replica_fills_to_primary_total 562
# HELP restcache_replica_keys_waiting Keys whose last change some standby may not have replayed yet.
# TYPE restcache_replica_keys_waiting gauge
restcache_replica_keys_waiting 39
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
process_cpu_seconds_total 33.21
# HELP process_start_time_seconds Start time since the epoch.
# TYPE process_start_time_seconds gauge
process_start_time_seconds 1.79623e+09
# HELP process_resident_memory_bytes Resident memory size.
# TYPE process_resident_memory_bytes gauge
process_resident_memory_bytes 38899712
# HELP process_open_fds Open file descriptors.
# TYPE process_open_fds gauge
process_open_fds 47
# HELP process_max_fds The open-file limit (soft).
# TYPE process_max_fds gauge
process_max_fds 20000
