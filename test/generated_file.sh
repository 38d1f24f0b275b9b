#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# A committed file that a command generates (docs/configuration.md from
# restcached --options-page, openapi.json from restcache-load --openapi) is
# what the command prints now: fails, showing the difference and the command
# that writes the file again, while the two differ.
#   test/generated_file.sh NAME FILE COMMAND [ARGS...]
set -euo pipefail
name="${1:?usage: generated_file.sh NAME FILE COMMAND [ARGS...]}" file="${2:?}"
shift 2
got="$(mktemp "/tmp/restcache-$name-XXXXXX")"
trap 'rm -f "$got"' EXIT
"$@" >"$got"
if ! diff -u "$file" "$got"; then
  echo "$name: $file differs from $* (above); write it again with" >&2
  echo "  $* > $file" >&2
  exit 1
fi
echo "$name: $file matches $* ($(wc -l <"$got") lines)"
