#!/usr/bin/env bash
# Fails (exit 1) when tests/ leaves the layout of tests/CMakeLists.txt: a file name used twice under
# tests/, a test file in a folder that mirrors no folder of the source tree, or a .cpp there that no
# binary compiles (its name does not end in _test.cpp). Prints each problem as FILE: problem. Exit 0
# when the tree is in order.
#
#   scripts/check-test-tree.sh [SOURCE_DIR]    (default: the repository this script is in)
#
# Outside the mirror folders: tests/support/ (pstrain_test_support), tests/fuzz/ (fuzz targets; the
# seed and crash inputs under corpus/ and crashes/ are data, named after what they copy, and not
# checked) and tests/scope_cases/ (sources the audit scope tests compile). Run by ctest
# (test_tree_layout, label unit).
set -euo pipefail
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
tests="$root/tests"
if [ ! -d "$tests" ]; then
  echo "check-test-tree: no tests/ under $root" >&2
  exit 2
fi
status=0
checked=0
declare -A first_seen=()
while IFS= read -r -d '' file; do
  checked=$((checked + 1))
  relative=${file#"$tests"/}
  name=${relative##*/}
  folder=.
  [[ "$relative" == */* ]] && folder=${relative%/*}
  if [ "$name" != CMakeLists.txt ]; then
    if [ -n "${first_seen[$name]:-}" ]; then
      echo "tests/$relative: the name is also used by tests/${first_seen[$name]} (file names under tests/ are unique)" >&2
      status=1
    else
      first_seen[$name]=$relative
    fi
  fi
  case "$folder" in
    support | fuzz | fuzz/* | scope_cases) continue ;;
    .)
      if [ "$name" != CMakeLists.txt ]; then
        echo "tests/$relative: a test file belongs in the folder mirroring what it tests (tests/CMakeLists.txt)" >&2
        status=1
      fi
      continue ;;
  esac
  if [ ! -d "$root/$folder" ]; then
    echo "tests/$relative: tests/$folder/ mirrors no folder of the source tree (put a test next to what it tests: tests/CMakeLists.txt)" >&2
    status=1
  elif [[ "$name" == *.cpp && "$name" != *_test.cpp ]]; then
    echo "tests/$relative: no test binary compiles it (test files end in _test.cpp; shared helpers live in tests/support/)" >&2
    status=1
  fi
done < <(find "$tests" \( -path "$tests/fuzz/corpus" -o -path "$tests/fuzz/crashes" \) -prune -o -type f -print0)
if [ "$checked" -eq 0 ]; then
  echo "check-test-tree: found no files under $tests" >&2
  exit 2
fi
if [ "$status" -ne 0 ]; then
  echo "check-test-tree: tests/ mirrors the source tree with unique file names (tests/CMakeLists.txt, docs/architecture.md)" >&2
fi
exit "$status"
