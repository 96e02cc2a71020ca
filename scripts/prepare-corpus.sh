#!/usr/bin/env bash
# Builds pstrain's bundled default corpus into OUTDIR (see docs/corpus.md).
#
#   scripts/prepare-corpus.sh OUTDIR
#
# Output (all deterministic, byte-identical on every run with the same Debian packages):
#   wav/<uttid>.wav        16 kHz mono 16-bit inputs
#   feat/<uttid>.mfc       sphinx_fe cepstra (an4_ci_cont front end, no VAD, no dither)
#   train.fileids / train.transcription       SphinxTrain control file and transcripts
#   heldout.fileids / heldout.transcription   held-out set (texts never seen in training)
#   corpus.dic / corpus.filler                upper-case dictionary in the an4_ci_cont phone set
#   decode.dic                                same dictionary with lower-case words (pocketsphinx
#                                             with the en-us LM, see scripts/decode-wer.sh)
#   feat.params                               front end + feature settings for trained models
#   utterances.tsv / corpus-info.txt          per-utterance metadata, counts and frames
#   SHA256SUMS, .stamp                        checksums; key of the finished build
# Re-running with an up-to-date OUTDIR does nothing. Concurrent runs on one OUTDIR serialize.
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source-path=SCRIPTDIR source=lib/corpus-common.sh
source "$SCRIPT_DIR/lib/corpus-common.sh"

if [ $# -ne 1 ] || [ -z "$1" ]; then
  echo "usage: $(basename "$0") OUTDIR" >&2
  exit 2
fi
OUTDIR="$1"

pc_require_tools espeak-ng sox soxi sphinx_fe awk sha256sum flock xargs stat
pc_require_files "$PC_CMUDICT" "$PC_AN4/mdef" \
  "$PC_TESTDATA/cards/cards.transcription" "$PC_TESTDATA/librivox/transcription" \
  "$PC_TESTDATA/goforward.raw" "$PC_TESTDATA/something.raw" "$PC_TESTDATA/tidigits/dhd.2934z.raw"

NPROC=2

# ---------------------------------------------------------------------------------------------
# Synthetic part. Voices: id|espeak-ng voice|base speed (wpm)|pitch (0-99).
# v1-v4 speak the training sentences (each sentence by two of them); the held-out sentences are
# spoken once by one of v1-v4 (known voice, new text) and once by v5 (new voice, new text).
VOICES='v1|en-us+m1|150|45
v2|en-us+f2|165|60
v3|en-gb+m3|140|40
v4|en-gb-x-rp+f4|170|65
v5|en-us+m7|155|50'

# T = training sentence, H = held-out sentence. Every word must be in cmudict-en-us.dict (checked)
# and in the en-us LM (so that held-out words are decodable with it).
SENTENCES='T|please turn off the light in the kitchen
T|the train leaves the station at seven
T|my brother likes to read old books
T|we will meet again next monday morning
T|she bought a red coat and a blue hat
T|the weather is cold and wet today
T|open the window and let the fresh air in
T|he walked slowly down the long road
T|can you tell me the time please
T|the children played in the park after school
T|put the green box on the top shelf
T|i would like a cup of hot tea
T|the dog ran across the field
T|turn left at the next corner
T|this is the best song i have ever heard
T|the price of bread went up again
T|send me a letter when you get home
T|the river flows past the old mill
T|we need more paper for the printer
T|call the doctor if the fever gets worse
T|the meeting starts at nine thirty
T|they sold their house last summer
T|go forward five meters and stop
T|the cat is sleeping under the table
T|keep your hands off the wet paint
T|my phone number has seven digits
T|water boils at one hundred degrees
T|the plane landed safely in the rain
T|she sings a song every evening
T|bring two chairs from the other room
T|the small boat sailed across the lake
T|he forgot his keys at the office
T|the shop closes early on sunday
T|we watched a movie about the moon
T|clean the floor before the guests arrive
T|four people live in this apartment
T|the garden is full of yellow flowers
T|write your name at the top of the page
T|the bus was late again this morning
T|jump over the fence and run home
H|the teacher opened the door slowly
H|please bring me a glass of cold water
H|the car stopped at the red light
H|we walked to the park on saturday
H|my sister reads a book every night
H|turn right after the old bridge
H|the farmer sold six green apples
H|he left his coat in the kitchen
H|the birds sing early in the morning
H|call me when the train arrives'

KEY="$(pc_stamp_key "$0" "$PC_LIB_DIR/corpus-common.sh" "$PC_LIB_DIR/synth-utt.sh" -- default-corpus)"

mkdir -p "$OUTDIR" || pc_die "cannot create $OUTDIR"
OUTDIR="$(cd "$OUTDIR" && pwd)"
exec 9>"$OUTDIR/.lock"
flock 9 || pc_die "cannot lock $OUTDIR/.lock"
if pc_is_up_to_date "$OUTDIR" "$KEY"; then
  pc_log "$OUTDIR is up to date"
  exit 0
fi

pc_log "building the default corpus in $OUTDIR"
B="$OUTDIR/.build"
rm -rf "$B"
mkdir -p "$B/wav" "$B/tmp"
trap 'rm -rf "$B"' EXIT

# ---------------------------------------------------------------------------------------------
# Real recordings with known transcripts (all 16 kHz 16-bit mono; the .raw files are headerless
# little-endian PCM, verified by decoding them at 16 kHz and at 8 kHz).
META="$B/tmp/utts.meta"   # uttid set source voice speed pitch text(lower case), tab-separated
: >"$META"

add_real_wav() { # uttid source file text
  local id="$1" src="$2" f="$3" text="$4"
  pc_require_files "$f"
  [ "$(soxi -r "$f")" = 16000 ] && [ "$(soxi -c "$f")" = 1 ] && [ "$(soxi -b "$f")" = 16 ] ||
    pc_die "$f is not 16 kHz mono 16-bit"
  cp "$f" "$B/wav/$id.wav"
  printf '%s\ttrain\t%s\t-\t-\t-\t%s\n' "$id" "$src" "$text" >>"$META"
}
add_real_raw() { # uttid source file text
  local id="$1" src="$2" f="$3" text="$4"
  pc_require_files "$f"
  sox -D -t raw -r 16000 -e signed-integer -b 16 -c 1 -L "$f" "$B/wav/$id.wav" ||
    pc_die "sox could not convert $f"
  printf '%s\ttrain\t%s\t-\t-\t-\t%s\n' "$id" "$src" "$text" >>"$META"
}
# transcript line "<s> words </s> (id)" -> "words"
transcript_of() { # file id
  awk -v id="$2" '{ line = $0; if (!match(line, /\([^()]*\)[[:space:]]*$/)) next
                    u = substr(line, RSTART + 1, RLENGTH - 1); sub(/\)[[:space:]]*$/, "", u)
                    if (u != id) next
                    t = substr(line, 1, RSTART - 1); gsub(/<\/?s>/, " ", t); gsub(/[[:space:]]+/, " ", t)
                    sub(/^ /, "", t); sub(/ $/, "", t); print tolower(t); found = 1; exit }
                  END { if (!found) exit 1 }' "$1" || pc_die "no transcript for $2 in $1"
}

for n in 001 002 003 004 005; do
  text="$(transcript_of "$PC_TESTDATA/cards/cards.transcription" "$n")"
  add_real_wav "cards_$n" cards "$PC_TESTDATA/cards/$n.wav" "$text"
done
for n in 0870 0880 0890 0920 0930; do
  id="sense_and_sensibility_01_austen_64kb-$n"
  text="$(transcript_of "$PC_TESTDATA/librivox/transcription" "$id")"
  add_real_wav "librivox_$n" librivox "$PC_TESTDATA/librivox/$id.wav" "$text"
done
add_real_raw goforward goforward "$PC_TESTDATA/goforward.raw" "go forward ten meters"
add_real_raw something something "$PC_TESTDATA/something.raw" "go somewhere and do something"
add_real_raw tidigits_2934z tidigits "$PC_TESTDATA/tidigits/dhd.2934z.raw" "two nine three four zero"

# ---------------------------------------------------------------------------------------------
# Synthetic utterances: job list for scripts/lib/synth-utt.sh.
pc_make_noise "$B/tmp/noise.wav"
JOBS="$B/tmp/jobs.txt"
: >"$JOBS"
echo "$VOICES" >"$B/tmp/voices.txt"
echo "$SENTENCES" | awk -F '|' -v voices="$B/tmp/voices.txt" -v jobs="$JOBS" -v meta="$META" '
  BEGIN {
    while ((getline l < voices) > 0) { split(l, v, "|"); nv++; vid[nv] = v[1]; vname[nv] = v[2]; vspeed[nv] = v[3]; vpitch[nv] = v[4] }
    idx = 0
  }
  function utt(set, tag, s, k, text,    id, speed, off) {
    idx++
    id = sprintf("syn_%s%02d_%s", tag, s, vid[k])
    speed = vspeed[k] + (idx * 7) % 21 - 10           # +-10 wpm, fixed per utterance
    off = (idx * 104729) % (80 * 16000)               # start of this utterance in the noise file
    printf "%s|%s|%d|%d|%d|%s\n", id, vname[k], speed, vpitch[k], off, text > jobs
    printf "%s\t%s\tespeak\t%s\t%d\t%d\t%s\n", id, set, vname[k], speed, vpitch[k], text >> meta
  }
  $1 == "T" { t++; utt("train", "s", t, (t - 1) % 4 + 1, $2); utt("train", "s", t, t % 4 + 1, $2) }
  $1 == "H" { h++; utt("heldout", "h", h, (h - 1) % 4 + 1, $2); utt("heldout", "h", h, 5, $2) }
'
pc_synthesize "$B" "$JOBS" "$NPROC"

# ---------------------------------------------------------------------------------------------
pc_write_sets "$B"
pc_features "$B" "$NPROC"
pc_make_dict "$B"
pc_write_filler_and_params "$B"
pc_write_info "$B" "pstrain default corpus (scripts/prepare-corpus.sh)"

pc_install_build "$B" "$OUTDIR" "$KEY"
rm -rf "$B"
trap - EXIT
pc_log "done: $(head -2 "$OUTDIR/corpus-info.txt" | tail -1)"
cat "$OUTDIR/corpus-info.txt" >&2
