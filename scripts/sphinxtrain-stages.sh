#!/usr/bin/env bash
# Runs SphinxTrain's own perl stages (Debian's sphinxtrain package) on a corpus made by
# scripts/prepare-corpus.sh, with the tools of a $CFG_BIN_DIR of your choice: the stock one, or one
# made by `pstrain sphinxtrain-bindir` (bw and norm are pstrain). docs/sphinxtrain.md.
#
#   scripts/sphinxtrain-stages.sh CORPUS_DIR TASK_DIR BIN_DIR NPART LAST_STAGE
#
# LAST_STAGE: 20 (20.ci_hmm only) or 50 (20.ci_hmm, 30.cd_hmm_untied, 40.buildtrees,
# 45.prunetree, 50.cd_hmm_tied). TASK_DIR is created afresh. Settings (environment):
#   ST_N_TIED_STATES (default 64), ST_FINAL_GAU (default 2), ST_MAX_ITERATIONS (default 10).
#
# Debian 12's /usr/bin/sphinxtrain looks under /usr/lib/sphinxtrain and fails, so the task
# directory is set up here: etc/sphinx_train.cfg from the package's template, etc/feat.params,
# the dictionary, filler dictionary, phone list, transcription and fileids, and feat/ (the
# corpus's .mfc files, made by sphinx_fe in prepare-corpus.sh). The scripts are run with perl and
# PERL_USE_UNSAFE_INC=1 (SphinxTrain/Config.pm does `do "etc/sphinx_train.cfg"`).
#
# Exit status: 0 when every stage ran and wrote its outputs, 1 otherwise (the failing stage and
# its log directory are named), 2 on usage.
set -euo pipefail
export LC_ALL=C

die() { echo "$(basename "$0"): error: $*" >&2; exit 1; }
if [ $# -ne 5 ]; then
  echo "usage: $(basename "$0") CORPUS_DIR TASK_DIR BIN_DIR NPART LAST_STAGE(20|50)" >&2
  exit 2
fi
CORPUS=$(realpath "$1")
TASK="$2"
BIN=$(realpath "$3")
NPART="$4"
LAST="$5"
case "$LAST" in 20|50) ;; *) echo "usage: LAST_STAGE must be 20 or 50, got '$LAST'" >&2; exit 2 ;; esac
case "$NPART" in ''|*[!0-9]*) echo "usage: NPART must be a whole number, got '$NPART'" >&2; exit 2 ;; esac
ST=${SPHINXTRAIN_DIR:-/usr/lib/x86_64-linux-gnu/sphinxtrain}
[ -f "$ST/etc/sphinx_train.cfg" ] || die "no SphinxTrain template at $ST/etc/sphinx_train.cfg (Debian package sphinxtrain)"
[ -x "$BIN/bw" ] && [ -x "$BIN/norm" ] || die "$BIN holds no bw and norm"
for f in corpus.dic corpus.filler train.fileids train.transcription feat.params; do
  [ -f "$CORPUS/$f" ] || die "$CORPUS/$f is missing (build the corpus with scripts/prepare-corpus.sh)"
done
N_TIED=${ST_N_TIED_STATES:-64}
FINAL_GAU=${ST_FINAL_GAU:-2}
MAX_ITER=${ST_MAX_ITERATIONS:-10}

rm -rf "$TASK"
mkdir -p "$TASK/etc" "$TASK/logdir" "$TASK/bwaccumdir" "$TASK/model_parameters" "$TASK/model_architecture" "$TASK/qmanager"
TASK=$(realpath "$TASK")
DB=corpus
cp "$CORPUS/corpus.dic" "$TASK/etc/$DB.dic"
cp "$CORPUS/corpus.filler" "$TASK/etc/$DB.filler"
cp "$CORPUS/train.fileids" "$TASK/etc/${DB}_train.fileids"
cp "$CORPUS/train.transcription" "$TASK/etc/${DB}_train.transcription"
cp "$CORPUS/feat.params" "$TASK/etc/feat.params"
# The phone list: every phone of the dictionary and the filler dictionary.
cat "$TASK/etc/$DB.dic" "$TASK/etc/$DB.filler" | awk '{ for (i = 2; i <= NF; i++) print $i }' | sort -u > "$TASK/etc/$DB.phone"
ln -s "$CORPUS/feat" "$TASK/feat"
sed -e "s|___DB_NAME___|$DB|" -e "s|___BASE_DIR___|$TASK|" -e "s|___SPHINXTRAIN_DIR___|$ST|g" \
    -e "s|___SPHINXTRAIN_BIN_DIR___|$BIN|" \
    -e "s|^\$CFG_NPART = .*|\$CFG_NPART = $NPART;|" \
    -e "s|^\$CFG_N_TIED_STATES = .*|\$CFG_N_TIED_STATES = $N_TIED;|" \
    -e "s|^\$CFG_MAX_ITERATIONS = .*|\$CFG_MAX_ITERATIONS = $MAX_ITER;|" \
    -e "s|^  \$CFG_FINAL_NUM_DENSITIES = 8;|  \$CFG_FINAL_NUM_DENSITIES = $FINAL_GAU;|" \
    -e "s|^\$CFG_CMN = .*|\$CFG_CMN = 'batch';|" \
    "$ST/etc/sphinx_train.cfg" > "$TASK/etc/sphinx_train.cfg"
grep -q "^\$CFG_NPART = $NPART;" "$TASK/etc/sphinx_train.cfg" || die "could not set \$CFG_NPART in the template"
grep -q "FINAL_NUM_DENSITIES = $FINAL_GAU;" "$TASK/etc/sphinx_train.cfg" || die "could not set \$CFG_FINAL_NUM_DENSITIES in the template"

export PERL_USE_UNSAFE_INC=1
run_stage() {  # NAME SCRIPT EXPECTED_FILE
  local name="$1" script="$2" expected="$3" rc=0
  echo "stage $name ($script), NPART=$NPART, bin $BIN"
  (cd "$TASK" && perl "$ST/scripts/$script") > "$TASK/stage-$name.out" 2>&1 || rc=$?
  if [ "$rc" -ne 0 ] || [ ! -s "$TASK/$expected" ] || grep -q "FAILED" "$TASK/stage-$name.out"; then
    tail -20 "$TASK/stage-$name.out" >&2
    die "stage $name did not complete (exit $rc; expected $TASK/$expected; logs in $TASK/logdir)"
  fi
}
run_stage 20 20.ci_hmm/slave_convg.pl "model_parameters/$DB.ci_cont/means"
if [ "$LAST" = 50 ]; then
  run_stage 30 30.cd_hmm_untied/slave_convg.pl "model_parameters/$DB.cd_cont_untied/means"
  run_stage 40 40.buildtrees/slave.treebuilder.pl "model_architecture/$DB.tree_questions"
  run_stage 45 45.prunetree/slave.state-tying.pl "model_architecture/$DB.$N_TIED.mdef"
  run_stage 50 50.cd_hmm_tied/slave_convg.pl "model_parameters/$DB.cd_cont_$N_TIED/means"
fi
echo "stages done: $TASK"
