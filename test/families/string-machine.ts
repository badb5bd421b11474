/**
 * A string machine, written here for the analysis' development plan (tracks.ts): a synthesised pad made another way
 * than synth.ts' (the held-out `synth-pad`: detuned band-limited saws through a resonant filter with an envelope).
 * As a divide-down organ's, each note is a square wave at 8' with another at 4' (a wavetable of their odd harmonics
 * up to 7 kHz), with a slow attack and release; the notes summed run through a three-voice ensemble chorus (delay
 * lines swept by a slow and a fast LFO, 120° apart, as the string ensembles of the 1970s did) and a fixed two-pole
 * lowpass. Deterministic.
 */
import { applyBiquad, type Biquad } from "../../src/dsp/biquad.ts";
import type { NoteEvent } from "../corpus/types.ts";
import { SAMPLE_RATE, type Stereo } from "./audio.ts";

const TABLE_SIZE = 2048;
const HIGHEST_HARMONIC_HZ = 7000;
const ATTACK = 0.3;
const RELEASE = 0.7;
const LOWPASS_HZ = 3500;

/** One period of the 8' and 4' square waves, band-limited for a note at `hz`, peak 1. */
function wavetable(hz: number): Float32Array {
  const table = new Float32Array(TABLE_SIZE);
  const add = (multiple: number, gain: number) => {
    for (let n = 1; n * multiple * hz < HIGHEST_HARMONIC_HZ; n += 2)
      for (let i = 0; i < TABLE_SIZE; i++)
        table[i] = (table[i] as number) + (gain / n) * Math.sin((2 * Math.PI * n * multiple * i) / TABLE_SIZE);
  };
  add(1, 1);
  add(2, 0.5);
  const peak = table.reduce((m, v) => Math.max(m, Math.abs(v)), 0) || 1;
  return table.map((v) => v / peak);
}

/** The RBJ cookbook's two-pole lowpass. */
function lowpass(hz: number, q: number): Biquad {
  const w = (2 * Math.PI * hz) / SAMPLE_RATE;
  const alpha = Math.sin(w) / (2 * q);
  const a0 = 1 + alpha;
  const cos = Math.cos(w);
  return {
    b0: (1 - cos) / 2 / a0,
    b1: (1 - cos) / a0,
    b2: (1 - cos) / 2 / a0,
    a1: (-2 * cos) / a0,
    a2: (1 - alpha) / a0,
  };
}

/** The ensemble's voice `k` of 3: the input delayed by 7 ms ± 2 ms (0.63 Hz) ± 0.15 ms (6.1 Hz), interpolated. */
function ensembleVoice(dry: Float32Array, k: number): Float32Array {
  const out = new Float32Array(dry.length);
  const offset = (2 * Math.PI * k) / 3;
  for (let n = 0; n < dry.length; n++) {
    const t = n / SAMPLE_RATE;
    const delay =
      (0.007 + 0.002 * Math.sin(2 * Math.PI * 0.63 * t + offset) + 0.00015 * Math.sin(2 * Math.PI * 6.1 * t + offset)) *
      SAMPLE_RATE;
    const at = n - delay;
    const i = Math.floor(at);
    if (i < 0) continue;
    const frac = at - i;
    out[n] = (dry[i] as number) * (1 - frac) + (dry[i + 1] ?? 0) * frac;
  }
  return out;
}

/** The notes played by the string machine into `length` frames, with the part's pan gains. */
export function playStringMachine(notes: readonly NoteEvent[], length: number, gains: [number, number]): Stereo {
  const dry = new Float32Array(length);
  const tables = new Map<number, Float32Array>();
  for (const note of notes) {
    const hz = 440 * 2 ** ((note.midi - 69) / 12);
    const table = tables.get(note.midi) ?? wavetable(hz);
    tables.set(note.midi, table);
    const start = Math.round(note.time * SAMPLE_RATE);
    const held = Math.round(note.duration * SAMPLE_RATE);
    const step = (hz * TABLE_SIZE) / SAMPLE_RATE;
    const end = Math.min(length, start + held + Math.round(RELEASE * SAMPLE_RATE));
    // The level reached when the key is let go, from which the release falls.
    const letGo = Math.min(1, note.duration / ATTACK);
    for (let n = start; n < end; n++) {
      const since = (n - start) / SAMPLE_RATE;
      const envelope = n - start < held ? Math.min(1, since / ATTACK) : letGo * (1 - (since - note.duration) / RELEASE);
      const phase = ((n - start) * step) % TABLE_SIZE;
      const i = Math.floor(phase);
      const frac = phase - i;
      const v = (table[i] as number) * (1 - frac) + (table[(i + 1) % TABLE_SIZE] as number) * frac;
      dry[n] = (dry[n] as number) + 0.3 * note.velocity * Math.max(0, envelope) * v;
    }
  }
  const [a, b, c] = [0, 1, 2].map((k) => ensembleVoice(dry, k)) as [Float32Array, Float32Array, Float32Array];
  const filter = lowpass(LOWPASS_HZ, Math.SQRT1_2);
  const side = (first: Float32Array, gain: number) =>
    Float32Array.from(
      applyBiquad(
        dry.map((v, n) => 0.4 * v + (first[n] as number) + 0.5 * (b[n] as number)),
        filter,
      ),
      (v) => v * gain,
    );
  return [side(a, gains[0]), side(c, gains[1])];
}
