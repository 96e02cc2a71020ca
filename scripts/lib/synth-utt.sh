#!/usr/bin/env bash
# Worker for pc_synthesize (scripts/lib/corpus-common.sh): synthesizes ONE utterance.
# Argument: "uttid|voice|speed|pitch|noise_offset_samples|text"
# Environment: PC_NOISE (16 kHz pink noise wav), PC_WAVDIR (output dir), PC_TMPDIR (scratch dir).
# Output: $PC_WAVDIR/<uttid>.wav, 16 kHz mono 16-bit: the espeak-ng speech peak-normalized to
# -3 dBFS, padded with 0.3 s before and 0.4 s after, plus the noise segment starting at
# noise_offset. espeak-ng writes exact digital zeros between words and in the padding; the noise
# keeps the log energy of silence finite and realistic.
set -euo pipefail
export LC_ALL=C

job="${1:?usage: synth-utt.sh 'uttid|voice|speed|pitch|noise_offset|text'}"
: "${PC_NOISE:?PC_NOISE not set}" "${PC_WAVDIR:?PC_WAVDIR not set}" "${PC_TMPDIR:?PC_TMPDIR not set}"
IFS='|' read -r uttid voice speed pitch noff text <<<"$job"
[ -n "$uttid" ] && [ -n "$text" ] || { echo "synth-utt.sh: malformed job '$job'" >&2; exit 1; }

raw="$PC_TMPDIR/$uttid.espeak.wav"
speech="$PC_TMPDIR/$uttid.speech.wav"
noise="$PC_TMPDIR/$uttid.noise.wav"
out="$PC_WAVDIR/$uttid.wav"

espeak-ng -v "$voice" -s "$speed" -p "$pitch" -w "$raw" -- "$text" ||
  { echo "synth-utt.sh: espeak-ng failed for $uttid (voice $voice)" >&2; exit 1; }
# -D: no dither, so the result is a pure function of the input samples.
sox -D "$raw" -r 16000 -b 16 -c 1 "$speech" gain -n -3 pad 0.3 0.4 rate -h 16000 ||
  { echo "synth-utt.sh: sox failed to resample $uttid" >&2; exit 1; }
n=$(soxi -s "$speech")
sox -D "$PC_NOISE" "$noise" trim "${noff}s" "${n}s" ||
  { echo "synth-utt.sh: sox failed to cut noise for $uttid" >&2; exit 1; }
[ "$(soxi -s "$noise")" = "$n" ] ||
  { echo "synth-utt.sh: noise segment for $uttid too short (offset $noff, $n samples)" >&2; exit 1; }
sox -D -m -v 1 "$speech" -v 1 "$noise" -b 16 "$out" ||
  { echo "synth-utt.sh: sox failed to mix noise into $uttid" >&2; exit 1; }
rm -f "$raw" "$speech" "$noise"
