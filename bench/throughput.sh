#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Memory-tier throughput of restcached next to nginx serving the same document
# bytes as a static file, measured in one sitting, same wrk settings:
# keep-alive, random ids over all departments, every department cached
# (cache.mode=memory, cache.populate).
#   bench/throughput.sh            DEPTS=100000 DURATION=20s CONNS=64 ROUNDS=2
# nginx runs bench/nginx.conf.in with NGINX_WORKERS worker processes (default
# auto: a worker a core, as nginx is run).
# Prints req/s of each run and the ratio restcache / nginx; the daemon's and
# nginx's logs stay in var/bench/throughput-<yyyymmdd-hhmmss>/.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

depts="${DEPTS:-100000}"
duration="${DURATION:-20s}"
conns="${CONNS:-64}"
rounds="${ROUNDS:-2}"
daemon_port=18080
nginx_port=18081

BENCH_LOG_DIR="$(bench_out_dir throughput)"
cleanup() {
  bench_stop_daemon
  bench_stop_nginx
  bench_stop_cluster || true
}
trap cleanup EXIT

bench_setup "$depts"
bench_start_daemon "$daemon_port" --cache.mode=memory --cache.populate "$@"
# The cluster may hold more departments than DEPTS (an earlier, larger run):
# wait for populate to finish, not for DEPTS entries, so it does not compete.
echo "waiting for cache.populate to finish ..."
for _ in $(seq 1 900); do
  grep -q "cache.populate: done" "$BENCH_LOG_DIR/restcached.log" && break
  sleep 1
done
echo "cached: $(metric $daemon_port restcache_cache_entries) documents"

# nginx: worker_processes ${NGINX_WORKERS:-auto}, the same bytes for every /deptemps/ id.
curl -s "127.0.0.1:$daemon_port/deptemps/1" >"$BENCH_LOG_DIR/doc.json"
bench_start_nginx "$nginx_port" "$BENCH_LOG_DIR/doc.json"
echo "nginx: $NGINX_WORKER_COUNT worker(s) (worker_processes ${NGINX_WORKERS:-auto}), $(nproc) cores"

run_wrk() { # PORT -> req/s
  wrk_random "$1" "$duration" "$conns" "$depts" | awk '/Requests\/sec/ {print int($2)}'
}

# Warm both (connections, page cache, CPU frequency).
wrk_random "$nginx_port" 3s "$conns" "$depts" >/dev/null
wrk_random "$daemon_port" 3s "$conns" "$depts" >/dev/null

echo "wrk -t1 -c$conns -d$duration, random ids over $depts departments; nginx $NGINX_WORKER_COUNT worker(s); $(machine_load)"
printf '%-8s %-12s %-12s %s\n' round nginx restcache ratio
best_n=0; best_r=0
for round in $(seq 1 "$rounds"); do
  n=$(run_wrk $nginx_port)
  r=$(run_wrk $daemon_port)
  printf '%-8s %-12s %-12s %s\n' "$round" "$n" "$r" "$(awk -v r="$r" -v n="$n" 'BEGIN {printf "%.2f", r / n}')"
  [ "$n" -gt "$best_n" ] && best_n=$n
  [ "$r" -gt "$best_r" ] && best_r=$r
done
echo "best: nginx $best_n req/s, restcache $best_r req/s, ratio $(awk -v r="$best_r" -v n="$best_n" 'BEGIN {printf "%.2f", r / n}')"
echo "db queries during the runs: $(metric $daemon_port restcache_db_queries_total) (all from populate and misses)"
echo "after: $(machine_load)"
