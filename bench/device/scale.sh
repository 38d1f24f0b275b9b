#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Multi-core scaling on the device machine, one sitting: restcached (memory tier) and nginx
# (a static file of the same bytes, worker_processes = threads) pinned to SRV_CPUS, wrk
# pinned to LOAD_CPUS, random ids 1..DEPTS. E1: both with FULL threads across CS, ROUNDS
# alternations. E2: threads 1..N (SCALE) at SCALE_C. Per-thread CPU of restcached at the
# middle C of E1. Loopback only; bounded. Writes $OUT/scale.md (or /tmp/scale.md).
# Runs from the bundle folder that make-bundle.sh fills (docs/benchmarks.md says how).
set -u
SRV_CPUS=${SRV_CPUS:-0-7} LOAD_CPUS=${LOAD_CPUS:-8-15} WRK_T=${WRK_T:-8} FULL=${FULL:-8}
SCALE=${SCALE:-"1 2 4 8"} SCALE_C=${SCALE_C:-256} CS=${CS:-"64 512 4096"} SECS=${SECS:-5}
ROUNDS=${ROUNDS:-2} DEPTS=${DEPTS:-20000} BUNDLE=${BUNDLE:-$(dirname "$0")/b.tar.xz}
OUTF=${OUT:-/tmp}/scale.md
B=/tmp/scaleb; rm -rf $B; mkdir -p $B; tar -xJf "$BUNDLE" -C $B || exit 2
chmod -R a+rX $B
export LD_LIBRARY_PATH=$B/lib TZ=UTC
PGBIN=$B/usr/lib/postgresql/15/bin RC=$B/rc
ulimit -n 200000 2>/dev/null || ulimit -n 65536
log() { echo "$*" | tee -a "$OUTF"; }
for c in taskset runuser useradd awk curl; do command -v $c >/dev/null || echo "missing: $c"; done
command -v curl >/dev/null || curl() { # the few forms used here: -s[f] [-o /dev/null] URL
  local url=${@: -1} o=""; [ "${2:-}" = "-o" ] && o=$3
  python3 - "$url" "$o" <<'PY'
import sys, urllib.request
try:
    b = urllib.request.urlopen(sys.argv[1], timeout=5).read()
except Exception:
    sys.exit(22)
if not sys.argv[2]: sys.stdout.buffer.write(b)
PY
}
: > "$OUTF"
log "# scale: $(nproc) cpus, server cpus $SRV_CPUS, wrk cpus $LOAD_CPUS -t$WRK_T, $DEPTS depts, ${SECS}s a point; $(date -u +%FT%TZ); $(uname -r); $(grep -m1 'model name' /proc/cpuinfo)"
id pgrun >/dev/null 2>&1 || useradd -M -s /bin/sh pgrun || exit 2
D=/tmp/scalepg; rm -rf $D; mkdir -p $D; chown pgrun $D
asu() { runuser -u pgrun -- env LD_LIBRARY_PATH=$LD_LIBRARY_PATH TZ=UTC "$@"; }
asu $PGBIN/initdb -D $D/data -A trust -U postgres >$D/initdb.log 2>&1 || { tail -20 $D/initdb.log; exit 2; }
asu $PGBIN/pg_ctl -D $D/data -l $D/log -w -o "-p 55440 -k $D -c listen_addresses=127.0.0.1 -c max_connections=300 -c shared_buffers=1GB" start >/dev/null || { tail $D/log; exit 2; }
trap 'asu $PGBIN/pg_ctl -D $D/data -m fast stop >/dev/null 2>&1' EXIT
$PGBIN/psql -h 127.0.0.1 -p 55440 -U postgres -qc "create role restcache superuser login" -c "create database restcache owner restcache" >/dev/null || exit 2
DSN="host=127.0.0.1 port=55440 user=restcache dbname=restcache"
$RC/restcache-load --dsn "$DSN" --depts $DEPTS --emps-per-dept 10 >$D/load.log 2>&1 || { tail $D/load.log; exit 2; }
cat > $D/rand.lua <<LUA
math.randomseed(os.time() + math.floor(os.clock()*1e6))
request = function() return wrk.format("GET", "/deptemps/" .. math.random(1, $DEPTS)) end
LUA
pid=""
stop() { [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null; pid=""; }
wait_200() { for _ in $(seq 1 600); do curl -sf -o /dev/null "$1" && return 0; sleep 0.1; done; echo "no answer from $1"; return 1; }
start_rc() {
  stop; rm -rf $D/lmdb
  taskset -c $SRV_CPUS $RC/restcached --db.dsn="$DSN" --cache.mode=memory --cache.populate --http.port=18480 --http.threads=$1 --cache.shards=$1 --lmdb.path=$D/lmdb --http.max-connections=20000 >$D/rc.log 2>&1 & pid=$!
  wait_200 http://127.0.0.1:18480/health || return 1
  local a b; for _ in $(seq 1 120); do
    a=$(curl -s 127.0.0.1:18480/metrics | awk '/^restcache_cache_entries/ {s+=$2} END {print s+0}'); sleep 0.5
    b=$(curl -s 127.0.0.1:18480/metrics | awk '/^restcache_cache_entries/ {s+=$2} END {print s+0}')
    [ "$a" -ge "$DEPTS" ] && [ "$a" = "$b" ] && break; done
  URL=http://127.0.0.1:18480
}
start_nginx() {
  stop; mkdir -p $D/ng/html $D/ng/tmp; cp $D/doc.json $D/ng/html/doc.json
  chmod -R a+rX $D/ng
  cat > $D/ng/nginx.conf <<CONF
worker_processes $1; daemon off; pid $D/ng/nginx.pid; error_log $D/ng/error.log warn;
events { worker_connections 20000; use epoll; multi_accept on; } worker_rlimit_nofile 65536;
http { access_log off; sendfile on; tcp_nopush on; tcp_nodelay on; keepalive_timeout 65; keepalive_requests 100000000;
  open_file_cache max=100 inactive=60s; default_type application/json;
  client_body_temp_path $D/ng/tmp; proxy_temp_path $D/ng/tmp; fastcgi_temp_path $D/ng/tmp; uwsgi_temp_path $D/ng/tmp; scgi_temp_path $D/ng/tmp;
  server { listen 127.0.0.1:18481 backlog=8192 reuseport; root $D/ng/html; location / { try_files /doc.json =404; } } }
CONF
  taskset -c $SRV_CPUS $B/usr/sbin/nginx -e $D/ng/error.log -c $D/ng/nginx.conf & pid=$!
  wait_200 http://127.0.0.1:18481/deptemps/1 || return 1; URL=http://127.0.0.1:18481
}
point() { # url c -> "rps p99ms errors"
  local out; out=$(timeout $((SECS + 40)) taskset -c $LOAD_CPUS $B/usr/bin/wrk -t$WRK_T -c$2 -d${SECS}s --latency --timeout 10s -s $D/rand.lua "$1" 2>&1)
  awk '/Requests\/sec/ {r=$2} / 99%/ {p=$2; if (p ~ /us$/) {sub(/us/,"",p); p/=1000} else if (p ~ /ms$/) {sub(/ms/,"",p)} else if (p ~ /s$/) {sub(/s/,"",p); p*=1000}}
       /Socket errors/ {e=$4+$6+$8+$10} /Non-2xx/ {e+=$5} END {printf "%d %.2f %d\n", r+0, p+0, e}' <<<"$out"
}
cpu_by_thread() { for t in /proc/$pid/task/*; do echo "${t##*/} $(awk '{print $14+$15}' $t/stat) $(cat $t/comm)"; done | sort; }
start_rc $FULL || exit 1   # the first daemon also gives nginx its bytes
curl -sf 127.0.0.1:18480/deptemps/1 > $D/doc.json && [ -s $D/doc.json ] || { echo "no document for nginx"; exit 1; }
log ""; log "## E1: every server with $FULL threads/workers, wrk -t$WRK_T, ids random"
log "| C | round | nginx req/s | restcache req/s | rc/nginx | p99 ms nginx/rc | errors nginx/rc |"
log "|---|---|---|---|---|---|---|"
mid=$(echo $CS | awk '{print $(int((NF+1)/2))}')
for c in $CS; do for r in $(seq 1 $ROUNDS); do
  start_nginx $FULL && read -r nr np ne <<<"$(point $URL/deptemps/1 $c)"
  start_rc $FULL
  if [ "$c" = "$mid" ] && [ "$r" = 1 ]; then before=$(cpu_by_thread); fi
  read -r rr rp re <<<"$(point $URL $c)"
  if [ "$c" = "$mid" ] && [ "$r" = 1 ]; then after=$(cpu_by_thread); fi
  log "| $c | $r | $nr | $rr | $(awk -v a=$rr -v b=$nr 'BEGIN{printf "%.2f", b?a/b:0}') | $np/$rp | $ne/$re |"
done; done
log ""; log "restcached CPU ticks (1/100 s) per thread during one C=$mid point: tid ticks name"
awk 'NR==FNR {b[$1]=$2; next} {d=$2-b[$1]; if (d > 0) print "    " $1, d, $3}' <(echo "$before") <(echo "$after") | tee -a "$OUTF"
log ""; log "## E2: scaling at C=$SCALE_C (restcached http.threads = nginx workers = T, pinned to $SRV_CPUS)"
log "| T | nginx req/s | restcache req/s | rc/nginx | p99 ms nginx/rc |"
log "|---|---|---|---|---|"
for t in $SCALE; do
  start_rc $t; read -r rr rp re <<<"$(point $URL $SCALE_C)"
  start_nginx $t && read -r nr np ne <<<"$(point $URL/deptemps/1 $SCALE_C)"
  log "| $t | $nr | $rr | $(awk -v a=$rr -v b=$nr 'BEGIN{printf "%.2f", b?a/b:0}') | $np/$rp |"
done
stop
log ""; log "# done $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg)"
