# shellcheck shell=bash
# What the scripts that run SphinxTrain's bw share (sphinxtrain-reference.sh, grow-model.sh,
# bench-vs-bw.sh, bench-harness.sh): the s3 header reader, bw's command line for the CI stage with
# the settings pstrain's defaults mirror (docs/cli.md), `pstrain train`'s for one pass with the same
# settings, and one bw + norm training pass as a script. Sourced, not executed.

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

# Fills the array ST_PSTRAIN_PASS_ARGS with `pstrain train`'s arguments for one training pass with
# st_bw_args' settings (what bench-vs-bw.sh --pass and bench-harness.sh time):
#   st_pstrain_pass_args MODEL_DIR MANIFEST CORPUS_DIR OUTDIR JOBS TOPN TWOPASS
st_pstrain_pass_args() {
  local model="$1" manifest="$2" corpus="$3" out="$4" jobs="$5" topn="$6" twopass="$7"
  # shellcheck disable=SC2034  # read by the sourcing script
  ST_PSTRAIN_PASS_ARGS=(
    train --model "$model" --manifest "$manifest"
    --dict "$corpus/corpus.dic" --filler "$corpus/corpus.filler" --out "$out"
    --min-passes 1 --max-passes 1 --jobs "$jobs" --quiet
    --retry-beams none --2passvar "$twopass" --cmn batch --varnorm no --topn "$topn"
    --abeam 1e-90 --bbeam 1e-10 --varfloor 1e-4 --mwfloor 1e-8
  )
}

# The pass time (seconds) that `pstrain train` printed for pass 1 in its output FILE
# ("pass 1: ..., 1.607 s -> max-passes"); "?" when there is none.
st_pass_seconds() {
  awk '/^pass 1:/ { for (i = 1; i < NF; i++) if ($(i + 1) == "s") v = $i } END { print (v == "") ? "?" : v }' "$1"
}

# Prints a bash script that runs one SphinxTrain training pass the way SphinxTrain's POSIX queue
# runs a stage's parts: all NPART parts of bw at once (-part i -npart NPART, st_bw_args' flags),
# then norm over their accumulator directories. The script's $1 is its output directory (accum.i,
# bw.i.log, bw.i.err, model/, norm.log); it exits 1 naming the log when bw or norm fails.
#   st_bw_pass_script BW NORM NPART MODEL_DIR CORPUS_DIR SET TOPN TWOPASS TIMEOUT
# (The single-quoted $ expressions belong to the generated script.)
# shellcheck disable=SC2016
st_bw_pass_script() {
  local bw="$1" norm="$2" npart="$3" model="$4" corpus="$5" set="$6" topn="$7" twopass="$8" timeout_s="$9"
  local i a parts accums=()
  echo '#!/usr/bin/env bash'
  echo '# One SphinxTrain training pass: bw in '"$npart"' part(s) at once, then norm. $1 = output directory.'
  echo 'set -u'
  echo 'out="$1"; pids=(); rc=0'
  for i in $(seq 1 "$npart"); do
    st_bw_args "$model" "$corpus" "$set" "OUT/accum.$i" "$topn" "$twopass"
    printf 'mkdir -p "$out/accum.%d"\n' "$i"
    printf 'timeout %q %q' "$timeout_s" "$bw"
    for a in "${ST_BW_ARGS[@]}" -part "$i" -npart "$npart"; do
      if [ "$a" = "OUT/accum.$i" ]; then printf ' "$out/accum.%d"' "$i"; else printf ' %q' "$a"; fi
    done
    printf ' >"$out/bw.%d.log" 2>"$out/bw.%d.err" &\npids+=($!)\n' "$i" "$i"
    accums+=("\$out/accum.$i")
  done
  echo 'for pid in "${pids[@]}"; do wait "$pid" || rc=1; done'
  echo '[ "$rc" -eq 0 ] || { echo "bw failed (see $out/bw.*.err)" >&2; exit 1; }'
  parts=$(IFS=,; echo "${accums[*]}")
  printf 'mkdir -p "$out/model"\ntimeout %q %q -accumdir "%s" -fullvar no -meanfn "$out/model/means" -varfn "$out/model/variances" -mixwfn "$out/model/mixture_weights" -tmatfn "$out/model/transition_matrices" >"$out/norm.log" 2>&1 || { echo "norm failed (see $out/norm.log)" >&2; exit 1; }\n' \
    "$timeout_s" "$norm" "$parts"
}
