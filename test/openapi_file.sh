#!/usr/bin/env bash
# openapi.json is what restcache-load --openapi generates for the demo (the
# engine's part, the demo's kinds, the demo's writes and lists); fails,
# showing the difference and the command that writes it again, while the two
# differ.
#   test/openapi_file.sh BIN_DIR
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="$(cd "${1:?usage: openapi_file.sh BIN_DIR}" && pwd)"
file="$root/openapi.json"
got="$(mktemp /tmp/restcache-openapi-XXXXXX.json)"
trap 'rm -f "$got"' EXIT
"$bin/restcache-load" --openapi >"$got"
if ! diff -u "$file" "$got"; then
  echo "openapi_file: openapi.json differs from restcache-load --openapi (above); write it again with" >&2
  echo "  $bin/restcache-load --openapi > $file" >&2
  exit 1
fi
echo "openapi_file: openapi.json matches restcache-load --openapi ($(wc -l <"$got") lines)"
