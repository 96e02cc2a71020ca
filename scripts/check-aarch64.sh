#!/usr/bin/env bash
# Same bytes on x86-64 and aarch64? Trains the default corpus for exactly 3 passes with the native
# x86-64 pstrain and with the cross-built aarch64 pstrain under qemu-user, both with --jobs 1, and
# compares every model and statistics file of the two runs byte for byte (docs/aarch64.md).
#
#   scripts/check-aarch64.sh
#
# --jobs 1 because this machine has no binfmt_misc: a `pstrain worker` child process started by
# the aarch64 coordinator could not be exec'd; with one job the shard runs inline in the
# coordinator through the same shard code (trainer/coordinator/pass_runner.cpp MakeLauncher), and
# pstrain starts no process (qemu-aarch64 -strace shows no execve/fork/vfork, and clone only with
# CLONE_THREAD: its threads, which qemu-user runs). A run that tried would fail, and this script
# would exit 2, not skip.
#
# Environment: BUILD_DIR (native build, default build), AARCH64_BUILD_DIR (default build-aarch64),
# CMAKE_ARGS (extra CMake configure arguments for both builds, split at spaces, e.g.
# -DCMAKE_CXX_COMPILER_LAUNCHER=ccache). The two runs are written to $AARCH64_BUILD_DIR/check/.
#
# Prints one line per file (identical / DIFFERENT / only in ... / not compared: why) and a summary
# "N identical, M different". Exit status: 0 every compared file identical; 1 some file differs or
# is missing from one run; 2 the check could not run (build, corpus or a training run failed).
set -uo pipefail
cd "$(dirname "$0")/.." || { echo "check-aarch64: CANNOT RUN: cannot cd to the repository" >&2; exit 2; }
BUILD_DIR=${BUILD_DIR:-build}
AARCH64_BUILD_DIR=${AARCH64_BUILD_DIR:-build-aarch64}
read -r -a EXTRA_CMAKE_ARGS <<< "${CMAKE_ARGS:-}"
CORPUS=$BUILD_DIR/corpus/default
MODEL=/usr/share/pocketsphinx/test/data/an4_ci_cont
MANIFEST=manifests/default-train.manifest
PASSES=3
WORK=$AARCH64_BUILD_DIR/check

cannot() {
  echo "check-aarch64: CANNOT RUN: $*" >&2
  exit 2
}

echo "== check-aarch64: cross build ($AARCH64_BUILD_DIR)"
BUILD_DIR=$AARCH64_BUILD_DIR bash scripts/build-aarch64.sh "${EXTRA_CMAKE_ARGS[@]}" || cannot "scripts/build-aarch64.sh failed"

echo "== check-aarch64: native build ($BUILD_DIR)"
bash scripts/bootstrap.sh || cannot "scripts/bootstrap.sh failed"
if [ ! -f "$BUILD_DIR/CMakeCache.txt" ]; then
  cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release "${EXTRA_CMAKE_ARGS[@]}" || cannot "cmake configure of $BUILD_DIR failed"
fi
# Always brought up to date (a no-op when it is): a stale native binary would compare old code.
cmake --build "$BUILD_DIR" -j"$(nproc)" --target pstrain || cannot "cmake --build $BUILD_DIR --target pstrain failed"
NATIVE=$BUILD_DIR/trainer/pstrain
CROSS=$AARCH64_BUILD_DIR/trainer/pstrain
file -b "$NATIVE" | grep -q 'x86-64' || cannot "$NATIVE is not an x86-64 executable: $(file -b "$NATIVE")"

echo "== check-aarch64: default corpus ($CORPUS)"
bash scripts/prepare-corpus.sh "$CORPUS" > /dev/null || cannot "scripts/prepare-corpus.sh $CORPUS failed"
"$NATIVE" manifest check "$MANIFEST" --corpus-root "$CORPUS" --dict "$CORPUS/corpus.dic" --filler "$CORPUS/corpus.filler" ||
  cannot "the corpus in $CORPUS does not match $MANIFEST"

TRAIN_ARGS=(train --model "$MODEL" --manifest "$MANIFEST" --corpus-root "$CORPUS" --dict "$CORPUS/corpus.dic"
            --filler "$CORPUS/corpus.filler" --jobs 1 --min-passes "$PASSES" --max-passes "$PASSES" --quiet)
rm -rf "$WORK"
mkdir -p "$WORK" || cannot "cannot create $WORK"
X86=$WORK/x86_64
ARM=$WORK/aarch64
elapsed() { awk -v s="$1" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f s", e - s }'; }

echo "== check-aarch64: training $PASSES passes, --jobs 1, x86-64: $NATIVE --out $X86"
start=$(date +%s.%N)
"$NATIVE" "${TRAIN_ARGS[@]}" --out "$X86" > "$X86.log" 2>&1 ||
  { cat "$X86.log" >&2; cannot "x86-64 training failed (log $X86.log)"; }
echo "   done in $(elapsed "$start")"
echo "== check-aarch64: training $PASSES passes, --jobs 1, aarch64: qemu-aarch64 -L / $CROSS --out $ARM"
start=$(date +%s.%N)
qemu-aarch64 -L / "$CROSS" "${TRAIN_ARGS[@]}" --out "$ARM" > "$ARM.log" 2>&1 ||
  { cat "$ARM.log" >&2; cannot "aarch64 training under qemu failed (log $ARM.log)"; }
echo "   done in $(elapsed "$start")"

# What actually ran, as each run recorded it (a run that was not the intended architecture would
# make the comparison meaningless).
for run in "$X86:x86_64" "$ARM:aarch64"; do
  grep -q "\"architecture\":\"${run##*:}\"" "${run%%:*}/model/provenance.json" ||
    cannot "${run%%:*}/model/provenance.json does not say architecture ${run##*:}"
done
echo "   provenance.json: the runs were made by x86_64 and aarch64 builds"

# Every model and statistics file the comparison must include; the x86-64 run must have all of them.
required=()
for pass in $(seq -f '%03g' 1 "$PASSES"); do
  for f in means variances mixture_weights transition_matrices; do required+=("passes/$pass/model/$f"); done
  for f in gauden_counts mixw_counts tmat_counts exact_counts; do required+=("passes/$pass/accum/$f"); done
  for f in gauden_counts mixw_counts tmat_counts exact_counts worker.log; do required+=("passes/$pass/shard-000/$f"); done
done
for f in means variances mixture_weights transition_matrices; do required+=("model/$f"); done
for f in "${required[@]}"; do
  [ -f "$X86/$f" ] || cannot "the x86-64 run has no $f"
done
[ ! -e "$X86/passes/$(printf '%03d' $((PASSES + 1)))" ] || cannot "the x86-64 run has more than $PASSES passes"

echo "== check-aarch64: byte comparison, x86-64 vs aarch64 (every file of both runs)"
identical=0 different=0 by_design=0 telemetry=0
while IFS= read -r f; do
  case "$f" in
    pass.json | */pass.json | provenance.json | */provenance.json | artifact.json | */artifact.json)
      # The training fingerprint (pass.json, provenance.json) hashes the binary, its architecture,
      # compiler and libraries; artifact.json may carry code identity.
      echo "not compared: differ by design (binary identity)  $f"
      by_design=$((by_design + 1))
      continue ;;
    */telemetry.json | */worker.stderr | */slurm/*)
      echo "not compared: telemetry, not deterministic (docs/contract.md)  $f"
      telemetry=$((telemetry + 1))
      continue ;;
  esac
  if [ ! -f "$X86/$f" ]; then
    echo "DIFFERENT  $f  (only in the aarch64 run)"
    different=$((different + 1))
  elif [ ! -f "$ARM/$f" ]; then
    echo "DIFFERENT  $f  (only in the x86-64 run)"
    different=$((different + 1))
  elif cmp -s "$X86/$f" "$ARM/$f"; then
    echo "identical  $f"
    identical=$((identical + 1))
  else
    size_x=$(stat -c %s "$X86/$f") size_a=$(stat -c %s "$ARM/$f")
    first=$(cmp "$X86/$f" "$ARM/$f" 2> /dev/null | awk '{ print $5; exit }' | tr -d ,)
    bytes=$(cmp -l "$X86/$f" "$ARM/$f" 2> /dev/null | wc -l)
    echo "DIFFERENT  $f  (${size_x} vs ${size_a} bytes; first difference at byte ${first:-?}, ${bytes} bytes differ)"
    different=$((different + 1))
  fi
done < <({ find "$X86" -type f -printf '%P\n'; find "$ARM" -type f -printf '%P\n'; } | LC_ALL=C sort -u)

echo "check-aarch64: $identical identical, $different different ($by_design not compared: differ by design (binary identity); $telemetry not compared: telemetry)"
echo "check-aarch64: (the ${#required[@]} required model and statistics files are among the compared ones)"
if [ "$different" -gt 0 ]; then
  echo "check-aarch64: FAIL: x86-64 and aarch64 give different bytes (runs kept in $WORK)"
  exit 1
fi
echo "check-aarch64: ok: every compared file is byte-identical on x86-64 and aarch64"
