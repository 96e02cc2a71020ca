#!/usr/bin/env bash
# Fails (exit 1) when a file of a trainer layer includes a header of a layer above it, or of a
# trainer folder that trainer/layers.txt does not list; prints each such include as
# FILE:LINE: LAYER includes HEADER (layer UPPER is above it). Subfolders of a layer (cli/options/)
# belong to it. Exit 0 when the layering holds.
#
#   scripts/check-layers.sh [SOURCE_DIR]    (default: the repository this script is in)
#
# Run by the build (target check_layers, part of `all`) and by ctest (trainer_layering).
set -euo pipefail
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
layers_file="$root/trainer/layers.txt"
[ -f "$layers_file" ] || { echo "check-layers: $layers_file is missing" >&2; exit 2; }
declare -A rank
n=0
while read -r layer; do
  case "$layer" in ''|'#'*) continue ;; esac
  rank[$layer]=$n
  n=$((n + 1))
done < "$layers_file"
status=0
for dir in "$root"/trainer/*/; do
  layer=$(basename "$dir")
  if [ -z "${rank[$layer]+x}" ]; then
    echo "check-layers: trainer/$layer/ is not a layer of trainer/layers.txt" >&2
    status=1
    continue
  fi
  while IFS=: read -r file line text; do
    header=$(sed -E 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"([^"]*)".*/\1/' <<<"$text")
    target=${header%%/*}
    [ "$target" != "$header" ] || continue  # no folder: a file of its own layer
    [ -n "${rank[$target]+x}" ] || continue   # not a trainer folder (a system or third-party path)
    if [ "${rank[$target]}" -gt "${rank[$layer]}" ]; then
      echo "${file#"$root"/}:$line: $layer includes $header (layer $target is above it)" >&2
      status=1
    fi
  done < <(grep -rHnE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$dir" 2>/dev/null || true)
done
if [ "$status" -ne 0 ]; then
  echo "check-layers: the trainer's layering is broken (trainer/layers.txt, docs/architecture.md)" >&2
fi
exit "$status"
