#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The daemon's outward behaviour as text, so that a change meant to alter no
# behaviour (a restructure) can be checked rather than asserted:
#   - restcached --help;
#   - restcached --dump-config, with what this machine decides masked (the
#     version line, and the values resolved from cores and memory);
#   - the /metrics family names (# TYPE lines) and series (name and labels);
#   - the exact answers (status line, header, body) to a fixed list of
#     requests covering every route and status, in order, against a private
#     PostgreSQL with a small deterministic data set; Date and X-Request-Id
#     are left out, and /depts/random's body (a random department) too.
#
#   test/behaviour/record.sh BIN_DIR OUT_FILE
#   test/behaviour/check.sh BIN_DIR     compares with test/behaviour/expected.txt
#
# The cluster: initdb into a temp dir, 127.0.0.1 on a free port, stopped at
# exit (scripts/lib/pg-cluster.sh). The daemon: --http.port=0, cache.mode
# tiered with its LMDB file in the temp dir, 2 shards and 2 io threads
# whatever the machine (the shard labels of /metrics depend on them).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
bin="$(cd "$1" && pwd)"
out="$2"
# shellcheck source=../../scripts/lib/pg-cluster.sh
source "$root/scripts/lib/pg-cluster.sh"

tmp="$(mktemp -d /tmp/restcache-behaviour-XXXXXX)"
chmod 755 "$tmp"
daemon_pid=""
cleanup() {
  [ -n "$daemon_pid" ] && kill "$daemon_pid" 2>/dev/null && wait "$daemon_pid" 2>/dev/null
  pg_cluster_stop "$tmp/pg" >/dev/null 2>&1 || true
  rm -rf "$tmp"
}
trap cleanup EXIT

# A port nothing listens on (bash's /dev/tcp connects only to a listener),
# below the ephemeral range (32768 up), where the outgoing connections of
# tests running alongside take their local ports.
free_port() {
  local p
  for _ in $(seq 1 50); do
    p=$((20000 + RANDOM % 12000))
    if ! (: </dev/tcp/127.0.0.1/$p) 2>/dev/null; then
      echo "$p"
      return
    fi
  done
  echo "no free port found" >&2
  return 1
}

pg_port="$(free_port)"
pg_cluster_init "$tmp/pg" "$pg_port" >/dev/null
# A port free when looked at can be taken before PostgreSQL binds it: try
# another then.
for attempt in 1 2 3 4 5; do
  if pg_cluster_start "$tmp/pg" "$pg_port" >/dev/null 2>"$tmp/pg-start.err"; then
    break
  fi
  if [ "$attempt" -eq 5 ]; then
    cat "$tmp/pg-start.err" >&2
    exit 1
  fi
  pg_port="$(free_port)"
done
dsn="$(pg_cluster_dsn "$tmp/pg" "$pg_port")"
"$bin/restcache-load" --dsn "$dsn" --depts 40 --emps-per-dept 3 >/dev/null 2>&1

{
  echo "== restcached --help"
  "$bin/restcached" --help 2>&1 | sed -E 's/^(restcached [0-9.]+) \([^)]*\)/\1 (COMMIT)/'
  echo
  echo "== restcached --dump-config (machine-decided values masked)"
  "$bin/restcached" --dump-config --config-file=/dev/null 2>&1 |
    sed -E -e 's/^(; restcached [0-9.]+) \([^)]*\)/\1 (COMMIT)/' \
      -e 's/^(threads|shards|max-threads|memory-bytes) = .*/\1 = MACHINE/'
} >"$out"

"$bin/restcached" --db.dsn="$dsn" --http.port=0 --cache.mode=tiered --lmdb.path="$tmp/lmdb" \
  --http.write-token=secret-token --http.body-limit=4096 --log.level=warn --cache.shards=2 --http.threads=2 \
  >"$tmp/daemon.out" 2>"$tmp/daemon.log" &
daemon_pid=$!
port=""
for _ in $(seq 1 100); do
  port="$(sed -n 's/^restcached: listening on .*:\([0-9]*\)$/\1/p' "$tmp/daemon.out")"
  [ -n "$port" ] && break
  sleep 0.1
done
if [ -z "$port" ]; then
  echo "the daemon did not start:" >&2
  cat "$tmp/daemon.log" >&2
  exit 1
fi
base="http://127.0.0.1:$port"
# Caught up with the change log, and the department ids loaded for /depts/random
# (read from /metrics: a GET of /depts/random would cache a department and
# change the Cache-Status recorded for it below).
for _ in $(seq 1 300); do
  if curl -sf -o /dev/null "$base/ready" \
     && curl -s "$base/metrics" | grep -Eq '^restcache_dept_ids [1-9]'; then
    break
  fi
  sleep 0.1
done

# One request and its answer: the curl arguments, then the answer with CRs
# removed and the per-request headers left out.
req() {
  local label="${*//$base/}" # the port is picked at random
  echo
  echo "== ${label:0:160}"
  curl -s -i --http1.1 --max-time 10 "$@" 2>&1 | tr -d '\r' | grep -v -i -E '^(date|x-request-id): '
  echo
}
# The change-log keys the listener has read so far.
changes_read() {
  curl -s --max-time 10 "$base/metrics" | sed -n 's/^restcache_listener_changes_read_total \([0-9]*\)$/\1/p'
}
# A GET after writes waits (up to 10 s) until the listener has read their
# own changes from the log, past `$1` keys and then no more coming: read
# while the GET's fill is in flight, a change leaves the answer unkept
# (no "stored"), and which comes first depends on the machine's load.
settle() {
  local last="" now
  for _ in $(seq 1 100); do
    now="$(changes_read)"
    [ -n "$now" ] && [ "$now" -gt "$1" ] && [ "$now" = "$last" ] && return
    last="$now"
    sleep 0.1
  done
}
auth=(-H "Authorization: Bearer secret-token")
json=(-H "Content-Type: application/json")

{
  echo
  curl -s --max-time 10 "$base/metrics" >"$tmp/metrics.txt"
  echo "== /metrics families"
  sed -n 's/^# TYPE \([^ ]*\) .*/\1/p' "$tmp/metrics.txt" | sort -u
  echo
  echo "== /metrics series (name and labels; the values change)"
  # Less the /ready 503s the wait above may or may not have seen (a loaded machine).
  grep -v '^#' "$tmp/metrics.txt" | sed -E 's/ [^ ]+$//' | grep -v -F 'route="/ready",status="503"' | sort -u

  req "$base/health"
  req "$base/ready"
  req "$base/deptemps/1"
  echo
  echo "== /deptemps/1 -H Accept-Encoding: gzip (the header, then the body unzipped)"
  curl -s -D "$tmp/gz.head" -o "$tmp/gz.body" --http1.1 --max-time 10 -H "Accept-Encoding: gzip" "$base/deptemps/1"
  tr -d '\r' <"$tmp/gz.head" | grep -v -i -E '^(date|x-request-id): '
  gzip -dc <"$tmp/gz.body"
  echo
  req -I "$base/deptemps/2"
  req "$base/deptemps/3" -H 'If-None-Match: "0000000000000000"'
  etag="$(curl -s -D - -o /dev/null --max-time 10 "$base/deptemps/3" | tr -d '\r' | sed -n 's/^ETag: //p')"
  req "$base/deptemps/3" -H "If-None-Match: $etag"
  req "$base/deptemps/99999"
  req "$base/deptemps/0"
  req "$base/deptemps/abc"
  req -X POST "$base/deptemps/1"
  req "$base/depts/4"
  req "$base/depts/emps/5"
  req "$base/depts/emps/999999"
  req "$base/depts?after=10&limit=3"
  req "$base/depts?limit=0"
  req "$base/depts?after=x"
  req "$base/nothing-here"
  echo
  echo "== /depts/random (status and header names only: a random department)"
  curl -s -i --http1.1 --max-time 10 "$base/depts/random" | tr -d '\r' | sed -n '1,/^$/p' |
    sed -E -e 's/^([A-Za-z-]+): .*/\1/' | grep -v -i -E '^(date|x-request-id)$'
  # Writes: without the token, with a bad body, then each kind once.
  req -X PUT "$base/depts/6" "${json[@]}" --data-binary '{"deptNumber":6,"deptName":"X","deptLocation":"Y"}'
  req -X PUT "$base/depts/6" "${auth[@]}" "${json[@]}" --data-binary '{"deptNumber":6,'
  req -X PUT "$base/depts/6" "${auth[@]}" -H "Content-Type: text/plain" --data-binary 'x'
  req -X PUT "$base/depts/6" "${auth[@]}" "${json[@]}"
  req -X PUT "$base/depts/6" "${auth[@]}" "${json[@]}" --data-binary "$(head -c 5000 /dev/zero | tr '\0' ' ')"
  req -X PUT "$base/depts/6" "${auth[@]}" "${json[@]}" --data-binary '{"deptNumber":6,"deptName":"X"}'
  req -X PUT "$base/depts/6" "${auth[@]}" "${json[@]}" -H 'If-Match: "0000000000000000"' \
    --data-binary '{"deptNumber":6,"deptName":"X","deptLocation":"Y","emps":[]}'
  seen="$(changes_read)"
  req -X PUT "$base/depts/6" "${auth[@]}" "${json[@]}" \
    --data-binary '{"deptNumber":6,"deptName":"RENAMED","deptLocation":"HERE","emps":[]}'
  settle "$seen"
  req "$base/deptemps/6"
  seen="$(changes_read)"
  req -X POST "$base/depts" "${auth[@]}" "${json[@]}" \
    --data-binary '{"deptNumber":500,"deptName":"NEW","deptLocation":"THERE"}'
  req -X POST "$base/depts" "${auth[@]}" "${json[@]}" \
    --data-binary '{"deptNumber":500,"deptName":"AGAIN","deptLocation":"THERE"}'
  settle "$seen"
  req "$base/deptemps/500"
  seen="$(changes_read)"
  req -X POST "$base/depts/emps" "${auth[@]}" "${json[@]}" \
    --data-binary '{"empNo":90001,"empName":"ADA","job":"ENGINEER","deptNumber":500}'
  req -X PUT "$base/depts/emps/90001" "${auth[@]}" "${json[@]}" \
    --data-binary '{"empNo":90001,"empName":"ADA","job":"LEAD","sal":100,"deptNumber":500}'
  settle "$seen"
  req "$base/deptemps/500"
  seen="$(changes_read)"
  req -X DELETE "$base/depts/emps/90001" "${auth[@]}"
  req -X DELETE "$base/depts/500" "${auth[@]}"
  settle "$seen"
  req "$base/deptemps/500"
  req -X DELETE "$base/depts/500" "${auth[@]}"
  req -X PATCH "$base/depts/7" "${auth[@]}"
} >>"$out"
