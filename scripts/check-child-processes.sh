#!/usr/bin/env bash
# Fails (exit 1) when auditor/ starts a process anywhere but its two places: report/child_process
# (Boost.Process, every program the auditor runs) and the one fork without exec in
# scope/scope_frontend.cpp (the isolated libclang parse; its comment says why). Prints each other
# call of fork, vfork, posix_spawn, exec*, popen or system and each other Boost.Process include.
#
#   scripts/check-child-processes.sh [SOURCE_DIR]    (default: the repository this script is in)
#
# Run by ctest (auditor_child_processes).
set -euo pipefail
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
[ -d "$root/auditor" ] || { echo "check-child-processes: $root/auditor is missing" >&2; exit 2; }
pattern='(^|[^A-Za-z0-9_])(fork|vfork|posix_spawnp?|exec[lv]p?e?|execvpe|popen|system)[[:space:]]*\(|boost/process'
status=0
forks=0
while IFS=: read -r file line text; do
  relative=${file#"$root"/}
  [[ "$text" =~ ^[[:space:]]*// ]] && continue  # a comment line
  if [ "$relative" = auditor/report/child_process.cpp ] && [[ "$text" == *boost/process* ]]; then continue; fi
  if [ "$relative" = auditor/scope/scope_frontend.cpp ] && [[ "$text" == *'::fork()'* ]]; then
    forks=$((forks + 1))
    [ "$forks" -eq 1 ] && continue
  fi
  echo "$relative:$line: starts a process outside report/child_process: $text" >&2
  status=1
done < <(grep -rHnE "$pattern" "$root/auditor" --include='*.cpp' --include='*.h' || true)
if [ "$forks" -ne 1 ]; then
  echo "check-child-processes: expected the one fork of scope/scope_frontend.cpp, found $forks" >&2
  status=1
fi
exit "$status"
