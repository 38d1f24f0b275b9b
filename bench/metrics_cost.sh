#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# What counting (and the access log) costs the memory tier: three daemons
# on the same data in one sitting, measured in alternating rounds with the
# same wrk settings (keep-alive, random ids, every department cached):
#   on      the normal build (per-thread request counters, duration histogram)
#   off     a build with -DRESTCACHE_METRICS=OFF (request-path counting compiled out)
#   access  the normal build with --log.access to a file
#   bench/metrics_cost.sh          DEPTS=100000 DURATION=15s CONNS=64 ROUNDS=3
# The daemons' logs and the access log stay in var/bench/metrics-cost-<yyyymmdd-hhmmss>/.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

depts="${DEPTS:-100000}"
duration="${DURATION:-15s}"
conns="${CONNS:-64}"
rounds="${ROUNDS:-3}"
off_bin="${BENCH_OFF_BIN:-$RESTCACHE_ROOT/build/release-nometrics}"

BENCH_LOG_DIR="$(bench_out_dir metrics-cost)"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  bench_stop_cluster || true
}
trap cleanup EXIT

bench_setup "$depts"
[ "${BENCH_NO_BUILD:-0}" = 1 ] || build "$off_bin" Release -DRESTCACHE_METRICS=OFF

declare -A port=([on]=18090 [off]=18091 [access]=18092)
start() { # NAME BIN ARGS...
  local name="$1" bin="$2"
  shift 2
  "$bin/restcached" --db.dsn="$BENCH_DSN" --http.port="${port[$name]}" --cache.mode=memory --cache.populate \
    --lmdb.path="$BENCH_LOG_DIR/lmdb-$name" "$@" >"$BENCH_LOG_DIR/$name.out" 2>"$BENCH_LOG_DIR/$name.log" &
  pids+=($!)
  for _ in $(seq 1 900); do
    grep -q "cache.populate: done" "$BENCH_LOG_DIR/$name.log" 2>/dev/null && return 0
    sleep 1
  done
  echo "$name: populate did not finish" >&2
  return 1
}
# One at a time, so populates do not compete.
start on "$BENCH_BIN"
start off "$off_bin"
start access "$BENCH_BIN" --log.access --log.access-file="$BENCH_LOG_DIR/access.log"

run_wrk() { wrk_random "$1" "$duration" "$conns" "$depts" | awk '/Requests\/sec/ {print int($2)}'; }
for n in on off access; do wrk_random "${port[$n]}" 3s "$conns" "$depts" >/dev/null; done

echo "wrk -t1 -c$conns -d$duration, random ids over $depts departments, memory tier; $(machine_load)"
printf '%-6s %-10s %-10s %-10s\n' round on off access
declare -A best=([on]=0 [off]=0 [access]=0)
for round in $(seq 1 "$rounds"); do
  line="$round"
  for n in on off access; do
    r=$(run_wrk "${port[$n]}")
    [ "$r" -gt "${best[$n]}" ] && best[$n]=$r
    line="$line $r"
  done
  printf '%-6s %-10s %-10s %-10s\n' $line
done
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.3f", a / b}'; }
echo "best req/s: on ${best[on]}, off ${best[off]}, access ${best[access]}"
echo "metrics on / off: $(ratio "${best[on]}" "${best[off]}");  access log on / off: $(ratio "${best[access]}" "${best[on]}")"
echo "access log: $(wc -l <"$BENCH_LOG_DIR/access.log") lines, $(metric "${port[access]}" restcache_access_log_dropped_total) dropped"
echo "after: $(machine_load)"
