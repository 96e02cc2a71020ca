# shellcheck shell=bash
# What the scripts that run SphinxTrain's bw share (sphinxtrain-reference.sh, grow-model.sh,
# bench-vs-bw.sh): the s3 header reader and bw's command line for the CI stage with the settings
# pstrain's defaults mirror (docs/cli.md). Sourced, not executed.

# "n_mgau n_density" of an s3 means file: after "endhdr\n" come the int32 byte-order magic
# 0x11223344, n_mgau, n_feat, n_density. Exits the script when the header is not that.
st_means_shape() {
  local f="$1" off vals
  off=$(grep -abo -m1 'endhdr' "$f" | cut -d: -f1) || { echo "$(basename "$0"): error: no s3 header in $f" >&2; exit 1; }
  # shellcheck disable=SC2207
  vals=($(od -An -t d4 -j $((off + 7)) -N 16 "$f"))
  if [ "${vals[0]:-}" != 287454020 ]; then
    echo "$(basename "$0"): error: $f: unexpected byte order magic (not little-endian s3)" >&2
    exit 1
  fi
  echo "${vals[1]} ${vals[3]}"
}

# Gaussians per state of an s3 means file (SphinxTrain's CI stage passes -topn = all of them).
st_n_density() {
  local shape
  shape=$(st_means_shape "$1") || exit 1
  echo "${shape#* }"
}

# Fills the array ST_BW_ARGS with bw's arguments for one E-step:
#   st_bw_args MODEL_DIR CORPUS_DIR SET ACCUMDIR TOPN TWOPASS
# (SET: train or heldout; the corpus layout of scripts/prepare-corpus.sh; -cepext without the dot,
# or bw looks for files that do not exist and retries for ever).
st_bw_args() {
  local model="$1" corpus="$2" set="$3" accum="$4" topn="$5" twopass="$6"
  ST_BW_ARGS=(
    -moddeffn "$model/mdef" -ts2cbfn .cont.
    -meanfn "$model/means" -varfn "$model/variances"
    -mixwfn "$model/mixture_weights" -tmatfn "$model/transition_matrices"
    -dictfn "$corpus/corpus.dic" -fdictfn "$corpus/corpus.filler"
    -ctlfn "$corpus/$set.fileids" -lsnfn "$corpus/$set.transcription"
    -cepdir "$corpus/feat" -cepext mfc -accumdir "$accum"
    -mwfloor 1e-8 -varfloor 1e-4 -topn "$topn" -abeam 1e-90 -bbeam 1e-10
    -agc none -cmn batch -varnorm no -feat 1s_c_d_dd -ceplen 13
    -meanreest yes -varreest yes -tmatreest yes -2passvar "$twopass" -timing no
  )
}
