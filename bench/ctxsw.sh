#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Context switches per request of restcached (memory tier, every document
# cached): the voluntary and involuntary switches of all its threads
# (/proc/PID/task/*/status) before and after a wrk run, divided by the
# requests wrk completed, in all and per thread name. A run-to-completion
# server is near 0. The figure is bimodal from run to run on one binary
# (shards picked up by the io thread of the asking connection, or not):
# run it several times.
#   bench/ctxsw.sh [BIN_DIR]      CONNS=64 DURATION=5s DEPTS=10000
#   TIER=none bench/ctxsw.sh      every GET a fill (cache.mode=none, no populate)
#   bench/ctxsw.sh /tmp/before-bin -- --runtime.scheduler=caf
# BIN_DIR defaults to build/release (BENCH_NO_BUILD=1 is implied: build it first).
# The daemon's log stays in var/bench/ctxsw-<yyyymmdd-hhmmss>/.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
if [ $# -gt 0 ] && [ "$1" != "--" ]; then
  BENCH_BIN="$1"
  shift
fi
[ "${1:-}" = "--" ] && shift
conns="${CONNS:-64}"
duration="${DURATION:-5s}"
depts="${DEPTS:-10000}"
export BENCH_NO_BUILD=1
BENCH_LOG_DIR="$(bench_out_dir ctxsw)"
trap 'bench_stop_daemon || true; bench_stop_cluster || true' EXIT
bench_setup "$depts" >/dev/null
port=18778
tier="${TIER:-memory}"
if [ "$tier" = none ]; then
  bench_start_daemon "$port" --cache.mode=none "$@"
else
  bench_start_daemon "$port" --cache.mode="$tier" --cache.populate "$@"
  bench_wait_populated "$port" "$BENCH_LOG_DIR/restcached.log" >/dev/null
fi
bench_wait_serving "$port"

switches() {
  awk '/^(voluntary|nonvoluntary)_ctxt_switches/ { s += $2 } END { print s + 0 }' \
    /proc/"$DAEMON_PID"/task/*/status 2>/dev/null
}

# Per thread name (the io threads, the clock, the libpq driver share names):
# context switches and CPU time in clock ticks (user + system, from stat).
switches_by_thread() {
  local t
  for t in /proc/"$DAEMON_PID"/task/*; do
    printf '%s %s %s\n' "$(tr ' ' '_' <"$t/comm")" \
      "$(awk '/^(voluntary|nonvoluntary)_ctxt_switches/ { s += $2 } END { print s + 0 }' "$t/status")" \
      "$(sed 's/^.*) //' "$t/stat" | awk '{ print $12 + $13 }')"
  done 2>/dev/null | awk '{ s[$1] += $2; c[$1] += $3 } END { for (k in s) print k, s[k], c[k] }' | sort
}

wrk_random "$port" 2s "$conns" "$depts" >/dev/null # warm
before=$(switches)
before_threads="$(switches_by_thread)"
out="$(wrk_random "$port" "$duration" "$conns" "$depts")"
after=$(switches)
after_threads="$(switches_by_thread)"
requests=$(printf '%s\n' "$out" | awk '/requests in/ { print $1 }')
threads=$(ls /proc/"$DAEMON_PID"/task | wc -l)
printf '%s\n' "$out" | grep -E "Requests/sec|requests in"
awk -v s=$((after - before)) -v n="$requests" -v t="$threads" 'BEGIN {
  printf "context switches: %d for %d requests = %.3f per request (%d threads, wrk -c'"$conns"', cache.mode='"$tier"')\n", s, n, s / n, t }'
ticks=$(getconf CLK_TCK)
join <(printf '%s\n' "$before_threads") <(printf '%s\n' "$after_threads") |
  awk -v n="$requests" -v hz="$ticks" '{
    printf "  %-18s %.3f switches per request, %.2f s CPU\n", $1, ($4 - $2) / n, ($5 - $3) / hz }'
machine_load
