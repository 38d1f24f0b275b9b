#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Micro benchmarks (Google Benchmark): bench/micro/micro_bench.cpp, built as
# restcache-micro in BENCH_BIN (default build/release) through the guarded
# block at the end of the root CMakeLists.txt (only when the benchmark package
# is found; this script installs libbenchmark-dev first).
#   encode   BM_encode_deptemps, BM_encode_and_make_doc: one department document
#   shard    BM_shard_get_roundtrip (one get at a time, from a non-actor thread to
#            a cache_shard actor of a real actor system and back),
#            BM_shard_get_pipelined/1000 (1,000 gets in flight)
#   lmdb     BM_lmdb_read: store_reader::get of a random one of 100,000 documents
#
# Usage:
#   bench/micro.sh [--out DIR] [--quick] [benchmark options, e.g. --benchmark_filter=lmdb]
# --out DIR writes DIR/micro.json (--benchmark_out, JSON) and DIR/micro.txt (the
# console output); without it the console output only. --quick: a shorter
# minimum time per benchmark (0.1 s instead of 0.5 s).
# BENCH_NO_BUILD=1 runs the binary as it is.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

out="" min_time=0.5 extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    --out) out="$2"; shift ;;
    --out=*) out="${1#*=}" ;;
    --quick) min_time=0.1 ;;
    -h|--help) sed -n '3,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) extra+=("$1") ;;
  esac
  shift
done

ensure_packages libbenchmark-dev
if [ "${BENCH_NO_BUILD:-0}" != 1 ]; then
  # Configure again: a tree configured before the package was installed finds it now.
  cmake -S "$RESTCACHE_ROOT" -B "$BENCH_BIN" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
  jobs=$(nproc)
  mem_gb=$(awk '/MemAvailable/ {print int($2 / 1048576)}' /proc/meminfo)
  if [ "$mem_gb" -lt "$jobs" ]; then jobs=$(( mem_gb > 0 ? mem_gb : 1 )); fi
  cmake --build "$BENCH_BIN" -j "$jobs" --target restcache-micro
fi
bin="$BENCH_BIN/restcache-micro"
[ -x "$bin" ] || { echo "micro.sh: $bin missing (is libbenchmark-dev found by CMake?)" >&2; exit 1; }

args=(--benchmark_min_time="$min_time" --benchmark_counters_tabular=true "${extra[@]}")
echo "micro benchmarks: $(machine_load)"
if [ -n "$out" ]; then
  mkdir -p "$out"
  "$bin" "${args[@]}" --benchmark_out="$out/micro.json" --benchmark_out_format=json 2>&1 | tee "$out/micro.txt"
  exit "${PIPESTATUS[0]}"
fi
"$bin" "${args[@]}"
