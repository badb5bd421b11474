#!/usr/bin/env bash
# Speech by five Festival voices (Debian festvox-us-slt-hts, festvox-kallpc16k, festvox-ca-ona-hts,
# festvox-italp16k, festvox-itapc16k) and two Flite voices (Debian flite: awb, a Scottish man, and rms, an
# American man) reading the GPL, pitch-shifted by sox, as 44.1 kHz stereo WAVs: real voices' formants for the
# network's vocal stem (train.py mixes them in), none of them espeak-ng, which the tests use.
# Usage: tools/separation-model/render-voices.sh <out dir> [paragraphs per voice, default 8]
set -euo pipefail
out=${1:?usage: render-voices.sh <out dir> [paragraphs per voice]}
count=${2:-8}
mkdir -p "$out"
text=$(mktemp -d)
trap 'rm -rf "$text"' EXIT
# Paragraphs of the GPL of at least 400 characters.
awk -v RS= -v dir="$text" 'length($0) > 400 { n++; print > (dir "/" n ".txt") }' /usr/share/common-licenses/GPL-3
voices=(cmu_us_slt_arctic_hts kal_diphone upc_ca_ona_hts lp_diphone pc_diphone flite_awb flite_rms)
shifts=(-500 -250 0 250 500 -150 150 350)
render() {
  local voice=$1 i=$2
  local paragraph=$(( (i * 7 + ${#voice}) % $(ls "$text" | wc -l) + 1 ))
  local target="$out/$voice-$i.wav"
  [[ -f $target ]] && return
  if [[ $voice == flite_* ]]; then
    flite -voice "${voice#flite_}" -f "$text/$paragraph.txt" -o "$target.raw.wav"
  else
    text2wave -eval "(voice_$voice)" "$text/$paragraph.txt" -o "$target.raw.wav" 2>/dev/null
  fi
  sox "$target.raw.wav" -r 44100 -c 2 -b 16 "$target.tmp.wav" gain -6 pitch "${shifts[$((i % ${#shifts[@]}))]}" norm -3
  mv "$target.tmp.wav" "$target"
  rm -f "$target.raw.wav"
}
for voice in "${voices[@]}"; do
  for ((i = 1; i <= count; i++)); do
    render "$voice" "$i" &
    (( i % 2 == 0 )) && wait
  done
  wait
done
