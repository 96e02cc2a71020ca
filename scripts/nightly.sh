#!/usr/bin/env bash
# The nightly determinism run: builds pstrain, the gates and the auditor, builds the benchmark
# corpus, and runs every gate (gates/*_gate.cpp) in the full profile (the 400-utterance benchmark
# corpus and more passes; docs/gates.md) through `audit gates run`, which writes a fresh ledger,
# a JSON summary and a JUnit report and prints per gate what it describes and what it checked.
#
#   scripts/nightly.sh [AUDIT-GATES-OPTIONS...]   (BUILD_DIR, default build; JOBS, default nproc)
#
# Options are passed on to `audit gates run`, e.g. `--only cross-count-exact --shards 1,2,4,8`,
# `--passes 12`, `--corpus MANIFEST --corpus-root DIR` or `--pstrain PATH` (docs/gates.md).
#
# Then it runs scripts/check-aarch64.sh (docs/aarch64.md): the default corpus trained for 3 passes
# natively and as a cross-built aarch64 binary under qemu-user must give the same bytes in every
# model and statistics file. It runs whatever the gates gave, so that one report does not hide
# the other.
#
# It runs SphinxTrain's perl stages 20-50 with pstrain's bindir for CFG_NPART 1, 2, 3 and with the
# stock tools (scripts/sphinxtrain-dropin-check.sh, docs/sphinxtrain.md) and fails when the bytes
# differ or the check did not reach its verdict.
#
# It also runs the exp/log accuracy test against MPFR with 10^7 inputs per range
# (numerics_mpfr_full, docs/numerics.md), and fails when it fails or ran no test.
#
# Exit status: that of `audit gates run` (0 every gate passed, 1 a gate failed, 2 not run) when it
# is not 0, else the MPFR test's (1) when it failed, else the drop-in check's when it failed, else that of check-aarch64.sh (1 bytes differ, 2 it could not run); or the failing
# build step's. Reports stay in BUILD_DIR/nightly/ (gate-ledger.jsonl, gates.json,
# gates-junit.xml, the gates' output, and aarch64-check.log).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
JOBS=${JOBS:-$(nproc)}
REPORTS="$BUILD_DIR/nightly"

echo "nightly: building pstrain, gate_tests and audit in $BUILD_DIR"
cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release
cmake --build "$BUILD_DIR" -j"$JOBS" --target pstrain gate_tests audit numerics_tests

echo "nightly: building the benchmark corpus in $BUILD_DIR/corpus/bench (nothing to do when up to date)"
bash scripts/prepare-bench-corpus.sh "$BUILD_DIR/corpus/bench"

echo "nightly: running the gates, full profile; reports in $REPORTS"
rm -rf "$REPORTS"
mkdir -p "$REPORTS"
gates_rc=0
"$BUILD_DIR/auditor/audit" gates run --profile full --work-dir "$REPORTS" \
  --json "$REPORTS/gates.json" --junit "$REPORTS/gates-junit.xml" "$@" || gates_rc=$?

echo "nightly: exp/log against MPFR on 10^7 inputs per range (ctest numerics_mpfr_full, about 7 min)"
numerics_rc=0
ctest --test-dir "$BUILD_DIR" -L nightly -R '^numerics_mpfr_full$' --output-on-failure 2>&1 | tee "$REPORTS/numerics-mpfr.log" ||
  numerics_rc=${PIPESTATUS[0]}
if ! grep -q "100% tests passed, 0 tests failed out of 1" "$REPORTS/numerics-mpfr.log"; then
  [ "$numerics_rc" -ne 0 ] || numerics_rc=1  # no test ran: a failure, not a pass
fi

echo "nightly: SphinxTrain's perl stages 20-50 with pstrain's bindir, CFG_NPART 1/2/3 (ctest sphinxtrain_dropin_full, about 5 min)"
dropin_rc=0
cmake --build "$BUILD_DIR" -j"$JOBS" --target pstrain audit
ctest --test-dir "$BUILD_DIR" -L nightly -R '^sphinxtrain_dropin_full$' --output-on-failure 2>&1 |
  tee "$REPORTS/sphinxtrain-dropin.log" || dropin_rc=${PIPESTATUS[0]}
if ! grep -q "sphinxtrain-dropin-check: identical" "$REPORTS/sphinxtrain-dropin.log"; then
  [ "$dropin_rc" -ne 0 ] || dropin_rc=1  # the check did not run to its verdict: a failure, not a pass
fi

echo "nightly: x86-64 vs aarch64 (qemu-user) byte comparison, scripts/check-aarch64.sh; log in $REPORTS/aarch64-check.log"
aarch64_rc=0
BUILD_DIR=$BUILD_DIR bash scripts/check-aarch64.sh 2>&1 | tee "$REPORTS/aarch64-check.log" || aarch64_rc=${PIPESTATUS[0]}

echo "nightly: gates exit $gates_rc, numerics exit $numerics_rc, sphinxtrain drop-in exit $dropin_rc, aarch64 check exit $aarch64_rc"
if [ "$gates_rc" -ne 0 ]; then exit "$gates_rc"; fi
if [ "$numerics_rc" -ne 0 ]; then exit "$numerics_rc"; fi
if [ "$dropin_rc" -ne 0 ]; then exit "$dropin_rc"; fi
exit "$aarch64_rc"
