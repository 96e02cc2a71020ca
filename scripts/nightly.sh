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
# Then it fuzzes every parser of untrusted input for 120 s per target with libFuzzer, ASan and UBSan
# (scripts/fuzz.sh, its own build directory FUZZ_BUILD_DIR, default build-fuzz; docs/fuzzing.md),
# and builds the whole project with -DPSTRAIN_SANITIZE=ON (ASan+UBSan) in SANITIZE_BUILD_DIR
# (default build-asan) and runs the default test suite there once (ctest -LE nightly); that step
# fails on a failed test, on a run with no test, and on any sanitizer report of any process (the
# reports go to files, BUILD_DIR/nightly/sanitizer/, so a child process's report is not lost).
#
# Last, it builds the integration tests with ThreadSanitizer in TSAN_BUILD_DIR (default build-tsan)
# and runs the tests of the E-step's helper threads (StatisticsAdderTest, UtteranceInputTest: the
# read-ahead and the statistics adder, whose races a comparison of sums cannot always see) and of
# the reducer's writer of the sums, which follows the thread adding the last shard
# (ShardsCheckedAsTheyFinish.TheReducedExactCountsIsWrittenAsTheLastShardIsAdded) five times; it
# fails on a failed or skipped test, on a run with no test, and on any TSan report.
#
# Exit status: that of `audit gates run` (0 every gate passed, 1 a gate failed, 2 not run) when it
# is not 0, else the MPFR test's (1) when it failed, else the SphinxTrain drop-in check's when it
# failed, else that of check-aarch64.sh (1 bytes differ, 2 it could not run) when it is not 0, else
# that of scripts/fuzz.sh (1 a finding, 2 it could not build or run) when it is not 0, else the
# sanitized suite's (1 a failed test or a sanitizer report, 2 it could not build) when it is not
# 0, else the TSan run's (likewise); or the failing build step's. Reports stay in
# BUILD_DIR/nightly/ (gate-ledger.jsonl, gates.json, gates-junit.xml, the gates' output,
# aarch64-check.log, fuzz.log, sanitized-suite.log, tsan-tests.log and sanitizer/).
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
# -V: the check's verdict line is in its output, which --output-on-failure drops for a passing test
ctest --test-dir "$BUILD_DIR" -L nightly -R '^sphinxtrain_dropin_full$' -V 2>&1 |
  tee "$REPORTS/sphinxtrain-dropin.log" || dropin_rc=${PIPESTATUS[0]}
if ! grep -q "sphinxtrain-dropin-check: identical" "$REPORTS/sphinxtrain-dropin.log"; then
  [ "$dropin_rc" -ne 0 ] || dropin_rc=1  # the check did not run to its verdict: a failure, not a pass
fi

echo "nightly: x86-64 vs aarch64 (qemu-user) byte comparison, scripts/check-aarch64.sh; log in $REPORTS/aarch64-check.log"
aarch64_rc=0
BUILD_DIR=$BUILD_DIR bash scripts/check-aarch64.sh 2>&1 | tee "$REPORTS/aarch64-check.log" || aarch64_rc=${PIPESTATUS[0]}

echo "nightly: fuzzing every parser for 120 s per target (scripts/fuzz.sh); log in $REPORTS/fuzz.log"
fuzz_rc=0
bash scripts/fuzz.sh 120 2>&1 | tee "$REPORTS/fuzz.log" || fuzz_rc=${PIPESTATUS[0]}

SANITIZE_BUILD_DIR=${SANITIZE_BUILD_DIR:-build-asan}
SANITIZER_REPORTS="$PWD/$REPORTS/sanitizer"
echo "nightly: the default test suite under ASan+UBSan in $SANITIZE_BUILD_DIR; log in $REPORTS/sanitized-suite.log"
mkdir -p "$SANITIZER_REPORTS"
sanitize_rc=0
if ! { cmake -S . -B "$SANITIZE_BUILD_DIR" -DCMAKE_BUILD_TYPE=Release -DPSTRAIN_SANITIZE=ON -DPSTRAIN_BUILD_BENCH=OFF &&
       cmake --build "$SANITIZE_BUILD_DIR" -j"$JOBS"; } >"$REPORTS/sanitized-build.log" 2>&1; then
  tail -40 "$REPORTS/sanitized-build.log"
  echo "nightly: the sanitized build failed (log $REPORTS/sanitized-build.log)"
  sanitize_rc=2
else
  # Every process the tests start (pstrain workers, audit, gate binaries) inherits these: leaks are
  # reported, every report is fatal and written to SANITIZER_REPORTS/{asan,ubsan}.PID.
  # allocator_may_return_null=1: an allocation beyond a process's own limit (audit scope's libclang
  # child under its address-space bound, fed a macro bomb) fails as it does without ASan (null,
  # bad_alloc, exit 2 naming the limit) instead of being an ASan out-of-memory report.
  ASAN_OPTIONS="detect_leaks=1:halt_on_error=1:allocator_may_return_null=1:log_path=$SANITIZER_REPORTS/asan" \
  UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:log_path=$SANITIZER_REPORTS/ubsan" \
    ctest --test-dir "$SANITIZE_BUILD_DIR" -LE nightly -j"$JOBS" --output-on-failure 2>&1 | tee "$REPORTS/sanitized-suite.log" ||
    sanitize_rc=${PIPESTATUS[0]}
  [ "$sanitize_rc" -eq 0 ] || sanitize_rc=1
  if ! grep -qE "^100% tests passed, 0 tests failed out of [1-9]" "$REPORTS/sanitized-suite.log"; then sanitize_rc=1; fi
  if grep -q '\*\*\*Skipped' "$REPORTS/sanitized-suite.log"; then echo "nightly: a sanitized test was skipped"; sanitize_rc=1; fi
  if [ -n "$(ls -A "$SANITIZER_REPORTS")" ]; then
    echo "nightly: sanitizer reports:"
    for report in "$SANITIZER_REPORTS"/*; do echo "== $report"; head -30 "$report"; done
    sanitize_rc=1
  fi
fi

TSAN_BUILD_DIR=${TSAN_BUILD_DIR:-build-tsan}
echo "nightly: the E-step's and the reducer's helper threads under ThreadSanitizer in $TSAN_BUILD_DIR; log in $REPORTS/tsan-tests.log"
tsan_rc=0
if ! { cmake -S . -B "$TSAN_BUILD_DIR" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPSTRAIN_STATIC_LIBS=OFF -DPSTRAIN_BUILD_BENCH=OFF \
         -DCMAKE_CXX_FLAGS=-fsanitize=thread -DCMAKE_EXE_LINKER_FLAGS=-fsanitize=thread \
         -DCMAKE_SHARED_LINKER_FLAGS=-fsanitize=thread &&
       cmake --build "$TSAN_BUILD_DIR" -j"$JOBS" --target integration_tests; } >"$REPORTS/tsan-build.log" 2>&1; then
  tail -40 "$REPORTS/tsan-build.log"
  echo "nightly: the TSan build failed (log $REPORTS/tsan-build.log)"
  tsan_rc=2
else
  # ctest pulls in the default corpus's fixture; every report is fatal and goes to SANITIZER_REPORTS/tsan.PID.
  TSAN_OPTIONS="halt_on_error=1:log_path=$SANITIZER_REPORTS/tsan" \
    ctest --test-dir "$TSAN_BUILD_DIR" \
      -R '^(StatisticsAdderTest\.|UtteranceInputTest\.|ShardsCheckedAsTheyFinish\.TheReducedExactCountsIsWrittenAsTheLastShardIsAdded$)' \
      --repeat until-fail:5 \
      --output-on-failure 2>&1 | tee "$REPORTS/tsan-tests.log" || tsan_rc=${PIPESTATUS[0]}
  [ "$tsan_rc" -eq 0 ] || tsan_rc=1
  if ! grep -qE "^100% tests passed, 0 tests failed out of [1-9]" "$REPORTS/tsan-tests.log"; then tsan_rc=1; fi
  if grep -q '\*\*\*Skipped' "$REPORTS/tsan-tests.log"; then echo "nightly: a TSan test was skipped"; tsan_rc=1; fi
  if compgen -G "$SANITIZER_REPORTS/tsan*" >/dev/null; then
    echo "nightly: TSan reports:"
    for report in "$SANITIZER_REPORTS"/tsan*; do echo "== $report"; head -40 "$report"; done
    tsan_rc=1
  fi
fi

echo "nightly: gates exit $gates_rc, numerics exit $numerics_rc, sphinxtrain drop-in exit $dropin_rc, aarch64 check exit $aarch64_rc, fuzz exit $fuzz_rc, sanitized suite exit $sanitize_rc, tsan exit $tsan_rc"
if [ "$gates_rc" -ne 0 ]; then exit "$gates_rc"; fi
if [ "$numerics_rc" -ne 0 ]; then exit "$numerics_rc"; fi
if [ "$dropin_rc" -ne 0 ]; then exit "$dropin_rc"; fi
if [ "$aarch64_rc" -ne 0 ]; then exit "$aarch64_rc"; fi
if [ "$fuzz_rc" -ne 0 ]; then exit "$fuzz_rc"; fi
if [ "$sanitize_rc" -ne 0 ]; then exit "$sanitize_rc"; fi
exit "$tsan_rc"
