#!/usr/bin/env bash
# Single-process speed of one E-step: `pstrain accumulate` against SphinxTrain's `bw`, on the same
# corpus with the same model and flags, several repetitions each (interleaved), median wall time.
# With --pass (or MODE=pass): the speed of one whole training pass, 1 and 2 processes (see below).
#
#   scripts/bench-vs-bw.sh [--pass | --dropin NPART] [CORPUS_DIR] [MODEL_DIR]
#
# CORPUS_DIR  default build/corpus/bench (make it with scripts/prepare-bench-corpus.sh CORPUS_DIR)
# MODEL_DIR   default /usr/share/pocketsphinx/test/data/an4_ci_cont; grown models come from
#             scripts/grow-model.sh CORPUS_DIR OUTDIR NGAU
#
# Environment (all optional):
#   REPS        timed repetitions of each tool (default 5; odd, so the median is one run)
#   SET         corpus set: train | heldout (default train)
#   PSTRAIN     pstrain binary (default build/trainer/pstrain of this checkout)
#   BW          bw binary (default /usr/lib/sphinxtrain/bw)
#   BW_TIMEOUT  seconds before one run is killed (default 600; bw waits forever for a missing file)
#   WORK        scratch directory (default: a fresh mktemp -d, removed at the end)
#   TOPN        -topn of both tools, 1 .. the Gaussians per state (default: all of them). Fewer is
#               what SphinxTrain's $CFG_CI_TOPN / $CFG_CD_TOPN give, and its stage 30 (-topn 1)
#
# Both tools get the CI-stage flags: -cmn batch -varnorm no -agc none -feat 1s_c_d_dd
# -topn <Gaussians per state, or TOPN> -abeam 1e-90 -bbeam 1e-10 -varfloor 1e-4 -mwfloor 1e-8 -2passvar no
# (pstrain: --jobs 1 --retry-beams none, i.e. one process and no wider-beam retries, as bw; bw:
# -timing no). The manifest is (re)imported into CORPUS_DIR/SET.manifest first. One untimed warm-up
# run of each tool fills the page cache. The script fails unless both tools align the same
# utterances (the sets of aligned utterance ids and the frame counts of the `overall>` lines must be
# equal).
#
# frames/s = frames of all utterances in the set (what each tool reads and aligns or tries to align)
# / median wall time of the whole process (start-up, model load, feature reading, writing the
# accumulators included; for pstrain also the manifest check, which reads and hashes every feature
# file, and the per-utterance SHA-256 check). The aligned-frame rate (frames of the `overall>` line)
# is printed too, and so are the median CPU times (user + sys of the process, less disturbed by other
# load than wall time) and the ratio they give. Other processes on the machine distort the timings:
# the load average is printed at the start and at the end. The last line is
#   ratio pstrain/bw <x> (pstrain <f> frames/s, bw <f> frames/s)
#
# Whole-pass mode (--pass or MODE=pass; docs/bench-set.md). One training pass each way, E-step and
# re-estimation:
#   pstrain J   pstrain train --min-passes 1 --max-passes 1 --jobs J --retry-beams none --2passvar yes
#               (and the flags above), J = 1 and 2;
#   bw P        bw -part i -npart P for i = 1..P run concurrently (the flags above, -2passvar yes),
#               then norm -accumdir <the P accumulator dirs>, P = 1 and 2.
# (PASS2VAR=no gives both tools -2passvar no.) A CD model needs nothing else: bw gets -ts2cbfn .cont.
# and MODEL_DIR/mdef, the tied mdef. One untimed warm-up round, then REPS rounds, each running the
# four commands one after the other (odd rounds pstrain 1, bw 1, pstrain 2, bw 2; even rounds bw
# first in each pair). Each command runs under GNU time (/usr/bin/time, package `time`) for its peak
# RSS (%M: the largest single process of the command, workers and parts included) and CPU time
# (user + sys of the command and all its children). Reported: for each command the median wall and
# CPU time, frames/s and the peak RSS (largest over the rounds); the speed ratio pstrain/bw
# (= bw wall / pstrain wall, > 1 when pstrain is faster) computed pair by pair within each round
# for J = P, as min / median / max over the rounds, and the same ratio by CPU time (bw CPU / pstrain
# CPU, less disturbed by other load); each tool's 2-versus-1 scaling (median over the
# rounds of its 1-process wall / 2-process wall); the CPU model, nproc, the ISA level pstrain used
# (field "isa" of a shard's telemetry.json, else "unknown") and the load average at the start and
# the end. The script fails unless all four commands aligned the same utterances with the same
# frame count, and unless every timed run gives the warm-up's result (pstrain: the same model
# bytes; bw: the same overall> lines). Whether pstrain's 1-job and 2-job models are byte-identical
# (docs/contract.md) is printed, and for each round pstrain's command wall time, the pass time it
# printed and each shard's wall/CPU time (telemetry.json). The last line is
#   pass ratio pstrain/bw: 1 proc <median> (min <x>, max <y>), 2 proc <median> (min <x>, max <y>)
#
# Drop-in mode (--dropin NPART or MODE=dropin with NPART, default 8; scripts/lib/bench-dropin.sh):
# one training pass as SphinxTrain's stages run it, all NPART parts of bw at once then norm, with
# the stock bw/norm against pstrain's (`pstrain sphinxtrain-bindir`, docs/sphinxtrain.md). The
# last line is
#   drop-in ratio pstrain/bw, NPART parts: <median> (min <x>, max <y>)
set -euo pipefail
export LC_ALL=C

die() { echo "$(basename "$0"): error: $*" >&2; exit 1; }

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
MODE="${MODE:-estep}"
NPART="${NPART:-8}"
if [ "${1:-}" = --pass ]; then
  MODE=pass
  shift
elif [ "${1:-}" = --dropin ]; then
  MODE=dropin
  NPART="${2:-}"
  shift $(($# < 2 ? $# : 2))
fi
if [ "$MODE" = dropin ] && ! [[ "$NPART" =~ ^[1-9][0-9]*$ ]]; then
  echo "$(basename "$0"): the drop-in mode needs a part count (--dropin NPART or NPART=N), got '$NPART'" >&2
  exit 2
fi
if [ $# -gt 2 ] || { [ "$MODE" != estep ] && [ "$MODE" != pass ] && [ "$MODE" != dropin ]; }; then
  echo "usage: $(basename "$0") [--pass | --dropin NPART] [CORPUS_DIR] [MODEL_DIR]   (MODE=estep|pass|dropin)" >&2
  exit 2
fi
CORPUS="${1:-$ROOT/build/corpus/bench}"
MODEL="${2:-/usr/share/pocketsphinx/test/data/an4_ci_cont}"
REPS="${REPS:-5}"
SET="${SET:-train}"
PSTRAIN="${PSTRAIN:-$ROOT/build/trainer/pstrain}"
BW="${BW:-/usr/lib/sphinxtrain/bw}"
# shellcheck source=lib/sphinxtrain-common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/sphinxtrain-common.sh"
BW_TIMEOUT="${BW_TIMEOUT:-600}"

[[ "$REPS" =~ ^[1-9][0-9]*$ ]] || die "REPS must be a positive integer, got '$REPS'"
[ -x "$PSTRAIN" ] || die "pstrain binary $PSTRAIN not found (build: cmake -S $ROOT -B $ROOT/build && cmake --build $ROOT/build -j2)"
[ -x "$BW" ] || die "SphinxTrain bw not found at $BW (install the sphinxtrain package or set BW)"
for f in "$CORPUS/$SET.fileids" "$CORPUS/$SET.transcription" "$CORPUS/corpus.dic" "$CORPUS/corpus.filler"; do
  [ -f "$f" ] || die "corpus file $f not found (run scripts/prepare-bench-corpus.sh $CORPUS)"
done
for f in mdef means variances mixture_weights transition_matrices; do
  [ -f "$MODEL/$f" ] || die "model file $MODEL/$f not found (grow one with scripts/grow-model.sh $CORPUS OUTDIR NGAU)"
done
while read -r id; do
  [ -n "$id" ] || continue
  [ -f "$CORPUS/feat/$id.mfc" ] || die "feature file $CORPUS/feat/$id.mfc not found (rebuild the corpus)"
done <"$CORPUS/$SET.fileids"
CORPUS="$(cd "$CORPUS" && pwd)"
MODEL="$(cd "$MODEL" && pwd)"

CLEAN_WORK=0
if [ -z "${WORK:-}" ]; then
  WORK="$(mktemp -d "${TMPDIR:-/tmp}/bench-vs-bw.XXXXXX")"
  CLEAN_WORK=1
fi
mkdir -p "$WORK"
WORK="$(cd "$WORK" && pwd)"
cleanup() { if [ "$CLEAN_WORK" -eq 1 ]; then rm -rf "$WORK"; fi; }
trap cleanup EXIT

# Gaussians per state from the s3 header of the means file (-topn = all, as SphinxTrain's CI stage),
# unless TOPN asks for fewer.
read -r NSEN NGAU < <(st_means_shape "$MODEL/means")
TOPN=${TOPN:-$NGAU}
{ [[ "$TOPN" =~ ^[1-9][0-9]*$ ]] && [ "$TOPN" -le "$NGAU" ]; } ||
  die "TOPN must be 1 .. $NGAU (the model's Gaussians per state), got '$TOPN'"

now() { echo "${EPOCHREALTIME/,/.}"; }

MANIFEST="$CORPUS/$SET.manifest"
if [ "$MODE" != dropin ]; then  # the drop-in reads SphinxTrain's files, as the stock bw
  "$PSTRAIN" manifest import --fileids "$CORPUS/$SET.fileids" --transcription "$CORPUS/$SET.transcription" \
    --cepdir "$CORPUS/feat" --out "$MANIFEST" >"$WORK/import.log" 2>&1 ||
    die "pstrain manifest import failed: $(cat "$WORK/import.log")"
fi

run_pstrain() {  # $1 = log file
  timeout "$BW_TIMEOUT" "$PSTRAIN" accumulate --model "$MODEL" --manifest "$MANIFEST" \
    --dict "$CORPUS/corpus.dic" --filler "$CORPUS/corpus.filler" --out "$WORK/ps_accum" \
    --jobs 1 --retry-beams none --cmn batch --varnorm no --topn "$TOPN" --abeam 1e-90 --bbeam 1e-10 \
    --varfloor 1e-4 --mwfloor 1e-8 --2passvar no >"$1" 2>"$1.err"
}
run_bw() {  # $1 = log file
  mkdir -p "$WORK/bw_accum"
  st_bw_args "$MODEL" "$CORPUS" "$SET" "$WORK/bw_accum" "$TOPN" no
  timeout "$BW_TIMEOUT" "$BW" "${ST_BW_ARGS[@]}" >"$1" 2>"$1.err"
}
# CPU time (user + sys, seconds) of the children this shell has waited for, from the `times`
# builtin (run in this shell: a command substitution would be a new process with its own count).
child_cpu() {
  times >"$WORK/times.$BASHPID"
  awk 'NR == 2 { s = 0; for (i = 1; i <= NF; i++) { split($i, p, "m"); s += p[1] * 60 + p[2] } printf "%.4f\n", s }' "$WORK/times.$BASHPID"
}
# Runs "$@" and prints "<wall seconds> <cpu seconds>"; fails with the tool's stderr on error.
timed() {
  local t0 t1 c0 c1 log="${*: -1}" rc=0 me=$BASHPID
  child_cpu >"$WORK/cpu0.$me"
  t0=$(now)
  "$@" || rc=$?
  t1=$(now)
  child_cpu >"$WORK/cpu1.$me"
  c0=$(cat "$WORK/cpu0.$me")
  c1=$(cat "$WORK/cpu1.$me")
  [ "$rc" -eq 0 ] || die "$1 failed with status $rc (timeout: 124); stderr: $(tail -5 "$log.err")"
  awk -v a="$t0" -v b="$t1" -v c="$c0" -v d="$c1" 'BEGIN { printf "%.4f %.4f\n", b - a, d - c }'
}
median() { tr ' ' '\n' | grep . | sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.4f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# One timed run of command $1, "<wall s> <cpu s> <peak RSS KiB>" ($2), appended to the caller's
# associative arrays walls, cpus and rsss (key $1) and to its variable line (bash's dynamic scope:
# the caller declares them).
record_run() {
  [[ "$(declare -p walls cpus rsss 2>/dev/null)" == *"-A walls"*"-A cpus"*"-A rsss"* ]] ||
    die "record_run: the caller declares no associative arrays walls, cpus and rsss"
  local wall cpu rss
  read -r wall cpu rss <<<"$2"
  walls[$1]="${walls[$1]:-} $wall"
  cpus[$1]="${cpus[$1]:-} $cpu"
  rsss[$1]="${rsss[$1]:-} $rss"
  line="$line $1 $wall s (cpu $cpu s, $((rss / 1024)) MiB)"
}
# The per-round values A/B of two lists of per-round figures (same round order in both):
#   per_round "LIST A" "LIST B"
per_round() {
  paste -d' ' <(echo "$1" | tr ' ' '\n' | grep .) <(echo "$2" | tr ' ' '\n' | grep .) |
    awk '{ printf "%.4f ", ($2 > 0) ? $1 / $2 : 0 }'
}
# "min median max" of a list of numbers on stdin.
minmedmax() { tr ' ' '\n' | grep . | sort -g | awk '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.3f %.3f %.3f\n", v[1], m, v[NR] }'; }

if [ "$MODE" != estep ]; then  # what both whole-pass modes run: GNU time, SphinxTrain's norm, -2passvar
  GNU_TIME="${GNU_TIME:-/usr/bin/time}"
  NORM="${NORM:-/usr/lib/sphinxtrain/norm}"
  PASS2VAR="${PASS2VAR:-yes}"
  [ -x "$GNU_TIME" ] || die "GNU time not found at $GNU_TIME (Debian package 'time'; scripts/bootstrap.sh installs it)"
  [ -x "$NORM" ] || die "SphinxTrain norm not found at $NORM (install the sphinxtrain package or set NORM)"
  [ "$PASS2VAR" = yes ] || [ "$PASS2VAR" = no ] || die "PASS2VAR must be yes or no, got '$PASS2VAR'"
fi
if [ "$MODE" = pass ]; then
  # shellcheck source=lib/bench-pass.sh
  source "$(dirname "${BASH_SOURCE[0]}")/lib/bench-pass.sh"
  bench_pass
  exit 0
fi
if [ "$MODE" = dropin ]; then
  # shellcheck source=lib/bench-dropin.sh
  source "$(dirname "${BASH_SOURCE[0]}")/lib/bench-dropin.sh"
  bench_dropin
  exit 0
fi

echo "bench-vs-bw: $(date -u '+%Y-%m-%d %H:%M:%S UTC'), $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'), load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "corpus $CORPUS ($SET), model $MODEL ($NSEN senones x $NGAU Gaussians, -topn $TOPN), $REPS repetitions"

# Warm-up (page cache), also the runs whose outputs are compared.
timed run_pstrain "$WORK/ps.log" >/dev/null
timed run_bw "$WORK/bw.log" >/dev/null
ps_overall=$(grep '^overall>' "$WORK/ps.log") || die "no overall> line from pstrain (see $WORK/ps.log)"
bw_overall=$(grep '^overall>' "$WORK/bw.log") || die "no overall> line from bw (see $WORK/bw.log)"
echo "pstrain: $ps_overall"
echo "bw:      $bw_overall"
# Aligned utterances: pstrain's utt> lines without "skipped"; bw's utt> lines with all 12 fields.
awk '$1 == "utt>" && $5 != "skipped" { print $3 }' "$WORK/ps.log" | sort >"$WORK/ps.aligned"
awk '$1 == "utt>" && NF == 12 { print $3 }' "$WORK/bw.log" | sort >"$WORK/bw.aligned"
n_utts=$(awk '$1 == "utt>"' "$WORK/ps.log" | wc -l)
ps_frames_in=$(awk '$1 == "utt>" { s += $4 } END { print s + 0 }' "$WORK/ps.log")
bw_frames_in=$(awk '$1 == "utt>" { s += $4 } END { print s + 0 }' "$WORK/bw.log")
ps_aligned=$(echo "$ps_overall" | awk '{ print $3 }')
bw_aligned=$(echo "$bw_overall" | awk '{ print $3 }')
[ "$ps_frames_in" = "$bw_frames_in" ] || die "input frames differ: pstrain $ps_frames_in, bw $bw_frames_in"
[ "$ps_aligned" = "$bw_aligned" ] || die "aligned frames differ: pstrain $ps_aligned, bw $bw_aligned"
cmp -s "$WORK/ps.aligned" "$WORK/bw.aligned" ||
  die "the tools aligned different utterances: $(diff "$WORK/ps.aligned" "$WORK/bw.aligned" | grep '^[<>]' | head -5 | tr '\n' ' ')"
same="identical"
[ "$ps_overall" = "$bw_overall" ] || same="frame counts equal, log-likelihoods differ in the printed digits"
echo "same utterances: $(wc -l <"$WORK/ps.aligned")/$n_utts aligned by both, $ps_frames_in input frames, $ps_aligned aligned frames; overall> lines $same"

# Reading + hashing every feature file once (what the manifest check does; accumulate does it twice).
run_check() { "$PSTRAIN" manifest check "$MANIFEST" >"$1" 2>"$1.err"; }
check_t=$(timed run_check "$WORK/check.log" | cut -d' ' -f1)

ps_times=() bw_times=() ps_cpus=() bw_cpus=()
for r in $(seq 1 "$REPS"); do
  pair=$(timed run_pstrain "$WORK/ps.$r.log"); tp=${pair% *}; cp=${pair#* }
  pair=$(timed run_bw "$WORK/bw.$r.log"); tb=${pair% *}; cb=${pair#* }
  grep -qxF "$ps_overall" "$WORK/ps.$r.log" || die "pstrain run $r printed a different overall> line"
  grep -qxF "$bw_overall" "$WORK/bw.$r.log" || die "bw run $r printed a different overall> line"
  echo "run $r: pstrain $tp s (cpu $cp s), bw $tb s (cpu $cb s)"
  ps_times+=("$tp"); ps_cpus+=("$cp")
  bw_times+=("$tb"); bw_cpus+=("$cb")
done
ps_med=$(echo "${ps_times[*]}" | median)
bw_med=$(echo "${bw_times[*]}" | median)
ps_cpu=$(echo "${ps_cpus[*]}" | median)
bw_cpu=$(echo "${bw_cpus[*]}" | median)
rate() { awk -v f="$1" -v t="$2" 'BEGIN { printf "%.0f", f / t }'; }
ps_rate=$(rate "$ps_frames_in" "$ps_med")
bw_rate=$(rate "$bw_frames_in" "$bw_med")
echo "pstrain: median $ps_med s, $ps_rate frames/s ($(rate "$ps_aligned" "$ps_med") aligned frames/s); median cpu $ps_cpu s, $(rate "$ps_frames_in" "$ps_cpu") frames per cpu-second"
echo "bw:      median $bw_med s, $bw_rate frames/s ($(rate "$bw_aligned" "$bw_med") aligned frames/s); median cpu $bw_cpu s, $(rate "$bw_frames_in" "$bw_cpu") frames per cpu-second"
echo "pstrain manifest check (read + SHA-256 of every feature file once): $check_t s ($(awk -v c="$check_t" -v t="$ps_med" 'BEGIN { printf "%.1f", 100 * c / t }') % of the pstrain median; accumulate hashes each file twice)"
echo "ratio by cpu time pstrain/bw $(awk -v a="$ps_cpu" -v b="$bw_cpu" 'BEGIN { printf "%.3f", b / a }')"
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "ratio pstrain/bw $(awk -v a="$ps_rate" -v b="$bw_rate" 'BEGIN { printf "%.3f", a / b }') (pstrain $ps_rate frames/s, bw $bw_rate frames/s)"
