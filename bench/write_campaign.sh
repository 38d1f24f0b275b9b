#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Write campaign: write req/s and latency of the REST writes at
# concurrency 1..64 while a read load runs, and proof that every write's
# invalidation reached the daemon.
#
# One restcached (default tiered mode, cache.populate, a fresh LMDB directory)
# on the private bench cluster (var/bench-pg, port 54339, DEPTS x 10 loaded).
# For each series and each concurrency C, for DURATION:
#   wrk -t1 -cC --latency with a write script, and meanwhile
#   wrk -t1 -cREAD_CONNS GET /deptemps/{random id in 1..DEPTS} (the read load;
#   same machine: wrk x2, the daemon and PostgreSQL share the 2 cores).
# Series (SERIES, in this order):
#   random  PUT /depts/random (bench/write_random_dept.lua): a random department
#           rewritten with its own values: 1 dept key per write.
#   put     PUT /depts/{id} with a whole department document
#           (bench/write_put_dept.lua, DOCS documents fetched with GET
#           /deptemps/{id} before the series), one employee's salary changed
#           per write: dept row + one emp row, 3 keys per write.
#   emps    POST /depts/emps and DELETE /depts/emps/{id} in pairs
#           (bench/write_emp_pairs.lua; new empNo above 1,000,000,000, each
#           deleted once its POST was answered; the few left at the end deleted
#           through SQL between points): 2 keys per write. A DELETE
#           of an employee scans emp: emp.mgr REFERENCES emp ON DELETE SET NULL
#           and emp(mgr) has no index, so these run at the database's pace.
# Per point: write req/s, p50/p99, non-2xx, the statuses, the read load's req/s
# and p99, and the invalidation check: change_log rows the writes' triggers
# inserted (keys logged: their keys, counted one by one)
# against restcache_listener_changes_read_total's increase (received),
# restcache_listener_invalidations_total's (keys dropped after coalescing: a
# dept change drops the deptemps and the dept document, an emp change the emp
# document too), the time after wrk ended until every logged key had been read
# and was applied (restcache_listener_applied_seq >= the last seq), and the
# invalidation latency p50/p99 of the point, estimated from the deltas of the
# restcache_invalidation_latency_seconds buckets (linear inside a bucket).
# wrk counts only the responses it read: writes still in flight when it stops
# commit too, so keys per write can exceed the exact figure by C/writes.
# After the campaign:
#   - sampled documents: SAMPLE departments written during the campaign, GET
#     /deptemps/{id} from the daemon byte-compared with a second restcached in
#     --cache.mode=none (every GET from PostgreSQL) on the same database;
#   - pgbench reference (PGBENCH=1): bench/write_rewrite_random.sql (the very
#     transaction PUT /depts/random runs) at the same concurrencies, -M
#     prepared, DURATION + PGBENCH_WARMUP (3) s of which the last DURATION s
#     of its transaction log count (no connection set-up and first
#     transactions), alone and then with the same read load, the daemon listening
#     (its logged keys checked too); the random series is quoted as a ratio
#     to each;
#   - restcache-freshness for FRESH_DURATION s (SQL writes, each affected
#     document read back through the daemon FRESH_DELAY_MS after COMMIT and
#     compared with PostgreSQL).
# Exits 1 when a point lost a logged key, a sampled document differs or the
# freshness check failed.
#
# Usage:
#   bench/write_campaign.sh [restcached options...]
#     DEPTS=100000 DURATION=10 CONCURRENCY="1 2 4 8 16 32 64" SERIES="random put emps"
#     READ_CONNS=16 (0: no read load at all; the read columns show "-", pgbench runs alone only)
#     DOCS=2000 SAMPLE=200 PGBENCH=1 FRESH_DURATION=0 FRESH_DELAY_MS=1000
#     SETTLE_MAX=30 (s to wait for the logged keys to be read after a point)
#     WRK_TIMEOUT=30s (the write wrk's --timeout: a slower write is a socket error, not in the percentiles)
#     PGBENCH_WARMUP=3 (s of each pgbench run not counted)
#   a quick check:  BENCH_NO_BUILD=1 DEPTS=10000 DURATION=3 CONCURRENCY="1 8" bench/write_campaign.sh
#   more write connections (default db.write-pool-size=2): bench/write_campaign.sh --db.write-pool-size=8
# Like the other bench/ scripts: installs wrk if missing, builds build/release
# (BENCH_NO_BUILD=1 uses the binaries there as they are; BENCH_BIN elsewhere),
# starts the private cluster and loads DEPTS x 10 if it holds fewer. Ports
# 18380 (the daemon) and 18381 (the pass-through daemon). Logs and wrk outputs
# stay in var/bench/writes-<yyyymmdd-hhmmss>/ (printed at the end).
set -euo pipefail
case "${1:-}" in -h|--help) sed -n '3,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;; esac
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

depts="${DEPTS:-100000}"
secs="${DURATION:-10}"
secs="${secs%s}"
concurrency="${CONCURRENCY:-1 2 4 8 16 32 64}"
series_list="${SERIES:-random put emps}"
read_conns="${READ_CONNS:-16}"
ndocs="${DOCS:-2000}"
sample="${SAMPLE:-200}"
pgbench_on="${PGBENCH:-1}"
# Off by default: restcache-freshness inserts and deletes departments, which
# would leave holes in the shared bench database that throughput.sh and
# lmdb_tier.sh then count as 404s (test/system/freshness has its own cluster).
fresh_duration="${FRESH_DURATION:-0}"
fresh_delay_ms="${FRESH_DELAY_MS:-1000}"
pg_warmup="${PGBENCH_WARMUP:-3}"
settle_max="${SETTLE_MAX:-30}"
wrk_timeout="${WRK_TIMEOUT:-30s}"
daemon_args=("$@")
port=18380
ref_port=18381
emp_base0=1000000000
if [ "${read_conns:-x}" = 0 ]; then
  read_desc="no read load (READ_CONNS=0)"
  pg_loads="alone"
else
  read_desc="read load wrk -t1 -c$read_conns GET /deptemps/{random id in 1..$depts} at the same time"
  pg_loads="alone reads"
fi
case "$depts$secs$read_conns$ndocs$sample$fresh_duration$settle_max" in
  *[!0-9]*) echo "write_campaign: DEPTS, DURATION, READ_CONNS, DOCS, SAMPLE, FRESH_DURATION, SETTLE_MAX take numbers" >&2; exit 2 ;;
esac
for s in $series_list; do
  case $s in random|put|emps) ;; *) echo "write_campaign: unknown series '$s' (random put emps)" >&2; exit 2 ;; esac
done

BENCH_LOG_DIR="$(bench_out_dir writes)"
lmdb_dir="$BENCH_LOG_DIR/lmdb"
REF_PID=""
READ_PID=""
cleanup() {
  if [ -n "$READ_PID" ]; then kill "$READ_PID" 2>/dev/null || true; wait "$READ_PID" 2>/dev/null || true; fi
  if [ -n "$REF_PID" ] && kill -0 "$REF_PID" 2>/dev/null; then kill -TERM "$REF_PID"; wait "$REF_PID" 2>/dev/null || true; fi
  bench_stop_daemon
  bench_stop_cluster || true
  rm -rf "$lmdb_dir"
  echo "logs: $BENCH_LOG_DIR"
}
trap cleanup EXIT

start_load="$(machine_load)"
echo "at start: $start_load"
bench_setup "$depts"
[ -x "$PG_CLUSTER_BIN/pgbench" ] || { echo "write_campaign: $PG_CLUSTER_BIN/pgbench missing" >&2; exit 1; }
[ -x "$BENCH_BIN/restcache-freshness" ] || { echo "write_campaign: $BENCH_BIN/restcache-freshness missing" >&2; exit 1; }

# Employees of an earlier, interrupted emps series.
bench_psql "DELETE FROM emp WHERE empno > $emp_base0" >/dev/null

lmdb_bytes=$(( depts * 8192 > (1 << 30) ? depts * 8192 : (1 << 30) ))
bench_start_daemon "$port" --cache.populate --lmdb.path="$lmdb_dir" --lmdb.max-bytes="$lmdb_bytes" \
  "${daemon_args[@]}"
echo "waiting for cache.populate ..."
for _ in $(seq 1 1800); do
  grep -q "cache.populate: done" "$BENCH_LOG_DIR/restcached.log" && break
  sleep 1
done
grep -q "cache.populate: done" "$BENCH_LOG_DIR/restcached.log" || { echo "cache.populate did not finish" >&2; exit 1; }
for _ in $(seq 1 100); do curl -sf -o /dev/null "127.0.0.1:$port/ready" && break; sleep 0.1; done
echo "cached: $(metric $port restcache_cache_entries) documents of $(metric $port restcache_dept_ids) departments"

# ---- helpers -----------------------------------------------------------------------
last_seq() { bench_psql "SELECT coalesce(max(seq), 0) FROM change_log"; }
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
hz=$(getconf CLK_TCK)

# wait_applied SEQ: until the daemon applied every change up to SEQ (or
# SETTLE_MAX s); prints the seconds waited.
wait_applied() {
  local want="$1" t0 i
  t0=$(date +%s.%N)
  for i in $(seq 1 $(( settle_max * 10 ))); do
    [ "$(metric $port restcache_listener_applied_seq)" -ge "$want" ] && break
    sleep 0.1
  done
  awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN {printf "%.1f", b - a}'
}

# wait_stable NAME: until the metric holds still over 0.3 s (at most SETTLE_MAX s).
wait_stable() {
  local last=-1 now i
  for i in $(seq 1 $(( settle_max * 10 / 3 ))); do
    now=$(metric $port "$1")
    [ "$now" -eq "$last" ] && return 0
    last=$now
    sleep 0.3
  done
}

# statuses_2xx / statuses_other < "statuses: 200=N 404=M" line
statuses_2xx() { awk '/^statuses:/ { for (i = 2; i <= NF; i++) { split($i, a, "="); if (a[1] ~ /^2/) s += a[2] } } END { print s + 0 }'; }

rows=()        # Markdown rows of the campaign table
expect_seq=""  # the last change_log seq written by this script, once there is one
failures=0
declare -A random_rps

# run_point SERIES C IDX: one point; appends a row to rows.
run_point() {
  local series="$1" c="$2" idx="$3" script tag seq0 n0 i0 s0 q0 t0 t1 wt0 seq1 settle
  tag="$series-c$c"
  case $series in
    random) script="$RESTCACHE_ROOT/bench/write_random_dept.lua" ;;
    put) script="$RESTCACHE_ROOT/bench/write_put_dept.lua" ;;
    emps) script="$RESTCACHE_ROOT/bench/write_emp_pairs.lua" ;;
  esac
  local emp_base=$(( emp_base0 + idx * 10000000 ))

  # Baseline: nothing in flight.
  [ -z "$expect_seq" ] || wait_applied "$expect_seq" >/dev/null
  seq0=$(last_seq)
  wait_stable restcache_listener_invalidations_total
  n0=$(metric $port restcache_listener_changes_read_total)
  i0=$(metric $port restcache_listener_invalidations_total)
  s0=$(metric $port restcache_cache_invalidations_total)
  q0=$(metric $port restcache_db_queries_total)
  metric_buckets $port restcache_invalidation_latency_seconds >"$BENCH_LOG_DIR/buckets-$tag.before"
  t0=$(cpu_ticks "$DAEMON_PID")

  if [ "$read_conns" -gt 0 ]; then
    wrk_random "$port" "${secs}s" "$read_conns" "$depts" --latency >"$BENCH_LOG_DIR/read-$tag.txt" &
    READ_PID=$!
  else
    : >"$BENCH_LOG_DIR/read-$tag.txt"
  fi
  WRITE_DOCS="$BENCH_LOG_DIR/docs.jsonl" EMP_BASE="$emp_base" DEPTS="$depts" \
    wrk -t1 -c"$c" -d"${secs}s" --timeout "$wrk_timeout" --latency -s "$script" "http://127.0.0.1:$port/" >"$BENCH_LOG_DIR/write-$tag.txt"
  [ -z "$READ_PID" ] || wait "$READ_PID" || true
  READ_PID=""
  t1=$(cpu_ticks "$DAEMON_PID")

  # Every logged key read: the writes still in flight when wrk stopped commit
  # within milliseconds; then the daemon has applied up to the last seq.
  sleep 0.5
  seq1=$(last_seq)
  settle="-"
  if [ "$seq1" -gt "$seq0" ]; then settle=$(wait_applied "$seq1"); expect_seq=$seq1; fi
  wait_stable restcache_listener_changes_read_total
  wait_stable restcache_listener_invalidations_total
  local sent recv inv shard_inv queries
  sent=$(bench_psql "SELECT coalesce(sum(cardinality(keys)), 0) FROM change_log WHERE seq > $seq0")
  recv=$(( $(metric $port restcache_listener_changes_read_total) - n0 ))
  inv=$(( $(metric $port restcache_listener_invalidations_total) - i0 ))
  shard_inv=$(( $(metric $port restcache_cache_invalidations_total) - s0 ))
  queries=$(( $(metric $port restcache_db_queries_total) - q0 ))
  metric_buckets $port restcache_invalidation_latency_seconds >"$BENCH_LOG_DIR/buckets-$tag.after"

  local w="$BENCH_LOG_DIR/write-$tag.txt" r="$BENCH_LOG_DIR/read-$tag.txt"
  local wrps wp50 wp99 non2xx sockerr ok statuses rrps rp99 ip50 ip99 cpu per arrived
  wrps=$(awk '/Requests\/sec/ {print int($2)}' "$w")
  wp50=$(wrk_latency_ms 50% <"$w")
  wp99=$(wrk_latency_ms 99% <"$w")
  non2xx=$(awk '/Non-2xx or 3xx responses/ {n += $5} END {print n + 0}' "$w")
  sockerr=$(awk '/Socket errors/ {gsub(",", ""); n += $4 + $6 + $8 + $10} END {print n + 0}' "$w")
  ok=$(statuses_2xx <"$w")
  statuses=$(sed -n 's/^statuses: //p' "$w")
  rrps=$(awk '/Requests\/sec/ {print int($2)}' "$r")
  rp99=$(wrk_latency_ms 99% <"$r")
  if [ "$read_conns" -eq 0 ]; then rrps="-"; rp99="-"; fi
  ip50=$(histogram_quantile 0.5 "$BENCH_LOG_DIR/buckets-$tag.before" "$BENCH_LOG_DIR/buckets-$tag.after")
  ip99=$(histogram_quantile 0.99 "$BENCH_LOG_DIR/buckets-$tag.before" "$BENCH_LOG_DIR/buckets-$tag.after")
  cpu=$(awk -v t=$((t1 - t0)) -v hz="$hz" -v d="$secs" 'BEGIN {printf "%.0f%%", 100 * t / hz / d}')
  per=$(awk -v s="$sent" -v w="$ok" 'BEGIN {if (w > 0) printf "%.2f", s / w; else print "-"}')
  if [ "$recv" -eq "$sent" ] && [ "$sent" -gt 0 ]; then arrived=yes; else arrived="NO"; failures=$((failures + 1)); fi
  [ "$series" = random ] && random_rps[$c]=$wrps
  rows+=("| $series | $c | $wrps | $wp50 | $wp99 | $non2xx | $sockerr | $ok | $sent | $recv | $per | $inv | $shard_inv | $ip50 | $ip99 | $settle | $arrived | $rrps | $rp99 | $queries | $cpu |")
  printf '%-6s C=%-3s write %6s req/s p50 %7s ms p99 %7s ms non-2xx %s socket errors %s [%s] | keys logged %s read %s (%s/write) invalidations %s, latency p50 %s p99 %s ms, settled %s s | reads %s req/s p99 %s ms | daemon cpu %s\n' \
    "$series" "$c" "$wrps" "$wp50" "$wp99" "$non2xx" "$sockerr" "$statuses" "$sent" "$recv" "$per" "$inv" "$ip50" "$ip99" "$settle" "$rrps" "$rp99" "$cpu"

  grep '^non-2xx:' "$w" | sed 's/^/    /' || true
  if [ "$series" = emps ]; then
    # The employees left (created, not yet deleted): deleted before the next point's baseline.
    bench_psql "DELETE FROM emp WHERE empno > $emp_base0" >/dev/null
    expect_seq=$(last_seq)
  fi
}

# ---- the campaign ------------------------------------------------------------------
campaign_seq0=$(last_seq)
metric_buckets $port restcache_invalidation_latency_seconds >"$BENCH_LOG_DIR/buckets-start"
echo
echo "write campaign: ${secs}s per point, concurrency $concurrency, series $series_list;" \
     "$read_desc; restcached ${daemon_args[*]:-(defaults)}"
idx=0
for series in $series_list; do
  if [ "$series" = put ]; then
    # Documents to PUT back (changed): fetched from the daemon, one per line.
    shuf -i "1-$depts" -n "$ndocs" | sed "s|^|http://127.0.0.1:$port/deptemps/|" >"$BENCH_LOG_DIR/docs.urls"
    xargs curl -s -w '\n' <"$BENCH_LOG_DIR/docs.urls" | grep '^{"deptNumber":' >"$BENCH_LOG_DIR/docs.jsonl" || true
    echo "put: $(wc -l <"$BENCH_LOG_DIR/docs.jsonl") documents fetched to PUT back"
    [ -s "$BENCH_LOG_DIR/docs.jsonl" ] || { echo "write_campaign: no documents fetched" >&2; exit 1; }
  fi
  for c in $concurrency; do
    run_point "$series" "$c" "$idx"
    idx=$((idx + 1))
  done
done
[ -z "$expect_seq" ] || wait_applied "$expect_seq" >/dev/null
# The campaign's latency: the sum of the points' deltas (the SQL clean-ups of
# the emps series in between are left out: one DELETE of hundreds of rows).
sum_buckets() { awk '{ if (!($1 in s)) o[++n] = $1; s[$1] += $2 } END { for (i = 1; i <= n; i++) print o[i], s[o[i]] }' "$@"; }
sum_buckets "$BENCH_LOG_DIR"/buckets-*-c*.before >"$BENCH_LOG_DIR/buckets-campaign.before"
sum_buckets "$BENCH_LOG_DIR"/buckets-*-c*.after >"$BENCH_LOG_DIR/buckets-campaign.after"

# ---- sampled documents against PostgreSQL (a pass-through daemon) -----------------------
sample_line="(skipped: SAMPLE=0)"
if [ "$sample" -gt 0 ]; then
  "$BENCH_BIN/restcached" --db.dsn="$BENCH_DSN" --http.port="$ref_port" --cache.mode=none \
    >"$BENCH_LOG_DIR/ref.out" 2>"$BENCH_LOG_DIR/ref.log" &
  REF_PID=$!
  for _ in $(seq 1 300); do
    curl -sf -o /dev/null "127.0.0.1:$ref_port/ready" && break
    kill -0 "$REF_PID" 2>/dev/null || break
    sleep 0.1
  done
  bench_psql "SELECT id FROM (SELECT DISTINCT substr(k, 6)::int AS id FROM change_log, unnest(keys) AS k WHERE k LIKE 'dept:%' AND seq > $campaign_seq0) t
              ORDER BY random() LIMIT $sample" >"$BENCH_LOG_DIR/sample.ids"
  sed "s|^|http://127.0.0.1:$port/deptemps/|" "$BENCH_LOG_DIR/sample.ids" | xargs curl -s -w '\n' >"$BENCH_LOG_DIR/sample.cached"
  sed "s|^|http://127.0.0.1:$ref_port/deptemps/|" "$BENCH_LOG_DIR/sample.ids" | xargs curl -s -w '\n' >"$BENCH_LOG_DIR/sample.db"
  kill -TERM "$REF_PID"; wait "$REF_PID" 2>/dev/null || true; REF_PID=""
  n_sample=$(wc -l <"$BENCH_LOG_DIR/sample.ids")
  differ=$(paste -d '\n' "$BENCH_LOG_DIR/sample.cached" "$BENCH_LOG_DIR/sample.db" | awk 'NR % 2 == 1 {a = $0; next} a != $0 {n++} END {print n + 0}')
  [ "$differ" -eq 0 ] || failures=$((failures + 1))
  sample_line="$n_sample departments written during the campaign: $differ differ from PostgreSQL (restcached --cache.mode=none)"
fi

# ---- pgbench reference -----------------------------------------------------------------
# Each concurrency twice: pgbench alone (the database's limit on this machine),
# then with the same read load as the campaign (what the daemon's figures had
# to share the cores with). The daemon keeps listening and invalidating.
pg_rows=()
if [ "$pgbench_on" = 1 ]; then
  echo
  echo "pgbench reference: bench/write_rewrite_random.sql, -M prepared, ${pg_warmup}s + ${secs}s per point (the last ${secs}s counted), alone and with the read load, the daemon listening"
  for c in $concurrency; do
    for load in $pg_loads; do
      [ -z "$expect_seq" ] || wait_applied "$expect_seq" >/dev/null
      seq0=$(last_seq)
      n0=$(metric $port restcache_listener_changes_read_total)
      j=$(( c < 2 ? c : 2 ))
      prefix="$BENCH_LOG_DIR/pgbench-$load-c$c"
      rrps="-"
      if [ "$load" = reads ]; then
        wrk_random "$port" "$(( secs + pg_warmup ))s" "$read_conns" "$depts" >"$prefix.read.txt" &
        READ_PID=$!
      fi
      "$PG_CLUSTER_BIN/pgbench" -n -M prepared -c "$c" -j "$j" -T "$(( secs + pg_warmup ))" -l --log-prefix="$prefix" \
        -f "$RESTCACHE_ROOT/bench/write_rewrite_random.sql" "$BENCH_DSN" >"$prefix.txt" 2>&1 || true
      if [ "$load" = reads ]; then
        wait "$READ_PID" || true
        READ_PID=""
        rrps=$(awk '/Requests\/sec/ {print int($2)}' "$prefix.read.txt")
      fi
      failed=$(awk -F': ' '/number of failed transactions/ {split($2, a, " "); print a[1]}' "$prefix.txt")
      # The last DURATION s of the per-transaction log (fields: client, number,
      # latency us, script, end time s, end time us): tps and latency without
      # the connections and first transactions of the warm-up.
      lat=$(cat "$prefix".[0-9]* 2>/dev/null | awk -v d="$secs" '
              { t[NR] = $5 + $6 / 1e6; l[NR] = $3 / 1000; if (t[NR] > tmax) tmax = t[NR] }
              END { for (i = 1; i <= NR; i++) if (t[i] > tmax - d) print l[i] }' | sort -n | awk -v d="$secs" '{v[NR] = $1} END {
              if (NR == 0) { print "- - -"; exit }
              i50 = int(NR * 0.5); if (i50 < 1) i50 = 1; i99 = int(NR * 0.99); if (i99 < 1) i99 = 1
              printf "%d %.2f %.2f\n", NR / d, v[i50], v[i99] }')
      rm -f "$prefix".[0-9]*
      sleep 0.5
      seq1=$(last_seq)
      if [ "$seq1" -gt "$seq0" ]; then wait_applied "$seq1" >/dev/null; expect_seq=$seq1; fi
      wait_stable restcache_listener_changes_read_total
      sent=$(bench_psql "SELECT coalesce(sum(cardinality(keys)), 0) FROM change_log WHERE seq > $seq0")
      recv=$(( $(metric $port restcache_listener_changes_read_total) - n0 ))
      [ "$recv" -eq "$sent" ] || failures=$((failures + 1))
      rr="${random_rps[$c]:-}"
      set -- $lat
      tps=$1
      shift
      ratio=$(awk -v r="$rr" -v p="$tps" 'BEGIN {if (r != "" && p + 0 > 0) printf "%.2f", r / p; else print "-"}')
      pg_rows+=("| $c | $load | ${tps:--} | $1 | $2 | ${failed:-?} | $rrps | $sent | $recv | ${rr:--} | $ratio |")
      echo "pgbench C=$c $load: ${tps:-?} tps, p50 $1 ms p99 $2 ms, failed ${failed:-?}, reads $rrps req/s; keys logged $sent read $recv"
    done
  done
fi

# ---- freshness -------------------------------------------------------------------------
fresh_line="(skipped: FRESH_DURATION=0)"
if [ "$fresh_duration" -gt 0 ]; then
  echo
  echo "freshness: restcache-freshness ${fresh_duration}s, 20 writes/s, checked ${fresh_delay_ms} ms after COMMIT ..."
  rc=0
  "$BENCH_BIN/restcache-freshness" --dsn "$BENCH_DSN" --url "http://127.0.0.1:$port" --duration "$fresh_duration" \
    --writes-per-second 20 --read-delay-ms "$fresh_delay_ms" --readers 2 --reads-per-second 500 --json -q \
    >"$BENCH_LOG_DIR/freshness.out" 2>"$BENCH_LOG_DIR/freshness.err" || rc=$?
  json=$(grep '^{' "$BENCH_LOG_DIR/freshness.out" | tail -1)
  field() { printf '%s' "$json" | sed -n "s/.*\"$1\":\([0-9.]*\).*/\1/p"; }
  [ "$rc" -eq 0 ] || failures=$((failures + 1))
  fresh_line="$(field writes) writes, $(field checked) documents checked, $(field stale) stale, $(field errors) errors;"
  fresh_line+=" change visible after p50 $(field latency_p50_ms) ms, p99 $(field latency_p99_ms) ms ($( [ "$rc" -eq 0 ] && echo PASS || echo "FAIL, exit $rc"))"
fi

# ---- report ----------------------------------------------------------------------------
metric_buckets $port restcache_invalidation_latency_seconds >"$BENCH_LOG_DIR/buckets-end"
echo
echo "## Write campaign"
echo
echo "restcached ${daemon_args[*]:-(defaults: tiered, db.write-pool-size=2)}, cache.populate; $depts departments x 10;" \
     "${secs}s per point, wrk -t1 -cC --timeout $wrk_timeout --latency; $read_desc."
echo "At start: $start_load. After: $(machine_load). Everything on one machine (2 cores: 2 wrk, restcached, PostgreSQL)."
echo
echo "| series | C | write req/s | p50 ms | p99 ms | non-2xx | socket errors | 2xx writes | keys logged | read | sent/write | listener invalidations | shard invalidations | inval p50 ms | inval p99 ms | settled s | all arrived | read req/s | read p99 ms | db queries | daemon cpu |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
printf '%s\n' "${rows[@]}"
echo
echo "keys logged: the keys of the change_log rows the writes' triggers inserted; read: restcache_listener_changes_read_total;"
echo "expected per write: random 1, put 3 (dept + one emp: emp and dept keys), emps 2 (emp and dept). Shard invalidations count"
echo "the write's own (read-your-writes) application and the change log's. Settled: after wrk ended (+0.5 s), until applied."
echo
echo "Invalidation latency over the whole campaign (restcache_invalidation_latency_seconds):" \
     "p50 $(histogram_quantile 0.5 "$BENCH_LOG_DIR/buckets-campaign.before" "$BENCH_LOG_DIR/buckets-campaign.after") ms," \
     "p99 $(histogram_quantile 0.99 "$BENCH_LOG_DIR/buckets-campaign.before" "$BENCH_LOG_DIR/buckets-campaign.after") ms" \
     "over the points; before the campaign (daemon start to the first point):" \
     "p50 $(histogram_quantile 0.5 /dev/null "$BENCH_LOG_DIR/buckets-start") ms," \
     "p99 $(histogram_quantile 0.99 /dev/null "$BENCH_LOG_DIR/buckets-start") ms;" \
     "whole run until after the freshness check: p50 $(histogram_quantile 0.5 /dev/null "$BENCH_LOG_DIR/buckets-end") ms," \
     "p99 $(histogram_quantile 0.99 /dev/null "$BENCH_LOG_DIR/buckets-end") ms"
echo
echo "Sampled documents: $sample_line"
if [ "${#pg_rows[@]}" -gt 0 ]; then
  echo
  echo "### pgbench reference (the PUT /depts/random transaction without HTTP; alone, and with the campaign's read load unless READ_CONNS=0)"
  echo
  echo "| C | pgbench | tps | p50 ms | p99 ms | failed | read req/s | keys logged | read | restcache PUT /depts/random req/s (this run) | restcache / pgbench |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|"
  printf '%s\n' "${pg_rows[@]}"
fi
echo
echo "Freshness after the campaign: $fresh_line"
warns=$(grep -ciE '\b(warn|warning|error|critical)\b' "$BENCH_LOG_DIR/restcached.log" || true)
echo "Daemon log: $warns warning/error lines$( [ "$warns" -gt 0 ] && printf ', first: %s' "$(grep -iE '\b(warn|warning|error|critical)\b' "$BENCH_LOG_DIR/restcached.log" | head -3 | tr '\n' ' ')")"
if [ "$failures" -eq 0 ]; then
  echo "write_campaign: every write's logged keys were read; sampled documents and freshness check fine"
else
  echo "write_campaign: $failures check(s) FAILED (see above)"
fi
[ "$failures" -eq 0 ]
