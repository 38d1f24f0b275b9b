#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Memory of the memory tier:
#  1. RSS per cached document: restcached with cache.populate over DEPTS
#     departments (default 1,000,000 x 10 employees, ~1.4 KB each) against the
#     same daemon without populate (its baseline, id set included).
#  2. The budget honoured when the data is larger than it: BUDGET_MIB (default
#     256) with populate, then random GETs over all ids for DURATION (default
#     20s) forcing fills and evictions; the tier's bytes must stay within the
#     budget and RSS near baseline + budget.
#   bench/memory.sh     DEPTS=1000000 BUDGET_MIB=256 DURATION=20s
# The daemon's log stays in var/bench/memory-<yyyymmdd-hhmmss>/.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

depts="${DEPTS:-1000000}"
budget_mib="${BUDGET_MIB:-256}"
duration="${DURATION:-20s}"
port=18090

BENCH_LOG_DIR="$(bench_out_dir memory)"
lmdb_dir="$BENCH_LOG_DIR/lmdb" # the daemon's LMDB tier (default mode tiered), not the checkout's var/lmdb
trap 'bench_stop_daemon; bench_stop_cluster || true; rm -rf "$lmdb_dir"' EXIT
bench_setup "$depts"

wait_ids() {
  for _ in $(seq 1 600); do
    [ "$(metric $port restcache_dept_ids)" -ge "$depts" ] && return 0
    sleep 0.5
  done
  echo "department ids not loaded" >&2
  return 1
}
wait_populated() { # wait until entries stop growing
  local last=-1 now
  for _ in $(seq 1 1200); do
    now=$(metric $port restcache_cache_entries)
    [ "$now" -eq "$last" ] && grep -q "cache.populate: done" "$BENCH_LOG_DIR/restcached.log" && return 0
    last=$now
    sleep 1
  done
}

echo "== baseline: no documents cached"
bench_start_daemon $port --lmdb.path="$lmdb_dir" --cache.memory-bytes=$((16 << 30))
wait_ids
sleep 1
base_kib=$(rss_kib "$DAEMON_PID")
echo "RSS ${base_kib} KiB with $depts ids loaded"
bench_stop_daemon

echo "== populate all $depts departments"
start=$(date +%s)
bench_start_daemon $port --lmdb.path="$lmdb_dir" --cache.memory-bytes=$((16 << 30)) --cache.populate
wait_ids
wait_populated
secs=$(( $(date +%s) - start ))
entries=$(metric $port restcache_cache_entries)
bytes=$(metric $port restcache_cache_bytes)
full_kib=$(rss_kib "$DAEMON_PID")
echo "populated $entries documents in ${secs}s; tier charge $((bytes >> 20)) MiB; RSS ${full_kib} KiB"
awk -v f="$full_kib" -v b="$base_kib" -v n="$entries" -v c="$bytes" 'BEGIN {
  printf "RSS per cached document: %.0f bytes (charged %.0f bytes; aim < 2560)\n", (f - b) * 1024 / n, c / n }'
doc_bytes=$(curl -s 127.0.0.1:$port/deptemps/1 | wc -c)
echo "document /deptemps/1: $doc_bytes bytes"
bench_stop_daemon

echo "== budget ${budget_mib} MiB, data larger than the budget"
bench_start_daemon $port --lmdb.path="$lmdb_dir" --cache.memory-bytes=$((budget_mib << 20)) --cache.populate
wait_ids
wait_populated
DEPTS="$depts" wrk -t1 -c64 -d"$duration" -s "$RESTCACHE_ROOT/bench/random_deptemps.lua" "http://127.0.0.1:$port/" | grep -E "Requests/sec"
entries=$(metric $port restcache_cache_entries)
bytes=$(metric $port restcache_cache_bytes)
evictions=$(metric $port restcache_cache_evictions_total)
kib=$(rss_kib "$DAEMON_PID")
echo "entries $entries, tier bytes $((bytes >> 20)) MiB (budget $budget_mib MiB), evictions $evictions"
echo "RSS ${kib} KiB = baseline + $(( (kib - base_kib) >> 10 )) MiB"
[ "$bytes" -le $((budget_mib << 20)) ] && echo "budget honoured" || { echo "BUDGET EXCEEDED"; exit 1; }
echo "$(machine_load)"
