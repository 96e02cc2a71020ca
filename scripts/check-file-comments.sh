#!/usr/bin/env bash
# Fails (exit 1) when a C++ source or header of trainer/, auditor/, gates/, tests/ or bench/ does
# not open with a `//` comment line (the one line that says what the file holds); prints each such
# file as FILE: first line. Exit 0 when every file has one.
#
#   scripts/check-file-comments.sh [SOURCE_DIR]    (default: the repository this script is in)
#
# Run by ctest (source_file_comments, label unit).
set -euo pipefail
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
status=0
checked=0
while IFS= read -r -d '' file; do
  checked=$((checked + 1))
  first=$(head -n 1 "$file")
  if [[ "$first" != //* ]]; then
    echo "${file#"$root"/}: does not open with a one-line comment (first line: ${first:0:80})" >&2
    status=1
  fi
done < <(find "$root/trainer" "$root/auditor" "$root/gates" "$root/tests" "$root/bench" \
              -type f \( -name '*.cpp' -o -name '*.h' \) -print0)
if [ "$checked" -eq 0 ]; then
  echo "check-file-comments: found no source files under $root" >&2
  exit 2
fi
if [ "$status" -ne 0 ]; then
  echo "check-file-comments: every .cpp and .h opens with a line saying what it holds (docs/architecture.md)" >&2
fi
exit "$status"
