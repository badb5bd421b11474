/**
 * How much vibrato each soundfont puts on a held note, and how much the mod wheel (CC 1) adds: the corpus'
 * FluidR3 against the training soundfonts (render-training.ts's focus `vibrato-lead`). Each program plays one
 * A4 (440 Hz) for 4 s at each mod wheel value; the pitch is tracked from 1 s to 3.5 s (past the attack and
 * the LFO's delay, before the release) and its standard deviation printed in cents. Rendered dry: FluidSynth's
 * chorus and reverb, which the corpus has, beat against the note and would read as pitch movement of their own.
 * Pitch per frame: a 2,048-sample Hann frame (46 ms: a 5–6 Hz vibrato keeps about 95 % of its depth) every
 * 256 samples, its DFT magnitude evaluated on a 1 Hz grid over ±40 Hz of 440 and the peak refined by a
 * parabola through the log magnitudes of the three grid points around it.
 * Usage: node tools/separation-model/vibrato-depth.ts [GM program (0-based) ...]   (default 80 52: square lead,
 * choir aahs)
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { hann } from "../../src/dsp/stft.ts";
import { midiFile } from "../../test/corpus/midi.ts";
import { renderMidi, SAMPLE_RATE, SOUNDFONT } from "../../test/corpus/render.ts";
import { TRAINING_SOUNDFONTS } from "./training-soundfonts.ts";

const NOTE = { midi: 69, hz: 440, seconds: 4 };
const SPAN = { from: 1, to: 3.5 };
const MOD_WHEEL = [0, 45, 80];
const FRAME = 2048;
const HOP = 256;
const SEARCH_HZ = 40;

const programs = process.argv.slice(2).map(Number);
if (programs.some((p) => !Number.isInteger(p) || p < 0 || p > 127)) {
  throw new Error("usage: vibrato-depth.ts [GM program 0..127 ...]");
}
const soundfonts = [{ name: "fluidr3 (corpus)", file: SOUNDFONT }, ...TRAINING_SOUNDFONTS];

/** |DFT| of a windowed frame at frequency hz. */
function magnitudeAt(frame: Float64Array, hz: number): number {
  const step = (2 * Math.PI * hz) / SAMPLE_RATE;
  let re = 0;
  let im = 0;
  for (let n = 0; n < frame.length; n++) {
    re += (frame[n] as number) * Math.cos(step * n);
    im -= (frame[n] as number) * Math.sin(step * n);
  }
  return Math.hypot(re, im);
}

interface PitchFrame {
  hz: number;
  /** The peak's magnitude. */
  weight: number;
}

/** The frequency of the strongest component within SEARCH_HZ of the note, per frame over SPAN. */
function pitchTrack(signal: Float32Array): PitchFrame[] {
  const window = hann(FRAME);
  const frame = new Float64Array(FRAME);
  const track: PitchFrame[] = [];
  const last = Math.round(SPAN.to * SAMPLE_RATE) - FRAME;
  for (let start = Math.round(SPAN.from * SAMPLE_RATE); start <= last; start += HOP) {
    for (let n = 0; n < FRAME; n++) frame[n] = (signal[start + n] as number) * (window[n] as number);
    const grid = Array.from({ length: 2 * SEARCH_HZ + 1 }, (_, k) => NOTE.hz - SEARCH_HZ + k);
    const logs = grid.map((hz) => Math.log(magnitudeAt(frame, hz) + 1e-12));
    let best = 1;
    for (let k = 2; k < grid.length - 1; k++) if ((logs[k] as number) > (logs[best] as number)) best = k;
    const [a, b, c] = [logs[best - 1], logs[best], logs[best + 1]] as [number, number, number];
    const curvature = a - 2 * b + c;
    const offset = curvature < 0 ? (0.5 * (a - c)) / curvature : 0;
    track.push({ hz: (grid[best] as number) + offset, weight: Math.exp(b) });
  }
  return track;
}

/** The standard deviation of the pitch in cents, each frame weighted by its peak's magnitude. */
function centsDeviation(track: PitchFrame[]): number {
  const total = track.reduce((s, f) => s + f.weight, 0);
  const cents = track.map((f) => 1200 * Math.log2(f.hz / NOTE.hz));
  const mean = cents.reduce((s, v, i) => s + v * (track[i] as PitchFrame).weight, 0) / total;
  return Math.sqrt(cents.reduce((s, v, i) => s + (v - mean) ** 2 * (track[i] as PitchFrame).weight, 0) / total);
}

/**
 * The strongest periodic movement of the pitch at a vibrato's rates (3–12 Hz, 0.1 Hz steps): its rate and its
 * depth (the sinusoid's amplitude, in cents). A sample looped from two detuned oscillators beats, and its pitch
 * jumps where the beat's amplitude dips; that adds to the standard deviation but not here.
 */
function vibrato(track: PitchFrame[]): { hz: number; cents: number } {
  const cents = track.map((f) => 1200 * Math.log2(f.hz / NOTE.hz));
  const mean = cents.reduce((s, v) => s + v, 0) / cents.length;
  const frameRate = SAMPLE_RATE / HOP;
  let best = { hz: 0, cents: 0 };
  for (let rate = 3; rate <= 12; rate += 0.1) {
    let re = 0;
    let im = 0;
    cents.forEach((v, n) => {
      re += (v - mean) * Math.cos((2 * Math.PI * rate * n) / frameRate);
      im -= (v - mean) * Math.sin((2 * Math.PI * rate * n) / frameRate);
    });
    const amplitude = (2 * Math.hypot(re, im)) / cents.length;
    if (amplitude > best.cents) best = { hz: rate, cents: amplitude };
  }
  return best;
}

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "vibrato-depth-"));
try {
  console.log(
    `held A4, ${SPAN.from}-${SPAN.to} s, mod wheel ${MOD_WHEEL.join(" / ")}: pitch standard deviation in cents (vibrato depth at its rate)`,
  );
  for (const program of programs.length > 0 ? programs : [80, 52]) {
    console.log(`GM program ${program}`);
    for (const soundfont of soundfonts) {
      const depths: string[] = [];
      for (const modulation of MOD_WHEEL) {
        const note = { midi: NOTE.midi, time: 0, duration: NOTE.seconds, velocity: 0.8 };
        const part = { name: "lead" as const, program, channel: 0, volume: 100, pan: 64, modulation, notes: [note] };
        const dry = ["synth.chorus.active=0", "synth.reverb.active=0"];
        const [left, right] = await renderMidi(midiFile([part]), path.join(scratch, "note"), soundfont.file, dry);
        const mono = Float32Array.from(left as Float32Array, (v, i) => (v + ((right as Float32Array)[i] as number)) / 2);
        const track = pitchTrack(mono);
        const { hz, cents } = vibrato(track);
        depths.push(`${centsDeviation(track).toFixed(1)} (${cents.toFixed(1)} at ${hz.toFixed(1)} Hz)`);
      }
      console.log(`  ${soundfont.name.padEnd(17)} ${depths.join(" / ")}`);
    }
  }
} finally {
  fs.rmSync(scratch, { recursive: true, force: true });
}
