/**
 * Mixtures with known sources for the separation tests: synthetic drums (kicks, snares, hi-hats: noise bursts
 * and decaying sweeps) over harmonic parts (sustained chords, a bass line, a plucked melody), and a repeating
 * accompaniment loop for a voice to be sung over. Deterministic for a seed.
 */
import assert from "node:assert/strict";
import { addSample, biquad, hatSample, panGains, Rng, renderNote, snareSample, wavetable } from "../music/synth.ts";

export type Stereo = [Float32Array, Float32Array];

export const stereo = (length: number): Stereo => [new Float32Array(length), new Float32Array(length)];

/** The largest absolute sample difference of two signals of the same length. */
export function maxDifference(a: ArrayLike<number>, b: ArrayLike<number>): number {
  assert.equal(a.length, b.length);
  let max = 0;
  for (let i = 0; i < a.length; i++) max = Math.max(max, Math.abs((a[i] as number) - (b[i] as number)));
  return max;
}

export function sum(...parts: Stereo[]): Stereo {
  const out = stereo(parts[0]?.[0].length ?? 0);
  for (const part of parts)
    for (let c = 0; c < 2; c++) {
      const from = part[c] as Float32Array;
      const to = out[c] as Float32Array;
      for (let i = 0; i < to.length; i++) to[i] = (to[i] as number) + (from[i] as number);
    }
  return out;
}

const ORGAN = wavetable([1, 0.6, 0.4, 0.25, 0.2, 0.12, 0.08, 0.05]);
const BASS = wavetable([1, 0.5, 0.2, 0.1]);
const PLUCK = wavetable([1, 0.7, 0.5, 0.35, 0.25, 0.18, 0.12, 0.08, 0.05, 0.03]);
const midiHz = (midi: number) => 440 * 2 ** ((midi - 69) / 12);
/** I–vi–IV–V in C, as MIDI triads. */
const CHORDS = [
  [60, 64, 67],
  [57, 60, 64],
  [53, 57, 60],
  [55, 59, 62],
];

/**
 * Acoustic-style kick: a beater click (low-passed noise, ~5 ms) over a body sweeping 120 → 55 Hz that decays with
 * `decay` seconds' time constant (~0.05 s for a damped acoustic kick; an 808-style kick rings for 0.15 s or more).
 */
export function kick(sampleRate: number, rng: Rng, decay: number): Float32Array {
  const length = Math.round(Math.min(0.6, 6 * decay + 0.02) * sampleRate);
  const click = new Float32Array(length);
  for (let n = 0; n < length; n++) click[n] = rng.next() * 2 - 1;
  biquad(click, "lowpass", 5000, 0.7, sampleRate);
  const out = new Float32Array(length);
  let phase = 0;
  let peak = 0;
  for (let n = 0; n < length; n++) {
    const t = n / sampleRate;
    phase += (2 * Math.PI * (55 + 65 * Math.exp(-t / 0.02))) / sampleRate;
    const body = Math.sin(phase) * Math.exp(-t / decay) * Math.min(1, t / 0.001);
    out[n] = body + 0.6 * (click[n] as number) * Math.exp(-t / 0.005);
    peak = Math.max(peak, Math.abs(out[n] as number));
  }
  for (let n = 0; n < length; n++) out[n] = (out[n] as number) / peak;
  return out;
}

/** One bar of drums (4/4, eighth-note hats) into `out` from sample `start`, with per-hit velocity jitter. */
function drumBar(out: Stereo, start: number, beat: number, sampleRate: number, rng: Rng, kickDecay: number): void {
  const [left, right] = out;
  const hit = (sample: Float32Array, at: number, gain: number, pan: number) => {
    const [gl, gr] = panGains(pan, gain * rng.uniform(0.85, 1));
    addSample(left, right, sample, Math.round(start + at * beat), gl, gr);
  };
  for (const at of [0, 2.5]) hit(kick(sampleRate, rng, kickDecay), at, 0.5, 0);
  for (const at of [1, 3]) hit(snareSample(sampleRate, rng), at, 0.32, 0.1);
  for (let e = 0; e < 8; e++) hit(hatSample(sampleRate, rng), e / 2, e % 2 ? 0.1 : 0.16, 0.4);
}

/** One bar of harmony: a sustained organ chord, a bass root on beats 1 and 3, a plucked eighth-note arpeggio. */
function harmonyBar(out: Stereo, start: number, beat: number, chord: number[], sampleRate: number, rng: Rng): void {
  const [left, right] = out;
  const note = (table: Float32Array, midi: number, at: number, beats: number, gain: number, pan: number) => {
    const [gl, gr] = panGains(pan, gain);
    renderNote(
      left,
      right,
      {
        table,
        frequency: midiHz(midi),
        start: Math.round(start + at * beat),
        hold: Math.round(beats * beat),
        envelope:
          table === PLUCK
            ? { attack: 0.004, decay: 0.25, sustain: 0.3, release: 0.08 }
            : { attack: 0.03, decay: 0.4, sustain: 0.8, release: 0.1 },
        gainLeft: gl,
        gainRight: gr,
        phase: rng.next(),
      },
      sampleRate,
    );
  };
  for (const midi of chord) note(ORGAN, midi, 0, 3.9, 0.07, -0.3);
  const root = (chord[0] as number) - 24;
  note(BASS, root, 0, 1.8, 0.22, 0);
  note(BASS, root + 12, 2, 1.8, 0.16, 0);
  for (let e = 0; e < 8; e++) note(PLUCK, (chord[e % 3] as number) + 12, e / 2, 0.45, 0.05, 0.5);
}

/**
 * `seconds` of drums and of harmony at 120 bpm, as separate stereo sources; `kickDecay` is the time constant of
 * the kick's body, seconds.
 */
export function drumsAndHarmony(
  seconds: number,
  sampleRate: number,
  seed: number,
  kickDecay = 0.08,
): { drums: Stereo; harmony: Stereo } {
  const length = Math.round(seconds * sampleRate);
  const rng = new Rng(seed);
  const drums = stereo(length);
  const harmony = stereo(length);
  const beat = sampleRate / 2;
  for (let bar = 0; bar * 4 * beat < length; bar++) {
    drumBar(drums, bar * 4 * beat, beat, sampleRate, rng, kickDecay);
    harmonyBar(harmony, bar * 4 * beat, beat, CHORDS[bar % CHORDS.length] as number[], sampleRate, rng);
  }
  return { drums, harmony };
}

/**
 * An accompaniment loop (drums and harmony, four bars) repeated to `seconds`. Each repetition is rendered
 * anew (fresh noise in every drum hit, jittered velocities, random oscillator phases), so repetitions are
 * alike, as in a real song, but not sample-identical.
 */
export function accompanimentLoop(seconds: number, sampleRate: number, seed: number): Stereo {
  const { drums, harmony } = drumsAndHarmony(seconds, sampleRate, seed);
  return sum(drums, harmony);
}

/** A sung-like line, centred: harmonic tones with 5.5 Hz vibrato, two-second notes with breaths between. */
export function vibratoVoice(length: number, sampleRate: number): Stereo {
  const out = new Float32Array(length);
  const notes = [220, 247, 262, 294, 330, 294, 262, 247];
  let phase = 0;
  for (let i = 0; i < length; i++) {
    const t = i / sampleRate;
    const note = Math.floor(t / 2);
    const within = t - note * 2;
    if (within > 1.7) continue;
    const frequency = (notes[note % notes.length] as number) * (1 + 0.01 * Math.sin(2 * Math.PI * 5.5 * t));
    phase += (2 * Math.PI * frequency) / sampleRate;
    let value = 0;
    for (let h = 1; h <= 8; h++) value += Math.sin(h * phase) / h;
    out[i] = 0.12 * value * Math.min(1, within / 0.05, (1.7 - within) / 0.05);
  }
  return [out, out.slice()];
}
