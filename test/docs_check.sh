#!/usr/bin/env bash
# The documentation stays usable from a fresh clone:
#   - every relative link in README.md, CHANGELOG.md, docs/ and bench/README.md
#     names a file or folder inside the repository (an #anchor must be a heading
#     of the page it names);
#   - no tracked text refers to ../shared, a folder outside the repository;
#   - README.md stays at most 150 lines (the topics have pages of their own).
#   test/docs_check.sh SOURCE_DIR
set -euo pipefail
root="$(cd "${1:?usage: docs_check.sh SOURCE_DIR}" && pwd)"
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

lines=$(wc -l < README.md)
[ "$lines" -le 150 ] || fail "README.md has $lines lines; keep it at 150 or fewer and move detail to docs/"

if [ "$failures" -gt 0 ]; then
  echo "docs_check: $failures problem(s)" >&2
  exit 1
fi
echo "docs_check: ${#pages[@]} pages, links resolve; README.md $lines lines"
