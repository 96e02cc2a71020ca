#!/usr/bin/env bash
# Grows a continuous CI model (default: an4_ci_cont, 1 Gaussian per state) to NGAU Gaussians per
# state with SphinxTrain's own tools, the way SphinxTrain's CI stage (scripts/20.ci_hmm) does it:
#
#   1. PASSES bw + norm passes at the initial size (SphinxTrain trains the 1-Gaussian model first);
#   2. while fewer than NGAU Gaussians: inc_comp doubles them (split_gaussians.pl: -ninc = current
#      count, the mixture weights as density counts, transition matrices copied), then PASSES
#      bw + norm passes.
#
#   scripts/grow-model.sh CORPUS_DIR OUTDIR NGAU
#
# CORPUS_DIR is a corpus from scripts/prepare-corpus.sh or scripts/prepare-bench-corpus.sh. NGAU must
# be the initial count times a power of two (1, 2, 4, 8, 16, ... for an4_ci_cont). NGAU equal to the
# initial count gives the initial model after PASSES passes on the corpus.
#
# bw runs with SphinxTrain's CI-stage flags (as scripts/sphinxtrain-reference.sh): -ts2cbfn .cont.
# -mwfloor 1e-8 -varfloor 1e-4 -topn <Gaussians per state> -abeam 1e-90 -bbeam 1e-10 -agc none
# -cmn batch -varnorm no -feat 1s_c_d_dd -2passvar no on the first pass after the start and after
# every split, yes afterwards (SphinxTrain restarts the iteration count at 1 after a split),
# -timing no; one process (-npart 1, so the result is deterministic); every bw call is wrapped in
# `timeout` (bw waits forever for a missing feature file).
#
# Environment (all optional):
#   INIT_MODEL   initial model dir (default /usr/share/pocketsphinx/test/data/an4_ci_cont)
#   PASSES       bw + norm passes after the start and after each doubling (default 3)
#   SET          corpus set to train on: train | heldout (default train)
#   BW_TIMEOUT   seconds before one bw call is killed (default 1800)
#   BW, NORM, INC_COMP  tool paths (default /usr/lib/sphinxtrain/{bw,norm,inc_comp})
#
# Output: OUTDIR/{mdef,means,variances,mixture_weights,transition_matrices,feat.params,noisedict}, a
# complete pocketsphinx / pstrain model directory (mdef and noisedict from INIT_MODEL, feat.params
# from the corpus, i.e. -cmn batch), and OUTDIR/work/ with every stage's pass directories and logs
# (g<N>_split/inc_comp.log, g<N>_pass<K>/bw.log, bw.err, norm.log). Prints one line per pass:
#   grow: <N> gau pass <K>: overall> stats <frames> (-0) <loglik/frame> <loglik>, aligned <ok>/<total>
# Deterministic: the same corpus, initial model and tools give byte-identical model files.
set -euo pipefail
export LC_ALL=C

die() { echo "$(basename "$0"): error: $*" >&2; exit 1; }

if [ $# -ne 3 ]; then
  echo "usage: $(basename "$0") CORPUS_DIR OUTDIR NGAU" >&2
  exit 2
fi
CORPUS="$1"
OUTDIR="$2"
NGAU="$3"
INIT_MODEL="${INIT_MODEL:-/usr/share/pocketsphinx/test/data/an4_ci_cont}"
PASSES="${PASSES:-3}"
SET="${SET:-train}"
BW_TIMEOUT="${BW_TIMEOUT:-1800}"
BW="${BW:-/usr/lib/sphinxtrain/bw}"
# shellcheck source=lib/sphinxtrain-common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/sphinxtrain-common.sh"
NORM="${NORM:-/usr/lib/sphinxtrain/norm}"
INC_COMP="${INC_COMP:-/usr/lib/sphinxtrain/inc_comp}"

[[ "$NGAU" =~ ^[1-9][0-9]*$ ]] || die "NGAU must be a positive integer, got '$NGAU'"
[[ "$PASSES" =~ ^[1-9][0-9]*$ ]] || die "PASSES must be a positive integer, got '$PASSES'"
[[ "$BW_TIMEOUT" =~ ^[1-9][0-9]*$ ]] || die "BW_TIMEOUT must be a positive integer (seconds), got '$BW_TIMEOUT'"
for tool in "$BW" "$NORM" "$INC_COMP"; do
  [ -x "$tool" ] || die "SphinxTrain tool $tool not found (install the sphinxtrain package, or set BW/NORM/INC_COMP)"
done
command -v timeout >/dev/null || die "timeout (coreutils) not found"
for f in "$CORPUS/$SET.fileids" "$CORPUS/$SET.transcription" "$CORPUS/corpus.dic" "$CORPUS/corpus.filler"; do
  [ -f "$f" ] || die "corpus file $f not found (build the corpus with scripts/prepare-bench-corpus.sh $CORPUS or scripts/prepare-corpus.sh $CORPUS)"
done
[ -d "$CORPUS/feat" ] || die "corpus feature directory $CORPUS/feat not found"
for f in mdef means variances mixture_weights transition_matrices; do
  [ -f "$INIT_MODEL/$f" ] || die "initial model file $INIT_MODEL/$f not found"
done
# bw retries a missing feature file forever: check them all first.
while read -r id; do
  [ -n "$id" ] || continue
  [ -f "$CORPUS/feat/$id.mfc" ] || die "feature file $CORPUS/feat/$id.mfc (listed in $SET.fileids) not found"
done <"$CORPUS/$SET.fileids"

CORPUS="$(cd "$CORPUS" && pwd)"
INIT_MODEL="$(cd "$INIT_MODEL" && pwd)"
mkdir -p "$OUTDIR" || die "cannot create $OUTDIR"
OUTDIR="$(cd "$OUTDIR" && pwd)"
WORK="$OUTDIR/work"
rm -rf "$WORK"
mkdir -p "$WORK"

init_gau=$(st_n_density "$INIT_MODEL/means")
g=$init_gau
while [ "$g" -lt "$NGAU" ]; do g=$((g * 2)); done
[ "$g" -eq "$NGAU" ] ||
  die "NGAU=$NGAU is not $init_gau (the initial model's Gaussians per state) times a power of two"

ntotal=$(grep -c . "$CORPUS/$SET.fileids")

# Completes a directory holding the four parameter files into a model directory.
complete_model_dir() {
  local dir="$1"
  cp "$INIT_MODEL/mdef" "$dir/mdef"
  if [ -f "$INIT_MODEL/noisedict" ]; then cp "$INIT_MODEL/noisedict" "$dir/noisedict"
  else cp "$CORPUS/corpus.filler" "$dir/noisedict"; fi
  if [ -f "$CORPUS/feat.params" ]; then cp "$CORPUS/feat.params" "$dir/feat.params"
  else sed -e 's/^-cmn .*/-cmn batch/' "$INIT_MODEL/feat.params" >"$dir/feat.params"; fi
}

# One bw + norm pass from model dir $1 into $2 (a new complete model dir); $3 = -2passvar value.
run_pass() {
  local in="$1" out="$2" twopass="$3" topn rc
  mkdir -p "$out/accum"
  topn=$(st_n_density "$in/means")
  rc=0
  st_bw_args "$in" "$CORPUS" "$SET" "$out/accum" "$topn" "$twopass"
  timeout "$BW_TIMEOUT" "$BW" "${ST_BW_ARGS[@]}" \
    >"$out/bw.log" 2>"$out/bw.err" || rc=$?
  [ "$rc" -ne 124 ] || die "bw timed out after $BW_TIMEOUT s (see $out/bw.err)"
  [ "$rc" -eq 0 ] || die "bw failed with status $rc (see $out/bw.err)"
  grep -q 'Counts saved to' "$out/bw.err" "$out/bw.log" || die "bw did not save its counts (see $out/bw.err)"
  "$NORM" -accumdir "$out/accum" -fullvar no \
    -meanfn "$out/means" -varfn "$out/variances" \
    -mixwfn "$out/mixture_weights" -tmatfn "$out/transition_matrices" >"$out/norm.log" 2>&1 ||
    die "norm failed (see $out/norm.log)"
  complete_model_dir "$out"
  local line ok
  line=$(grep '^overall>' "$out/bw.log" || true)
  [ -n "$line" ] || die "no overall> line in $out/bw.log"
  ok=$(awk '$1 == "utt>" && NF == 12' "$out/bw.log" | wc -l)
  echo "grow: $topn gau pass ${out##*_pass}: $line, aligned $ok/$ntotal"
}

# Runs PASSES passes from model dir $1; the stage's dirs are $WORK/g<N>_pass<K>. Sets $prev.
run_stage() {
  local start="$1" gau k twopass
  gau=$(st_n_density "$start/means")
  prev="$start"
  for k in $(seq 1 "$PASSES"); do
    twopass=yes
    [ "$k" -eq 1 ] && twopass=no
    run_pass "$prev" "$WORK/g${gau}_pass$k" "$twopass"
    prev="$WORK/g${gau}_pass$k"
  done
}

run_stage "$INIT_MODEL"
g=$init_gau
while [ "$g" -lt "$NGAU" ]; do
  split="$WORK/g$((g * 2))_split"
  mkdir -p "$split"
  "$INC_COMP" -ninc "$g" -dcountfn "$prev/mixture_weights" \
    -inmixwfn "$prev/mixture_weights" -outmixwfn "$split/mixture_weights" \
    -inmeanfn "$prev/means" -outmeanfn "$split/means" \
    -invarfn "$prev/variances" -outvarfn "$split/variances" -fullvar no >"$split/inc_comp.log" 2>&1 ||
    die "inc_comp failed (see $split/inc_comp.log)"
  cp "$prev/transition_matrices" "$split/transition_matrices"
  complete_model_dir "$split"
  [ "$(st_n_density "$split/means")" -eq $((g * 2)) ] || die "inc_comp did not produce $((g * 2)) Gaussians (see $split/inc_comp.log)"
  g=$((g * 2))
  run_stage "$split"
done

for f in mdef means variances mixture_weights transition_matrices feat.params noisedict; do
  cp "$prev/$f" "$OUTDIR/$f.tmp"
  mv "$OUTDIR/$f.tmp" "$OUTDIR/$f"
done
echo "grow: model with $NGAU Gaussians per state written to $OUTDIR (from $prev)"
