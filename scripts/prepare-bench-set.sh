#!/usr/bin/env bash
# Builds the benchmark set (docs/bench-set.md): a synthetic corpus and four acoustic models trained
# on it with SphinxTrain's own tools, so that pstrain and bw/norm can be timed on CI models with 1,
# 8 and 16 Gaussians and on a tied context-dependent model.
#
#   scripts/prepare-bench-set.sh OUTDIR [N]        (N = training utterances, default 2000)
#
# OUTDIR/corpus      scripts/prepare-bench-corpus.sh OUTDIR/corpus N
# OUTDIR/ci_g1       scripts/grow-model.sh OUTDIR/corpus OUTDIR/ci_g1 1    (an4_ci_cont + 3 passes)
# OUTDIR/ci_g8       scripts/grow-model.sh OUTDIR/corpus OUTDIR/ci_g8 8
# OUTDIR/ci_g16      scripts/grow-model.sh OUTDIR/corpus OUTDIR/ci_g16 16
# OUTDIR/cd_tied_g8  tied triphone model, 500 tied CD states + the 102 CI states, 8 Gaussians,
#                    grown from ci_g1 as SphinxTrain's stages 30, 40, 45 and 50 do:
#   30.cd_hmm_untied  mk_mdef_gen -ountiedmdef (the corpus's triphones); init_mixw ci_g1 -> untied;
#                     bw + norm until SphinxTrain's convergence rule stops (-2passvar yes, -topn 1,
#                     -mwfloor 1e-8);
#   40.buildtrees     make_quests on ci_g1; bldtree per phone (SIL excluded) and state on the
#                     untied model;
#   45.prunetree      mk_mdef_gen -oalltphnmdef (every triphone of the dictionary); prunetree
#                     -nseno 500; tiestate -> the tied mdef;
#   50.cd_hmm_tied    init_mixw ci_g1 -> tied; bw + norm until converged (-2passvar no on the first
#                     pass of each size, yes afterwards, -topn = Gaussians, -mwfloor 1e-5 -tpfloor
#                     1e-5); inc_comp doubles the Gaussians (1 -> 2 -> 4 -> 8), each followed by
#                     bw + norm until converged.
# OUTDIR/cd_tied_2k_g16  only with LARGE=1: a tied CD model of production size, 2,000 tied CD
#                    states + the 102 CI states, 16 Gaussians: stages 45 and 50 as above on
#                    cd_tied_g8's unpruned trees (prunetree -nseno 2000), Gaussians doubled up to 16.
#                    Not in OUTDIR/SHA256SUMS (which names the standard set); bench-set-info.txt
#                    describes it.
# Every bw runs as one process (-part 1 -npart 1), so the result is deterministic. Every tool call
# this script makes is wrapped in `timeout` (bw waits forever for a missing file; grow-model.sh wraps
# its own bw calls). mk_mdef_gen's date comment is stripped from the mdefs it writes.
#
# Each model directory holds mdef, means, variances, mixture_weights, transition_matrices,
# feat.params (the corpus's) and noisedict, the files pstrain train and bw read, plus work/ with
# every stage's logs. OUTDIR/SHA256SUMS lists the checksum of every model file (and of the corpus's
# SHA256SUMS), so two builds are compared with `cmp A/SHA256SUMS B/SHA256SUMS`;
# OUTDIR/bench-set-info.txt says what was built (senones, Gaussians, utterances, frames, passes).
#
# Idempotent: each part has a stamp (a SHA-256 over the scripts that make it, its inputs'
# checksums, its parameters and the sphinxtrain package version); a part whose stamp matches and
# whose files match their checksums is not rebuilt. Concurrent runs on one OUTDIR wait for each
# other (flock OUTDIR/.lock). On failure the message names the failing command and prints the tail
# of its log; the unfinished part stays in OUTDIR/.build/ for inspection.
#
# Environment (all optional):
#   JOBS          processes to use (default 2): with 2 the CI models ci_g8 and ci_g16 grow in the
#                 background while cd_tied_g8 is built, and bldtree runs 2 at a time
#   BW_TIMEOUT    seconds before one bw call is killed (default 1800; grow-model.sh's too)
#   TOOL_TIMEOUT  seconds before any other SphinxTrain tool is killed (default 600)
#   ST_BIN        SphinxTrain's tool directory (default /usr/lib/sphinxtrain)
#   LARGE         1 to build cd_tied_2k_g16 as well (about 3 more minutes; default 0)
set -euo pipefail
export LC_ALL=C
export LANG=C

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source-path=SCRIPTDIR source=lib/sphinxtrain-common.sh
source "$SCRIPT_DIR/lib/sphinxtrain-common.sh"

ME="$(basename "$0")"
die() { echo "$ME: error: $*" >&2; exit 1; }
say() { echo "$ME: $*" >&2; }

if [ $# -lt 1 ] || [ $# -gt 2 ] || [ -z "$1" ]; then
  echo "usage: $ME OUTDIR [N]" >&2
  exit 2
fi
OUTDIR="$1"
N="${2:-2000}"
JOBS="${JOBS:-2}"
BW_TIMEOUT="${BW_TIMEOUT:-1800}"
TOOL_TIMEOUT="${TOOL_TIMEOUT:-600}"
LARGE="${LARGE:-0}"
ST_BIN="${ST_BIN:-/usr/lib/sphinxtrain}"
AN4="/usr/share/pocketsphinx/test/data/an4_ci_cont"

# SphinxTrain's settings (etc/sphinx_train.cfg defaults, except the number of tied states).
N_TIED_STATES=500          # $CFG_N_TIED_STATES (SphinxTrain's default is 200)
CD_FINAL_GAU=8             # $CFG_FINAL_NUM_DENSITIES
STATES_PER_HMM=3           # $CFG_STATESPERHMM
MAX_ITERATIONS=10          # $CFG_MAX_ITERATIONS
CONVERGENCE_RATIO=0.1      # $CFG_CONVERGENCE_RATIO
CI_PASSES=3                # grow-model.sh's PASSES
LARGE_PART=cd_tied_2k_g16   # LARGE=1: 2,000 tied CD states + the CI states, 16 Gaussians
LARGE_TIED_STATES=2000
LARGE_FINAL_GAU=16

[[ "$N" =~ ^[1-9][0-9]*$ ]] || die "N must be a positive integer, got '$N'"
[[ "$JOBS" =~ ^[1-9][0-9]*$ ]] || die "JOBS must be a positive integer, got '$JOBS'"
[[ "$LARGE" =~ ^[01]$ ]] || die "LARGE must be 0 or 1, got '$LARGE'"
[[ "$BW_TIMEOUT" =~ ^[1-9][0-9]*$ ]] || die "BW_TIMEOUT must be a positive integer (seconds), got '$BW_TIMEOUT'"
[[ "$TOOL_TIMEOUT" =~ ^[1-9][0-9]*$ ]] || die "TOOL_TIMEOUT must be a positive integer (seconds), got '$TOOL_TIMEOUT'"
for t in bw norm inc_comp init_mixw mk_mdef_gen make_quests bldtree prunetree tiestate; do
  [ -x "$ST_BIN/$t" ] || die "SphinxTrain tool $ST_BIN/$t not found (install the sphinxtrain package: scripts/bootstrap.sh)"
done
for t in timeout flock sha256sum xargs awk od; do
  command -v "$t" >/dev/null 2>&1 || die "required tool '$t' not found"
done
for f in mdef means variances mixture_weights transition_matrices; do
  [ -f "$AN4/$f" ] || die "initial model file $AN4/$f not found (install pocketsphinx-testdata)"
done

mkdir -p "$OUTDIR" || die "cannot create $OUTDIR"
OUTDIR="$(cd "$OUTDIR" && pwd)"
exec 9>"$OUTDIR/.lock"
flock 9 || die "cannot lock $OUTDIR/.lock"

MODEL_FILES=(mdef means variances mixture_weights transition_matrices feat.params noisedict)
PARTS=(ci_g1 ci_g8 ci_g16 cd_tied_g8)
BUILD="$OUTDIR/.build"
T_START=$EPOCHREALTIME
elapsed() { awk -v a="$T_START" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.0f", b - a }'; }

# ---------------------------------------------------------------------------------------------
# Failure reporting and tool calls.

# fail WHAT LOG : the error message and the last lines of LOG (and of a file the log points to
# with "(see FILE)", as grow-model.sh's messages do).
fail() {
  local what="$1" log="$2" see
  {
    echo "$ME: error: $what"
    if [ -s "$log" ]; then
      echo "---- last lines of $log:"
      tail -n 20 "$log"
      see=$(grep -o '(see [^)]*)' "$log" | tail -n 1 | sed 's/^(see //; s/)$//') || true
      if [ -n "$see" ] && [ -s "$see" ]; then
        echo "---- last lines of $see:"
        tail -n 20 "$see"
      fi
      echo "----"
    else
      echo "($log is empty or missing)"
    fi
  } >&2
  exit 1
}

# run SECONDS LOG TOOL ARG... : runs TOOL under timeout with stdout and stderr in LOG; on failure
# names the tool and prints the log's tail.
run() {
  local secs="$1" log="$2" tool="$3" rc=0
  shift 3
  timeout "$secs" "$tool" "$@" >"$log" 2>&1 || rc=$?
  [ "$rc" -ne 124 ] || fail "$(basename "$tool") timed out after $secs s (log $log)" "$log"
  [ "$rc" -eq 0 ] || fail "$(basename "$tool") failed with status $rc (log $log)" "$log"
}

# strip_date MDEF : mk_mdef_gen writes "# Generated by ... on <date>" as the first line.
strip_date() { sed -i '1{/^# Generated by/d}' "$1"; }

sphinxtrain_version() { dpkg-query -W -f='${Package} ${Version}\n' sphinxtrain 2>/dev/null || echo "sphinxtrain unknown"; }

# key ITEM... : SHA-256 over the named files' contents and the literal strings (ITEM = file:PATH
# or a string).
key() {
  local item
  {
    for item in "$@"; do
      case "$item" in
        file:*) echo "file $(basename "${item#file:}")"; cat "${item#file:}" ;;
        *) echo "arg $item" ;;
      esac
    done
    sphinxtrain_version
  } | sha256sum | cut -d' ' -f1
}

model_sums() { (cd "$1" && sha256sum "${MODEL_FILES[@]}"); }

# up_to_date DIR KEY : DIR holds a finished part with this key whose model files match.
up_to_date() {
  local dir="$1" k="$2"
  [ -f "$dir/.stamp" ] && [ -f "$dir/.sha256" ] || return 1
  [ "$(cat "$dir/.stamp")" = "$k" ] || return 1
  (cd "$dir" && sha256sum --quiet --strict -c .sha256 >/dev/null 2>&1)
}

# up_to_date_part NAME KEY : OUTDIR/NAME is a finished part with this key (and says so).
up_to_date_part() {
  up_to_date "$OUTDIR/$1" "$2" || return 1
  say "$1: up to date"
}

# fresh_build_dir NAME : BUILD/NAME emptied, with an empty work/ in it.
fresh_build_dir() {
  rm -rf "${BUILD:?}/$1"
  mkdir -p "$BUILD/$1/work"
}

# install_part BUILT_DIR NAME KEY : moves a finished part into OUTDIR/NAME, checksums, stamp last.
install_part() {
  local built="$1" name="$2" k="$3" f
  for f in "${MODEL_FILES[@]}"; do
    [ -s "$built/$f" ] || die "internal: $name has no $f"
  done
  model_sums "$built" >"$built/.sha256"
  rm -rf "${OUTDIR:?}/$name"
  mv "$built" "$OUTDIR/$name"
  echo "$k" >"$OUTDIR/$name/.stamp"
}

# ---------------------------------------------------------------------------------------------
# 1. The corpus.

C="$OUTDIR/corpus"
mkdir -p "$BUILD"
say "corpus: scripts/prepare-bench-corpus.sh $C $N"
rc=0
bash "$SCRIPT_DIR/prepare-bench-corpus.sh" "$C" "$N" >"$BUILD/corpus.log" 2>&1 || rc=$?
[ "$rc" -eq 0 ] || fail "prepare-bench-corpus.sh failed with status $rc" "$BUILD/corpus.log"
grep -q 'is up to date' "$BUILD/corpus.log" && say "corpus: up to date"
for f in train.fileids train.transcription corpus.dic corpus.filler feat.params SHA256SUMS; do
  [ -f "$C/$f" ] || die "corpus file $C/$f not found after prepare-bench-corpus.sh"
done
# bw retries a missing feature file forever: check them all once.
while read -r id; do
  [ -n "$id" ] || continue
  [ -f "$C/feat/$id.mfc" ] || die "feature file $C/feat/$id.mfc (listed in train.fileids) not found"
done <"$C/train.fileids"
N_UTT=$(grep -c . "$C/train.fileids")

# ---------------------------------------------------------------------------------------------
# 2. CI models with grow-model.sh.

ci_key() {
  key "file:$SCRIPT_DIR/grow-model.sh" "file:$SCRIPT_DIR/lib/sphinxtrain-common.sh" \
      "file:$C/SHA256SUMS" "$(cd "$AN4" && sha256sum mdef means variances mixture_weights transition_matrices)" \
      "ngau $1" "passes $CI_PASSES" "set train"
}

# build_ci NGAU : OUTDIR/ci_g<NGAU> unless up to date.
build_ci() {
  local g="$1" name="ci_g$1" k b rc=0
  k=$(ci_key "$g")
  if up_to_date "$OUTDIR/$name" "$k"; then
    say "$name: up to date"
    return 0
  fi
  b="$BUILD/$name"
  rm -rf "$b"
  mkdir -p "$b"
  say "$name: scripts/grow-model.sh $C $name $g ($(elapsed) s)"
  # grow-model.sh wraps each of its bw calls in timeout BW_TIMEOUT.
  PASSES=$CI_PASSES BW_TIMEOUT=$BW_TIMEOUT INIT_MODEL=$AN4 SET=train \
    BW="$ST_BIN/bw" NORM="$ST_BIN/norm" INC_COMP="$ST_BIN/inc_comp" \
    bash "$SCRIPT_DIR/grow-model.sh" "$C" "$b" "$g" >"$b.log" 2>&1 || rc=$?
  [ "$rc" -eq 0 ] || fail "grow-model.sh $g failed with status $rc" "$b.log"
  mv "$b.log" "$b/work/grow-model.log"
  install_part "$b" "$name" "$k"
  say "$name: done ($(grep -c '^grow: .* gau pass ' "$OUTDIR/$name/work/grow-model.log") bw+norm passes, $(elapsed) s)"
}

# ---------------------------------------------------------------------------------------------
# 3. The tied CD model, SphinxTrain's stages 30-50.

# bw's command line in SphinxTrain's 30.cd_hmm_untied/baum_welch.pl and 50.cd_hmm_tied/baum_welch.pl
# (with the corpus's settings for -agc/-cmn/-varnorm/-feat/-ceplen, and one part):
#   cd_bw MDEF MODEL_DIR OUTDIR TOPN TWOPASS MWFLOOR [TPFLOOR]
cd_bw() {
  local mdef="$1" m="$2" out="$3" topn="$4" twopass="$5" mwfloor="$6" tpfloor="${7:-}" rc=0
  local extra=()
  [ -n "$tpfloor" ] && extra=(-tpfloor "$tpfloor")
  mkdir -p "$out/accum"
  timeout "$BW_TIMEOUT" "$ST_BIN/bw" -moddeffn "$mdef" -ts2cbfn .cont. \
    -mixwfn "$m/mixture_weights" -mwfloor "$mwfloor" "${extra[@]}" \
    -tmatfn "$m/transition_matrices" -meanfn "$m/means" -varfn "$m/variances" \
    -dictfn "$C/corpus.dic" -fdictfn "$C/corpus.filler" \
    -ctlfn "$C/train.fileids" -part 1 -npart 1 -cepdir "$C/feat" -cepext mfc \
    -lsnfn "$C/train.transcription" -accumdir "$out/accum" -varfloor 1e-4 -topn "$topn" \
    -abeam 1e-90 -bbeam 1e-10 -agc none -cmn batch -varnorm no \
    -meanreest yes -varreest yes -2passvar "$twopass" -tmatreest yes -fullvar no \
    -feat 1s_c_d_dd -ceplen 13 -timing no >"$out/bw.log" 2>"$out/bw.err" || rc=$?
  [ "$rc" -ne 124 ] || fail "bw timed out after $BW_TIMEOUT s in $out" "$out/bw.err"
  [ "$rc" -eq 0 ] || fail "bw failed with status $rc in $out" "$out/bw.err"
  grep -q 'Counts saved to' "$out/bw.err" "$out/bw.log" || fail "bw did not save its counts in $out" "$out/bw.err"
  grep -q '^overall>' "$out/bw.log" || fail "bw printed no overall> line in $out" "$out/bw.err"
  run "$TOOL_TIMEOUT" "$out/norm.log" "$ST_BIN/norm" -accumdir "$out/accum" \
    -mixwfn "$out/mixture_weights" -tmatfn "$out/transition_matrices" \
    -meanfn "$out/means" -varfn "$out/variances" -fullvar no
  rm -rf "$out/accum"   # consumed by norm; the logs stay
}

# converge LABEL MDEF START_DIR STAGE_DIR TOPN MWFLOOR TPFLOOR TWOPASS_FIRST : bw + norm iterations
# from START_DIR into STAGE_DIR/iter_<K> under SphinxTrain's rule (norm_and_launchbw.pl): the
# likelihood per frame of iteration K is total log-likelihood / frames of its overall> line; the
# first iteration always continues; afterwards the gain over the previous iteration must exceed
# CONVERGENCE_RATIO to continue, and at MAX_ITERATIONS training stops. -2passvar is TWOPASS_FIRST
# on iteration 1 and yes afterwards. Sets LAST to the last iteration's directory.
converge() {
  local label="$1" mdef="$2" start="$3" stage="$4" topn="$5" mwfloor="$6" tpfloor="$7" first="$8"
  local iter=1 prev="$start" out twopass lk prev_lk="" ratio decision aligned line
  mkdir -p "$stage"
  while :; do
    out="$stage/iter_$iter"
    twopass=yes
    [ "$iter" -eq 1 ] && twopass="$first"
    cd_bw "$mdef" "$prev" "$out" "$topn" "$twopass" "$mwfloor" "$tpfloor"
    line=$(grep '^overall>' "$out/bw.log")
    aligned=$(awk '$1 == "utt>" && NF == 12' "$out/bw.log" | wc -l)
    lk=$(echo "$line" | awk '{ if ($3 > 0) printf "%.17g", $6 / $3; else print "nan" }')
    [ "$lk" != nan ] || fail "bw aligned no frames in $out" "$out/bw.err"
    if [ -z "$prev_lk" ]; then
      ratio="-"
      decision="continue"
    else
      # One awk: the decision compares the unrounded difference, as the perl script does.
      read -r ratio decision < <(awk -v a="$lk" -v b="$prev_lk" -v t="$CONVERGENCE_RATIO" -v i="$iter" -v m="$MAX_ITERATIONS" \
        'BEGIN { if (b == 0) r = (a > 0) ? 1 : ((a < 0) ? -1 : 0); else r = a - b
                 if (r > t && i >= m) d = "stop(max-iterations)"; else if (r > t) d = "continue"; else d = "converged"
                 printf "%.6f %s\n", r, d }')
    fi
    echo "$line, aligned $aligned/$N_UTT, gain $ratio, $decision" >>"$stage/passes.txt"
    say "$label iter $iter: $line, aligned $aligned/$N_UTT, gain $ratio: $decision ($(elapsed) s)"
    prev="$out"
    prev_lk="$lk"
    [ "$decision" = continue ] || break
    iter=$((iter + 1))
  done
  LAST="$prev"
}

# init_from_ci LOG MDEF DEST : init_mixw from ci_g1 to the states of MDEF, the model into DEST.
init_from_ci() {
  local log="$1" mdef="$2" dest="$3" ci="$OUTDIR/ci_g1"
  mkdir -p "$dest"
  run "$TOOL_TIMEOUT" "$log" "$ST_BIN/init_mixw" \
    -src_moddeffn "$ci/mdef" -src_ts2cbfn .cont. -src_mixwfn "$ci/mixture_weights" \
    -src_meanfn "$ci/means" -src_varfn "$ci/variances" -src_tmatfn "$ci/transition_matrices" \
    -dest_moddeffn "$mdef" -dest_ts2cbfn .cont. \
    -dest_mixwfn "$dest/mixture_weights" -dest_meanfn "$dest/means" \
    -dest_varfn "$dest/variances" -dest_tmatfn "$dest/transition_matrices" -fullvar no
}

# tie_and_train NAME SRC_WORK WORK BUILT NSENO FINAL_GAU : SphinxTrain's stages 45 (from the pruning
# on) and 50 into BUILT (work files in WORK): the unpruned trees, all-triphones mdef and questions of
# SRC_WORK pruned to NSENO tied CD states, tied, and trained from ci_g1 up to FINAL_GAU Gaussians;
# BUILT then holds the model's files.
tie_and_train() {
  local name="$1" src="$2" w="$3" b="$4" nseno="$5" final_gau="$6" g f
  # 45.prunetree
  mkdir -p "$w/trees/pruned"
  run "$TOOL_TIMEOUT" "$w/prunetree.log" "$ST_BIN/prunetree" -itreedir "$src/trees/unpruned" \
    -nseno "$nseno" -otreedir "$w/trees/pruned" -moddeffn "$src/alltriphones.mdef" \
    -psetfn "$src/questions" -minocc 0
  run "$TOOL_TIMEOUT" "$w/tiestate.log" "$ST_BIN/tiestate" -imoddeffn "$src/alltriphones.mdef" \
    -omoddeffn "$w/tied.mdef" -treedir "$w/trees/pruned" -psetfn "$src/questions"
  strip_date "$w/tied.mdef"
  local n_sen n_ci
  n_sen=$(awk '$2 == "n_tied_state" { print $1; exit }' "$w/tied.mdef")
  n_ci=$(awk '$2 == "n_tied_ci_state" { print $1; exit }' "$w/tied.mdef")
  if [ -z "$n_sen" ] || [ -z "$n_ci" ]; then fail "$name: tiestate wrote no usable mdef" "$w/tiestate.log"; fi
  # prunetree keeps fewer leaves than asked when the unpruned trees have fewer.
  [ $((n_sen - n_ci)) -eq "$nseno" ] || fail "$name: $((n_sen - n_ci)) tied CD states after pruning, not $nseno" "$w/prunetree.log"
  say "$name: tied mdef: $n_sen senones ($((n_sen - n_ci)) tied CD + $n_ci CI), $(awk '$2 == "n_tri" { print $1; exit }' "$w/tied.mdef") triphones ($(elapsed) s)"

  # 50.cd_hmm_tied
  init_from_ci "$w/init_mixw.tied.log" "$w/tied.mdef" "$w/tied_g1_initial"
  g=$(st_n_density "$w/tied_g1_initial/means")
  local start="$w/tied_g1_initial"
  while :; do
    converge "$name: tied ${g}g" "$w/tied.mdef" "$start" "$w/tied_g$g" "$g" 1e-5 1e-5 no
    [ "$g" -lt "$final_gau" ] || break
    # split_gaussians.pl: -ninc = current count while that does not overshoot, else the rest.
    local inc=$g
    [ $((2 * g)) -le "$final_gau" ] || inc=$((final_gau - g))
    start="$w/tied_g$((g + inc))_initial"
    mkdir -p "$start"
    cp "$LAST/transition_matrices" "$start/transition_matrices"
    run "$TOOL_TIMEOUT" "$start/inc_comp.log" "$ST_BIN/inc_comp" -ninc "$inc" \
      -dcountfn "$LAST/mixture_weights" -inmixwfn "$LAST/mixture_weights" -outmixwfn "$start/mixture_weights" \
      -inmeanfn "$LAST/means" -outmeanfn "$start/means" -invarfn "$LAST/variances" \
      -outvarfn "$start/variances" -fullvar no
    g=$((g + inc))
    [ "$(st_n_density "$start/means")" -eq "$g" ] || fail "$name: inc_comp did not produce $g Gaussians" "$start/inc_comp.log"
  done

  for f in means variances mixture_weights transition_matrices; do cp "$LAST/$f" "$b/$f"; done
  cp "$w/tied.mdef" "$b/mdef"
  cp "$C/corpus.filler" "$b/noisedict"     # SphinxTrain's norm.pl copies the filler dictionary
  cp "$C/feat.params" "$b/feat.params"
}

cd_key() {
  key "file:$SCRIPT_DIR/prepare-bench-set.sh" "file:$C/SHA256SUMS" "$(cat "$OUTDIR/ci_g1/.sha256")" \
      "tied $N_TIED_STATES gau $CD_FINAL_GAU states $STATES_PER_HMM max $MAX_ITERATIONS conv $CONVERGENCE_RATIO"
}

build_cd() {
  local name=cd_tied_g8 k b w ci="$OUTDIR/ci_g1" p s
  k=$(cd_key)
  up_to_date_part "$name" "$k" && return 0
  b="$BUILD/$name"
  w="$b/work"
  fresh_build_dir "$name"
  say "$name: SphinxTrain stages 30-50 from ci_g1 into $b ($(elapsed) s)"

  # The phone list (SphinxTrain's etc/<exp>.phone): the CI phones of the CI mdef, in its order.
  grep -v '^#' "$ci/mdef" | awk 'NF >= 7 && $2 == "-" && $3 == "-" && $4 == "-" { print $1 }' >"$w/phones"
  [ "$(wc -l <"$w/phones")" -gt 0 ] || die "no CI phones in $ci/mdef"

  # 30.cd_hmm_untied
  run "$TOOL_TIMEOUT" "$w/mk_mdef_gen.untied.log" "$ST_BIN/mk_mdef_gen" -phnlstfn "$w/phones" \
    -dictfn "$C/corpus.dic" -fdictfn "$C/corpus.filler" -lsnfn "$C/train.transcription" \
    -ountiedmdef "$w/untied.mdef" -n_state_pm "$STATES_PER_HMM"
  strip_date "$w/untied.mdef"
  init_from_ci "$w/init_mixw.untied.log" "$w/untied.mdef" "$w/untied_initial"
  say "$name: untied mdef: $(awk '$2 == "n_tri" { t = $1 } $2 == "n_tied_state" { s = $1 } END { print t " triphones, " s " senones" }' "$w/untied.mdef")"
  # baum_welch.pl of stage 30: -topn 1 -mwfloor 1e-8 -2passvar yes, bw's default -tpfloor.
  converge "$name: untied" "$w/untied.mdef" "$w/untied_initial" "$w/untied" 1 1e-8 "" yes
  local untied="$LAST"

  # 40.buildtrees
  run "$TOOL_TIMEOUT" "$w/make_quests.log" "$ST_BIN/make_quests" -moddeffn "$ci/mdef" \
    -meanfn "$ci/means" -varfn "$ci/variances" -fullvar no -mixwfn "$ci/mixture_weights" \
    -npermute 12 -niter 1 -qstperstt 20 -questfn "$w/questions" -type .cont. \
    -tempfn "$w/make_quests.tmp"
  [ -s "$w/questions" ] || fail "make_quests wrote no questions" "$w/make_quests.log"
  mkdir -p "$w/trees/unpruned" "$w/trees/logs"
  # -stwt for 3 states per HMM, as buildtree.pl; SIL and +filler+ phones get no tree.
  local stwt=1.0,0.05,0.0
  [ "$STATES_PER_HMM" -eq 3 ] || die "internal: -stwt is only set for 3 states per HMM"
  grep -v -e '^SIL$' -e '^+.*+$' "$w/phones" | while read -r p; do
    for s in $(seq 0 $((STATES_PER_HMM - 1))); do echo "$p $s"; done
  done >"$w/trees/jobs"
  local rc=0
  # shellcheck disable=SC2016
  xargs -P "$JOBS" -L 1 bash -c '
    timeout "$0" "$1/bldtree" -treefn "$2/trees/unpruned/$5-$6.dtree" -moddeffn "$2/untied.mdef" \
      -mixwfn "$3/mixture_weights" -ts2cbfn .cont. -mwfloor 1e-8 -psetfn "$2/questions" \
      -phone "$5" -state "$6" -stwt "$4" -meanfn "$3/means" -varfn "$3/variances" -fullvar no \
      -ssplitmin 1 -ssplitmax 7 -ssplitthr 0 -csplitmin 1 -csplitmax 2000 -csplitthr 0 \
      >"$2/trees/logs/$5-$6.log" 2>&1 || { echo "$5-$6 $?" >>"$2/trees/failed"; exit 255; }' \
    "$TOOL_TIMEOUT" "$ST_BIN" "$w" "$untied" "$stwt" <"$w/trees/jobs" || rc=$?
  if [ "$rc" -ne 0 ] || [ -s "$w/trees/failed" ]; then
    local first
    first=$(head -n 1 "$w/trees/failed" 2>/dev/null || echo "? $rc")
    fail "bldtree failed for phone-state ${first% *} with status ${first#* } (124 = timeout)" "$w/trees/logs/${first% *}.log"
  fi
  say "$name: $(wc -l <"$w/trees/jobs") trees built ($(elapsed) s)"

  # 45.prunetree
  run "$TOOL_TIMEOUT" "$w/mk_mdef_gen.alltriphones.log" "$ST_BIN/mk_mdef_gen" -phnlstfn "$w/phones" \
    -oalltphnmdef "$w/alltriphones.mdef" -dictfn "$C/corpus.dic" -fdictfn "$C/corpus.filler" \
    -n_state_pm "$STATES_PER_HMM"
  strip_date "$w/alltriphones.mdef"
  tie_and_train "$name" "$w" "$w" "$b" "$N_TIED_STATES" "$CD_FINAL_GAU"
  install_part "$b" "$name" "$k"
  say "$name: done ($(elapsed) s)"
}

# ---------------------------------------------------------------------------------------------
# 3b. With LARGE=1, a tied CD model of production size: the same stages 45 and 50 on cd_tied_g8's
# unpruned trees (the untied stage and the trees are not repeated), pruned to LARGE_TIED_STATES tied
# CD states and trained up to LARGE_FINAL_GAU Gaussians.

cd_large_key() {
  local trees
  trees=$(cd "$OUTDIR/cd_tied_g8/work" && sha256sum alltriphones.mdef questions trees/unpruned/*.dtree) ||
    die "cd_tied_g8's trees are missing from $OUTDIR/cd_tied_g8/work"
  key "file:$SCRIPT_DIR/prepare-bench-set.sh" "file:$C/SHA256SUMS" "$(cat "$OUTDIR/ci_g1/.sha256")" \
      "$(cat "$OUTDIR/cd_tied_g8/.sha256")" "$trees" \
      "tied $LARGE_TIED_STATES gau $LARGE_FINAL_GAU max $MAX_ITERATIONS conv $CONVERGENCE_RATIO"
}

build_cd_large() {
  local name=$LARGE_PART k b w
  k=$(cd_large_key)
  up_to_date_part "$name" "$k" && return 0
  b="$BUILD/$name"
  w="$b/work"
  fresh_build_dir "$name"
  say "$name: SphinxTrain stages 45-50 on cd_tied_g8's trees into $b ($(elapsed) s)"
  tie_and_train "$name" "$OUTDIR/cd_tied_g8/work" "$w" "$b" "$LARGE_TIED_STATES" "$LARGE_FINAL_GAU"
  install_part "$b" "$name" "$k"
  say "$name: done ($(elapsed) s)"
}

# ---------------------------------------------------------------------------------------------
# 4. Order: ci_g1 first (the CD model starts from it); then, with JOBS >= 2, ci_g8 and ci_g16 in
# the background while cd_tied_g8 is built.

BG_PID=""
cleanup() {
  if [ -n "$BG_PID" ] && kill -0 "$BG_PID" 2>/dev/null; then
    kill -- -"$BG_PID" 2>/dev/null || kill "$BG_PID" 2>/dev/null || true
  fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

build_ci 1
if [ "$JOBS" -ge 2 ]; then
  set -m   # the background job gets its own process group, so cleanup can stop all of it
  ( build_ci 8; build_ci 16 ) 2>"$BUILD/ci-background.log" &
  BG_PID=$!
  set +m
  build_cd
  rc=0
  wait "$BG_PID" || rc=$?
  BG_PID=""
  cat "$BUILD/ci-background.log" >&2
  [ "$rc" -eq 0 ] || die "building ci_g8 / ci_g16 failed (messages above)"
else
  build_ci 8
  build_ci 16
  build_cd
fi
[ "$LARGE" -eq 0 ] || build_cd_large

# ---------------------------------------------------------------------------------------------
# 5. Checksums and what was built.

{
  (cd "$OUTDIR" && sha256sum corpus/SHA256SUMS)
  for p in "${PARTS[@]}"; do
    sed "s|  |  $p/|" "$OUTDIR/$p/.sha256"
  done
} >"$OUTDIR/SHA256SUMS.tmp"
# replace_if_changed NEW FILE : an up-to-date OUTDIR is left untouched.
replace_if_changed() { if cmp -s "$1" "$2"; then rm -f "$1"; else mv "$1" "$2"; fi; }
replace_if_changed "$OUTDIR/SHA256SUMS.tmp" "$OUTDIR/SHA256SUMS"

describe() {
  local p="$1" d="$OUTDIR/$1" shape sen gau passes last
  shape=$(st_means_shape "$d/means")
  sen=${shape% *}
  gau=${shape#* }
  if [ "${p%%_*}" = ci ]; then
    passes=$(grep -c '^grow: .* gau pass ' "$d/work/grow-model.log")
    last=$(grep '^grow: .* gau pass ' "$d/work/grow-model.log" | tail -n 1 | sed 's/^grow: [^:]*: //')
  else
    passes=$(cat "$d"/work/tied_g*/passes.txt | wc -l)
    last=$(tail -n 1 "$d/work/tied_g$gau/passes.txt" | sed 's/, gain.*//')
  fi
  printf '%-14s %4d senones x %2d Gaussians = %5d Gaussians, %2d bw+norm passes; last pass: %s\n' \
    "$p" "$sen" "$gau" $((sen * gau)) "$passes" "$last"
}
{
  echo "benchmark set $OUTDIR (scripts/prepare-bench-set.sh, N=$N, $(sphinxtrain_version))"
  awk '/^train utterances/ { print "corpus      train: " $3 " utterances, " $5 " frames, " $7 " words" }
       /^heldout utterances/ { print "corpus      heldout: " $3 " utterances, " $5 " frames" }' "$C/corpus-info.txt"
  for p in "${PARTS[@]}"; do describe "$p"; done
  d="$OUTDIR/cd_tied_g8"
  echo "cd_tied_g8  mdef: $(awk '$2 == "n_tri" { t = $1 } $2 == "n_tied_state" { s = $1 } $2 == "n_tied_ci_state" { c = $1 } END { print s " senones = " s - c " tied CD states + " c " CI states, " t " triphones" }' "$d/mdef"); untied stage: $(wc -l <"$d/work/untied/passes.txt") passes on $(awk '$2 == "n_tied_state" { print $1; exit }' "$d/work/untied.mdef") untied senones; $(wc -l <"$d/work/trees/jobs") trees pruned to $N_TIED_STATES leaves"
  echo "SHA256SUMS  $(sha256sum "$OUTDIR/SHA256SUMS" | cut -d' ' -f1)"
  if [ -f "$OUTDIR/$LARGE_PART/.stamp" ] && ! up_to_date "$OUTDIR/$LARGE_PART" "$(cd_large_key)"; then
    echo "$LARGE_PART  stale: built from other inputs or by another script (LARGE=1 rebuilds it)"
  elif [ -f "$OUTDIR/$LARGE_PART/.stamp" ]; then
    describe "$LARGE_PART"
    echo "$LARGE_PART  (LARGE=1) mdef: $(awk '$2 == "n_tied_state" { s = $1 } $2 == "n_tied_ci_state" { c = $1 } END { print s " senones = " s - c " tied CD states + " c " CI states" }' "$OUTDIR/$LARGE_PART/mdef"); model files: $(sha256sum "$OUTDIR/$LARGE_PART/.sha256" | cut -d' ' -f1) (sha256 of its .sha256)"
  fi
} >"$OUTDIR/bench-set-info.txt.tmp"
replace_if_changed "$OUTDIR/bench-set-info.txt.tmp" "$OUTDIR/bench-set-info.txt"
rm -rf "$BUILD"
cat "$OUTDIR/bench-set-info.txt"
say "done in $(elapsed) s"
