# HELP restcache_cache_hits_total Lookups answered from a tier, by shard and tier.
# TYPE restcache_cache_hits_total counter
restcache_cache_hits_total{shard="0",tier="memory"} 44395
restcache_cache_hits_total{shard="0",tier="lmdb"} 0
restcache_cache_hits_total{shard="1",tier="memory"} 43514
restcache_cache_hits_total{shard="1",tier="lmdb"} 0
# HELP restcache_cache_answers_total Lookups answered, by the Cache-Status they carried (README: Cache-Status).
# TYPE restcache_cache_answers_total counter
restcache_cache_answers_total{cache_status="memory"} 87909
restcache_cache_answers_total{cache_status="lmdb"} 0
restcache_cache_answers_total{cache_status="stored"} 9526
restcache_cache_answers_total{cache_status="miss"} 0
restcache_cache_answers_total{cache_status="collapsed"} 4
restcache_cache_answers_total{cache_status="refresh"} 0
restcache_cache_answers_total{cache_status="refresh_unkept"} 0
restcache_cache_answers_total{cache_status="bypass"} 0
restcache_cache_answers_total{cache_status="stale_if_error"} 0
restcache_cache_answers_total{cache_status="negative"} 58
# HELP restcache_cache_negative_entries Ids remembered as missing (in the memory budget).
# TYPE restcache_cache_negative_entries gauge
restcache_cache_negative_entries{shard="0"} 35
restcache_cache_negative_entries{shard="1"} 28
# HELP restcache_cache_memory_misses_total Lookups not found in memory (then answered from LMDB or by a fill).
# TYPE restcache_cache_memory_misses_total counter
restcache_cache_memory_misses_total{shard="0"} 5038
restcache_cache_memory_misses_total{shard="1"} 4551
# HELP restcache_cache_coalesced_total Misses that joined a fill already in flight.
# TYPE restcache_cache_coalesced_total counter
restcache_cache_coalesced_total{shard="0"} 3
restcache_cache_coalesced_total{shard="1"} 1
# HELP restcache_cache_fills_total Fills started (one database query each).
# TYPE restcache_cache_fills_total counter
restcache_cache_fills_total{shard="0"} 5001
restcache_cache_fills_total{shard="1"} 4526
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
restcache_cache_evictions_total{shard="0"} 408
restcache_cache_evictions_total{shard="1"} 0
# HELP restcache_cache_invalidations_total Invalidations applied.
# TYPE restcache_cache_invalidations_total counter
restcache_cache_invalidations_total{shard="0"} 537
restcache_cache_invalidations_total{shard="1"} 611
# HELP restcache_cache_populated_total Entries stored by cache.populate.
# TYPE restcache_cache_populated_total counter
restcache_cache_populated_total{shard="0"} 0
restcache_cache_populated_total{shard="1"} 0
# HELP restcache_cache_entries Documents held in memory.
# TYPE restcache_cache_entries gauge
restcache_cache_entries{shard="0"} 4439
restcache_cache_entries{shard="1"} 4405
# HELP restcache_cache_bytes Bytes charged against the memory budget.
# TYPE restcache_cache_bytes gauge
restcache_cache_bytes{shard="0"} 7119986
restcache_cache_bytes{shard="1"} 7043557
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
restcache_listener_invalidations_total 1146
# HELP restcache_listener_already_applied_total Notifications of changes this instance's own writes had applied already.
# TYPE restcache_listener_already_applied_total counter
restcache_listener_already_applied_total 2
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
restcache_listener_watermark_xid 5886
# HELP restcache_listener_applied_seq Highest change sequence applied.
# TYPE restcache_listener_applied_seq gauge
restcache_listener_applied_seq 1082
# HELP restcache_invalidation_latency_seconds From a change (trigger time) to its keys dropped from both tiers.
# TYPE restcache_invalidation_latency_seconds histogram
restcache_invalidation_latency_seconds_bucket{le="0.0005"} 0
restcache_invalidation_latency_seconds_bucket{le="0.001"} 0
restcache_invalidation_latency_seconds_bucket{le="0.002"} 2
restcache_invalidation_latency_seconds_bucket{le="0.005"} 528
restcache_invalidation_latency_seconds_bucket{le="0.01"} 926
restcache_invalidation_latency_seconds_bucket{le="0.025"} 1051
restcache_invalidation_latency_seconds_bucket{le="0.05"} 1101
restcache_invalidation_latency_seconds_bucket{le="0.1"} 1137
restcache_invalidation_latency_seconds_bucket{le="0.25"} 1144
restcache_invalidation_latency_seconds_bucket{le="0.5"} 1146
restcache_invalidation_latency_seconds_bucket{le="1"} 1146
restcache_invalidation_latency_seconds_bucket{le="2.5"} 1146
restcache_invalidation_latency_seconds_bucket{le="5"} 1146
restcache_invalidation_latency_seconds_bucket{le="10"} 1146
restcache_invalidation_latency_seconds_bucket{le="+Inf"} 1146
restcache_invalidation_latency_seconds_sum 12.696
restcache_invalidation_latency_seconds_count 1146
# HELP restcache_serving_stale_since_seconds Unix time of the first stale-if-error answer since the listener was last caught up; 0: none.
# TYPE restcache_serving_stale_since_seconds gauge
restcache_serving_stale_since_seconds 0
# HELP restcache_http_requests_total HTTP requests answered, by route and status (HEAD counts as GET).
# TYPE restcache_http_requests_total counter
restcache_http_requests_total{method="GET",route="/deptemps/{id}",status="200"} 97181
restcache_http_requests_total{method="GET",route="/deptemps/{id}",status="404"} 33
restcache_http_requests_total{method="GET",route="/depts/emps/{id}",status="200"} 160
restcache_http_requests_total{method="GET",route="/depts/emps/{id}",status="404"} 123
restcache_http_requests_total{method="POST",route="/depts",status="201"} 1
restcache_http_requests_total{method="GET",route="/health",status="200"} 61
restcache_http_requests_total{method="GET",route="/ready",status="200"} 62
restcache_http_requests_total{method="GET",route="/metrics",status="200"} 140
# HELP restcache_http_request_duration_seconds From a request read to its response handed to the socket, by route.
# TYPE restcache_http_request_duration_seconds histogram
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="5e-05"} 81408
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.0001"} 85924
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.00025"} 87441
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.0005"} 89509
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.001"} 92070
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.0025"} 94925
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.005"} 96112
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.01"} 96754
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.025"} 96995
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.05"} 97065
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.1"} 97082
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.25"} 97214
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.5"} 97214
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="1"} 97214
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="2.5"} 97214
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="10"} 97214
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="+Inf"} 97214
restcache_http_request_duration_seconds_sum{method="GET",route="/deptemps/{id}"} 38.4666
restcache_http_request_duration_seconds_count{method="GET",route="/deptemps/{id}"} 97214
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="5e-05"} 38
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.0001"} 44
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.00025"} 57
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.0005"} 103
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.001"} 153
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.0025"} 190
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.005"} 199
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.01"} 207
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.025"} 211
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.05"} 214
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.1"} 218
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.25"} 283
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.5"} 283
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="1"} 283
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="2.5"} 283
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="10"} 283
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="+Inf"} 283
restcache_http_request_duration_seconds_sum{method="GET",route="/depts/emps/{id}"} 7.55671
restcache_http_request_duration_seconds_count{method="GET",route="/depts/emps/{id}"} 283
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
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="5e-05"} 60
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
restcache_http_request_duration_seconds_sum{method="GET",route="/health"} 0.000348
restcache_http_request_duration_seconds_count{method="GET",route="/health"} 61
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="5e-05"} 60
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="0.0001"} 62
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="0.00025"} 62
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="0.0005"} 62
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="0.001"} 62
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="0.0025"} 62
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="0.005"} 62
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="0.01"} 62
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="0.025"} 62
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="0.05"} 62
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="0.1"} 62
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="0.25"} 62
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="0.5"} 62
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="1"} 62
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="2.5"} 62
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="10"} 62
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="+Inf"} 62
restcache_http_request_duration_seconds_sum{method="GET",route="/ready"} 0.000803
restcache_http_request_duration_seconds_count{method="GET",route="/ready"} 62
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="5e-05"} 0
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="0.0001"} 0
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="0.00025"} 0
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="0.0005"} 114
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="0.001"} 135
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="0.0025"} 138
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
restcache_http_request_duration_seconds_sum{method="GET",route="/metrics"} 0.068306
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
restcache_http_connections_accepted_total 291
# HELP restcache_http_connections_rejected_total Connections over max_connections, answered 503.
# TYPE restcache_http_connections_rejected_total counter
restcache_http_connections_rejected_total 0
# HELP restcache_http_connections_open Connections currently open.
# TYPE restcache_http_connections_open gauge
restcache_http_connections_open 13
# HELP restcache_db_queries_total Statements (jobs) run on pooled connections.
# TYPE restcache_db_queries_total counter
restcache_db_queries_total{pool="fill"} 196
restcache_db_queries_total{pool="write"} 1
restcache_db_queries_total{pool="replica-0"} 11233
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
restcache_db_query_duration_seconds_bucket{pool="fill",le="0.0005"} 141
restcache_db_query_duration_seconds_bucket{pool="fill",le="0.001"} 155
restcache_db_query_duration_seconds_bucket{pool="fill",le="0.002"} 167
restcache_db_query_duration_seconds_bucket{pool="fill",le="0.005"} 179
restcache_db_query_duration_seconds_bucket{pool="fill",le="0.01"} 186
restcache_db_query_duration_seconds_bucket{pool="fill",le="0.025"} 189
restcache_db_query_duration_seconds_bucket{pool="fill",le="0.05"} 196
restcache_db_query_duration_seconds_bucket{pool="fill",le="0.1"} 196
restcache_db_query_duration_seconds_bucket{pool="fill",le="0.25"} 196
restcache_db_query_duration_seconds_bucket{pool="fill",le="0.5"} 196
restcache_db_query_duration_seconds_bucket{pool="fill",le="1"} 196
restcache_db_query_duration_seconds_bucket{pool="fill",le="2.5"} 196
restcache_db_query_duration_seconds_bucket{pool="fill",le="5"} 196
restcache_db_query_duration_seconds_bucket{pool="fill",le="10"} 196
restcache_db_query_duration_seconds_bucket{pool="fill",le="+Inf"} 196
restcache_db_query_duration_seconds_sum{pool="fill"} 0.449125
restcache_db_query_duration_seconds_count{pool="fill"} 196
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
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="0.0005"} 16569
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="0.001"} 19492
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="0.002"} 20814
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="0.005"} 21836
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="0.01"} 22170
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="0.025"} 22427
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="0.05"} 22463
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="0.1"} 22466
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="0.25"} 22466
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="0.5"} 22466
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="1"} 22466
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="2.5"} 22466
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="5"} 22466
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="10"} 22466
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="+Inf"} 22466
restcache_db_query_duration_seconds_sum{pool="replica-0"} 18.0044
restcache_db_query_duration_seconds_count{pool="replica-0"} 22466
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
restcache_replica_replay_lsn{replica="0"} 172814272
# HELP restcache_replica_fills_total Document reads sent to a standby (retries included).
# TYPE restcache_replica_fills_total counter
restcache_replica_fills_total 11233
# HELP restcache_replica_fills_behind_total Standby answers read before the standby had replayed the key's last change: not used.
# TYPE restcache_replica_fills_behind_total counter
restcache_replica_fills_behind_total 1899
# HELP restcache_replica_fills_to_primary_total Fills that gave up on the standbys (behind past db.replica-wait-ms, or unreachable) and read db.dsn.
# TYPE restcache_replica_fills_to_primary_total counter
restcache_replica_fills_to_primary_total 193
# HELP restcache_replica_keys_waiting Keys whose last change some standby may not have replayed yet.
# TYPE restcache_replica_keys_waiting gauge
restcache_replica_keys_waiting 87
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
process_cpu_seconds_total 5.56
# HELP process_start_time_seconds Start time since the epoch.
# TYPE process_start_time_seconds gauge
process_start_time_seconds 1.79623e+09
# HELP process_resident_memory_bytes Resident memory size.
# TYPE process_resident_memory_bytes gauge
process_resident_memory_bytes 37519360
# HELP process_open_fds Open file descriptors.
# TYPE process_open_fds gauge
process_open_fds 49
# HELP process_max_fds The open-file limit (soft).
# TYPE process_max_fds gauge
process_max_fds 20000
