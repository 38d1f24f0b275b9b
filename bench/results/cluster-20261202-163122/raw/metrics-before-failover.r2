# HELP restcache_cache_hits_total Lookups answered from a tier, by shard and tier.
# TYPE restcache_cache_hits_total counter
restcache_cache_hits_total{shard="0",tier="memory"} 52645
restcache_cache_hits_total{shard="0",tier="lmdb"} 0
restcache_cache_hits_total{shard="1",tier="memory"} 51603
restcache_cache_hits_total{shard="1",tier="lmdb"} 0
# HELP restcache_cache_answers_total Lookups answered, by the Cache-Status they carried (README: Cache-Status).
# TYPE restcache_cache_answers_total counter
restcache_cache_answers_total{cache_status="memory"} 104248
restcache_cache_answers_total{cache_status="lmdb"} 0
restcache_cache_answers_total{cache_status="stored"} 9575
restcache_cache_answers_total{cache_status="miss"} 0
restcache_cache_answers_total{cache_status="collapsed"} 6
restcache_cache_answers_total{cache_status="refresh"} 0
restcache_cache_answers_total{cache_status="refresh_unkept"} 0
restcache_cache_answers_total{cache_status="bypass"} 0
restcache_cache_answers_total{cache_status="stale_if_error"} 0
restcache_cache_answers_total{cache_status="negative"} 285
# HELP restcache_cache_negative_entries Ids remembered as missing (in the memory budget).
# TYPE restcache_cache_negative_entries gauge
restcache_cache_negative_entries{shard="0"} 47
restcache_cache_negative_entries{shard="1"} 46
# HELP restcache_cache_memory_misses_total Lookups not found in memory (then answered from LMDB or by a fill).
# TYPE restcache_cache_memory_misses_total counter
restcache_cache_memory_misses_total{shard="0"} 5190
restcache_cache_memory_misses_total{shard="1"} 4676
# HELP restcache_cache_coalesced_total Misses that joined a fill already in flight.
# TYPE restcache_cache_coalesced_total counter
restcache_cache_coalesced_total{shard="0"} 4
restcache_cache_coalesced_total{shard="1"} 2
# HELP restcache_cache_fills_total Fills started (one database query each).
# TYPE restcache_cache_fills_total counter
restcache_cache_fills_total{shard="0"} 4995
restcache_cache_fills_total{shard="1"} 4580
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
restcache_cache_invalidations_total{shard="0"} 554
restcache_cache_invalidations_total{shard="1"} 646
# HELP restcache_cache_populated_total Entries stored by cache.populate.
# TYPE restcache_cache_populated_total counter
restcache_cache_populated_total{shard="0"} 0
restcache_cache_populated_total{shard="1"} 0
# HELP restcache_cache_entries Documents held in memory.
# TYPE restcache_cache_entries gauge
restcache_cache_entries{shard="0"} 4438
restcache_cache_entries{shard="1"} 4409
# HELP restcache_cache_bytes Bytes charged against the memory budget.
# TYPE restcache_cache_bytes gauge
restcache_cache_bytes{shard="0"} 7119732
restcache_cache_bytes{shard="1"} 7037649
# HELP restcache_dept_ids Department ids /depts/random picks from.
# TYPE restcache_dept_ids gauge
restcache_dept_ids 30011
# HELP restcache_listener_notifications_total Change notifications received.
# TYPE restcache_listener_notifications_total counter
restcache_listener_notifications_total 1138
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
restcache_listener_invalidations_total 1200
# HELP restcache_listener_already_applied_total Notifications of changes this instance's own writes had applied already.
# TYPE restcache_listener_already_applied_total counter
restcache_listener_already_applied_total 0
# HELP restcache_listener_pruned_total Change-log entries pruned by retention.
# TYPE restcache_listener_pruned_total counter
restcache_listener_pruned_total 0
# HELP restcache_changelog_bytes The change log's table and indexes, as last measured (each minute); -1: not yet.
# TYPE restcache_changelog_bytes gauge
restcache_changelog_bytes 622592
# HELP restcache_changelog_oldest_entry_age_seconds Age of the change log's oldest entry, as last measured; -1: not yet.
# TYPE restcache_changelog_oldest_entry_age_seconds gauge
restcache_changelog_oldest_entry_age_seconds 302
# HELP restcache_listener_watermark_xid Replay watermark: every change of a transaction below it is applied.
# TYPE restcache_listener_watermark_xid gauge
restcache_listener_watermark_xid 20433
# HELP restcache_listener_applied_seq Highest change sequence applied.
# TYPE restcache_listener_applied_seq gauge
restcache_listener_applied_seq 5226
# HELP restcache_invalidation_latency_seconds From a change (trigger time) to its keys dropped from both tiers.
# TYPE restcache_invalidation_latency_seconds histogram
restcache_invalidation_latency_seconds_bucket{le="0.0005"} 0
restcache_invalidation_latency_seconds_bucket{le="0.001"} 0
restcache_invalidation_latency_seconds_bucket{le="0.002"} 6
restcache_invalidation_latency_seconds_bucket{le="0.005"} 623
restcache_invalidation_latency_seconds_bucket{le="0.01"} 1017
restcache_invalidation_latency_seconds_bucket{le="0.025"} 1104
restcache_invalidation_latency_seconds_bucket{le="0.05"} 1146
restcache_invalidation_latency_seconds_bucket{le="0.1"} 1175
restcache_invalidation_latency_seconds_bucket{le="0.25"} 1197
restcache_invalidation_latency_seconds_bucket{le="0.5"} 1200
restcache_invalidation_latency_seconds_bucket{le="1"} 1200
restcache_invalidation_latency_seconds_bucket{le="2.5"} 1200
restcache_invalidation_latency_seconds_bucket{le="5"} 1200
restcache_invalidation_latency_seconds_bucket{le="10"} 1200
restcache_invalidation_latency_seconds_bucket{le="+Inf"} 1200
restcache_invalidation_latency_seconds_sum 13.4074
restcache_invalidation_latency_seconds_count 1200
# HELP restcache_serving_stale_since_seconds Unix time of the first stale-if-error answer since the listener was last caught up; 0: none.
# TYPE restcache_serving_stale_since_seconds gauge
restcache_serving_stale_since_seconds 0
# HELP restcache_http_requests_total HTTP requests answered, by route and status (HEAD counts as GET).
# TYPE restcache_http_requests_total counter
restcache_http_requests_total{method="GET",route="/deptemps/{id}",status="200"} 113519
restcache_http_requests_total{method="GET",route="/deptemps/{id}",status="404"} 286
restcache_http_requests_total{method="GET",route="/depts/emps/{id}",status="200"} 187
restcache_http_requests_total{method="GET",route="/depts/emps/{id}",status="404"} 122
restcache_http_requests_total{method="GET",route="/health",status="200"} 64
restcache_http_requests_total{method="GET",route="/ready",status="200"} 65
restcache_http_requests_total{method="GET",route="/metrics",status="200"} 154
# HELP restcache_http_request_duration_seconds From a request read to its response handed to the socket, by route.
# TYPE restcache_http_request_duration_seconds histogram
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="5e-05"} 97109
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.0001"} 102154
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.00025"} 104036
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.0005"} 106139
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.001"} 108782
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.0025"} 111636
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.005"} 112868
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.01"} 113464
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.025"} 113644
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.05"} 113689
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.1"} 113711
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.25"} 113805
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="0.5"} 113805
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="1"} 113805
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="2.5"} 113805
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="10"} 113805
restcache_http_request_duration_seconds_bucket{method="GET",route="/deptemps/{id}",le="+Inf"} 113805
restcache_http_request_duration_seconds_sum{method="GET",route="/deptemps/{id}"} 33.5349
restcache_http_request_duration_seconds_count{method="GET",route="/deptemps/{id}"} 113805
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="5e-05"} 37
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.0001"} 39
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.00025"} 58
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.0005"} 110
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.001"} 167
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.0025"} 202
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.005"} 216
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.01"} 223
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.025"} 229
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.05"} 233
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.1"} 239
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.25"} 309
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="0.5"} 309
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="1"} 309
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="2.5"} 309
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="10"} 309
restcache_http_request_duration_seconds_bucket{method="GET",route="/depts/emps/{id}",le="+Inf"} 309
restcache_http_request_duration_seconds_sum{method="GET",route="/depts/emps/{id}"} 8.24069
restcache_http_request_duration_seconds_count{method="GET",route="/depts/emps/{id}"} 309
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="5e-05"} 64
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="0.0001"} 64
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="0.00025"} 64
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="0.0005"} 64
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="0.001"} 64
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="0.0025"} 64
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="0.005"} 64
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="0.01"} 64
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="0.025"} 64
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="0.05"} 64
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="0.1"} 64
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="0.25"} 64
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="0.5"} 64
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="1"} 64
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="2.5"} 64
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="10"} 64
restcache_http_request_duration_seconds_bucket{method="GET",route="/health",le="+Inf"} 64
restcache_http_request_duration_seconds_sum{method="GET",route="/health"} 0.000303
restcache_http_request_duration_seconds_count{method="GET",route="/health"} 64
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="5e-05"} 63
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="0.0001"} 64
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="0.00025"} 65
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="0.0005"} 65
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="0.001"} 65
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="0.0025"} 65
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="0.005"} 65
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="0.01"} 65
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="0.025"} 65
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="0.05"} 65
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="0.1"} 65
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="0.25"} 65
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="0.5"} 65
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="1"} 65
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="2.5"} 65
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="10"} 65
restcache_http_request_duration_seconds_bucket{method="GET",route="/ready",le="+Inf"} 65
restcache_http_request_duration_seconds_sum{method="GET",route="/ready"} 0.00091
restcache_http_request_duration_seconds_count{method="GET",route="/ready"} 65
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="5e-05"} 0
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="0.0001"} 0
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="0.00025"} 0
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="0.0005"} 141
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="0.001"} 147
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="0.0025"} 154
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="0.005"} 154
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="0.01"} 154
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="0.025"} 154
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="0.05"} 154
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="0.1"} 154
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="0.25"} 154
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="0.5"} 154
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="1"} 154
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="2.5"} 154
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="10"} 154
restcache_http_request_duration_seconds_bucket{method="GET",route="/metrics",le="+Inf"} 154
restcache_http_request_duration_seconds_sum{method="GET",route="/metrics"} 0.06346
restcache_http_request_duration_seconds_count{method="GET",route="/metrics"} 154
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
restcache_http_connections_accepted_total 314
# HELP restcache_http_connections_rejected_total Connections over max_connections, answered 503.
# TYPE restcache_http_connections_rejected_total counter
restcache_http_connections_rejected_total 0
# HELP restcache_http_connections_open Connections currently open.
# TYPE restcache_http_connections_open gauge
restcache_http_connections_open 18
# HELP restcache_db_queries_total Statements (jobs) run on pooled connections.
# TYPE restcache_db_queries_total counter
restcache_db_queries_total{pool="fill"} 157
restcache_db_queries_total{pool="write"} 0
restcache_db_queries_total{pool="replica-0"} 10993
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
restcache_db_query_duration_seconds_bucket{pool="fill",le="0.0005"} 97
restcache_db_query_duration_seconds_bucket{pool="fill",le="0.001"} 114
restcache_db_query_duration_seconds_bucket{pool="fill",le="0.002"} 134
restcache_db_query_duration_seconds_bucket{pool="fill",le="0.005"} 146
restcache_db_query_duration_seconds_bucket{pool="fill",le="0.01"} 149
restcache_db_query_duration_seconds_bucket{pool="fill",le="0.025"} 153
restcache_db_query_duration_seconds_bucket{pool="fill",le="0.05"} 155
restcache_db_query_duration_seconds_bucket{pool="fill",le="0.1"} 157
restcache_db_query_duration_seconds_bucket{pool="fill",le="0.25"} 157
restcache_db_query_duration_seconds_bucket{pool="fill",le="0.5"} 157
restcache_db_query_duration_seconds_bucket{pool="fill",le="1"} 157
restcache_db_query_duration_seconds_bucket{pool="fill",le="2.5"} 157
restcache_db_query_duration_seconds_bucket{pool="fill",le="5"} 157
restcache_db_query_duration_seconds_bucket{pool="fill",le="10"} 157
restcache_db_query_duration_seconds_bucket{pool="fill",le="+Inf"} 157
restcache_db_query_duration_seconds_sum{pool="fill"} 0.378845
restcache_db_query_duration_seconds_count{pool="fill"} 157
restcache_db_query_duration_seconds_bucket{pool="write",le="0.0005"} 0
restcache_db_query_duration_seconds_bucket{pool="write",le="0.001"} 0
restcache_db_query_duration_seconds_bucket{pool="write",le="0.002"} 0
restcache_db_query_duration_seconds_bucket{pool="write",le="0.005"} 0
restcache_db_query_duration_seconds_bucket{pool="write",le="0.01"} 0
restcache_db_query_duration_seconds_bucket{pool="write",le="0.025"} 0
restcache_db_query_duration_seconds_bucket{pool="write",le="0.05"} 0
restcache_db_query_duration_seconds_bucket{pool="write",le="0.1"} 0
restcache_db_query_duration_seconds_bucket{pool="write",le="0.25"} 0
restcache_db_query_duration_seconds_bucket{pool="write",le="0.5"} 0
restcache_db_query_duration_seconds_bucket{pool="write",le="1"} 0
restcache_db_query_duration_seconds_bucket{pool="write",le="2.5"} 0
restcache_db_query_duration_seconds_bucket{pool="write",le="5"} 0
restcache_db_query_duration_seconds_bucket{pool="write",le="10"} 0
restcache_db_query_duration_seconds_bucket{pool="write",le="+Inf"} 0
restcache_db_query_duration_seconds_sum{pool="write"} 0
restcache_db_query_duration_seconds_count{pool="write"} 0
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="0.0005"} 15974
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="0.001"} 18886
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="0.002"} 20470
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="0.005"} 21483
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="0.01"} 21769
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="0.025"} 21945
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="0.05"} 21974
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="0.1"} 21986
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="0.25"} 21986
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="0.5"} 21986
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="1"} 21986
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="2.5"} 21986
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="5"} 21986
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="10"} 21986
restcache_db_query_duration_seconds_bucket{pool="replica-0",le="+Inf"} 21986
restcache_db_query_duration_seconds_sum{pool="replica-0"} 17.0692
restcache_db_query_duration_seconds_count{pool="replica-0"} 21986
# HELP restcache_replica_up 1 while the standby answers its monitor.
# TYPE restcache_replica_up gauge
restcache_replica_up{replica="0"} 1
# HELP restcache_replica_usable 1 while fills read from the standby (up, within db.replica-max-lag-ms).
# TYPE restcache_replica_usable gauge
restcache_replica_usable{replica="0"} 1
# HELP restcache_replica_lag_seconds Time since the standby's last replayed commit while received WAL waits to be replayed; 0 when none waits.
# TYPE restcache_replica_lag_seconds gauge
restcache_replica_lag_seconds{replica="0"} 2.008
# HELP restcache_replica_replay_lsn The WAL position the standby has replayed, as a number.
# TYPE restcache_replica_replay_lsn gauge
restcache_replica_replay_lsn{replica="0"} 187310624
# HELP restcache_replica_fills_total Document reads sent to a standby (retries included).
# TYPE restcache_replica_fills_total counter
restcache_replica_fills_total 10993
# HELP restcache_replica_fills_behind_total Standby answers read before the standby had replayed the key's last change: not used.
# TYPE restcache_replica_fills_behind_total counter
restcache_replica_fills_behind_total 1572
# HELP restcache_replica_fills_to_primary_total Fills that gave up on the standbys (behind past db.replica-wait-ms, or unreachable) and read db.dsn.
# TYPE restcache_replica_fills_to_primary_total counter
restcache_replica_fills_to_primary_total 154
# HELP restcache_replica_keys_waiting Keys whose last change some standby may not have replayed yet.
# TYPE restcache_replica_keys_waiting gauge
restcache_replica_keys_waiting 82
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
process_cpu_seconds_total 5.83
# HELP process_start_time_seconds Start time since the epoch.
# TYPE process_start_time_seconds gauge
process_start_time_seconds 1.79623e+09
# HELP process_resident_memory_bytes Resident memory size.
# TYPE process_resident_memory_bytes gauge
process_resident_memory_bytes 37597184
# HELP process_open_fds Open file descriptors.
# TYPE process_open_fds gauge
process_open_fds 54
# HELP process_max_fds The open-file limit (soft).
# TYPE process_max_fds gauge
process_max_fds 20000
