#!/usr/bin/env bash
# docs/configuration.md is what restcached --options-page prints from the
# option table (config/options.cpp); fails, showing the difference and the
# command that writes the page again, while the two differ.
#   test/options_page.sh BIN_DIR
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="$(cd "${1:?usage: options_page.sh BIN_DIR}" && pwd)"
page="$root/docs/configuration.md"
got="$(mktemp /tmp/restcache-options-page-XXXXXX.md)"
trap 'rm -f "$got"' EXIT
"$bin/restcached" --options-page >"$got"
if ! diff -u "$page" "$got"; then
  echo "options_page: docs/configuration.md differs from restcached --options-page (above); write it again with" >&2
  echo "  $bin/restcached --options-page > $page" >&2
  exit 1
fi
echo "options_page: docs/configuration.md matches restcached --options-page ($(wc -l <"$got") lines)"
