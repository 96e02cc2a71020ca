#!/usr/bin/env bash
# Reference training with the real SphinxTrain tools: PASSES iterations of bw + norm over a corpus
# made by scripts/prepare-corpus.sh or scripts/prepare-bench-corpus.sh, with the flags of
# SphinxTrain's CI stage (scripts/20.ci_hmm/slave_convg.pl + baum_welch.pl + norm.pl).
#
#   scripts/sphinxtrain-reference.sh CORPUS_DIR WORKDIR [PASSES]     (PASSES default 3)
#
# Environment (all optional):
#   INIT_MODEL  initial model dir   (default /usr/share/pocketsphinx/test/data/an4_ci_cont)
#   NPART       bw parts run in parallel, then one norm over all of them (default 1)
#   SET         which corpus set to train on: train | heldout (default train)
#   BW, NORM    tool paths (default /usr/lib/sphinxtrain/bw, /usr/lib/sphinxtrain/norm)
#
# Writes WORKDIR/pass_<k>/ for k = 1..PASSES: a complete pocketsphinx model directory (means,
# variances, mixture_weights, transition_matrices from norm; mdef and noisedict copied from the
# initial model; feat.params from the corpus, i.e. with -cmn batch), plus the logs
# bw.<part>.log (stdout), bw.<part>.err (stderr), norm.log and the accumulators accum.<part>/.
# Prints per pass the bw "overall>" line(s) and a summary line:
#   pass <k> part <p>: overall> stats <frames> (-<skipped>) <loglik/frame> <loglik>
#   pass <k>: aligned <ok>/<total> utterances, <n> ignored, frames <f>, loglik/frame <x>, bw <s> s, norm <s> s
# Exit status is non-zero if any tool fails or a part log lacks "Counts saved to".
set -euo pipefail
export LC_ALL=C

die() { echo "$(basename "$0"): error: $*" >&2; exit 1; }

if [ $# -lt 2 ] || [ $# -gt 3 ]; then
  echo "usage: $(basename "$0") CORPUS_DIR WORKDIR [PASSES]" >&2
  exit 2
fi
CORPUS="$1"
WORK="$2"
PASSES="${3:-3}"
INIT_MODEL="${INIT_MODEL:-/usr/share/pocketsphinx/test/data/an4_ci_cont}"
NPART="${NPART:-1}"
SET="${SET:-train}"
BW="${BW:-/usr/lib/sphinxtrain/bw}"
# shellcheck source=lib/sphinxtrain-common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/sphinxtrain-common.sh"
NORM="${NORM:-/usr/lib/sphinxtrain/norm}"

[[ "$PASSES" =~ ^[1-9][0-9]*$ ]] || die "PASSES must be a positive integer, got '$PASSES'"
[[ "$NPART" =~ ^[1-9][0-9]*$ ]] || die "NPART must be a positive integer, got '$NPART'"
[ -x "$BW" ] || die "SphinxTrain bw not found at $BW (install the sphinxtrain package or set BW)"
[ -x "$NORM" ] || die "SphinxTrain norm not found at $NORM (install sphinxtrain or set NORM)"
for f in "$CORPUS/$SET.fileids" "$CORPUS/$SET.transcription" "$CORPUS/corpus.dic" \
         "$CORPUS/corpus.filler"; do
  [ -f "$f" ] || die "corpus file $f not found (run scripts/prepare-corpus.sh $CORPUS)"
done
[ -d "$CORPUS/feat" ] || die "corpus feature directory $CORPUS/feat not found"
for f in mdef means variances mixture_weights transition_matrices; do
  [ -f "$INIT_MODEL/$f" ] || die "initial model file $INIT_MODEL/$f not found"
done

CORPUS="$(cd "$CORPUS" && pwd)"
mkdir -p "$WORK" || die "cannot create $WORK"
WORK="$(cd "$WORK" && pwd)"
INIT_MODEL="$(cd "$INIT_MODEL" && pwd)"

now() { echo "${EPOCHREALTIME/,/.}"; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }

ntotal=$(grep -c . "$CORPUS/$SET.fileids")
prev="$INIT_MODEL"
for k in $(seq 1 "$PASSES"); do
  out="$WORK/pass_$k"
  rm -rf "$out"
  mkdir -p "$out"
  topn=$(st_n_density "$prev/means")
  twopass=yes
  [ "$k" -eq 1 ] && twopass=no
  t0=$(now)
  pids=()
  for p in $(seq 1 "$NPART"); do
    mkdir -p "$out/accum.$p"
    part_args=()
    [ "$NPART" -gt 1 ] && part_args=(-part "$p" -npart "$NPART")
    st_bw_args "$prev" "$CORPUS" "$SET" "$out/accum.$p" "$topn" "$twopass"
    "$BW" "${ST_BW_ARGS[@]}" \
      "${part_args[@]}" >"$out/bw.$p.log" 2>"$out/bw.$p.err" &
    pids+=($!)
  done
  fail=0
  for i in "${!pids[@]}"; do
    wait "${pids[$i]}" || { echo "bw part $((i + 1)) of pass $k failed: see $out/bw.$((i + 1)).err" >&2; fail=1; }
  done
  t1=$(now)
  [ "$fail" -eq 0 ] || exit 1
  accums=()
  for p in $(seq 1 "$NPART"); do
    grep -q 'Counts saved to' "$out/bw.$p.err" "$out/bw.$p.log" ||
      die "bw part $p of pass $k did not save its counts (see $out/bw.$p.err)"
    accums+=("$out/accum.$p")
  done
  accum_list=$(IFS=,; echo "${accums[*]}")
  "$NORM" -accumdir "$accum_list" -fullvar no \
    -meanfn "$out/means" -varfn "$out/variances" \
    -mixwfn "$out/mixture_weights" -tmatfn "$out/transition_matrices" >"$out/norm.log" 2>&1 ||
    die "norm failed in pass $k (see $out/norm.log)"
  t2=$(now)
  cp "$prev/mdef" "$out/mdef"
  if [ -f "$prev/noisedict" ]; then cp "$prev/noisedict" "$out/noisedict"
  else cp "$CORPUS/corpus.filler" "$out/noisedict"; fi
  if [ -f "$CORPUS/feat.params" ]; then cp "$CORPUS/feat.params" "$out/feat.params"
  else sed -e 's/^-cmn .*/-cmn batch/' "$INIT_MODEL/feat.params" >"$out/feat.params"; fi

  # Per-part overall lines; aligned = utt> lines with all 12 fields (failed ones are truncated).
  frames=0; ll=0; ok=0; ign=0
  for p in $(seq 1 "$NPART"); do
    line=$(grep '^overall>' "$out/bw.$p.log" || true)
    [ -n "$line" ] || die "no overall> line in $out/bw.$p.log"
    echo "pass $k part $p: $line"
    read -r f l < <(echo "$line" | awk '{ print $3, $6 }')
    frames=$(awk -v a="$frames" -v b="$f" 'BEGIN { printf "%d", a + b }')
    ll=$(awk -v a="$ll" -v b="$l" 'BEGIN { printf "%.10e", a + b }')
    ok=$((ok + $(awk '$1 == "utt>" && NF == 12' "$out/bw.$p.log" | wc -l)))
    ign=$((ign + $(grep -c ' ignored$' "$out/bw.$p.err" || true)))
  done
  llpf=$(awk -v a="$ll" -v b="$frames" 'BEGIN { if (b > 0) printf "%.6e", a / b; else print "nan" }')
  echo "pass $k: aligned $ok/$ntotal utterances, $ign ignored, frames $frames, loglik/frame $llpf, bw $(elapsed "$t0" "$t1") s, norm $(elapsed "$t1" "$t2") s"
  prev="$out"
done
echo "final model: $prev"
