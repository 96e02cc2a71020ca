#!/usr/bin/env bash
# Builds a larger deterministic synthetic corpus for benchmarks (see docs/corpus.md).
#
#   scripts/prepare-bench-corpus.sh OUTDIR [N]        (N = training utterances, default 400)
#
# Sentences of 4-10 words drawn from a fixed list of common English words with a seeded
# Park-Miller generator in awk (exact integer arithmetic in doubles, so mawk and gawk agree),
# spoken by six espeak-ng voices, with the same pink-noise / 16 kHz / sphinx_fe pipeline and the
# same file layout as scripts/prepare-corpus.sh: N training utterances plus N/10 (at least 1)
# held-out utterances with other random sentences. Synthesis and sphinx_fe use both cores.
# Deterministic for a given N; re-running on an up-to-date OUTDIR does nothing.
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source-path=SCRIPTDIR source=lib/corpus-common.sh
source "$SCRIPT_DIR/lib/corpus-common.sh"

if [ $# -lt 1 ] || [ $# -gt 2 ] || [ -z "$1" ]; then
  echo "usage: $(basename "$0") OUTDIR [N]" >&2
  exit 2
fi
OUTDIR="$1"
N="${2:-400}"
[[ "$N" =~ ^[1-9][0-9]*$ ]] || pc_die "N must be a positive integer, got '$N'"
NHELD=$(( N / 10 > 0 ? N / 10 : 1 ))
SEED=20240601
NPROC=2

pc_require_tools espeak-ng sox soxi sphinx_fe awk sha256sum flock xargs stat
pc_require_files "$PC_CMUDICT" "$PC_AN4/mdef"

# id|espeak-ng voice|base speed (wpm)|base pitch (0-99); utterance i uses voice (i-1) mod 6 + 1.
VOICES='v1|en-us+m1|150|45
v2|en-us+f2|165|60
v3|en-gb+m3|140|40
v4|en-gb-x-rp+f4|170|65
v5|en-us+m7|155|50
v6|en-gb-scotland+f3|160|55'

# All in cmudict-en-us.dict and in the en-us LM.
WORDS='about above across act add after again against age ago air all almost along also always am
among and animal answer any apple area arm around art ask at away baby back bad bag ball bank
bed before begin behind believe best better between big bird black blue board boat body book
both box boy bread break bring brother brown build bus busy but buy by call came can car card
care carry case cat catch cause center chair change child city class clean clear close coat
cold color come common cook cool corner could country course cover cross cup cut dark day deep
dinner do doctor dog door down draw dream dress drink drive dry during each early earth east
eat egg eight end enough even evening ever every eye face fact fall family far farm fast father
feel few field fight fill find fine fire first fish five floor flower fly follow food foot for
forest form four free fresh friend from front fruit full game garden gate girl give glass go
gold good great green ground group grow half hand happy hard hat have he head hear heart heavy
help her here high hill his hold home horse hot hour house how hundred idea if in inside iron
island it job just keep key kind kitchen know lake land large last late laugh lead learn leave
left leg letter life light like line list little live long look low machine make man many map
mark market may meet middle might mile milk mind minute miss money month moon more morning
mother mountain move music name near need never new next nice night nine north note now number
ocean of off office often old on once one only open or order other our out over page paint
paper park part party pass past pay people picture piece place plan plane plant play please
point poor power press pretty price print problem pull put question quick quiet rain read ready
real red remember rest rich ride right river road rock room round run salt same say school sea
second see sell send seven shape she ship shop short show side simple sing sister sit six size
sky sleep slow small smile snow soft some son song soon sound south speak spring square stand
star start station stay step still stone stop store story street strong study summer sun table
take talk tall tea teach teacher team tell ten test than that the their then there they thing
think this three through time today together top town train travel tree true try turn two under
until up use valley very visit voice wait walk wall want warm wash watch water way we weather
week well west what wheel when where which white who why wide will wind window winter with
woman wood word work world write year yellow yes you young'

KEY="$(pc_stamp_key "${BASH_SOURCE[0]}" "$PC_LIB_DIR/corpus-common.sh" "$PC_LIB_DIR/synth-utt.sh" -- bench "$N" "$SEED")"

mkdir -p "$OUTDIR" || pc_die "cannot create $OUTDIR"
OUTDIR="$(cd "$OUTDIR" && pwd)"
exec 9>"$OUTDIR/.lock"
flock 9 || pc_die "cannot lock $OUTDIR/.lock"
if pc_is_up_to_date "$OUTDIR" "$KEY"; then
  pc_log "$OUTDIR is up to date"
  exit 0
fi

pc_log "building the benchmark corpus ($N + $NHELD utterances) in $OUTDIR"
B="$OUTDIR/.build"
rm -rf "$B"
mkdir -p "$B/wav" "$B/tmp"
trap 'rm -rf "$B"' EXIT

META="$B/tmp/utts.meta"   # uttid set source voice speed pitch text, tab-separated
JOBS="$B/tmp/jobs.txt"
echo "$VOICES" >"$B/tmp/voices.txt"
echo "$WORDS" | tr -s ' ' '\n' | grep -v '^$' >"$B/tmp/words.txt"
awk -v n="$N" -v nheld="$NHELD" -v seed="$SEED" -v voices="$B/tmp/voices.txt" \
    -v jobs="$JOBS" -v meta="$META" '
  # Park-Miller minimal standard generator: 16807 * x < 2^46, exact in double precision.
  function rnd() { state = (16807 * state) % 2147483647; return state }
  BEGIN {
    while ((getline l < voices) > 0) { split(l, v, "|"); nv++; vid[nv] = v[1]; vname[nv] = v[2]; vspeed[nv] = v[3]; vpitch[nv] = v[4] }
    state = seed % 2147483647; if (state <= 0) state = 1
    for (i = 0; i < 10; i++) rnd()
  }
  { words[++nw] = $1 }
  END {
    printf "" > jobs; printf "" > meta
    for (i = 1; i <= n + nheld; i++) {
      set = (i <= n) ? "train" : "heldout"
      k = (i - 1) % nv + 1
      len = 4 + rnd() % 7
      text = ""
      for (j = 1; j <= len; j++) text = text (j > 1 ? " " : "") words[1 + rnd() % nw]
      speed = vspeed[k] + rnd() % 21 - 10
      pitch = vpitch[k] + rnd() % 11 - 5
      off = rnd() % (80 * 16000)
      id = sprintf("%s_%04d_%s", set, (i <= n) ? i : i - n, vid[k])
      printf "%s|%s|%d|%d|%d|%s\n", id, vname[k], speed, pitch, off, text >> jobs
      printf "%s\t%s\tespeak\t%s\t%d\t%d\t%s\n", id, set, vname[k], speed, pitch, text >> meta
    }
  }' "$B/tmp/words.txt"

pc_make_noise "$B/tmp/noise.wav"
pc_synthesize "$B" "$JOBS" "$NPROC"
pc_write_sets "$B"
pc_features "$B" "$NPROC"
pc_make_dict "$B"
pc_write_filler_and_params "$B"
pc_write_info "$B" "pstrain benchmark corpus (scripts/prepare-bench-corpus.sh, N=$N, seed $SEED)"

pc_install_build "$B" "$OUTDIR" "$KEY"
rm -rf "$B"
trap - EXIT
pc_log "done"
cat "$OUTDIR/corpus-info.txt" >&2
