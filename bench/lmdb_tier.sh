#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The LMDB tier alone next to the memory tier and nginx, in one sitting.
#
# Three servers run side by side, the same wrk settings against each (keep-alive,
# wrk -t1 -cCONNS, ids uniform over 1..DEPTS with bench/random_deptemps.lua,
# wrk --latency for the p99), interleaved in every round:
#   nginx      worker_processes auto (NGINX_WORKERS) serving the bytes of
#              /deptemps/1 as a static file for every /deptemps/ id: the reference
#   memory     restcached --cache.mode=memory --cache.populate: every department
#              in the memory tier (same as bench/throughput.sh)
#   lmdb       restcached --cache.mode=lmdb --cache.populate: nothing in memory,
#              every department written to a fresh LMDB directory by the batch
#              writer before the runs; every GET is an LMDB read
# Before the timed runs each daemon answers every id in 1..DEPTS once (bench/
# sequential_deptemps.lua: for lmdb this maps every page of the file, as in a
# daemon that has been serving a while), then a short random warm-up of each.
# Prints req/s, p99 and the daemon's CPU per run, the best of the rounds as
# ratios (memory/nginx, lmdb/memory, lmdb/nginx; the issue's aim is lmdb/memory
# >= 0.8, the original service's disk tier gave 0.19), /metrics deltas showing
# which tier answered (lmdb: tier hits ~ requests, no database queries; memory:
# memory hits ~ requests), and each daemon's RSS. RSS of the lmdb daemon counts
# the pages of the LMDB map it has touched (RssFile: page cache shared with the
# kernel, not heap), so it is printed as anon + file.
#
# Usage:
#   bench/lmdb_tier.sh [--duration=20s] [--depts=100000] [--conns=64] [--rounds=2]
#                      [--warmup=3s] [--keep] [-- restcached options for both daemons]
#   bench/lmdb_tier.sh --duration=5s --depts=10000 --rounds=1    # a quick check
# The options may also come from the environment: DURATION, DEPTS, CONNS, ROUNDS,
# WARMUP. The logs stay in var/bench/lmdb-tier-<yyyymmdd-hhmmss>/; the LMDB
# directory in it is deleted at exit unless --keep.
# Like the other bench/ scripts: installs wrk and nginx if missing, builds
# build/release, starts the private cluster under var/bench-pg (port 54339) and
# loads DEPTS x 10 employees if it holds fewer (BENCH_NO_BUILD=1 skips the build
# and uses the binaries in build/release as they are). Ports 18180-18182.
# Run it on a quiet machine: with 2 cores wrk takes one, the server the other.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

depts="${DEPTS:-100000}"
duration="${DURATION:-20s}"
conns="${CONNS:-64}"
rounds="${ROUNDS:-2}"
warmup="${WARMUP:-3s}"
keep=0
daemon_args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --duration=*) duration="${1#*=}" ;;
    --depts=*) depts="${1#*=}" ;;
    --conns=*) conns="${1#*=}" ;;
    --rounds=*) rounds="${1#*=}" ;;
    --warmup=*) warmup="${1#*=}" ;;
    --keep) keep=1 ;;
    --) shift; daemon_args=("$@"); break ;;
    -h|--help) sed -n '3,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "lmdb_tier.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
case "$depts$rounds$conns" in *[!0-9]*) echo "lmdb_tier.sh: --depts, --rounds, --conns take numbers" >&2; exit 2 ;; esac

mem_port=18180
lmdb_port=18181
nginx_port=18182
# About 4 KiB of map per document (LMDB pages, the write-order index, copy-on-write
# room): 8 KiB per department, at least 1 GiB, so the tier never evicts here.
lmdb_bytes=$(( depts * 8192 > (1 << 30) ? depts * 8192 : (1 << 30) ))

BENCH_LOG_DIR="$(bench_out_dir lmdb-tier)"
log_root="$BENCH_LOG_DIR"
lmdb_dir="$log_root/lmdb"
MEM_PID=""
LMDB_PID=""
stop_pid() {
  if [ -n "$1" ] && kill -0 "$1" 2>/dev/null; then
    kill -TERM "$1"
    wait "$1" 2>/dev/null || true
  fi
}
cleanup() {
  stop_pid "$MEM_PID"
  stop_pid "$LMDB_PID"
  BENCH_LOG_DIR="$log_root" bench_stop_nginx
  bench_stop_cluster || true
  if [ "$keep" -eq 0 ]; then rm -rf "$lmdb_dir"; fi
  echo "logs: $log_root"
}
trap cleanup EXIT

start_load="$(machine_load)"
bench_setup "$depts"

# Both daemons at once, each with its own log directory; the one not measured
# is idle (its CPU during the other's runs is printed as a check).
mkdir -p "$log_root/memory" "$log_root/lmdb-daemon"
BENCH_LOG_DIR="$log_root/memory" bench_start_daemon "$mem_port" \
  --cache.mode=memory --cache.populate "${daemon_args[@]}"
MEM_PID=$DAEMON_PID
BENCH_LOG_DIR="$log_root/lmdb-daemon" bench_start_daemon "$lmdb_port" \
  --cache.mode=lmdb --cache.populate --lmdb.path="$lmdb_dir" --lmdb.max-bytes="$lmdb_bytes" \
  "${daemon_args[@]}"
LMDB_PID=$DAEMON_PID
DAEMON_PID=""

wait_populate_done() { # LOG
  for _ in $(seq 1 1800); do
    grep -q "cache.populate: done" "$1" && return 0
    sleep 1
  done
  echo "cache.populate did not finish" >&2
  return 1
}

echo "waiting for cache.populate (memory and lmdb) ..."
started=$(date +%s)
wait_populate_done "$log_root/memory/restcached.log"
last=-1
for _ in $(seq 1 600); do # entries settle once the shards have taken every put
  now=$(metric $mem_port restcache_cache_entries)
  [ "$now" -eq "$last" ] && break
  last=$now
  sleep 1
done
mem_entries=$(metric $mem_port restcache_cache_entries)
mem_ids=$(metric $mem_port restcache_dept_ids)
echo "memory: $mem_entries documents cached of $mem_ids departments ($(( $(date +%s) - started )) s)"
[ "$mem_entries" -ge "$mem_ids" ] || echo "WARNING: the memory tier does not hold every department (budget?)"

# lmdb: populate hands every department to the batch writer, which may still be
# writing after "done": wait until nothing is queued and the record count holds.
wait_populate_done "$log_root/lmdb-daemon/restcached.log"
lmdb_ids=$(metric $lmdb_port restcache_dept_ids)
# (The queue is emptied when a write transaction starts, so "nothing queued" alone
# may be a transaction in progress: short of every id, wait for 3 still seconds.)
last=-1
still=0
for _ in $(seq 1 1800); do
  queued=$(metric $lmdb_port restcache_batch_queued)
  records=$(metric $lmdb_port restcache_lmdb_records)
  [ "$queued" -eq 0 ] && [ "$records" -ge "$lmdb_ids" ] && break
  if [ "$queued" -eq 0 ] && [ "$records" -eq "$last" ]; then still=$((still + 1)); else still=0; fi
  [ "$still" -ge 3 ] && break
  last=$records
  sleep 1
done
dropped=$(metric $lmdb_port restcache_batch_records_dropped_total)
echo "lmdb: $records records of $lmdb_ids departments, $(( $(metric $lmdb_port restcache_lmdb_bytes) >> 20 )) MiB" \
  "(map $(( lmdb_bytes >> 20 )) MiB, file $(du -m "$lmdb_dir/data.mdb" 2>/dev/null | cut -f1) MiB)," \
  "$(metric $lmdb_port restcache_batch_flushes_total) write transactions, $dropped records dropped," \
  "$(metric $lmdb_port restcache_lmdb_evicted_total) evicted ($(( $(date +%s) - started )) s)"
[ "$records" -ge "$lmdb_ids" ] || echo "WARNING: the LMDB tier does not hold every department: misses will go to PostgreSQL"

# The same document from both tiers; nginx serves the bytes of /deptemps/1.
curl -s "127.0.0.1:$mem_port/deptemps/1" >"$log_root/doc.json"
for id in 1 "$depts"; do
  cmp -s <(curl -s "127.0.0.1:$mem_port/deptemps/$id") <(curl -s "127.0.0.1:$lmdb_port/deptemps/$id") \
    || echo "WARNING: /deptemps/$id differs between the memory and lmdb daemons"
done
BENCH_LOG_DIR="$log_root" bench_start_nginx "$nginx_port" "$log_root/doc.json"

rss_mem_before="$(rss_detail "$MEM_PID")"
rss_lmdb_before="$(rss_detail "$LMDB_PID")"

# name|label: the sum of the samples of name that have label
counters=("restcache_http_requests_total|" 'restcache_cache_hits_total|tier="memory"'
          'restcache_cache_hits_total|tier="lmdb"' "restcache_cache_memory_misses_total|"
          "restcache_db_queries_total|")
snapshot() { # PORT -> the counters, space-separated
  local c out=()
  for c in "${counters[@]}"; do out+=("$(metric "$1" "${c%%|*}" "${c#*|}")"); done
  echo "${out[*]}"
}
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
secs() { # wrk duration (20s, 2m, 1h, 30) -> seconds
  case "$1" in *h) echo $(( ${1%h} * 3600 )) ;; *m) echo $(( ${1%m} * 60 )) ;; *) echo "${1%s}" ;; esac
}
hz=$(getconf CLK_TCK)

mem_before=($(snapshot $mem_port))
lmdb_before=($(snapshot $lmdb_port))
mem_wrk_total=0
lmdb_wrk_total=0
idle_ticks=0

# run NAME PORT PID DURATION -> "REQ/S P99_MS ERRORS REQUESTS CPU%" (CPU of PID, "-" without)
run() {
  local name="$1" port="$2" pid="$3" dur="$4" t0 t1 i0 i1 other out cpu
  other=""
  [ "$pid" = "$MEM_PID" ] && other=$LMDB_PID
  [ "$pid" = "$LMDB_PID" ] && other=$MEM_PID
  [ -n "$pid" ] && t0=$(cpu_ticks "$pid")
  [ -n "$other" ] && i0=$(cpu_ticks "$other")
  out=$(wrk_random "$port" "$dur" "$conns" "$depts" --latency)
  echo "$out" >>"$log_root/wrk-$name.txt"
  cpu="-"
  if [ -n "$pid" ]; then
    t1=$(cpu_ticks "$pid")
    cpu=$(awk -v t=$((t1 - t0)) -v hz="$hz" -v d="$(secs "$dur")" 'BEGIN {printf "%.0f%%", 100 * t / hz / d}')
  fi
  if [ -n "$other" ]; then
    i1=$(cpu_ticks "$other")
    idle_ticks=$(( idle_ticks + i1 - i0 ))
  fi
  echo "$(echo "$out" | wrk_summary) $(echo "$out" | awk '/requests in/ {print $1}') $cpu"
}

# Warm-up: each daemon answers every id once (for lmdb this maps every page of
# the file into the process, as a long-running daemon would have), then a
# timed random run against each server (connections, CPU frequency).
answered() { metric "$1" restcache_cache_hits_total; }
for t in "memory $mem_port" "lmdb $lmdb_port"; do
  set -- $t
  t0=$(date +%s.%N)
  a0=$(answered "$2")
  # wrk runs for its whole -d even after the script stops its thread: interrupt
  # it (it still prints its summary) once the daemon has answered every id.
  DEPTS="$depts" wrk -t1 -c"$conns" -d3600s -s "$RESTCACHE_ROOT/bench/sequential_deptemps.lua" \
    "http://127.0.0.1:$2/" >"$log_root/walk-$1.txt" &
  wrk_pid=$!
  while kill -0 "$wrk_pid" 2>/dev/null && [ $(( $(answered "$2") - a0 )) -lt "$depts" ]; do sleep 0.2; done
  kill -INT "$wrk_pid" 2>/dev/null || true
  wait "$wrk_pid" || true
  n_walk=$(awk '/requests in/ {print $1}' "$log_root/walk-$1.txt")
  [ "$1" = memory ] && mem_wrk_total=$(( mem_wrk_total + n_walk ))
  [ "$1" = lmdb ] && lmdb_wrk_total=$(( lmdb_wrk_total + n_walk ))
  echo "$1: every id once, $n_walk requests in $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN {printf "%.1f", b - a}') s"
done
echo "warming up ($warmup each) ..."
for t in "nginx $nginx_port" "memory $mem_port $MEM_PID" "lmdb $lmdb_port $LMDB_PID"; do
  set -- $t
  r=($(run "$1" "$2" "${3:-}" "$warmup"))
  [ "$1" = memory ] && mem_wrk_total=$(( mem_wrk_total + r[3] ))
  [ "$1" = lmdb ] && lmdb_wrk_total=$(( lmdb_wrk_total + r[3] ))
done

echo
echo "wrk -t1 -c$conns -d$duration --latency, keep-alive, random ids over $depts departments"
echo "at start: $start_load"
printf '%-6s %-7s %10s %9s %7s %7s\n' round server req/s p99_ms errors cpu
declare -A best_rps best_p99
for name in nginx memory lmdb; do best_rps[$name]=0; best_p99[$name]=0; done
for round in $(seq 1 "$rounds"); do
  for t in "nginx $nginx_port" "memory $mem_port $MEM_PID" "lmdb $lmdb_port $LMDB_PID"; do
    set -- $t
    r=($(run "$1" "$2" "${3:-}" "$duration"))
    printf '%-6s %-7s %10s %9s %7s %7s\n' "$round" "$1" "${r[0]}" "${r[1]}" "${r[2]}" "${r[4]}"
    [ "$1" = memory ] && mem_wrk_total=$(( mem_wrk_total + r[3] ))
    [ "$1" = lmdb ] && lmdb_wrk_total=$(( lmdb_wrk_total + r[3] ))
    if [ "${r[0]}" -gt "${best_rps[$1]}" ]; then best_rps[$1]=${r[0]}; best_p99[$1]=${r[1]}; fi
  done
done

ratio() { awk -v a="$1" -v b="$2" 'BEGIN {if (b > 0) printf "%.2f", a / b; else print "-"}'; }
n=${best_rps[nginx]}; m=${best_rps[memory]}; l=${best_rps[lmdb]}
echo
echo "best of $rounds round(s):"
printf '%-8s %10s %9s %11s %11s\n' server req/s p99_ms "/nginx" "/memory"
printf '%-8s %10s %9s %11s %11s\n' nginx "$n" "${best_p99[nginx]}" 1.00 -
printf '%-8s %10s %9s %11s %11s\n' memory "$m" "${best_p99[memory]}" "$(ratio "$m" "$n")" 1.00
printf '%-8s %10s %9s %11s %11s\n' lmdb "$l" "${best_p99[lmdb]}" "$(ratio "$l" "$n")" "$(ratio "$l" "$m")"
echo "lmdb / memory = $(ratio "$l" "$m") (aim >= 0.80; the original service's disk tier: 0.19)"

# Which tier answered: /metrics deltas over every wrk run (warm-up included).
mem_after=($(snapshot $mem_port))
lmdb_after=($(snapshot $lmdb_port))
served() { # LABEL WRK_TOTAL BEFORE... -- AFTER...
  local label="$1" total="$2"
  shift 2
  local -a b=("${@:1:5}") a=("${@:7:5}")
  printf '%-7s wrk requests %9d | http %9d, memory hits %9d, tier hits %9d, misses %9d, db queries %d\n' \
    "$label" "$total" $((a[0] - b[0])) $((a[1] - b[1])) $((a[2] - b[2])) $((a[3] - b[3])) $((a[4] - b[4]))
}
echo
echo "/metrics deltas over the runs (lmdb should be tier hits ~ requests and no db queries; memory: memory hits):"
served memory "$mem_wrk_total" "${mem_before[@]}" -- "${mem_after[@]}"
served lmdb "$lmdb_wrk_total" "${lmdb_before[@]}" -- "${lmdb_after[@]}"
echo "CPU of the idle daemon during the other's runs: $(awk -v t="$idle_ticks" -v hz="$hz" 'BEGIN {printf "%.2f", t / hz}') s"

echo
echo "RSS (RssFile of the lmdb daemon = touched pages of the LMDB map, i.e. page cache):"
echo "memory  populated: $rss_mem_before; after the runs: $(rss_detail "$MEM_PID")"
echo "lmdb    populated: $rss_lmdb_before; after the runs: $(rss_detail "$LMDB_PID")"
echo "after: $(machine_load)"
