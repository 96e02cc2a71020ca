#!/usr/bin/env bash
# Fuzzes every parser of untrusted input with libFuzzer, AddressSanitizer and
# UndefinedBehaviorSanitizer (docs/fuzzing.md): builds tests/fuzz/<name>_fuzz.cpp with clang-14 in
# its own build directory and runs each target for a set time, starting from the checked-in seeds
# (tests/fuzz/corpus/<name>/) and every crash input found so far (tests/fuzz/crashes/<name>/).
#
#   scripts/fuzz.sh [SECONDS-PER-TARGET] [TARGET...]
#
#   SECONDS-PER-TARGET  default $FUZZ_SECONDS, else 60 (the nightly passes 120)
#   TARGET...           default: every tests/fuzz/*_fuzz.cpp
#   FUZZ_BUILD_DIR      default build-fuzz; the inputs libFuzzer adds go to FUZZ_BUILD_DIR/fuzz-corpus/<name>/
#                       (never into the seed corpus) and its logs to FUZZ_BUILD_DIR/fuzz-logs/<name>.log
#   FUZZ_PARALLEL       targets run at the same time, default 1
#   FUZZ_TIMEOUT        seconds one input may take (libFuzzer -timeout), default 10; gate_scope:
#                       FUZZ_GATE_SCOPE_TIMEOUT, default 130 (audit scope's own bound is 120 s of CPU)
#   FUZZ_RSS_LIMIT_MB   memory limit (libFuzzer -rss_limit_mb, also the single-malloc limit), default 2048
#   FUZZ_GATE_COMPILE_COMMANDS  the compilation database whose gate flags gate_scope compiles its input
#                       with, default build/compile_commands.json (the default build's)
#
# Leak detection is on (-detect_leaks=1), and every sanitizer report is fatal
# (-fno-sanitize-recover=all). A crash, leak, timeout or out-of-memory input is written to
# tests/fuzz/crashes/<name>/ (libFuzzer's crash-/leak-/timeout-/oom- prefix and the input's SHA-1), where the
# default suite's fuzz_replay_<name> test replays it from then on: commit it with the fix.
#
# Prints per target the executions run and the coverage reached (libFuzzer's final cov: and ft:
# figures, stat::number_of_executed_units, peak RSS).
#
# Exit status: 0 every target ran its time without a finding; 1 a target found a crash, leak,
# timeout or out-of-memory input; 2 the targets could not be built or a target could not run (no
# clang-14, a build error, a run that ended without libFuzzer's final statistics).
set -uo pipefail
cd "$(dirname "$0")/.."

SECONDS_PER_TARGET=${FUZZ_SECONDS:-60}
if [ $# -gt 0 ]; then
  SECONDS_PER_TARGET=$1
  shift
fi
if ! [[ "$SECONDS_PER_TARGET" =~ ^[1-9][0-9]*$ ]]; then
  echo "fuzz: seconds per target must be a positive integer, not '$SECONDS_PER_TARGET'" >&2
  exit 2
fi
BUILD_DIR=${FUZZ_BUILD_DIR:-build-fuzz}
PARALLEL=${FUZZ_PARALLEL:-1}
TIMEOUT=${FUZZ_TIMEOUT:-10}
RSS_LIMIT_MB=${FUZZ_RSS_LIMIT_MB:-2048}
FUZZ_SRC=tests/fuzz

if [ $# -gt 0 ]; then
  TARGETS=("$@")
else
  mapfile -t TARGETS < <(for f in "$FUZZ_SRC"/*_fuzz.cpp; do basename "$f" _fuzz.cpp; done)
fi
for t in "${TARGETS[@]}"; do
  if [ ! -f "$FUZZ_SRC/${t}_fuzz.cpp" ]; then
    echo "fuzz: no target '$t' ($FUZZ_SRC/${t}_fuzz.cpp missing)" >&2
    exit 2
  fi
done

for tool in clang++-14 clang-14; do
  if ! command -v "$tool" >/dev/null; then
    echo "fuzz: $tool not found (Debian packages clang-14, libfuzzer-14-dev; scripts/bootstrap.sh)" >&2
    exit 2
  fi
done

# gate_scope compiles its input with a real gate's flags, from the default build's compilation
# database (the libFuzzer build configures no gates).
GATE_COMPILE_COMMANDS=${FUZZ_GATE_COMPILE_COMMANDS:-$PWD/build/compile_commands.json}
for t in "${TARGETS[@]}"; do
  if [ "$t" = gate_scope ] && ! grep -q 'gates/fixed_count_gate.cpp' "$GATE_COMPILE_COMMANDS" 2>/dev/null; then
    echo "fuzz: gate_scope needs a compilation database with the gates' flags; $GATE_COMPILE_COMMANDS has none" \
         "(configure the default build: cmake -S . -B build, or set FUZZ_GATE_COMPILE_COMMANDS)" >&2
    exit 2
  fi
done

echo "fuzz: building ${#TARGETS[@]} targets with clang-14, -fsanitize=fuzzer,address,undefined in $BUILD_DIR"
mkdir -p "$BUILD_DIR"
if ! cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++-14 -DCMAKE_C_COMPILER=clang-14 \
       -DPSTRAIN_FUZZ=ON -DPSTRAIN_BUILD_TESTS=OFF -DPSTRAIN_BUILD_BENCH=OFF \
       -DPSTRAIN_FUZZ_COMPILE_COMMANDS="$GATE_COMPILE_COMMANDS" >"$BUILD_DIR/configure.log" 2>&1; then
  cat "$BUILD_DIR/configure.log" >&2
  echo "fuzz: cmake configure failed" >&2
  exit 2
fi
binaries=()
for t in "${TARGETS[@]}"; do binaries+=("${t}_fuzz"); done
if ! cmake --build "$BUILD_DIR" -j"$(nproc)" --target "${binaries[@]}"; then
  echo "fuzz: build failed" >&2
  exit 2
fi

LOGS="$BUILD_DIR/fuzz-logs"
mkdir -p "$LOGS"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:detect_stack_use_after_return=1:strict_string_checks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

# Runs one target; its exit status is libFuzzer's.
run_target() {
  local t=$1
  local work="$BUILD_DIR/fuzz-corpus/$t" crashes="$FUZZ_SRC/crashes/$t"
  mkdir -p "$work" "$crashes"
  rm -f "$LOGS/$t.rc"
  # gate_scope parses each input as a whole C++ translation unit (gtest and the kit's headers) in
  # audit scope's front-end child, which the product itself bounds at 120 s of CPU
  # (kFrontEndCpuSeconds): a libFuzzer timeout below that bound would report the bound's own
  # headroom as a hang.
  # libFuzzer writes a slow-unit-* file into the crash directory for an input slower than
  # -report_slow_units (default 10 s); for gate_scope that threshold is its timeout.
  local timeout=$TIMEOUT slow=10
  if [ "$t" = gate_scope ]; then timeout=${FUZZ_GATE_SCOPE_TIMEOUT:-130}; slow=$timeout; fi
  "$BUILD_DIR/tests/fuzz/${t}_fuzz" -max_total_time="$SECONDS_PER_TARGET" -timeout="$timeout" -report_slow_units="$slow" \
    -rss_limit_mb="$RSS_LIMIT_MB" -malloc_limit_mb="$RSS_LIMIT_MB" -detect_leaks=1 -print_final_stats=1 \
    -artifact_prefix="$crashes/" "$work" "$FUZZ_SRC/corpus/$t" "$crashes" >"$LOGS/$t.log" 2>&1
}

declare -A rc
started=0
for t in "${TARGETS[@]}"; do
  echo "fuzz: $t for ${SECONDS_PER_TARGET} s (log $LOGS/$t.log)"
  rm -f "$LOGS/$t.rc" "$LOGS/$t.log"
  ( run_target "$t"; echo $? >"$LOGS/$t.rc" ) &
  started=$((started + 1))
  if [ $((started % PARALLEL)) -eq 0 ]; then wait; fi
done
wait

status=0
printf '%-22s %8s %12s %8s %8s %8s %s\n' target seconds executions cov ft rss_mb result
for t in "${TARGETS[@]}"; do
  log="$LOGS/$t.log"
  code=$(cat "$LOGS/$t.rc" 2>/dev/null || echo 2)
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rss=$(sed -n 's/^stat::peak_rss_mb: *//p' "$log" | tail -1)
  final=$(grep -E '^#[0-9]+[[:space:]]+(DONE|pulse|NEW|REDUCE|INITED)' "$log" | tail -1)
  cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$final")
  ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$final")
  if [ "$code" -eq 0 ] && [ -n "$execs" ] && grep -qE '^#[0-9]+[[:space:]]+DONE' "$log"; then
    result=ok
  elif grep -qE 'ERROR: (libFuzzer|AddressSanitizer|LeakSanitizer)|runtime error:|SUMMARY: (Address|UndefinedBehavior|Leak)Sanitizer|==ERROR' "$log"; then
    result="FOUND: $(grep -m1 -E 'ERROR: |runtime error:' "$log" | cut -c1-120)"
    [ "$status" -eq 2 ] || status=1
  else
    result="DID NOT RUN (exit $code, no final statistics; see $log)"
    status=2
  fi
  printf '%-22s %8s %12s %8s %8s %8s %s\n' "$t" "$SECONDS_PER_TARGET" "${execs:--}" "${cov:--}" "${ft:--}" "${rss:--}" "$result"
  if [ "$result" != ok ]; then
    grep -m1 -E '^(artifact_prefix|Test unit written to)' "$log" || true
    sed -n '/==ERROR\|runtime error:\|ERROR: libFuzzer/,+25p' "$log" | head -40
  fi
done
new_inputs=$(git status --porcelain --untracked-files=all -- "$FUZZ_SRC/crashes" | wc -l)
if [ "$new_inputs" -gt 0 ]; then
  echo "fuzz: new inputs in $FUZZ_SRC/crashes (fix the parser, then commit them as regression inputs):"
  git status --porcelain --untracked-files=all -- "$FUZZ_SRC/crashes"
  [ "$status" -ne 0 ] || status=1
fi
echo "fuzz: exit $status"
exit "$status"
