#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The layers include only downwards: every #include "folder/..." of a
# project file names its own folder or one it may use (the libraries of
# CMakeLists.txt link the same way), and no engine folder names the demo.
# Prints each wrong include or line and fails.
#   test/layering.sh [SOURCE_ROOT]
set -euo pipefail
root="${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}"
cd "$root"

# folder: the folders its files may include besides their own.
declare -A may=(
  [messages]=""
  [logging]=""
  [persistence]="messages"
  [db]="messages persistence"
  [runtime]=""
  [config]="messages"
  [cache]="messages"
  [actors]="messages persistence db cache"
  [http]="messages logging"
  [declarations]="messages"
  [component]="messages logging persistence db runtime config cache actors http declarations"
  [demo]="messages logging persistence db config cache actors http declarations component"
  [app]="messages logging persistence db runtime config cache actors http declarations component demo"
  [tools]="messages persistence db actors http config test tools declarations demo"
)

wrong=0
for folder in "${!may[@]}"; do
  [ -d "$folder" ] || continue
  allowed=" $folder ${may[$folder]} "
  while IFS= read -r hit; do
    file="${hit%%:*}"
    target="$(sed -E 's/.*#include "([a-z_]+)\/.*/\1/' <<<"$hit")"
    # Generated headers (restcache_version.hpp) and system headers have no folder.
    [ -z "$target" ] || [ "$target" = "$hit" ] && continue
    # config/defaults.hpp is constants only (no symbols, nothing included):
    # every layer takes its defaults from there, so each is written once.
    [[ "$hit" == *'#include "config/defaults.hpp"'* ]] && continue
    if [[ "$allowed" != *" $target "* ]]; then
      echo "layering: $file includes $target/ (allowed for $folder/: ${may[$folder]:-nothing else})"
      wrong=1
    fi
  done < <(grep -rHE '^#include "[a-z_]+/' "$folder" --include=*.cpp --include=*.hpp --include=*.inc || true)
done

# The demo is a module above the engine: no engine folder names its tables,
# rows or kinds (dept, emp, deptemps) outside comments. Excepted: the
# upgrade and uninstall steps that remove the triggers older versions put on
# the demo's tables (restcache_dept_changed ON dept, ...).
demo_names='(^|[^a-z])(dept|emp|deptemps)(s|_|[^a-z]|$)'
for folder in messages logging persistence db runtime config cache actors http declarations component app; do
  [ -d "$folder" ] || continue
  while IFS= read -r hit; do
    file="${hit%%:*}"
    code="$(cut -d: -f3- <<<"$hit" | sed -E 's#//.*##; s#^[[:space:]]*(--|\*|/\*).*##')"
    grep -qE "$demo_names" <<<"$code" || continue
    if [[ "$file" == persistence/pg/schema.sql || "$file" == persistence/pg/schema.cpp ]] \
      && grep -qE "restcache_(dept|emp)_|to_regclass\('(dept|emp)'\)" <<<"$code"; then
      continue
    fi
    echo "layering: $hit (the engine names the demo)"
    wrong=1
  done < <(grep -rnE "$demo_names" "$folder" --include=*.cpp --include=*.hpp --include=*.inc --include=*.sql \
             --include=*.json --include=*.in || true)
done

if [ "$wrong" -ne 0 ]; then
  exit 1
fi
echo "layering: every include goes downwards; no engine folder names the demo"
