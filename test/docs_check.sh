#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The documentation stays usable from a fresh clone:
#   - every relative link in README.md, CHANGELOG.md, docs/ and bench/README.md
#     names a file or folder inside the repository (an #anchor must be a heading
#     of the page it names);
#   - no tracked text refers to ../shared, a folder outside the repository;
#   - every tracked source file carries its SPDX licence identifier;
#   - README.md stays at most 150 lines (the topics have pages of their own);
#   - with RESTCACHED (the built daemon), every option README.md and docs/ name
#     (`--group.option`, or `group.option` as a code span, for a group the
#     daemon has) is one the daemon takes: its option table (--options-page)
#     or CAF's own options (--caf-help), or one it says was removed.
#   test/docs_check.sh SOURCE_DIR [RESTCACHED]
set -euo pipefail
root="$(cd "${1:?usage: docs_check.sh SOURCE_DIR [RESTCACHED]}" && pwd)"
restcached="${2:-}"
cd "$root"
failures=0
fail() { echo "docs_check: $*" >&2; failures=$((failures + 1)); }

# GitHub's anchor of a heading: lower case, punctuation other than - and _
# dropped, spaces turned into dashes.
anchors_of() {
  grep -E '^#{1,6} ' "$1" | sed -E 's/^#+ +//' | tr 'A-Z' 'a-z' |
    sed -E 's/[^a-z0-9 _-]//g; s/ /-/g'
}

pages=(README.md CHANGELOG.md bench/README.md)
while IFS= read -r page; do pages+=("$page"); done < <(find docs -name '*.md' | sort)

for page in "${pages[@]}"; do
  [ -f "$page" ] || { fail "$page is missing"; continue; }
  dir="$(dirname "$page")"
  # Inline links [text](target); images too. Code spans are left out first.
  while IFS= read -r target; do
    case "$target" in
      http://*|https://*|mailto:*) continue ;;
    esac
    path="${target%%#*}"
    anchor=""
    [ "$path" != "$target" ] && anchor="${target#*#}"
    if [ -z "$path" ]; then
      file="$page"
    else
      file="$dir/$path"
      resolved="$(realpath -m "$file")"
      case "$resolved/" in
        "$root"/*) ;;
        *) fail "$page: link '$target' leaves the repository"; continue ;;
      esac
      [ -e "$file" ] || { fail "$page: link '$target' names nothing ($file)"; continue; }
    fi
    if [ -n "$anchor" ]; then
      if [ ! -f "$file" ] || ! anchors_of "$file" | grep -qxF "$anchor"; then
        fail "$page: link '$target': no heading '#$anchor' in $file"
      fi
    fi
  done < <(sed -E 's/`[^`]*`//g' "$page" | grep -oE '\]\([^) ]+\)' | sed -E 's/^\]\(//; s/\)$//')
done

# Tracked text only: build folders and local state (var/) are not the repository.
if git -C "$root" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  outside="$(git -C "$root" grep -n -I -e '\.\./shared' -- . ':!test/docs_check.sh' || true)"
else
  outside="$(grep -rn -I --exclude-dir='build*' --exclude-dir=var --exclude-dir=.git \
    --exclude=docs_check.sh -e '\.\./shared' . || true)"
fi
[ -z "$outside" ] || fail "these lines refer to ../shared, which is outside the repository:
$outside"

# Every tracked source file (code, scripts, SQL, declarations, build files)
# names its licence in its first two lines (after a #! line).
if git -C "$root" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  while IFS= read -r f; do
    case "$f" in
      *.cpp|*.hpp|*.inc|*.in|*.sh|*.lua|*.sql|*.py|*.toml|*.yml|*.cfg|*.conf|*.service|CMakeLists.txt|*/CMakeLists.txt) ;;
      *) head -c 2 "$f" | grep -q '^#!' || continue ;;
    esac
    head -n 2 "$f" | grep -qF 'SPDX-License-Identifier: Apache-2.0' ||
      fail "$f: no 'SPDX-License-Identifier: Apache-2.0' in its first two lines"
  done < <(git -C "$root" ls-files)
fi

if [ -n "$restcached" ]; then
  known="$(mktemp)"
  trap 'rm -f "$known"' EXIT
  { "$restcached" --options-page | sed -nE 's/^\| `([a-z]+\.[a-z0-9-]+)` \|.*/\1/p'
    "$restcached" --caf-help | grep -oE -- '--[a-z]+\.[a-z][a-z0-9-]*' | sed 's/^--//'
  } | sort -u > "$known"
  [ -s "$known" ] || fail "$restcached printed no option names"
  groups="$(cut -d. -f1 "$known" | sort -u | paste -sd'|')"
  option_pages=(README.md)
  while IFS= read -r page; do option_pages+=("$page"); done < <(find docs -name '*.md' | sort)
  for page in "${option_pages[@]}"; do
    # --group.option anywhere (commands, prose), group.option as a whole code
    # span; a file name (`lmdb.md`) is not an option.
    while IFS= read -r name; do
      grep -qxF "$name" "$known" && continue
      # A removed option may be named to say so: the daemon says it too.
      said="$("$restcached" "--$name=0" --dump-config 2>&1 >/dev/null || true)"
      case "$said" in *"$name was removed"*) continue ;; esac
      fail "$page names option '$name', which restcached does not have"
    done < <({ grep -oE -- "--($groups)\.[a-z][a-z0-9-]*" "$page" | sed 's/^--//' || true
               grep -oE "\`($groups)\.[a-z][a-z0-9-]*(=[^\`]*)?\`" "$page" | sed -E 's/^`//; s/[=`].*//' || true
             } | grep -vE '\.(md|hpp|cpp|sh|sql|toml|json|conf|mdb|csv|txt|png|gp|lua|in|service|log)$' | sort -u)
  done
fi

lines=$(wc -l < README.md)
[ "$lines" -le 150 ] || fail "README.md has $lines lines; keep it at 150 or fewer and move detail to docs/"

if [ "$failures" -gt 0 ]; then
  echo "docs_check: $failures problem(s)" >&2
  exit 1
fi
echo "docs_check: ${#pages[@]} pages, links resolve; README.md $lines lines"
