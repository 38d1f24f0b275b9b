# HELP restcache_cache_hits_total Lookups answered from a tier, by shard and tier.
# TYPE restcache_cache_hits_total counter
restcache_cache_hits_total{shard="0",tier="memory"} 154298
restcache_cache_hits_total{shard="0",tier="lmdb"} 0
restcache_cache_hits_total{shard="1",tier="memory"} 153406
restcache_cache_hits_total{shard="1",tier="lmdb"} 0
# HELP restcache_cache_answers_total Lookups answered, by the Cache-Status they carried (README: Cache-Status).
# TYPE restcache_cache_answers_total counter
restcache_cache_answers_total{cache_status="memory"} 307704
restcache_cache_answers_total{cache_status="lmdb"} 0
restcache_cache_answers_total{cache_status="stored"} 11550
restcache_cache_answers_total{cache_status="miss"} 0
restcache_cache_answers_total{cache_status="collapsed"} 8
restcache_cache_answers_total{cache_status="refresh"} 0
restcache_cache_answers_total{cache_status="refresh_unkept"} 0
restcache_cache_answers_total{cache_status="bypass"} 0
restcache_cache_answers_total{cache_status="stale_if_error"} 0
restcache_cache_answers_total{cache_status="negative"} 362
# HELP restcache_cache_negative_entries Ids remembered as missing (in the memory budget).
# TYPE restcache_cache_negative_entries gauge
restcache_cache_negative_entries{shard="0"} 46
restcache_cache_negative_entries{shard="1"} 44
# HELP restcache_cache_memory_misses_total Lookups not found in memory (then answered from LMDB or by a fill).
# TYPE restcache_cache_memory_misses_total counter
restcache_cache_memory_misses_total{shard="0"} 6958
restcache_cache_memory_misses_total{shard="1"} 4962
# HELP restcache_cache_coalesced_total Misses that joined a fill already in flight.
# TYPE restcache_cache_coalesced_total counter
restcache_cache_coalesced_total{shard="0"} 7
restcache_cache_coalesced_total{shard="1"} 1
# HELP restcache_cache_fills_total Fills started (one database query each).
# TYPE restcache_cache_fills_total counter
restcache_cache_fills_total{shard="0"} 6697
restcache_cache_fills_total{shard="1"} 4853
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
restcache_cache_evictions_total{shard="0"} 1832
restcache_cache_evictions_total{shard="1"} 0
# HELP restcache_cache_invalidations_total Invalidations applied.
# TYPE restcache_cache_invalidations_total counter
restcache_cache_invalidations_total{shard="0"} 1526
restcache_cache_invalidations_total{shard="1"} 1764
# HELP restcache_cache_populated_total Entries stored by cache.populate.
# TYPE restcache_cache_populated_total counter
restcache_cache_populated_total{shard="0"} 0
restcache_cache_populated_total{shard="1"} 0
# HELP restcache_cache_entries Documents held in memory.
# TYPE restcache_cache_entries gauge
restcache_cache_entries{shard="0"} 4439
restcache_cache_entries{shard="1"} 4469
# HELP restcache_cache_bytes Bytes charged against the memory budget.
# TYPE restcache_cache_bytes gauge
restcache_cache_bytes{shard="0"} 7118733
restcache_cache_bytes{shard="1"} 7065774
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
restcache_listener_invalidations_total 3288
# HELP restcache_listener_already_applied_total Notifications of changes this instance's own writes had applied already.
# TYPE restcache_listener_already_applied_total counter
restcache_listener_already_applied_total 2
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
restcache_listener_watermark_xid 13530
# HELP restcache_listener_applied_seq Highest change sequence applied.
# TYPE restcache_listener_applied_seq gauge
restcache_listener_applied_seq 3120
# HELP restcache_invalidation_latency_seconds From a change (trigger time) to its keys dropped from both tiers.
# TYPE restcache_invalidation_latency_seconds histogram
restcache_invalidation_latency_seconds_bucket{le="0.0005"} 0
restcache_invalidation_latency_seconds_bucket{le="0.001"} 0
restcache_invalidation_latency_seconds_bucket{le="0.002"} 14
restcache_invalidation_latency_seconds_bucket{le="0.005"} 1690
restcache_invalidation_latency_seconds_bucket{le="0.01"} 2728
restcache_invalidation_latency_seconds_bucket{le="0.025"} 3037
restcache_invalidation_latency_seconds_bucket{le="0.05"} 3136
restcache_invalidation_latency_seconds_bucket{le="0.1"} 3238
restcache_invalidation_latency_seconds_bucket{le="0.25"} 3276
restcache_invalidation_latency_seconds_bucket{le="0.5"} 3286
restcache_invalidation_latency_seconds_bucket{le="1"} 3288
restcache_invalidation_latency_seconds_bucket{le="2.5"} 3288
restcache_invalidation_latency_seconds_bucket{le="5"} 3288
restcache_invalidation_latency_seconds_bucket{le="10"} 3288
restcache_invalidation_latency_seconds_bucket{le="+Inf"} 3288
restcache_invalidation_latency_seconds_sum 39.0845
restcache_invalidation_latency_seconds_count 3288
# HELP restcache_serving_stale_since_seconds Unix time of the first stale-if-error answer since the listener was last caught up; 0: none.
# TYPE restcache_serving_stale_since_seconds gauge
restcache_serving_stale_since_seconds 0
# HELP restcache_http_requests_total HTTP requests answered, by route and status (HEAD counts as GET).
# TYPE restcache_http_requests_total counter
restcache_http_requests_total{method="GET",route="/deptemps/{id}",status="200"} 318479
restcache_http_requests_total{method="GET",route="/deptemps/{id}",status="404"} 324
restcache_http_requests_total{method="GET",route="/depts/emps/{id}",status="200"} 473
restcache_http_requests_total{method="GET",route="/depts/emps/{id}",status="404"} 348
restcache_http_requests_total{method="POST",route="/depts",status="201"} 1
restcache_http_requests_total{method="GET",route="/health",status="200"} 181
restcache_http_requests_total{method="GET",route="/ready",status="200"} 182
restcache_http_requests_total{method="GET",route="/metrics",status="200"} 426
# HELP restcache_http_request_duration_seconds From a request read to its response handed to the socket, by route.
# TYPE restcache_http_request_duration_seconds histogram
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="5e-05"} 284351
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.0001"} 300606
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.00025"} 305595
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.0005"} 308986
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.001"} 312504
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.0025"} 315995
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.005"} 317405
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.01"} 318137
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.025"} 318427
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.05"} 318529
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.1"} 318563
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.25"} 318803
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.5"} 318803
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="1"} 318803
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="2.5"} 318803
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="10"} 318803
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="+Inf"} 318803
restcache_http_request_duration_seconds_sum{method="GET",route="/deptemps/{id}"} 60.5813
restcache_http_request_duration_seconds_count{method="GET",route="/deptemps/{id}"} 318803
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="5e-05"} 98
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.0001"} 108
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.00025"} 151
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.0005"} 286
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.001"} 428
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.0025"} 529
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.005"} 562
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.01"} 579
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.025"} 599
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.05"} 616
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.1"} 638
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.25"} 821
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.5"} 821
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="1"} 821
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="2.5"} 821
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="10"} 821
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="+Inf"} 821
restcache_http_request_duration_seconds_sum{method="GET",route="/depts/emps/{id}"} 22.6723
restcache_http_request_duration_seconds_count{method="GET",route="/depts/emps/{id}"} 821
restcache_http_request_duration_seconds_bucket{method="POST",route="/depts",le="5e-05"} 0
restcache_http_request_duration_seconds_bucket{method="POST",route="/depts",le="0.0001"} 0
restcache_http_request_duration_seconds_bucket{method="POST",route="/depts",le="0.00025"} 0
restcache_http_request_duration_seconds_bucket{method="POST",route="/depts",le="0.0005"} 0
restcache_http_request_duration_seconds_bucket{method="POST",route="/depts",le="0.001"} 0
restcache_http_request_duration_seconds_bucket{method="POST",route="/depts",le="0.0025"} 0
restcache_http_request_duration_seconds_bucket{method="POST",route="/depts",le="0.005"} 0
restcache_http_request_duration_seconds_bucket{method="POST",route="/depts",le="0.01"} 0
restcache_http_request_duration_seconds_bucket{method="POST",route="/depts",le="0.025"} 1
restcache_http_request_duration_seconds_bucket{method="POST",route="/depts",le="0.05"} 1
restcache_http_request_duration_seconds_bucket{method="POST",route="/depts",le="0.1"} 1
restcache_http_request_duration_seconds_bucket{method="POST",route="/depts",le="0.25"} 1
restcache_http_request_duration_seconds_bucket{method="POST",route="/depts",le="0.5"} 1
restcache_http_request_duration_seconds_bucket{method="POST",route="/depts",le="1"} 1
restcache_http_request_duration_seconds_bucket{method="POST",route="/depts",le="2.5"} 1
restcache_http_request_duration_seconds_bucket{method="POST",route="/depts",le="10"} 1
restcache_http_request_duration_seconds_bucket{method="POST",route="/depts",le="+Inf"} 1
restcache_http_request_duration_seconds_sum{method="POST",route="/depts"} 0.013604
restcache_http_request_duration_seconds_count{method="POST",route="/depts"} 1
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="5e-05"} 180
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="0.0001"} 181
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="0.00025"} 181
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
restcache_http_request_duration_seconds_sum{method="GET",route="/health"} 0.000886
restcache_http_request_duration_seconds_count{method="GET",route="/health"} 181
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="5e-05"} 179
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
restcache_http_request_duration_seconds_sum{method="GET",route="/ready"} 0.002186
restcache_http_request_duration_seconds_count{method="GET",route="/ready"} 182
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="5e-05"} 0
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="0.0001"} 0
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="0.00025"} 0
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="0.0005"} 358
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="0.001"} 406
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="0.0025"} 420
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="0.005"} 424
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
restcache_http_request_duration_seconds_sum{method="GET",route="/metrics"} 0.209071
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
restcache_http_connections_accepted_total 842
# HELP restcache_http_connections_rejected_total Connections over max_connections, answered 503.
# TYPE restcache_http_connections_rejected_total counter
restcache_http_connections_rejected_total 0
# HELP restcache_http_connections_open Connections currently open.
# TYPE restcache_http_connections_open gauge
restcache_http_connections_open 15
# HELP restcache_db_queries_total Statements (jobs) run on pooled connections.
# TYPE restcache_db_queries_total counter
restcache_db_queries_total{pool="fill"} 423
restcache_db_queries_total{pool="write"} 1
restcache_db_queries_total{pool="replica-0"} 15437
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
restcache_db_query_duration_seconds_bucket{pool="fill",le="0.0005"} 315
restcache_db_query_duration_seconds_bucket{pool="fill",le="0.001"} 354
restcache_db_query_duration_seconds_bucket{pool="fill",le="0.002"} 374
restcache_db_query_duration_seconds_bucket{pool="fill",le="0.005"} 390
restcache_db_query_duration_seconds_bucket{pool="fill",le="0.01"} 401
restcache_db_query_duration_seconds_bucket{pool="fill",le="0.025"} 410
restcache_db_query_duration_seconds_bucket{pool="fill",le="0.05"} 417
restcache_db_query_duration_seconds_bucket{pool="fill",le="0.1"} 422
restcache_db_query_duration_seconds_bucket{pool="fill",le="0.25"} 423
restcache_db_query_duration_seconds_bucket{pool="fill",le="0.5"} 423
restcache_db_query_duration_seconds_bucket{pool="fill",le="1"} 423
restcache_db_query_duration_seconds_bucket{pool="fill",le="2.5"} 423
restcache_db_query_duration_seconds_bucket{pool="fill",le="5"} 423
restcache_db_query_duration_seconds_bucket{pool="fill",le="10"} 423
restcache_db_query_duration_seconds_bucket{pool="fill",le="+Inf"} 423
restcache_db_query_duration_seconds_sum{pool="fill"} 1.20166
restcache_db_query_duration_seconds_count{pool="fill"} 423
restcache_db_query_duration_seconds_bucket{pool="write",le="0.0005"} 0
restcache_db_query_duration_seconds_bucket{pool="write",le="0.001"} 0
restcache_db_query_duration_seconds_bucket{pool="write",le="0.002"} 0
restcache_db_query_duration_seconds_bucket{pool="write",le="0.005"} 0
restcache_db_query_duration_seconds_bucket{pool="write",le="0.01"} 0
restcache_db_query_duration_seconds_bucket{pool="write",le="0.025"} 1
restcache_db_query_duration_seconds_bucket{pool="write",le="0.05"} 1
restcache_db_query_duration_seconds_bucket{pool="write",le="0.1"} 1
restcache_db_query_duration_seconds_bucket{pool="write",le="0.25"} 1
restcache_db_query_duration_seconds_bucket{pool="write",le="0.5"} 1
restcache_db_query_duration_seconds_bucket{pool="write",le="1"} 1
restcache_db_query_duration_seconds_bucket{pool="write",le="2.5"} 1
restcache_db_query_duration_seconds_bucket{pool="write",le="5"} 1
restcache_db_query_duration_seconds_bucket{pool="write",le="10"} 1
restcache_db_query_duration_seconds_bucket{pool="write",le="+Inf"} 1
restcache_db_query_duration_seconds_sum{pool="write"} 0.013232
restcache_db_query_duration_seconds_count{pool="write"} 1
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="0.0005"} 23277
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="0.001"} 26969
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="0.002"} 28696
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="0.005"} 30030
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="0.01"} 30456
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="0.025"} 30800
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="0.05"} 30868
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="0.1"} 30873
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="0.25"} 30874
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="0.5"} 30874
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="1"} 30874
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="2.5"} 30874
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="5"} 30874
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="10"} 30874
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="+Inf"} 30874
restcache_db_query_duration_seconds_sum{pool="replica-0"} 24.6425
restcache_db_query_duration_seconds_count{pool="replica-0"} 30874
# HELP restcache_replica_up 1 while the standby answers its monitor.
# TYPE restcache_replica_up gauge
restcache_replica_up{replica="0"} 1
# HELP restcache_replica_usable 1 while fills read from the standby (up, within db.replica-max-lag-ms).
# TYPE restcache_replica_usable gauge
restcache_replica_usable{replica="0"} 1
# HELP restcache_replica_lag_seconds Time since the standby's last replayed commit while received WAL waits to be replayed; 0 when none waits.
# TYPE restcache_replica_lag_seconds gauge
restcache_replica_lag_seconds{replica="0"} 2.013
# HELP restcache_replica_replay_lsn The WAL position the standby has replayed, as a number.
# TYPE restcache_replica_replay_lsn gauge
restcache_replica_replay_lsn{replica="0"} 179632128
# HELP restcache_replica_fills_total Document reads sent to a standby (retries included).
# TYPE restcache_replica_fills_total counter
restcache_replica_fills_total 15437
# HELP restcache_replica_fills_behind_total Standby answers read before the standby had replayed the key's last change: not used.
# TYPE restcache_replica_fills_behind_total counter
restcache_replica_fills_behind_total 4303
# HELP restcache_replica_fills_to_primary_total Fills that gave up on the standbys (behind past db.replica-wait-ms, or unreachable) and read db.dsn.
# TYPE restcache_replica_fills_to_primary_total counter
restcache_replica_fills_to_primary_total 416
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
process_cpu_seconds_total 15.48
# HELP process_start_time_seconds Start time since the epoch.
# TYPE process_start_time_seconds gauge
process_start_time_seconds 1.79623e+09
# HELP process_resident_memory_bytes Resident memory size.
# TYPE process_resident_memory_bytes gauge
process_resident_memory_bytes 37650432
# HELP process_open_fds Open file descriptors.
# TYPE process_open_fds gauge
process_open_fds 51
# HELP process_max_fds The open-file limit (soft).
# TYPE process_max_fds gauge
process_max_fds 20000
