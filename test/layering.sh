#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The layers include only downwards: every #include "folder/..." of a
# project file names its own folder or one it may use (the libraries of
# CMakeLists.txt link the same way). Prints each wrong include and fails.
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
if [ "$wrong" -ne 0 ]; then
  exit 1
fi
echo "layering: every include goes downwards"
