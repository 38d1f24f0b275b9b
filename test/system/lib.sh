# SPDX-License-Identifier: Apache-2.0
# The fixture layer of the system scenarios (test/system) and the load
# benchmarks (bench/, through bench/lib.sh): a private PostgreSQL cluster with
# benchmark data under var/bench-pg (scripts/lib/pg-cluster.sh, as the C++
# suites' clusters are made), restcached started and waited for, nginx, and the
# load tools' figures. Sourced, not executed.

source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib/common.sh"
source "$RESTCACHE_ROOT/scripts/lib/pg-cluster.sh"

BENCH_PG_PORT="${BENCH_PG_PORT:-54339}"
BENCH_BIN="${BENCH_BIN:-$RESTCACHE_ROOT/build/release}"

# bench_out_dir NAME [STAMP]: the default output folder of one bench run,
# var/bench/NAME-STAMP in the checkout (STAMP: yyyymmdd-hhmmss, default now;
# var/ is ignored by git, so run output never lands in a commit). Creates it
# (readable by everyone: nginx's workers read their document there) and prints
# its path. A script's --out DIR replaces it.
bench_out_dir() {
  local dir="$RESTCACHE_ROOT/var/bench/$1-${2:-$(date +%Y%m%d-%H%M%S)}"
  mkdir -p "$dir"
  chmod 755 "$dir"
  printf '%s\n' "$dir"
}

# bench_copy_database NAME: a fresh database NAME of the bench cluster copied
# from the bench database (its rows, restcache's schema), made while nothing is
# connected to that one; prints its DSN. After bench_setup.
bench_copy_database() {
  local admin="${BENCH_DSN/dbname=restcache/dbname=postgres}"
  psql "$admin" -qAtX -c "SET client_min_messages = warning" -c "DROP DATABASE IF EXISTS $1" >/dev/null
  psql "$admin" -qAtX -c "CREATE DATABASE $1 TEMPLATE restcache" >/dev/null
  printf '%s\n' "${BENCH_DSN/dbname=restcache/dbname=$1}"
}

# median: the median of the numbers on stdin, one a line ("-" for none).
median() {
  sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) { print "-"; exit }
                   if (NR % 2) print v[(NR + 1) / 2]; else printf "%.4g\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# bench_setup DEPTS: packages, Release build, cluster with DEPTS x 10 loaded.
# Sets BENCH_DSN. BENCH_NO_BUILD=1 uses the binaries already in BENCH_BIN.
bench_setup() {
  local depts="$1"
  ensure_packages wrk nginx-light apache2-utils
  [ "${BENCH_NO_BUILD:-0}" = 1 ] || build "$BENCH_BIN" Release
  local dir="$RESTCACHE_ROOT/var/bench-pg"
  mkdir -p "$RESTCACHE_ROOT/var"
  if [ "$(id -u)" -eq 0 ] && ! runuser -u postgres -- test -x "$RESTCACHE_ROOT/var" 2>/dev/null; then
    dir="/var/tmp/restcache-bench-pg-$(printf '%s' "$RESTCACHE_ROOT" | md5sum | cut -c1-12)"
  fi
  BENCH_PG_DIR="$dir"
  # BENCH_PG_OPTS: more server settings (bench/writecost: wal_level =
  # logical); a cluster left running with other settings is restarted.
  local opts="-c shared_buffers=1GB -c max_connections=300 ${BENCH_PG_OPTS:-}"
  PG_CLUSTER_EXTRA_OPTS="$opts" pg_cluster_init "$dir" "$BENCH_PG_PORT"
  if pg_cluster_running "$dir" && [ "$(cat "$dir/.bench_opts" 2>/dev/null)" != "$opts" ]; then
    pg_cluster_stop "$dir"
  fi
  PG_CLUSTER_EXTRA_OPTS="$opts" pg_cluster_start "$dir" "$BENCH_PG_PORT"
  printf '%s' "$opts" >"$dir/.bench_opts"
  BENCH_DSN="$(pg_cluster_dsn "$dir" "$BENCH_PG_PORT")"
  "$BENCH_BIN/restcache-load" --dsn "$BENCH_DSN" --depts "$depts" --emps-per-dept 10
  # Benches pick ids uniformly in 1..depts: a hole (a department deleted by a
  # freshness or write run) would count as a 404 error. Reload when the table
  # is not exactly 1..depts.
  local shape
  shape="$(psql "$BENCH_DSN" -qAt -c "SELECT count(*) = $depts AND min(deptno) = 1 AND max(deptno) = $depts FROM dept")"
  if [ "$shape" != t ]; then
    echo "bench: dept is not exactly 1..$depts; reloading" >&2
    psql "$BENCH_DSN" -q -c "TRUNCATE dept, emp CASCADE"
    "$BENCH_BIN/restcache-load" --dsn "$BENCH_DSN" --depts "$depts" --emps-per-dept 10
  fi
}

bench_stop_cluster() {
  [ -n "${BENCH_PG_DIR:-}" ] || return 0 # bench_setup did not get that far
  pg_cluster_stop "$BENCH_PG_DIR"
}

# bench_start_daemon PORT ARGS...: starts restcached in the background
# (log in $BENCH_LOG_DIR/restcached.log); sets DAEMON_PID.
bench_start_daemon() {
  local port="$1"
  shift
  "$BENCH_BIN/restcached" --db.dsn="$BENCH_DSN" --http.port="$port" "$@" \
    >"$BENCH_LOG_DIR/restcached.out" 2>"$BENCH_LOG_DIR/restcached.log" &
  DAEMON_PID=$!
  local i
  for i in $(seq 1 300); do
    grep -q "listening on" "$BENCH_LOG_DIR/restcached.out" 2>/dev/null && return 0
    kill -0 "$DAEMON_PID" 2>/dev/null || { cat "$BENCH_LOG_DIR/restcached.log" >&2; return 1; }
    sleep 0.1
  done
  echo "restcached did not start" >&2
  return 1
}

bench_stop_daemon() {
  if [ -n "${DAEMON_PID:-}" ] && kill -0 "$DAEMON_PID" 2>/dev/null; then
    kill -TERM "$DAEMON_PID"
    wait "$DAEMON_PID" 2>/dev/null || true
  fi
  DAEMON_PID=""
}

# metric PORT NAME [LABEL]: the sum of a metric's samples from /metrics; with
# LABEL (tier="lmdb"), only of the samples that have it.
metric() {
  curl -s "127.0.0.1:$1/metrics" | awk -v n="$2" -v l="${3:-}" \
    '($1 == n || index($1, n "{") == 1) && index($1, l) > 0 { s += $2 } END { printf "%d\n", s }'
}

# rss_kib PID: resident set size in KiB.
rss_kib() {
  awk '/VmRSS/ {print $2}' "/proc/$1/status"
}

machine_load() {
  printf 'load average %s (2 cores shared)\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
}

# bench_start_nginx PORT FILE: nginx (bench/nginx.conf.in; NGINX_WORKERS worker
# processes, default auto: one a core, as nginx is run), keep-alive, answering
# every GET /deptemps/{id} and GET /depts/random with the bytes of FILE (copied
# into $BENCH_LOG_DIR/www). Sets NGINX_PID_FILE and NGINX_WORKER_COUNT (the
# worker processes actually running); bench_stop_nginx stops it.
bench_start_nginx() {
  local port="$1" file="$2"
  mkdir -p "$BENCH_LOG_DIR/www"
  cp "$file" "$BENCH_LOG_DIR/www/doc.json"
  # For clients that accept gzip (gzip_static): the same bytes, compressed at
  # the level restcached uses.
  gzip -1 -n -c "$file" >"$BENCH_LOG_DIR/www/doc.json.gz"
  chmod 755 "$BENCH_LOG_DIR"
  chmod -R a+rX "$BENCH_LOG_DIR/www"
  NGINX_PID_FILE="$BENCH_LOG_DIR/nginx.pid"
  NGINX_WORKER_COUNT=0
  sed -e "s|@DIR@|$BENCH_LOG_DIR|g" -e "s|@PORT@|$port|g" -e "s|@WORKERS@|${NGINX_WORKERS:-auto}|g" \
    "$RESTCACHE_ROOT/bench/nginx.conf.in" >"$BENCH_LOG_DIR/nginx.conf"
  nginx -c "$BENCH_LOG_DIR/nginx.conf" -p "$BENCH_LOG_DIR"
  local i n last=-1
  for i in $(seq 1 50); do
    curl -sf -o /dev/null "127.0.0.1:$port/deptemps/1" && break
    sleep 0.1
  done
  curl -sf -o /dev/null "127.0.0.1:$port/deptemps/1" || { echo "nginx did not start" >&2; return 1; }
  # The master forks its workers at start: count them once the count holds still.
  for i in $(seq 1 20); do
    n=$(bench_nginx_workers)
    [ "$n" -gt 0 ] && [ "$n" -eq "$last" ] && break
    last=$n
    sleep 0.1
  done
  NGINX_WORKER_COUNT=$n
}

# bench_nginx_workers: how many worker processes the nginx of NGINX_PID_FILE
# runs (the master's children).
bench_nginx_workers() {
  if [ -n "${NGINX_PID_FILE:-}" ] && [ -s "$NGINX_PID_FILE" ]; then
    pgrep -P "$(cat "$NGINX_PID_FILE")" | wc -l
  else
    echo 0
  fi
}

# bench_stop_nginx: stops the nginx of NGINX_PID_FILE and waits (up to 5 s)
# until its master is gone, so the port is free for the next start.
bench_stop_nginx() {
  if [ -n "${NGINX_PID_FILE:-}" ] && [ -f "$NGINX_PID_FILE" ]; then
    local pid i
    pid=$(cat "$NGINX_PID_FILE" 2>/dev/null || true)
    if [ -n "$pid" ]; then
      kill "$pid" 2>/dev/null || true
      for i in $(seq 1 50); do
        # Gone, or a zombie nobody reaps (the master daemonized itself).
        case "$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null)" in ""|Z) break ;; esac
        sleep 0.1
      done
    fi
  fi
  NGINX_PID_FILE=""
}

# wrk_random PORT DURATION CONNS DEPTS [wrk options...]: wrk -t1 with
# bench/random_deptemps.lua (ids uniform in 1..DEPTS); prints wrk's output.
wrk_random() {
  local port="$1" duration="$2" conns="$3" depts="$4"
  shift 4
  DEPTS="$depts" wrk -t1 -c"$conns" -d"$duration" "$@" -s "$RESTCACHE_ROOT/bench/random_deptemps.lua" \
    "http://127.0.0.1:$port/"
}

# wrk_summary < wrk --latency output: "REQ_PER_S P99_MS ERRORS" (errors: socket
# errors plus non-2xx/3xx responses).
wrk_summary() {
  awk '
    function ms(v) {
      if (v ~ /us$/) return substr(v, 1, length(v) - 2) / 1000
      if (v ~ /ms$/) return substr(v, 1, length(v) - 2) + 0
      if (v ~ /s$/)  return substr(v, 1, length(v) - 1) * 1000
      return v + 0
    }
    /Requests\/sec/ { rps = int($2) }
    $1 == "99%" { p99 = ms($2) }
    /Socket errors/ { gsub(",", ""); err += $4 + $6 + $8 + $10 }
    /Non-2xx or 3xx responses/ { err += $5 }
    END { printf "%d %.2f %d\n", rps, p99, err }'
}

# rss_detail PID: "RSS KiB (anon KiB, file KiB)" from /proc/PID/status.
rss_detail() {
  awk '/^VmRSS/ {t = $2} /^RssAnon/ {a = $2} /^RssFile/ {f = $2}
       END { printf "%d KiB (anon %d, file %d)\n", t, a, f }' "/proc/$1/status"
}

# bench_psql SQL: runs SQL on the bench database (after bench_setup); rows
# unaligned, tuples only.
bench_psql() {
  "$PG_CLUSTER_BIN/psql" -X -q -A -t -v ON_ERROR_STOP=1 -d "$BENCH_DSN" -c "$1"
}

# wrk_latency_ms PCT < wrk --latency output: that percentile in ms ("50%", "99%").
wrk_latency_ms() {
  awk -v p="$1" '
    function ms(v) {
      if (v ~ /us$/) return substr(v, 1, length(v) - 2) / 1000
      if (v ~ /ms$/) return substr(v, 1, length(v) - 2) + 0
      if (v ~ /s$/)  return substr(v, 1, length(v) - 1) * 1000
      return v + 0
    }
    $1 == p { v = ms($2) } END { printf "%.2f\n", v }'
}

# metric_buckets PORT NAME: the cumulative buckets of a histogram from
# /metrics, one "LE COUNT" line each (LE +Inf last).
metric_buckets() {
  curl -s "127.0.0.1:$1/metrics" | awk -v n="$2_bucket" '
    index($1, n "{le=\"") == 1 { le = substr($1, length(n) + 6); sub(/"}$/, "", le); print le, $2 }'
}

# histogram_quantile Q BEFORE AFTER: the Q quantile (0..1) in ms of the
# observations made between two metric_buckets snapshots (files), linear
# within a bucket as Prometheus does; "-" without observations, ">X" when it
# falls in the +Inf bucket.
histogram_quantile() {
  awk -v q="$1" '
    FILENAME == ARGV[1] { before[$1] = $2; next }
    { le[++k] = $1; cum[k] = $2 - before[$1] }
    END {
      total = cum[k]
      if (total <= 0) { print "-"; exit }
      want = q * total; lo = 0; below = 0
      for (i = 1; i <= k; i++) {
        if (cum[i] >= want) {
          if (le[i] == "+Inf") { printf ">%g\n", lo * 1000; exit }
          in_b = cum[i] - below
          f = in_b > 0 ? (want - below) / in_b : 1
          printf "%.2f\n", (lo + (le[i] - lo) * f) * 1000; exit
        }
        lo = le[i]; below = cum[i]
      }
    }' "$2" "$3"
}

# bench_raise_nofile [WANT]: raises this shell's open-file limit (inherited by
# the daemons, nginx, ab and wrk it starts) to the hard limit; as root the hard
# limit is first raised to WANT (default 65536) when lower. Prints the limit.
bench_raise_nofile() {
  local want="${1:-65536}" hard
  hard=$(ulimit -Hn)
  if [ "$hard" != unlimited ] && [ "$hard" -lt "$want" ] && [ "$(id -u)" -eq 0 ]; then
    ulimit -Hn "$want" 2>/dev/null || true
    hard=$(ulimit -Hn)
  fi
  ulimit -Sn "$hard" 2>/dev/null || true
  ulimit -n
}

# bench_wait_populated PORT LOG [TIMEOUT_S]: after restcached started with
# --cache.populate (log file LOG): waits for "cache.populate: done", then until
# the memory tier's entry count holds still (the shards have taken every put)
# and, with an LMDB tier, the batch writer has nothing queued and its record
# count holds still or reached every department. Prints what is held.
bench_wait_populated() {
  local port="$1" log="$2" timeout="${3:-1800}" i last=-1 now still=0 queued records=0 ids
  for i in $(seq 1 "$timeout"); do
    grep -q "cache.populate: done" "$log" && break
    sleep 1
  done
  grep -q "cache.populate: done" "$log" || { echo "cache.populate did not finish in ${timeout}s" >&2; return 1; }
  for i in $(seq 1 600); do
    now=$(metric "$port" restcache_cache_entries)
    [ "$now" -eq "$last" ] && break
    last=$now
    sleep 1
  done
  ids=$(metric "$port" restcache_dept_ids)
  [ "$ids" -gt 0 ] || ids="" # a daemon serving a declaration file keeps no department ids
  last=-1
  local text
  text=$(curl -s "127.0.0.1:$port/metrics")
  if grep -q '^restcache_lmdb_records' <<<"$text"; then
    for i in $(seq 1 "$timeout"); do
      queued=$(( $(metric "$port" restcache_batch_queued) + $(metric "$port" restcache_batch_mailbox) ))
      records=$(metric "$port" restcache_lmdb_records)
      [ "$queued" -eq 0 ] && [ "$records" -ge "${ids:-0}" ] && break
      if [ "$queued" -eq 0 ] && [ "$records" -eq "$last" ]; then still=$((still + 1)); else still=0; fi
      [ "$still" -ge 3 ] && break
      last=$records
      sleep 1
    done
    echo "populated: $(metric "$port" restcache_cache_entries) documents in memory, $records in LMDB${ids:+, of $ids departments}"
  else
    echo "populated: $(metric "$port" restcache_cache_entries) documents in memory${ids:+ of $ids departments}"
  fi
}

# bench_wait_serving PORT: after bench_start_daemon (and bench_wait_populated):
# waits for /ready and for the daemon to have read the department ids
# (/depts/random answers 503 before), then checks that GET /depts/random
# answers 200. Returns 1 when it does not.
bench_wait_serving() {
  local port="$1" i
  for i in $(seq 1 300); do curl -sf -o /dev/null "127.0.0.1:$port/ready" && break; sleep 0.1; done
  for i in $(seq 1 600); do
    [ "$(metric "$port" restcache_dept_ids)" -gt 0 ] && break
    sleep 0.1
  done
  curl -sf -o /dev/null "127.0.0.1:$port/depts/random"
}

# ab_fields FILE N [TLIMIT] -> "RPS MEAN_MS P50_MS P99_MS FAILED NON2XX COMPLETE
# KEEPALIVE" from ab's output in FILE (ab -n N); the percentiles from FILE.pct
# (ab -e: fractional ms; the console's are whole ms) when it has them. FAILED =
# Failed requests + Non-2xx responses + requests never completed; with TLIMIT
# (ab -t TLIMIT -n N: whichever ends first), requests not started because the
# time limit ended the run are not failures.
ab_fields() {
  awk -v n="$2" -v tlimit="${3:-0}" '
    FILENAME ~ /[.]pct$/ { if ($1 == "50") p50 = $2; if ($1 == "99") p99 = $2; next }
    /^Time taken for tests:/ { taken = $5 }
    /^Complete requests:/ { complete = $3 }
    /^Failed requests:/ { failed = $3 }
    /^Non-2xx responses:/ { non2xx = $3 }
    /^Keep-Alive requests:/ { ka = $3 }
    /^Requests per second:/ { rps = $4 }
    /^Time per request:/ && mean == "" { mean = $4 }
    $1 == "50%" && p50 == "" { p50 = $2 } $1 == "99%" && p99 == "" { p99 = $2 }
    END {
      if (rps == "") { printf "0 - - - %d 0 0 0\n", n; exit }
      never = n - complete
      if (tlimit > 0 && taken + 0 >= tlimit * 0.98) never = 0
      f = failed + non2xx + never
      printf "%.0f %.3f %.3f %.3f %d %d %d %d\n", rps, mean, p50, p99, f, non2xx + 0, complete, ka
    }' FS='[ ,]+' "$1.pct" FS=' ' "$1"
}

# wrk_fields FILE -> "RPS MEAN_MS P50_MS P99_MS FAILED NON2XX REQUESTS" from wrk
# --latency's output in FILE; FAILED = socket errors (connect, read, write,
# timeout) + non-2xx/3xx responses (1 when wrk printed no result).
wrk_fields() {
  awk '
    function ms(v) {
      if (v ~ /us$/) return substr(v, 1, length(v) - 2) / 1000
      if (v ~ /ms$/) return substr(v, 1, length(v) - 2) + 0
      if (v ~ /m$/)  return substr(v, 1, length(v) - 1) * 60000
      if (v ~ /s$/)  return substr(v, 1, length(v) - 1) * 1000
      return v + 0
    }
    $1 == "Latency" && $2 != "Distribution" && mean == "" { mean = ms($2) }
    $1 == "50%" { p50 = ms($2) } $1 == "99%" { p99 = ms($2) }
    / requests in / { total = $1 }
    /Requests\/sec/ { rps = $2 }
    /Socket errors/ { gsub(",", ""); err += $4 + $6 + $8 + $10 }
    /Non-2xx or 3xx responses/ { non2xx += $5 }
    END {
      if (rps == "") { print "0 - - - 1 0 0"; exit }
      printf "%.0f %.3f %.3f %.3f %d %d %d\n", rps, mean, p50, p99, err + non2xx, non2xx, total
    }' "$1"
}

# bench_pgbench_fill PREFIX C DURATION DEPTS -> "TPS MEAN_MS P99_MS FAILED":
# pgbench -M prepared -c C -j min(C,2) with bench/deptemps_fill.sql (the
# daemon's fill query for a random id in 1..DEPTS) on the bench database; its
# output in PREFIX.txt. pgbench runs 3 s longer than DURATION; only the
# transactions that ended in the last DURATION s of its per-transaction log
# count (64 connections take a while to open on a busy machine).
bench_pgbench_fill() {
  local prefix="$1" c="$2" duration="$3" depts="$4" j stats failed
  j=$(( c < 2 ? c : 2 ))
  "$PG_CLUSTER_BIN/pgbench" -n -M prepared -c "$c" -j "$j" -T "$(( duration + 3 ))" -D depts="$depts" \
    -l --log-prefix="$prefix" -f "$RESTCACHE_ROOT/bench/deptemps_fill.sql" "$BENCH_DSN" >"$prefix.txt" 2>&1 || true
  # Log fields: client, transaction, latency us, script, end time s, end time us.
  stats=$(cat "$prefix".[0-9]* 2>/dev/null | awk -v d="$duration" '
            { t[NR] = $5 + $6 / 1e6; l[NR] = $3 / 1000; if (t[NR] > tmax) tmax = t[NR] }
            END { for (i = 1; i <= NR; i++) if (t[i] > tmax - d) print l[i] }' | sort -n | awk -v d="$duration" '
            { v[NR] = $1; sum += $1 }
            END { if (NR == 0) { print "0 - -"; exit }
                  i = int(NR * 0.99); if (i < 1) i = 1
                  printf "%.0f %.3f %.3f\n", NR / d, sum / NR, v[i] }')
  rm -f "$prefix".[0-9]*
  failed=$(awk -F': ' '/number of failed transactions/ {split($2, a, " "); print a[1]}' "$prefix.txt")
  echo "$stats ${failed:-0}"
}
