#!/usr/bin/env bash
# The serial time of a `pstrain train` pass, two builds against each other: for one benchmark model
# and job count, ROUNDS rounds, each running build A then build B once (one training pass, the flags
# of `scripts/bench-vs-bw.sh --pass`: -topn = the model's Gaussians per state, -2passvar yes), and
# per build the medians (min-max) of
#   harness  = the pass time pstrain prints - the slowest shard's wall_seconds (telemetry.json):
#              what the coordinator does beyond the workers (launch, validation, reduction,
#              re-estimation, writing and hashing accum/ and model/, the fsyncs);
#   outside  = the command's wall time - the pass time: start-up (inputs loaded and checked), the
#              final model and provenance.json, exit;
#   serial   = the command's wall time - the slowest shard's wall_seconds: everything but the
#              slowest worker (harness + outside; work moved between the two does not change it);
#   command  = the command's wall time;
# and the harness in parts, from the pass's telemetry.json (docs/contract.md), each run's parts
# adding up to its harness (the medians of the parts need not add up to the median harness):
#   report   = the last shard reported finished - the slowest shard's wall_seconds: the pass's
#              set-up before the launch, the workers' start and exit, the wait for them;
#   validate = that shard validated (with one job it is also the first: then the pass's
#              expectations of every artifact, the model's and dictionary's digests, are read too);
#   reduce   = the reduction finished (its statistics added, the earlier shards' fsyncs waited for);
#   reestimate = the double view, the accum/ writers started, the re-estimation;
#   write    = model/ and accum/ written and hashed;
#   promote  = the pass time - written_seconds: telemetry.json, pass.json, the fsyncs, the rename.
# Alternating the two builds within each round is what makes their difference measurable on a
# machine whose speed drifts (docs/performance.md, eleventh round). Both builds must write the same
# model bytes (checked every run).
#
#   scripts/bench-harness.sh BENCH_SET MODEL JOBS PSTRAIN_A PSTRAIN_B
#
# BENCH_SET   from scripts/prepare-bench-set.sh (BENCH_SET/corpus, BENCH_SET/MODEL)
# MODEL       ci_g1 | ci_g8 | ci_g16 | cd_tied_g8 | cd_tied_2k_g16 (LARGE=1 of prepare-bench-set.sh)
# JOBS        --jobs of both builds
# Environment: ROUNDS (default 9), WORK (scratch directory, default a fresh mktemp -d, removed).
# Output: per build, "MODEL jobs JOBS BUILD: harness ms M (min-max); outside ms ...; serial ms ...;
# command s ..." and an indented line "harness in parts, ms: report ...; validate ...; reduce ...;
# reestimate ...; write ...; promote ...". Exit status 2 on bad arguments or a failed run.
set -euo pipefail
# shellcheck source=lib/sphinxtrain-common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/sphinxtrain-common.sh"

die() { echo "bench-harness: $*" >&2; exit 2; }
[ $# -eq 5 ] || die "usage: scripts/bench-harness.sh BENCH_SET MODEL JOBS PSTRAIN_A PSTRAIN_B"
SET_DIR=$1 MODEL=$2 JOBS=$3
BUILDS=("$4" "$5")
ROUNDS=${ROUNDS:-9}
CORPUS=$SET_DIR/corpus
[ -f "$CORPUS/train.manifest" ] || die "$CORPUS/train.manifest is missing (scripts/prepare-bench-set.sh)"
[ -f "$SET_DIR/$MODEL/means" ] || die "$SET_DIR/$MODEL is not a model of the benchmark set"
[[ "$JOBS" =~ ^[1-9][0-9]*$ ]] || die "JOBS must be a positive integer, got '$JOBS'"
[[ "$ROUNDS" =~ ^[1-9][0-9]*$ ]] || die "ROUNDS must be a positive integer, got '$ROUNDS'"
for b in "${BUILDS[@]}"; do [ -x "$b" ] || die "$b is not an executable"; done
TOPN=$(st_n_density "$SET_DIR/$MODEL/means")
if [ -z "${WORK:-}" ]; then
  WORK=$(mktemp -d)
  trap 'rm -rf "$WORK"' EXIT
fi

now() { date +%s.%N; }
# "<median> (<min>-<max>)" of the numbers on stdin.
median_range() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) exit 1; print v[int((NR + 1) / 2)] " (" v[1] "-" v[NR] ")" }'; }

declare -A harness outside serial command report validate reduce reestimate write promote
digest=""
for round in $(seq 1 "$ROUNDS"); do
  for i in 0 1; do
    bin=${BUILDS[$i]}
    run=$WORK/run
    rm -rf "$run"
    t0=$(now)
    st_pstrain_pass_args "$SET_DIR/$MODEL" "$CORPUS/train.manifest" "$CORPUS" "$run" "$JOBS" "$TOPN" yes
    "$bin" "${ST_PSTRAIN_PASS_ARGS[@]}" >"$WORK/out" 2>&1 || die "round $round: $bin failed: $(tail -n 3 "$WORK/out" | tr '\n' ' ')"
    t1=$(now)
    pass=$(st_pass_seconds "$WORK/out")
    [ "$pass" != "?" ] || die "round $round: $bin printed no pass time"
    slowest=$(cat "$run"/passes/001/shard-*/telemetry.json | grep -o '"wall_seconds":[^,}]*' | cut -d: -f2 |
              awk '{ printf "%.9f\n", $1 }' | sort -g | tail -n 1) || true
    [ -n "$slowest" ] || die "round $round: $bin left no shard telemetry.json with wall_seconds"
    d=$(cd "$run/model" && sha256sum means variances mixture_weights transition_matrices | sha256sum | cut -c1-16)
    [ -z "$digest" ] || [ "$d" = "$digest" ] || die "round $round: $bin wrote other model bytes than the first run"
    digest=$d
    harness[$i]+="$(awk -v p="$pass" -v s="$slowest" 'BEGIN { printf "%.1f", (p - s) * 1000 }') "
    telemetry=$run/passes/001/telemetry.json
    if [ -f "$telemetry" ]; then  # (builds before 2026-12-06 wrote none: no parts for them)
      # The shard reported last (its reported and validated seconds), and the pass's own steps.
      last=$(grep -o '{"shard":[^}]*}' "$telemetry" |
        awk -F'[:,}]' '{ for (k = 1; k < NF; k++) { if ($k ~ /reported_seconds/) r = $(k + 1); if ($k ~ /validated_seconds/) v = $(k + 1) }
                         if (NR == 1 || r + 0 > best + 0) { best = r; bv = v } } END { if (NR > 0) printf "%.9f %.9f\n", best, bv }') || true
      [ -n "$last" ] || die "round $round: $telemetry lists no shard"
      read -r rep val <<<"$last"
      # The pass's own fields: those outside the "shards" array (whose objects have a reduced_seconds too).
      field() {
        local value
        value=$(sed 's/"shards":\[[^]]*\]//' "$telemetry" | grep -o "\"$1\":[^,}]*" | cut -d: -f2) || true
        [ -n "$value" ] || die "round $round: $telemetry has no $1"
        echo "$value"
      }
      red=$(field reduced_seconds)
      est=$(field reestimated_seconds)
      wri=$(field written_seconds)
      parts=$(awk -v s="$slowest" -v rep="$rep" -v val="$val" -v red="$red" -v est="$est" -v wri="$wri" -v p="$pass" \
        'BEGIN { printf "%.1f %.1f %.1f %.1f %.1f %.1f", (rep - s) * 1000, (val - rep) * 1000, (red - val) * 1000, (est - red) * 1000,
                 (wri - est) * 1000, (p - wri) * 1000 }')
      read -r a_report a_validate a_reduce a_reestimate a_write a_promote <<<"$parts"
      report[$i]+="$a_report " validate[$i]+="$a_validate " reduce[$i]+="$a_reduce "
      reestimate[$i]+="$a_reestimate " write[$i]+="$a_write " promote[$i]+="$a_promote "
    fi
    outside[$i]+="$(awk -v a="$t0" -v b="$t1" -v p="$pass" 'BEGIN { printf "%.1f", (b - a - p) * 1000 }') "
    command[$i]+="$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f", b - a }') "
    serial[$i]+="$(awk -v a="$t0" -v b="$t1" -v s="$slowest" 'BEGIN { printf "%.1f", (b - a - s) * 1000 }') "
  done
done
for i in 0 1; do
  echo "$MODEL jobs $JOBS ${BUILDS[$i]}: harness ms $(echo "${harness[$i]}" | tr ' ' '\n' | grep . | median_range);" \
       "outside ms $(echo "${outside[$i]}" | tr ' ' '\n' | grep . | median_range);" \
       "serial ms $(echo "${serial[$i]}" | tr ' ' '\n' | grep . | median_range);" \
       "command s $(echo "${command[$i]}" | tr ' ' '\n' | grep . | median_range)"
  m() { echo "$1" | tr ' ' '\n' | grep . | median_range; }
  if [ -z "${report[$i]:-}" ]; then echo "  harness in parts: none (this build writes no passes/001/telemetry.json)"; continue; fi
  echo "  harness in parts, ms: report $(m "${report[$i]}"); validate $(m "${validate[$i]}"); reduce $(m "${reduce[$i]}");" \
       "reestimate $(m "${reestimate[$i]}"); write $(m "${write[$i]}"); promote $(m "${promote[$i]}")"
done
