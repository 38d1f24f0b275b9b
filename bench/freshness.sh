#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Freshness of restcached under writes: restcache-freshness changes
# random departments and employees through SQL and, READ_DELAY_MS after each
# COMMIT, reads the affected documents back through the daemon and compares
# them byte for byte with PostgreSQL's truth. Four runs, one table:
#   steady            writes and a random read load, nothing else
#   listener killed   pg_terminate_backend on the daemon's listener connection
#                     (application_name restcache-listener) every KILL_EVERY s
#   postgres restart  pg_ctl restart -m fast a third of the way in
#   daemon kill -9    kill -9 a third of the way in, writes go on while it is
#                     down, restart on the same port and --lmdb.path
# Every run must count 0 stale documents and 0 errors; the script exits 1
# otherwise.
#
#   bench/freshness.sh [restcached options...]
#     DEPTS=2000 DURATION=30 WPS=20 READ_DELAY_MS=1000 READERS=2 RPS=500 KILL_EVERY=1
#     RUNS="steady listener pgrestart daemonkill"   (a subset, in that order)
#     FRESH_BIN=build/release  FRESH_SKIP_BUILD=1 (use the binaries as they are)
#     FRESH_PG_PORT=54349 FRESH_HTTP_PORT=18349 SEED=N
#     FRESH_CHECKER_ARGS="--latency-every 5"   (more restcache-freshness options)
# Logs (the daemon's, each run's checker output) stay in
# var/bench/freshness-<yyyymmdd-hhmmss>/; the LMDB tier there is deleted at exit.
# Example, the pass-through mode (always fresh): bench/freshness.sh --cache.mode=none
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

depts="${DEPTS:-2000}"
duration="${DURATION:-30}"
wps="${WPS:-20}"
read_delay_ms="${READ_DELAY_MS:-1000}"
readers="${READERS:-2}"
rps="${RPS:-500}"
kill_every="${KILL_EVERY:-1}"
runs="${RUNS:-steady listener pgrestart daemonkill}"
seed="${SEED:-$(date +%s)}"
pg_port="${FRESH_PG_PORT:-54349}"
http_port="${FRESH_HTTP_PORT:-18349}"
bin="${FRESH_BIN:-$BENCH_BIN}"
daemon_args=("$@")
pg_opts="-c max_connections=300"
for run in $runs; do
  case $run in
    steady|listener|pgrestart|daemonkill) ;;
    *) echo "freshness: unknown run '$run' in RUNS (steady listener pgrestart daemonkill)" >&2; exit 2;;
  esac
done

# ---- build, cluster, data ---------------------------------------------------------
ensure_packages
if [ -z "${FRESH_SKIP_BUILD:-}" ]; then
  cmake -S "$RESTCACHE_ROOT" -B "$bin" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$bin" -j "$(nproc)" --target restcached restcache-load restcache-freshness
fi
for b in restcached restcache-load restcache-freshness; do
  [ -x "$bin/$b" ] || { echo "freshness: $bin/$b missing (unset FRESH_SKIP_BUILD)" >&2; exit 1; }
done

pg_dir="$RESTCACHE_ROOT/var/bench-fresh"
mkdir -p "$RESTCACHE_ROOT/var"
if [ "$(id -u)" -eq 0 ] && ! runuser -u postgres -- test -x "$RESTCACHE_ROOT/var" 2>/dev/null; then
  pg_dir="/var/tmp/restcache-bench-fresh-$(printf '%s' "$RESTCACHE_ROOT" | md5sum | cut -c1-12)"
fi
run_dir="$(bench_out_dir freshness)" # logs and the LMDB tier
lmdb_dir="$run_dir/lmdb"

daemon_pid=""
killer_pid=""
cleanup() {
  if [ -n "$killer_pid" ]; then
    kill "$killer_pid" 2>/dev/null || true
    wait "$killer_pid" 2>/dev/null || true
  fi
  if [ -n "$daemon_pid" ] && kill -0 "$daemon_pid" 2>/dev/null; then
    kill -TERM "$daemon_pid"
    wait "$daemon_pid" 2>/dev/null || true
  fi
  pg_cluster_stop "$pg_dir" || true
  rm -rf "$lmdb_dir"
}
trap cleanup EXIT

PG_CLUSTER_EXTRA_OPTS="$pg_opts" pg_cluster_init "$pg_dir" "$pg_port"
PG_CLUSTER_EXTRA_OPTS="$pg_opts" pg_cluster_start "$pg_dir" "$pg_port"
psql_admin() { # SQL -> rows, unaligned
  "$PG_CLUSTER_BIN/psql" -X -q -A -t -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$pg_port" -U "$PG_CLUSTER_USER" -d postgres -c "$1"
}
# A fresh database every time: the checker's writes of an earlier run stay out.
psql_admin "DROP DATABASE IF EXISTS $PG_CLUSTER_DB WITH (FORCE)" >/dev/null
PG_CLUSTER_EXTRA_OPTS="$pg_opts" pg_cluster_start "$pg_dir" "$pg_port"
dsn="$(pg_cluster_dsn "$pg_dir" "$pg_port")"
"$bin/restcache-load" --dsn "$dsn" --depts "$depts" --emps-per-dept 10

# ---- the daemon --------------------------------------------------------------------
start_daemon() {
  : >"$run_dir/restcached.out"
  "$bin/restcached" --db.dsn="$dsn" --http.port="$http_port" --lmdb.path="$lmdb_dir" "${daemon_args[@]}" \
    >>"$run_dir/restcached.out" 2>>"$run_dir/restcached.log" &
  daemon_pid=$!
  for _ in $(seq 1 300); do
    if grep -q "listening on" "$run_dir/restcached.out" 2>/dev/null \
       && curl -sf -o /dev/null "127.0.0.1:$http_port/ready"; then
      return 0
    fi
    kill -0 "$daemon_pid" 2>/dev/null || { tail -20 "$run_dir/restcached.log" >&2; return 1; }
    sleep 0.1
  done
  echo "freshness: restcached did not become ready" >&2
  return 1
}

# ---- the checker -------------------------------------------------------------------
results=()
overall=0

run_checker() { # LOG: runs restcache-freshness; output in LOG.out/.err, exit status in LOG.rc
  local log="$1" rc=0
  "$bin/restcache-freshness" --dsn "$dsn" --url "http://127.0.0.1:$http_port" --duration "$duration" \
    --writes-per-second "$wps" --read-delay-ms "$read_delay_ms" --readers "$readers" \
    --reads-per-second "$rps" --seed "$seed" --json ${FRESH_CHECKER_ARGS:-} >"$log.out" 2>"$log.err" || rc=$?
  echo "$rc" >"$log.rc"
}

collect() { # NAME LOG NOTES: appends the run's result to the table
  local name="$1" log="$2" notes="$3" rc json
  rc="$(cat "$log.rc" 2>/dev/null || echo 1)"
  json="$(grep '^{' "$log.out" 2>/dev/null | tail -1)"
  grep -h "STALE\|error\|giving up\|nothing was checked" "$log.err" | head -5 >&2 || true
  [ "$rc" -eq 0 ] || overall=1
  results+=("$name|$rc|$json|$notes")
}

field() { # JSON NAME
  printf '%s' "$1" | sed -n "s/.*\"$2\":\([0-9.]*\).*/\1/p"
}

# ---- runs --------------------------------------------------------------------------
start_daemon
echo "restcached ${daemon_args[*]:-(defaults)}; $depts departments; ${duration}s at $wps writes/s per run," \
     "checked ${read_delay_ms} ms after COMMIT; $readers readers at $rps req/s; seed $seed; $(machine_load)"

for run in $runs; do
  log="$run_dir/$run"
  case $run in
    steady)
      echo "run: steady"
      run_checker "$log"
      collect "steady" "$log" ""
      ;;
    listener)
      echo "run: the listener's backend terminated every ${kill_every}s"
      : >"$run_dir/kills"
      (
        while true; do
          psql_admin "SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                      WHERE application_name = 'restcache-listener' AND pid <> pg_backend_pid()" \
            >>"$run_dir/kills" 2>/dev/null || true
          sleep "$kill_every"
        done
      ) &
      killer_pid=$!
      run_checker "$log"
      kill "$killer_pid" 2>/dev/null || true
      wait "$killer_pid" 2>/dev/null || true
      killer_pid=""
      collect "listener killed" "$log" "$(grep -c '^t$' "$run_dir/kills" || true) backends terminated"
      ;;
    pgrestart)
      echo "run: PostgreSQL restarted (fast) after $((duration / 3))s"
      run_checker "$log" &
      cpid=$!
      sleep $((duration / 3))
      t0=$(date +%s.%N)
      _pg_cluster_as_owner "$PG_CLUSTER_BIN/pg_ctl" restart -w -t 60 -m fast -D "$(realpath "$pg_dir")/data" \
        -o "-p $pg_port $pg_opts" >/dev/null
      t1=$(date +%s.%N)
      wait "$cpid" || true
      collect "postgres restart" "$log" "restart took $(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.1f", b - a}') s"
      ;;
    daemonkill)
      echo "run: restcached killed (-9) after $((duration / 3))s, restarted 1s later"
      run_checker "$log" &
      cpid=$!
      sleep $((duration / 3))
      kill -9 "$daemon_pid"
      wait "$daemon_pid" 2>/dev/null || true
      sleep 1 # writes go on while it is down
      t0=$(date +%s.%N)
      start_daemon
      t1=$(date +%s.%N)
      wait "$cpid" || true
      collect "daemon kill -9" "$log" "back up in $(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.1f", b - a}') s"
      ;;
  esac
done

# ---- table -------------------------------------------------------------------------
echo
printf '%-18s %7s %8s %6s %7s %8s %8s %8s %7s  %s\n' run writes checked stale errors p50_ms p99_ms max_ms lat_n notes
for r in "${results[@]}"; do
  IFS='|' read -r name rc json notes <<<"$r"
  printf '%-18s %7s %8s %6s %7s %8s %8s %8s %7s  %s\n' "$name" \
    "$(field "$json" writes)" "$(field "$json" checked)" "$(field "$json" stale)" "$(field "$json" errors)" \
    "$(field "$json" latency_p50_ms)" "$(field "$json" latency_p99_ms)" "$(field "$json" latency_max_ms)" \
    "$(field "$json" latency_samples)" \
    "$([ "$rc" -eq 0 ] || printf 'FAIL ')${notes:-}$( t=$(field "$json" latency_timeouts); [ "${t:-0}" = 0 ] || printf ' latency timeouts %s' "$t")"
done
echo "logs: $run_dir (restcached.log, <run>.out/.err)"
[ "$overall" -eq 0 ] && echo "freshness: PASS (0 stale, 0 errors in every run)" || echo "freshness: FAIL"
exit "$overall"
