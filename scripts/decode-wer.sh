#!/usr/bin/env bash
# Decodes a corpus set with pocketsphinx_batch and prints its word error rate.
#
#   scripts/decode-wer.sh MODEL_DIR CORPUS_DIR [heldout|train]      (default heldout)
#
# MODEL_DIR must hold mdef, means, variances, mixture_weights, transition_matrices, feat.params
# and noisedict (what scripts/sphinxtrain-reference.sh and pstrain write). CORPUS_DIR is a corpus
# made by scripts/prepare-corpus.sh or scripts/prepare-bench-corpus.sh.
#
# Decoding: the cepstra in CORPUS_DIR/feat (CMN etc. from MODEL_DIR/feat.params), the corpus's
# lower-case dictionary decode.dic (only the corpus vocabulary, all pronunciations) and the
# general English trigram LM of pocketsphinx-en-us (en-us.lm.bin). LM words missing from
# decode.dic cannot be hypothesized, so the search vocabulary is the corpus vocabulary while the
# LM supplies realistic word-sequence probabilities.
#
# Environment (optional):
#   DECODE_LM     LM file (default /usr/share/pocketsphinx/model/en-us/en-us.lm.bin)
#   DECODE_ARGS   extra pocketsphinx_batch arguments (word-split), e.g. "-lw 10"
#   VERBOSE=1     print every utterance's reference, hypothesis and error count
#   KEEP_DIR=DIR  keep the hypothesis file and decoder log in DIR
#
# Output: the last line is always "WER <percent> (<errors>/<reference words>)", errors being
# substitutions + deletions + insertions of a minimum-edit-distance word alignment. Fillers
# (<s>, </s>, <sil>, [NOISE] ...) and alternate markers "(2)" are ignored; words are compared
# case-insensitively. Exit status: 0 on success, 1 on any failure (with a message), 2 on usage.
set -euo pipefail
export LC_ALL=C

die() { echo "$(basename "$0"): error: $*" >&2; exit 1; }

if [ $# -lt 2 ] || [ $# -gt 3 ]; then
  echo "usage: $(basename "$0") MODEL_DIR CORPUS_DIR [heldout|train]" >&2
  exit 2
fi
MODEL="$1"
CORPUS="$2"
SET="${3:-heldout}"
case "$SET" in heldout|train) ;; *) echo "usage: set must be heldout or train, got '$SET'" >&2; exit 2 ;; esac
LM="${DECODE_LM:-/usr/share/pocketsphinx/model/en-us/en-us.lm.bin}"

command -v pocketsphinx_batch >/dev/null 2>&1 ||
  die "pocketsphinx_batch not found in PATH (install the pocketsphinx package)"
[ -d "$MODEL" ] || die "model directory $MODEL not found"
for f in mdef means variances mixture_weights transition_matrices feat.params noisedict; do
  [ -f "$MODEL/$f" ] || die "model file $MODEL/$f not found"
done
for f in "$SET.fileids" "$SET.transcription" decode.dic; do
  [ -f "$CORPUS/$f" ] || die "corpus file $CORPUS/$f not found (run scripts/prepare-corpus.sh)"
done
[ -d "$CORPUS/feat" ] || die "corpus feature directory $CORPUS/feat not found"
[ -f "$LM" ] || die "language model $LM not found (install pocketsphinx-en-us or set DECODE_LM)"
while read -r id; do
  [ -f "$CORPUS/feat/$id.mfc" ] || die "feature file $CORPUS/feat/$id.mfc not found"
done <"$CORPUS/$SET.fileids"

if [ -n "${KEEP_DIR:-}" ]; then
  mkdir -p "$KEEP_DIR" || die "cannot create $KEEP_DIR"
  TMP="$KEEP_DIR"
else
  TMP="$(mktemp -d "${TMPDIR:-/tmp}/decode-wer.XXXXXX")"
  trap 'rm -rf "$TMP"' EXIT
fi
HYP="$TMP/$SET.hyp"
LOG="$TMP/$SET.decode.log"
rm -f "$HYP"

# shellcheck disable=SC2086
if ! pocketsphinx_batch -hmm "$MODEL" -dict "$CORPUS/decode.dic" -lm "$LM" \
     -ctl "$CORPUS/$SET.fileids" -cepdir "$CORPUS/feat" -cepext .mfc -adcin no \
     -hyp "$HYP" -logfn "$LOG" ${DECODE_ARGS:-}; then
  tail -n 20 "$LOG" >&2 || true
  die "pocketsphinx_batch failed (log above; set KEEP_DIR to keep it)"
fi
[ -f "$HYP" ] || die "pocketsphinx_batch wrote no hypothesis file (see its log)"
grep -q 'FATAL' "$LOG" && { grep 'FATAL' "$LOG" | head -5 >&2; die "pocketsphinx_batch reported a fatal error"; }
nerr=$(grep -c '^ERROR' "$LOG" || true)
if [ "$nerr" -gt 0 ]; then
  echo "$(basename "$0"): warning: pocketsphinx_batch logged $nerr ERROR line(s), e.g.:" >&2
  grep '^ERROR' "$LOG" | head -3 >&2
fi

# Word-level Levenshtein alignment, per utterance, over the reference order of the fileids.
awk -v verbose="${VERBOSE:-0}" -v reffile="$CORPUS/$SET.transcription" \
    -v ctl="$CORPUS/$SET.fileids" -v hypfile="$HYP" '
  function clean(s,    n, i, w, out, a) {
    n = split(s, a, /[ \t]+/); out = ""
    for (i = 1; i <= n; i++) {
      w = toupper(a[i])
      if (w == "" || w ~ /^</ || w ~ /^\[/ || w ~ /^\+\+/) continue   # fillers
      sub(/\([0-9]+\)$/, "", w)                                         # alternate marker
      out = out (out == "" ? "" : " ") w
    }
    return out
  }
  # line "words (uttid [score])" -> sets g_id and g_words
  function parse(line,    inner, p) {
    g_id = ""; g_words = ""
    sub(/[ \t\r]+$/, "", line)
    if (!match(line, /\([^()]*\)$/)) return 0
    inner = substr(line, RSTART + 1, RLENGTH - 2)
    split(inner, p, /[ \t]+/); g_id = p[1]
    g_words = clean(substr(line, 1, RSTART - 1))
    return 1
  }
  function align(r, h,    nr, nh, R, H, i, j, d, sub_, del, ins, c) {
    nr = split(r, R, " "); nh = split(h, H, " ")
    for (i = 0; i <= nr; i++) d[i, 0] = i
    for (j = 0; j <= nh; j++) d[0, j] = j
    for (i = 1; i <= nr; i++)
      for (j = 1; j <= nh; j++) {
        c = d[i - 1, j - 1] + (R[i] == H[j] ? 0 : 1)
        if (d[i - 1, j] + 1 < c) c = d[i - 1, j] + 1
        if (d[i, j - 1] + 1 < c) c = d[i, j - 1] + 1
        d[i, j] = c
      }
    g_nref = nr
    return d[nr, nh]
  }
  BEGIN {
    while ((getline l < reffile) > 0) if (parse(l)) ref[tolower(g_id)] = g_words
    while ((getline l < hypfile) > 0) if (parse(l)) { hyp[tolower(g_id)] = g_words; seen[tolower(g_id)] = 1 }
    while ((getline id < ctl) > 0) {
      if (id == "") continue
      n = split(id, parts, "/"); key = tolower(parts[n])
      if (!(key in ref)) { printf "no reference transcript for %s\n", id > "/dev/stderr"; exit 3 }
      if (!(key in seen)) { printf "warning: no hypothesis for %s (counted as all deletions)\n", id > "/dev/stderr"; missing++ }
      e = align(ref[key], hyp[key])
      errs += e; words += g_nref; utts++
      if (e > 0) bad++
      if (verbose + 0) printf "%-28s err %2d/%2d  REF: %s\n%-28s              HYP: %s\n", id, e, g_nref, ref[key], "", hyp[key]
    }
    if (words == 0) { print "no reference words" > "/dev/stderr"; exit 3 }
    printf "utterances %d, with errors %d, without hypothesis %d\n", utts, bad, missing
    printf "WER %.2f (%d/%d)\n", 100 * errs / words, errs, words
  }' </dev/null || die "WER computation failed"
