# Shared by the bench/ scripts: a private PostgreSQL cluster with benchmark
# data under var/bench-pg, and helpers to run restcached and wait for it.
# Sourced, not executed.

source "$(dirname "${BASH_SOURCE[0]}")/../scripts/lib/common.sh"
source "$RESTCACHE_ROOT/scripts/lib/pg-cluster.sh"

BENCH_PG_PORT="${BENCH_PG_PORT:-54339}"
BENCH_BIN="$RESTCACHE_ROOT/build/release"

# bench_setup DEPTS: packages, Release build, cluster with DEPTS x 10 loaded.
# Sets BENCH_DSN.
bench_setup() {
  local depts="$1"
  ensure_packages wrk nginx-light apache2-utils
  build "$BENCH_BIN" Release
  local dir="$RESTCACHE_ROOT/var/bench-pg"
  mkdir -p "$RESTCACHE_ROOT/var"
  if [ "$(id -u)" -eq 0 ] && ! runuser -u postgres -- test -x "$RESTCACHE_ROOT/var" 2>/dev/null; then
    dir="/var/tmp/restcache-bench-pg-$(printf '%s' "$RESTCACHE_ROOT" | md5sum | cut -c1-12)"
  fi
  BENCH_PG_DIR="$dir"
  PG_CLUSTER_EXTRA_OPTS="-c shared_buffers=1GB -c max_connections=300" pg_cluster_init "$dir" "$BENCH_PG_PORT"
  PG_CLUSTER_EXTRA_OPTS="-c shared_buffers=1GB -c max_connections=300" pg_cluster_start "$dir" "$BENCH_PG_PORT"
  BENCH_DSN="$(pg_cluster_dsn "$dir" "$BENCH_PG_PORT")"
  "$BENCH_BIN/restcache-load" --dsn "$BENCH_DSN" --depts "$depts" --emps-per-dept 10
}

bench_stop_cluster() {
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

# metric PORT NAME: the sum of a metric's samples from /metrics.
metric() {
  curl -s "127.0.0.1:$1/metrics" | awk -v n="$2" '$1 == n || index($1, n "{") == 1 { s += $2 } END { printf "%d\n", s }'
}

# rss_kib PID: resident set size in KiB.
rss_kib() {
  awk '/VmRSS/ {print $2}' "/proc/$1/status"
}

machine_load() {
  printf 'load average %s (2 cores shared)\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
}
