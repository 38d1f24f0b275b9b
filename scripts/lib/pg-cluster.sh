# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
# A private PostgreSQL 15 cluster for restcache, to be sourced (scripts/run).
#
#   pg_cluster_init  DIR PORT   initdb DIR/data once (superuser "restcache", trust auth)
#   pg_cluster_start DIR PORT   start it on 127.0.0.1:PORT (no-op when already running),
#                               create the database "restcache" if missing
#   pg_cluster_stop  DIR        stop it (fast, then immediate); no-op when not running
#   pg_cluster_dsn   DIR PORT   echo the libpq DSN of the "restcache" database
#   pg_cluster_running DIR      true when the cluster in DIR is running
#   pg_cluster_remove DIR       stop it and delete DIR/data (its next init is a fresh cluster)
#
# A relative DIR is taken relative to the current directory.
# Layout: DIR/data (PGDATA), DIR/run (Unix socket), DIR/postgres.log.
# PostgreSQL refuses to run as root, so when called as root every server-side
# command runs as the "postgres" system user (runuser) and DIR is chowned to it;
# then every parent directory of DIR must be traversable by that user.
# No system service, no /var/run/postgresql, no system cluster is touched.
# Every function returns non-zero with a message on stderr on failure and is
# safe to call twice. Extra server options: PG_CLUSTER_EXTRA_OPTS (e.g.
# "-c shared_buffers=1GB"), passed to postgres at start.

PG_CLUSTER_BIN=${PG_CLUSTER_BIN:-/usr/lib/postgresql/15/bin}
PG_CLUSTER_USER=${PG_CLUSTER_USER:-restcache}
PG_CLUSTER_DB=${PG_CLUSTER_DB:-restcache}

_pg_cluster_err() { printf 'pg-cluster: %s\n' "$*" >&2; }

# Runs a command as the cluster's OS user: postgres when we are root, else us.
_pg_cluster_as_owner() {
  if [ "$(id -u)" -eq 0 ]; then
    # cd / first: the tools complain when they cannot access the current directory.
    (cd / && runuser -u postgres -- "$@")
  else
    "$@"
  fi
}

_pg_cluster_check_args() { # FN DIR [PORT]
  local fn=$1 dir=$2 port=${3-}
  if [ -z "$dir" ]; then _pg_cluster_err "$fn: missing DIR"; return 2; fi
  if [ $# -ge 3 ]; then
    case $port in
      ''|*[!0-9]*) _pg_cluster_err "$fn: PORT must be a number, got '$port'"; return 2;;
    esac
    if [ "$port" -lt 1 ] || [ "$port" -gt 65535 ]; then
      _pg_cluster_err "$fn: PORT out of range: $port"; return 2
    fi
  fi
  if [ ! -x "$PG_CLUSTER_BIN/pg_ctl" ]; then
    _pg_cluster_err "$fn: $PG_CLUSTER_BIN/pg_ctl not found (is postgresql-15 installed?)"; return 1
  fi
}

# As root: make DIR belong to postgres and verify postgres can reach it.
_pg_cluster_prepare_dir() { # DIR
  local dir=$1
  mkdir -p "$dir" || { _pg_cluster_err "cannot create $dir"; return 1; }
  [ "$(id -u)" -eq 0 ] || return 0
  if ! id postgres >/dev/null 2>&1; then
    _pg_cluster_err "running as root but there is no 'postgres' user to run the server as"; return 1
  fi
  # Which parent blocks the postgres user? Check each one, outermost first.
  local p="" part
  local IFS=/
  for part in ${dir#/}; do
    p="$p/$part"
    [ "$p" = "$dir" ] && break
    if ! runuser -u postgres -- test -x "$p" 2>/dev/null; then
      _pg_cluster_err "the postgres user cannot traverse '$p' (a parent of $dir; mode $(stat -c %a "$p") owner $(stat -c %U "$p")); PostgreSQL cannot run as root, so its data must be reachable by 'postgres': use a directory whose parents are traversable (e.g. under /tmp) or chmod o+x '$p'"
      return 1
    fi
  done
  chown postgres:postgres "$dir" || { _pg_cluster_err "cannot chown $dir to postgres"; return 1; }
  chmod 700 "$dir"
  if ! runuser -u postgres -- test -w "$dir" 2>/dev/null; then
    _pg_cluster_err "the postgres user cannot write to $dir"; return 1
  fi
}

pg_cluster_init() { # DIR PORT
  _pg_cluster_check_args pg_cluster_init "$@" || return
  local dir port=$2
  dir=$(realpath -m -- "$1")
  if [ -f "$dir/data/PG_VERSION" ]; then
    return 0 # initialised before
  fi
  _pg_cluster_prepare_dir "$dir" || return
  if [ -e "$dir/data" ] && [ -n "$(ls -A "$dir/data" 2>/dev/null)" ]; then
    _pg_cluster_err "$dir/data exists, is not empty, and is not a PostgreSQL data directory; remove it"
    return 1
  fi
  local out
  if ! out=$(_pg_cluster_as_owner "$PG_CLUSTER_BIN/initdb" -D "$dir/data" -A trust \
                -U "$PG_CLUSTER_USER" -E UTF8 --locale=C.UTF-8 2>&1); then
    _pg_cluster_err "initdb -D $dir/data failed:"; printf '%s\n' "$out" >&2
    return 1
  fi
  _pg_cluster_as_owner mkdir -p "$dir/run" || return
  # Settings the run relies on; the port is also passed at start so a changed
  # PORT wins. Appended last, so they override initdb's defaults.
  # shellcheck disable=SC2016 # $1 is expanded by the inner sh
  _pg_cluster_as_owner sh -c 'cat >> "$1"' sh "$dir/data/postgresql.conf" <<EOF || return

# --- restcache private cluster (scripts/lib/pg-cluster.sh) ---
listen_addresses = '127.0.0.1'
port = $port
unix_socket_directories = '$dir/run'
max_connections = 200
shared_preload_libraries = 'pg_stat_statements'
EOF
}

pg_cluster_running() { # DIR
  local dir
  dir=$(realpath -m -- "$1")
  [ -f "$dir/data/postmaster.pid" ] || return 1
  _pg_cluster_as_owner "$PG_CLUSTER_BIN/pg_ctl" status -D "$dir/data" >/dev/null 2>&1
}

pg_cluster_start() { # DIR PORT
  _pg_cluster_check_args pg_cluster_start "$@" || return
  local dir port=$2
  dir=$(realpath -m -- "$1")
  if [ ! -f "$dir/data/PG_VERSION" ]; then
    _pg_cluster_err "no cluster in $dir (run pg_cluster_init $dir $port first)"; return 1
  fi
  if ! pg_cluster_running "$dir"; then
    local out
    if ! out=$(_pg_cluster_as_owner "$PG_CLUSTER_BIN/pg_ctl" start -w -t 60 -D "$dir/data" \
                  -l "$dir/postgres.log" \
                  -o "-p $port ${PG_CLUSTER_EXTRA_OPTS:-}" 2>&1); then
      _pg_cluster_err "pg_ctl start -D $dir/data (port $port) failed:"
      printf '%s\n' "$out" >&2
      if [ -f "$dir/postgres.log" ]; then
        printf -- '--- last lines of %s ---\n' "$dir/postgres.log" >&2
        tail -n 15 "$dir/postgres.log" >&2
      fi
      return 1
    fi
  fi
  # The database the daemon uses (first start only).
  local exists
  exists=$("$PG_CLUSTER_BIN/psql" -X -q -A -t -h "$dir/run" -p "$port" -U "$PG_CLUSTER_USER" -d postgres \
             -c "SELECT 1 FROM pg_database WHERE datname = '$PG_CLUSTER_DB'" 2>&1) || {
    _pg_cluster_err "cannot connect to the cluster in $dir on port $port (running on another port?):"
    printf '%s\n' "$exists" >&2
    return 1
  }
  if [ "$exists" != 1 ]; then
    local out
    if ! out=$("$PG_CLUSTER_BIN/createdb" -h "$dir/run" -p "$port" -U "$PG_CLUSTER_USER" "$PG_CLUSTER_DB" 2>&1); then
      # A concurrent caller may have created it meanwhile.
      case $out in *"already exists"*) ;; *)
        _pg_cluster_err "createdb $PG_CLUSTER_DB failed:"; printf '%s\n' "$out" >&2; return 1;;
      esac
    fi
  fi
}

pg_cluster_stop() { # DIR
  _pg_cluster_check_args pg_cluster_stop "$@" || return
  local dir
  dir=$(realpath -m -- "$1")
  pg_cluster_running "$dir" || return 0
  if ! _pg_cluster_as_owner "$PG_CLUSTER_BIN/pg_ctl" stop -w -t 60 -m fast -D "$dir/data" >/dev/null 2>&1; then
    _pg_cluster_err "fast shutdown of $dir/data did not finish; using immediate"
    _pg_cluster_as_owner "$PG_CLUSTER_BIN/pg_ctl" stop -w -t 30 -m immediate -D "$dir/data" >/dev/null 2>&1 || {
      pg_cluster_running "$dir" && { _pg_cluster_err "cannot stop the cluster in $dir"; return 1; }
    }
  fi
  return 0
}

pg_cluster_remove() { # DIR
  _pg_cluster_check_args pg_cluster_remove "$@" || return
  local dir
  dir=$(realpath -m -- "$1")
  pg_cluster_stop "$dir" || return
  rm -rf -- "$dir/data"
}

pg_cluster_dsn() { # DIR PORT
  _pg_cluster_check_args pg_cluster_dsn "$@" || return
  local port=$2
  printf 'host=127.0.0.1 port=%s user=%s dbname=%s\n' "$port" "$PG_CLUSTER_USER" "$PG_CLUSTER_DB"
}
