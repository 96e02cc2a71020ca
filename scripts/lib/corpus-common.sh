# shellcheck shell=bash
# Shared helpers for scripts/prepare-corpus.sh and scripts/prepare-bench-corpus.sh.
# Sourced, not executed. Everything here must stay deterministic: no $RANDOM, no dates, no
# dependence on the order in which parallel jobs finish, LC_ALL=C for every sort.

export LC_ALL=C
export LANG=C

PC_LIB_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

PC_TESTDATA="${PSTRAIN_TESTDATA:-/usr/share/pocketsphinx/test/data}"
PC_AN4="${PSTRAIN_AN4_MODEL:-$PC_TESTDATA/an4_ci_cont}"
PC_CMUDICT="${PSTRAIN_CMUDICT:-/usr/share/pocketsphinx/model/en-us/cmudict-en-us.dict}"

# Front end of an4_ci_cont (its feat.params) plus the switches that keep sphinx_fe from dropping
# frames (this sphinx_fe removes noise and silence by default) and from adding random dither.
PC_FE_FLAGS=(-samprate 16000 -nfilt 40 -lowerf 133.3334 -upperf 6855.4976
             -remove_noise no -remove_silence no -dither no)

# Packages whose versions go into the stamp key: a new espeak-ng or sox changes the audio.
PC_STAMP_PACKAGES=(espeak-ng espeak-ng-data libespeak-ng1 sox libsox3 libsox-fmt-base
                   sphinxbase-utils libsphinxbase3 pocketsphinx-testdata pocketsphinx-en-us)

pc_die() {
  echo "$(basename "$0"): error: $*" >&2
  exit 1
}

pc_log() {
  echo "$(basename "$0"): $*" >&2
}

# pc_require_tools TOOL... : fail with the name of the first missing executable.
pc_require_tools() {
  local t
  for t in "$@"; do
    command -v "$t" >/dev/null 2>&1 ||
      pc_die "required tool '$t' not found in PATH (run scripts/bootstrap.sh)"
  done
}

# pc_require_files FILE... : fail with the name of the first missing file.
pc_require_files() {
  local f
  for f in "$@"; do
    [ -f "$f" ] || pc_die "required file '$f' not found (run scripts/bootstrap.sh)"
  done
}

# pc_stamp_key FILE... -- ARG... : sha256 over the given script files, the extra arguments and the
# versions of the packages that produce the data.
pc_stamp_key() {
  local files=() args=()
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do files+=("$1"); shift; done
  [ $# -gt 0 ] && shift
  args=("$@")
  {
    local f
    for f in "${files[@]}"; do
      echo "file $(basename "$f")"
      cat "$f"
    done
    echo "args ${args[*]}"
    dpkg-query -W -f='${Package} ${Version}\n' "${PC_STAMP_PACKAGES[@]}" 2>/dev/null ||
      echo "dpkg-query unavailable"
  } | sha256sum | cut -d' ' -f1
}

# pc_is_up_to_date OUTDIR KEY : true if OUTDIR holds a finished build with this key whose files
# still match their recorded checksums.
pc_is_up_to_date() {
  local out="$1" key="$2"
  [ -f "$out/.stamp" ] && [ -f "$out/SHA256SUMS" ] || return 1
  [ "$(cat "$out/.stamp")" = "$key" ] || return 1
  (cd "$out" && sha256sum --quiet --strict -c SHA256SUMS >/dev/null 2>&1)
}

# Every path a build writes into OUTDIR (besides .stamp and .lock).
PC_OUTPUTS=(wav feat train.fileids train.transcription heldout.fileids heldout.transcription
            corpus.dic corpus.filler decode.dic feat.params utterances.tsv corpus-info.txt
            SHA256SUMS)

# pc_install_build BUILDDIR OUTDIR KEY : replace the outputs in OUTDIR by those in BUILDDIR, then
# write the checksum list and, last, the stamp.
pc_install_build() {
  local build="$1" out="$2" key="$3" p
  rm -f "$out/.stamp"
  for p in "${PC_OUTPUTS[@]}"; do
    rm -rf "${out:?}/$p"
  done
  for p in "${PC_OUTPUTS[@]}"; do
    [ "$p" = SHA256SUMS ] && continue
    [ -e "$build/$p" ] || pc_die "internal: build did not produce $p"
    mv "$build/$p" "$out/$p"
  done
  (cd "$out" && find wav feat -type f | sort | xargs sha256sum >SHA256SUMS.tmp &&
     sha256sum train.fileids train.transcription heldout.fileids heldout.transcription \
       corpus.dic corpus.filler decode.dic feat.params utterances.tsv corpus-info.txt \
       >>SHA256SUMS.tmp &&
     mv SHA256SUMS.tmp SHA256SUMS)
  echo "$key" >"$out/.stamp"
}

# pc_write_filler_and_params BUILDDIR
pc_write_filler_and_params() {
  local b="$1"
  printf '<s> SIL\n</s> SIL\n<sil> SIL\n' >"$b/corpus.filler"
  # feat.params for models trained on this corpus: the front end above, and batch CMN (the name
  # bw and pocketsphinx both accept; an4's "current" is its old alias).
  printf '%s\n' "-nfilt 40" "-lowerf 133.3334" "-upperf 6855.4976" "-feat 1s_c_d_dd" \
    "-agc none" "-cmn batch" "-varnorm no" >"$b/feat.params"
}

# pc_make_noise FILE : 90 s of repeatable pink noise at 16 kHz, peak about -41 dBFS (RMS about
# -54 dBFS). `sox -R` seeds its generator with a fixed value, so the bytes never change.
pc_make_noise() {
  sox -R -D -n -r 16000 -b 16 -c 1 "$1" synth 90 pinknoise vol "${PC_NOISE_VOL:-0.01}" ||
    pc_die "sox failed to synthesize pink noise into $1"
}

# pc_synthesize BUILDDIR JOBFILE NPROC : run scripts/lib/synth-utt.sh over every job line
# ("uttid|voice|speed|pitch|noise_offset|text") writing BUILDDIR/wav/<uttid>.wav.
pc_synthesize() {
  local b="$1" jobs="$2" nproc="$3"
  mkdir -p "$b/wav" "$b/tmp"
  # Each job writes only its own files, so the result does not depend on scheduling.
  PC_NOISE="$b/tmp/noise.wav" PC_WAVDIR="$b/wav" PC_TMPDIR="$b/tmp" \
    xargs -d '\n' -n 1 -P "$nproc" bash "$PC_LIB_DIR/synth-utt.sh" <"$jobs" ||
    pc_die "speech synthesis failed (see messages above)"
}

# pc_features BUILDDIR NPART : sphinx_fe over all.fileids (wav/<id>.wav -> feat/<id>.mfc),
# split into NPART processes with sphinx_fe's own -part/-npart.
pc_features() {
  local b="$1" npart="$2" p pids=()
  mkdir -p "$b/feat"
  if [ "$npart" -le 1 ]; then
    sphinx_fe "${PC_FE_FLAGS[@]}" -c "$b/all.fileids" -di "$b/wav" -do "$b/feat" \
      -ei wav -eo mfc -mswav yes >"$b/tmp/sphinx_fe.log" 2>&1 ||
      pc_die "sphinx_fe failed, log: $b/tmp/sphinx_fe.log"
  else
    for p in $(seq 1 "$npart"); do
      sphinx_fe "${PC_FE_FLAGS[@]}" -c "$b/all.fileids" -di "$b/wav" -do "$b/feat" \
        -ei wav -eo mfc -mswav yes -part "$p" -npart "$npart" >"$b/tmp/sphinx_fe.$p.log" 2>&1 &
      pids+=($!)
    done
    for p in "${!pids[@]}"; do
      wait "${pids[$p]}" || pc_die "sphinx_fe part $((p + 1)) failed, log: $b/tmp/sphinx_fe.$((p + 1)).log"
    done
  fi
  local id
  while read -r id; do
    [ -s "$b/feat/$id.mfc" ] || pc_die "sphinx_fe did not write feat/$id.mfc"
  done <"$b/all.fileids"
}

# pc_make_dict BUILDDIR : corpus.dic (upper case, an4 phone set) and decode.dic (same, lower-case
# words) for every word of train.transcription and heldout.transcription. Pronunciations come from
# cmudict-en-us.dict: the base entry and all alternates, phones mapped to the an4_ci_cont set
# (DH->D, NG->N, SH->S, ZH->Z, UH->UW, OY->AO IY, stress digits stripped), pronunciations that
# become identical after mapping dropped, alternates renumbered (2), (3), ... in cmudict order.
pc_make_dict() {
  local b="$1"
  cat "$b/train.transcription" "$b/heldout.transcription" |
    sed -e 's/([^()]*)[[:space:]]*$//' | tr -s ' \t' '\n' |
    grep -v -e '^$' -e '^<s>$' -e '^</s>$' -e '^<sil>$' | sort -u >"$b/tmp/vocab.txt"
  awk '$1 == "-" { next } NF >= 10 && $2 == "-" && $3 == "-" && $4 == "-" { print $1 }' \
    "$PC_AN4/mdef" >"$b/tmp/phones.txt"
  [ -s "$b/tmp/phones.txt" ] || pc_die "could not read the phone list of $PC_AN4/mdef"
  awk -v phones="$b/tmp/phones.txt" -v vocab="$b/tmp/vocab.txt" -v out="$b/corpus.dic" '
    BEGIN {
      while ((getline l < phones) > 0) ok[l] = 1
      while ((getline l < vocab) > 0) { want[tolower(l)] = l; nwant++ }
      map["DH"] = "D"; map["NG"] = "N"; map["SH"] = "S"; map["ZH"] = "Z"
      map["UH"] = "UW"; map["OY"] = "AO IY"
    }
    /^;;;/ || NF < 2 { next }
    {
      head = $1; word = head; sub(/\([0-9]+\)$/, "", word)
      if (!(word in want)) next
      pron = ""
      for (i = 2; i <= NF; i++) {
        p = toupper($i); gsub(/[0-9]/, "", p)
        if (p in map) p = map[p]
        pron = pron (pron == "" ? "" : " ") p
      }
      n = split(pron, ph, " ")
      for (i = 1; i <= n; i++)
        if (!(ph[i] in ok)) { printf "phone %s of %s not in the an4 phone set\n", ph[i], head > "/dev/stderr"; bad = 1 }
      if ((word SUBSEP pron) in seen) next
      seen[word SUBSEP pron] = 1
      k = ++count[word]
      W = want[word]
      entry[W, k] = (k == 1 ? W : W "(" k ")") " " pron
    }
    END {
      for (w in want) if (!(w in count)) { printf "word %s not in cmudict\n", want[w] > "/dev/stderr"; bad = 1 }
      if (bad) exit 1
      for (w in want) { W = want[w]; for (k = 1; k <= count[w]; k++) print entry[W, k] > out }
    }' "$PC_CMUDICT" || pc_die "could not build corpus.dic from $PC_CMUDICT (messages above)"
  # Sort by headword, keeping WORD before WORD(2) before WORD(3) ...
  awk '{ h = $1; n = 1; if (match(h, /\([0-9]+\)$/)) { n = substr(h, RSTART + 1, RLENGTH - 2); h = substr(h, 1, RSTART - 1) }
         printf "%s\t%06d\t%s\n", h, n, $0 }' "$b/corpus.dic" | sort -t "$(printf '\t')" -k1,1 -k2,2n |
    cut -f3- >"$b/tmp/dic.sorted"
  mv "$b/tmp/dic.sorted" "$b/corpus.dic"
  awk '{ $1 = tolower($1); print }' "$b/corpus.dic" >"$b/decode.dic"
}

# pc_write_info BUILDDIR TITLE : utterances.tsv gets a frames column; corpus-info.txt gets counts.
# utterances.tsv columns: uttid set source voice speed pitch frames text
pc_write_info() {
  local b="$1" title="$2"
  local id set src voice speed pitch text frames size
  : >"$b/tmp/utts.with-frames"
  while IFS=$'\t' read -r id set src voice speed pitch text; do
    size=$(stat -c %s "$b/feat/$id.mfc")
    frames=$(( (size - 4) / 52 ))
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$id" "$set" "$src" "$voice" "$speed" "$pitch" \
      "$frames" "$text" >>"$b/tmp/utts.with-frames"
  done <"$b/tmp/utts.meta"
  {
    printf 'uttid\tset\tsource\tvoice\tspeed\tpitch\tframes\ttext\n'
    cat "$b/tmp/utts.with-frames"
  } >"$b/utterances.tsv"
  {
    echo "# $title"
    awk -F '\t' '
      { n[$2]++; f[$2] += $7; w[$2] += split($8, t, " ") }
      END {
        printf "utterances %d frames %d\n", n["train"] + n["heldout"], f["train"] + f["heldout"]
        printf "train utterances %d frames %d words %d\n", n["train"], f["train"], w["train"]
        printf "heldout utterances %d frames %d words %d\n", n["heldout"], f["heldout"], w["heldout"]
      }' "$b/tmp/utts.with-frames"
    awk -F '\t' '{ c[$2 " source " $3]++; fr[$2 " source " $3] += $7 }
                 END { for (k in c) printf "%s utterances %d frames %d\n", k, c[k], fr[k] }' \
      "$b/tmp/utts.with-frames" | sort
    awk -F '\t' '{ c[$2 " voice " $4]++ } END { for (k in c) printf "%s utterances %d\n", k, c[k] }' \
      "$b/tmp/utts.with-frames" | sort
  } >"$b/corpus-info.txt"
  printf 'vocabulary %d words, %d dictionary entries\n' "$(grep -c -v '(' "$b/corpus.dic")" \
    "$(wc -l <"$b/corpus.dic")" >>"$b/corpus-info.txt"
}

# pc_write_sets BUILDDIR : from tmp/utts.meta (uttid set source voice speed pitch text, text in
# lower case) write {train,heldout}.{fileids,transcription} in meta order.
pc_write_sets() {
  local b="$1" s
  for s in train heldout; do
    awk -F '\t' -v s="$s" '$2 == s { print $1 }' "$b/tmp/utts.meta" >"$b/$s.fileids"
    awk -F '\t' -v s="$s" '$2 == s { t = toupper($7); gsub(/[ \t]+/, " ", t); sub(/^ /, "", t); sub(/ $/, "", t)
                                      printf "<s> %s </s> (%s)\n", t, $1 }' "$b/tmp/utts.meta" >"$b/$s.transcription"
    [ -s "$b/$s.fileids" ] || pc_die "internal: empty $s set"
  done
  awk -F '\t' '{ print $1 }' "$b/tmp/utts.meta" >"$b/all.fileids"
  [ "$(sort "$b/all.fileids" | uniq -d | wc -l)" -eq 0 ] || pc_die "internal: duplicate utterance ids"
}
