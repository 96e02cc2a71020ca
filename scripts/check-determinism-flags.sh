#!/usr/bin/env bash
# Fails (exit 1) unless the configuration's flag check (cmake/DeterminismFlags.cmake) refuses
# -ffast-math, -Ofast and each of -ffast-math's parts, alone and among other flags, with its
# determinism-contract message, and accepts the flags pstrain is built with. Each case runs the check
# in CMake's script mode (cmake/check-determinism-flags.cmake), in milliseconds, without configuring
# the project.
#
#   scripts/check-determinism-flags.sh [SOURCE_DIR]    (default: the repository this script is in)
#
# Run by ctest (determinism_flags, label unit). Exit 2 when cmake or the script is missing.
set -euo pipefail
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
script=$root/cmake/check-determinism-flags.cmake
command -v cmake >/dev/null || { echo "check-determinism-flags: cmake is missing" >&2; exit 2; }
[ -f "$script" ] || { echo "check-determinism-flags: $script is missing" >&2; exit 2; }
status=0
refused=(-ffast-math -Ofast -fno-signed-zeros -fassociative-math -funsafe-math-optimizations
         -freciprocal-math -ffinite-math-only)
for flag in "${refused[@]}"; do
  for flags in "$flag" "-O2 -g $flag -Wall"; do
    if out=$(cmake -DFLAGS="$flags" -P "$script" 2>&1); then
      echo "check-determinism-flags: '$flags' was accepted" >&2
      status=1
    elif ! grep -q "determinism contract" <<<"$out"; then
      echo "check-determinism-flags: '$flags' was refused without the determinism message: $out" >&2
      status=1
    fi
  done
done
for flags in "" "-O2 -g" "-O3 -DNDEBUG" "-O2 -g -ffp-contract=off -fsanitize=address,undefined"; do
  if ! out=$(cmake -DFLAGS="$flags" -P "$script" 2>&1); then
    echo "check-determinism-flags: '$flags' was refused: $out" >&2
    status=1
  fi
done
exit "$status"
