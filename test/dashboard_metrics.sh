#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Every restcache_ metric the Grafana dashboard and the alert rules in deploy/
# name is one the daemon exports: the families of the behaviour record
# (test/behaviour/expected.txt, "== /metrics families", which the
# behaviour_record test keeps equal to a running daemon's /metrics). A metric
# renamed in the code fails behaviour_record until the record is written
# again, and then this test until the dashboard and the rules follow. Then
# `promtool check rules` reads the rules.
#   test/dashboard_metrics.sh [SOURCE_ROOT]
set -euo pipefail
root="${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}"
cd "$root"
families="$(awk '/^== \/metrics families/ {on = 1; next} /^== / {on = 0} on' test/behaviour/expected.txt)"
[ -n "$families" ] || { echo "dashboard_metrics: no /metrics families in test/behaviour/expected.txt" >&2; exit 1; }
files=(deploy/grafana/restcache-dashboard.json deploy/prometheus/restcache-alerts.yml)
wrong=0 named=0
for name in $(grep -ohE 'restcache_[a-z0-9_]+' "${files[@]}" | sort -u); do
  named=$((named + 1))
  base="$name"
  # A histogram's series: its family's name and a suffix.
  for suffix in _bucket _sum _count; do
    if [[ "$name" == *"$suffix" ]] && grep -qx "${name%"$suffix"}" <<<"$families"; then
      base="${name%"$suffix"}"
    fi
  done
  if ! grep -qx "$base" <<<"$families"; then
    echo "dashboard_metrics: $name is named in $(grep -l "$name" "${files[@]}" | tr '\n' ' ')but the daemon exports no such metric"
    wrong=1
  fi
done
[ "$named" -gt 0 ] || { echo "dashboard_metrics: no metric named in ${files[*]}" >&2; exit 1; }
[ "$wrong" -eq 0 ] || exit 1
echo "dashboard_metrics: the $named metrics the dashboard and the alert rules name are exported"
# The rules as Prometheus reads them (scripts/test unpacks Debian's promtool).
promtool="${PROMTOOL:-$root/build/tools/promtool}"
if [ ! -x "$promtool" ]; then
  echo "dashboard_metrics: no promtool at $promtool: scripts/test puts it there (or set PROMTOOL)" >&2
  exit 1
fi
"$promtool" check rules deploy/prometheus/restcache-alerts.yml
