#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Instructions per request of restcached, counted by callgrind (stable on a
# noisy machine, unlike req/s): populates the memory tier from the bench
# cluster (10,000 departments), switches instrumentation on for N keep-alive
# GETs of one document with ab -c16, and divides the process's instruction
# count (every thread) by N.
#   bench/callgrind.sh [BIN_DIR] [OUT_FILE]     N=20000 C=16 (ab -c)
# OUT_FILE (callgrind_annotate reads it) defaults to callgrind.out in
# var/bench/callgrind-<yyyymmdd-hhmmss>/, beside the daemon's log and ab's output.
#   MODEARGS="--cache.mode=memory --cache.populate --log.access --log.access-file=/tmp/a.log" bench/callgrind.sh
# BIN_DIR defaults to build/release (BENCH_NO_BUILD=1 is implied: build it first).
# TIER=none counts a fill instead of a memory hit: cache.mode=none, so every
# GET is a miss read from PostgreSQL and answered through the shard's fill
# table (N defaults to 5000 then).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
BENCH_BIN="${1:-$BENCH_BIN}"
tier="${TIER:-memory}"
case "$tier" in
  memory) n="${N:-20000}"; default_modeargs="--cache.mode=memory --cache.populate" ;;
  none) n="${N:-5000}"; default_modeargs="--cache.mode=none" ;;
  *) echo "TIER is memory or none, not $tier" >&2; exit 2 ;;
esac
conc="${C:-16}"
export BENCH_NO_BUILD=1
ensure_packages valgrind curl
BENCH_LOG_DIR="$(bench_out_dir callgrind)"
out="${2:-$BENCH_LOG_DIR/callgrind.out}"
trap 'bench_stop_cluster || true' EXIT
bench_setup 10000 >/dev/null
port=18777
# shellcheck disable=SC2086
valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$out" "$BENCH_BIN/restcached" \
  --db.dsn="$BENCH_DSN" --http.port=$port --lmdb.path="$BENCH_LOG_DIR/lmdb" \
  ${MODEARGS:-$default_modeargs} >"$BENCH_LOG_DIR/out" 2>"$BENCH_LOG_DIR/log" &
vpid=$!
modeargs="${MODEARGS:-$default_modeargs}"
for _ in $(seq 1 600); do
  if [[ "$modeargs" == *--cache.populate* ]]; then
    grep -q "cache.populate: done" "$BENCH_LOG_DIR/log" 2>/dev/null && break
  else
    curl -sf "http://127.0.0.1:$port/ready" >/dev/null 2>&1 && break
  fi
  sleep 1
done
ab -k -c "$conc" -n $(( conc > 2000 ? conc : 2000 )) "http://127.0.0.1:$port/deptemps/77" >/dev/null 2>&1 # warm
callgrind_control -i on "$vpid" >/dev/null
ab -k -c "$conc" -n "$n" "http://127.0.0.1:$port/deptemps/77" >"$BENCH_LOG_DIR/ab.txt" 2>&1
callgrind_control -i off "$vpid" >/dev/null
grep -E "Complete requests|Failed requests" "$BENCH_LOG_DIR/ab.txt"
kill -TERM "$vpid"
wait "$vpid" || true
total=$(callgrind_annotate "$out" 2>/dev/null | awk '/PROGRAM TOTALS/ {gsub(",", "", $1); print $1}')
echo "instructions: $total in all, $((total / n)) per request ($out; callgrind_annotate for the profile)"
