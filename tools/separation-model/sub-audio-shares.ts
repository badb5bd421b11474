/**
 * How much of each GM program's sound lies below LOWEST_STEM_HZ (src/modules/stems-shared/network.ts), the
 * band stems-4's network leaves to other: a DC offset in a sample, which the note's envelope turns into a slow
 * swell. For FluidR3 (the test corpus' soundfont) and the training soundfonts, held notes of each program
 * (MIDI 40, 52, 64 and 76, 2 s each), the share of their energy in the STFT bins the network ignores.
 * Usage: node tools/separation-model/sub-audio-shares.ts [programs…, default the corpus generator's]
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { stft } from "../../src/dsp/spectrogram.ts";
import { LOWEST_STEM_HZ } from "../../src/modules/stems-shared/network.ts";
import { midiFile } from "../../test/corpus/midi.ts";
import { renderMidi, SAMPLE_RATE, SOUNDFONT } from "../../test/corpus/render.ts";
import { PROGRAMS } from "../../test/corpus/song.ts";
import { TRAINING_SOUNDFONTS } from "./training-soundfonts.ts";

const programs = process.argv.length > 2 ? process.argv.slice(2).map(Number) : Object.values(PROGRAMS).flat();
const FFT_SIZE = 4096;
const ignored = Math.ceil((LOWEST_STEM_HZ * FFT_SIZE) / SAMPLE_RATE);
const soundfonts = [{ name: "fluidr3", file: SOUNDFONT }, ...TRAINING_SOUNDFONTS];

/** Share (%) of the channels' energy in the lowest `ignored` bins of a 4096-point STFT. */
function subAudioShare(channels: Float32Array[]): number {
  let low = 0;
  let total = 0;
  for (const channel of channels) {
    const spec = stft(channel, FFT_SIZE, FFT_SIZE / 4);
    for (let cell = 0; cell < spec.re.length; cell++) {
      const e = (spec.re[cell] as number) ** 2 + (spec.im[cell] as number) ** 2;
      total += e;
      if (cell % spec.bins < ignored) low += e;
    }
  }
  return total > 0 ? (100 * low) / total : 0;
}

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "sub-audio-"));
try {
  console.log(`share of held notes' energy below ${LOWEST_STEM_HZ} Hz (STFT bins 0-${ignored - 1} of ${FFT_SIZE})`);
  console.log(`${"program".padEnd(8)}${soundfonts.map((s) => s.name.padStart(10)).join("")}`);
  for (const program of programs) {
    const notes = [40, 52, 64, 76].map((midi, i) => ({ midi, time: 2.5 * i, duration: 2, velocity: 0.8 }));
    const part = { name: "pad" as const, program, channel: 0, volume: 100, pan: 64, notes };
    const shares: string[] = [];
    for (const soundfont of soundfonts) {
      const channels = await renderMidi(midiFile([part]), path.join(scratch, "notes"), soundfont.file);
      shares.push(`${subAudioShare(channels).toFixed(1)} %`.padStart(10));
    }
    console.log(`${`GM ${program}`.padEnd(8)}${shares.join("")}`);
  }
} finally {
  fs.rmSync(scratch, { recursive: true, force: true });
}
