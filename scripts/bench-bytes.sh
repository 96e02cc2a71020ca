#!/usr/bin/env bash
# The bytes check of docs/performance.md: one training pass of every benchmark configuration
# (docs/bench-set.md: ci_g1, ci_g8, ci_g16, cd_tied_g8; 1 job and 2 jobs), with the flags of
# `scripts/bench-vs-bw.sh --pass`, and the SHA-256 of its statistics (passes/001/accum/) and model
# (passes/001/model/ and model/) files. Run it with two builds and compare the two outputs (they must
# be identical); the run directories stay in OUTDIR for `audit bytes --ignore-telemetry`.
#
#   scripts/bench-bytes.sh BENCH_SET OUTDIR     (BENCH_SET from scripts/prepare-bench-set.sh)
#
# Environment: PSTRAIN (default build/trainer/pstrain of this checkout), MODELS (default
# "ci_g1 ci_g8 ci_g16 cd_tied_g8"; cd_tied_2k_g16 when built with LARGE=1), JOBS_LIST (default "1 2").
# Output (stdout): "<model> jobs <J> <sha256> <file>" per file, sorted by file within a run.
set -euo pipefail
export LC_ALL=C

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ME="$(basename "$0")"
# shellcheck source=lib/sphinxtrain-common.sh
source "$ROOT/scripts/lib/sphinxtrain-common.sh"
die() { echo "$ME: error: $*" >&2; exit 1; }
[ $# -eq 2 ] || { echo "usage: $ME BENCH_SET OUTDIR" >&2; exit 2; }
SET="$(cd "$1" && pwd)" || die "no benchmark set at $1"
OUT="$2"
PSTRAIN="${PSTRAIN:-$ROOT/build/trainer/pstrain}"
MODELS="${MODELS:-ci_g1 ci_g8 ci_g16 cd_tied_g8}"
JOBS_LIST="${JOBS_LIST:-1 2}"
[ -x "$PSTRAIN" ] || die "pstrain binary $PSTRAIN not found"
CORPUS="$SET/corpus"
mkdir -p "$OUT"
MANIFEST="$CORPUS/train.manifest"  # feature paths are stored relative to the manifest (as bench-vs-bw.sh)
"$PSTRAIN" manifest import --fileids "$CORPUS/train.fileids" --transcription "$CORPUS/train.transcription" \
  --cepdir "$CORPUS/feat" --out "$MANIFEST" >"$OUT/import.log" 2>&1 || die "manifest import failed: $(cat "$OUT/import.log")"

for model in $MODELS; do
  dir="$SET/$model"
  [ -f "$dir/means" ] || die "no model $dir"
  read -r _ topn < <(st_means_shape "$dir/means")  # Gaussians per state: -topn = all, as bench-vs-bw.sh
  for jobs in $JOBS_LIST; do
    run="$OUT/$model-j$jobs"
    rm -rf "$run"
    "$PSTRAIN" train --model "$dir" --manifest "$MANIFEST" --dict "$CORPUS/corpus.dic" --filler "$CORPUS/corpus.filler" \
      --out "$run" --min-passes 1 --max-passes 1 --jobs "$jobs" --quiet --retry-beams none --2passvar yes --cmn batch \
      --varnorm no --topn "$topn" --abeam 1e-90 --bbeam 1e-10 --varfloor 1e-4 --mwfloor 1e-8 >"$run.log" 2>&1 ||
      die "pstrain train failed on $model, $jobs jobs: $(tail -n 5 "$run.log")"
    (cd "$run" && find passes/001/accum passes/001/model model -maxdepth 1 -type f \
       \( -name '*_counts' -o -name means -o -name variances -o -name mixture_weights -o -name transition_matrices \) |
       sort | xargs sha256sum) | while read -r sum file; do echo "$model jobs $jobs $sum $file"; done
  done
done
