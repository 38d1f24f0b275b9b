#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Records the daemon's behaviour (record.sh) and compares it with
# test/behaviour/expected.txt; on a difference prints it and fails. After a
# change that is meant to alter behaviour, write the new record over
# expected.txt (RESTCACHE_BEHAVIOUR_UPDATE=1) and commit it with the change.
#   test/behaviour/check.sh BIN_DIR
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
got="$(mktemp /tmp/restcache-behaviour-record-XXXXXX.txt)"
trap 'rm -f "$got"' EXIT
"$here/record.sh" "$1" "$got"
if [ "${RESTCACHE_BEHAVIOUR_UPDATE:-0}" = 1 ]; then
  cp "$got" "$here/expected.txt"
  echo "behaviour record written to $here/expected.txt"
  exit 0
fi
if ! diff -u "$here/expected.txt" "$got"; then
  echo "behaviour changed: the record above differs from test/behaviour/expected.txt" >&2
  exit 1
fi
echo "behaviour record unchanged ($(wc -l <"$got") lines)"
