# SPDX-License-Identifier: Apache-2.0
# Shared by scripts/run and scripts/test: package installation and the build.
# Sourced, not executed.

RESTCACHE_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"

# Debian packages restcache needs to build, test and run.
RESTCACHE_PACKAGES=(
  cmake ninja-build g++ pkg-config ccache curl procps
  libcaf-dev libboost-dev libboost-system-dev libpq-dev liblmdb-dev
  libsimdjson-dev libspdlog-dev libabsl-dev libxxhash-dev libtomlplusplus-dev zlib1g-dev postgresql-15
)

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

# Installs whatever of RESTCACHE_PACKAGES (plus "$@") is missing; a no-op when
# everything is there, so running twice costs nothing.
ensure_packages() {
  local missing=() p
  for p in "${RESTCACHE_PACKAGES[@]}" "$@"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
      missing+=("$p")
    fi
  done
  if [ "${#missing[@]}" -gt 0 ]; then
    echo "restcache: installing ${missing[*]}" >&2
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
  fi
}

# Puts Debian's promtool (package prometheus) at build/tools/promtool for the
# dashboard_metrics test, unpacked rather than installed: installing the
# package would start a Prometheus server. A no-op once it is there.
ensure_promtool() {
  local dir="$RESTCACHE_ROOT/build/tools"
  [ -x "$dir/promtool" ] && return 0
  local tmp
  tmp="$(mktemp -d)"
  if ! (cd "$tmp" && apt-get download prometheus >/dev/null 2>&1); then
    as_root apt-get update -qq
    (cd "$tmp" && apt-get download prometheus >/dev/null)
  fi
  dpkg-deb -x "$tmp"/prometheus_*.deb "$tmp/root"
  mkdir -p "$dir"
  install -m 755 "$tmp/root/usr/bin/promtool" "$dir/promtool"
  rm -rf "$tmp"
}

# build DIR BUILD_TYPE [cmake options...]: configures once, then builds.
build() {
  local dir="$1" type="$2"
  shift 2
  cmake -S "$RESTCACHE_ROOT" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE="$type" "$@" >/dev/null
  # Beast + CAF translation units need ~0.8 GB each: cap parallel jobs by memory.
  local mem_gb jobs
  mem_gb=$(awk '/MemAvailable/ {print int($2 / 1048576)}' /proc/meminfo)
  jobs=$(nproc)
  if [ "$mem_gb" -lt "$jobs" ]; then jobs=$(( mem_gb > 0 ? mem_gb : 1 )); fi
  cmake --build "$dir" -j "$jobs"
}
