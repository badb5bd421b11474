/**
 * Sound synthesis for the test-music generator: a seeded PRNG, wavetable notes with envelopes, drum samples,
 * filters and noise. All of it is plain loops over typed arrays, deterministic given the PRNG.
 */

import { pinkNoiseFrom } from "../helpers/audio.ts";

/** mulberry32: a small, fast, well-mixed 32-bit PRNG; the same seed always gives the same sequence. */
export class Rng {
  private state: number;

  constructor(seed: number) {
    this.state = (Math.trunc(seed) ^ 0x6d2b79f5) >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  uniform(low: number, high: number): number {
    return low + (high - low) * this.next();
  }

  /** An integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new RangeError("pick from an empty list");
    return items[this.int(items.length)] as T;
  }

  shuffle<T>(items: T[]): T[] {
    for (let i = items.length - 1; i > 0; i--) {
      const j = this.int(i + 1);
      const swap = items[i] as T;
      items[i] = items[j] as T;
      items[j] = swap;
    }
    return items;
  }
}

/** Left and right gains of an equal-power pan, -1 = hard left … +1 = hard right. */
export function panGains(pan: number, gain = 1): [number, number] {
  const angle = ((pan + 1) * Math.PI) / 4;
  return [Math.cos(angle) * gain * Math.SQRT2, Math.sin(angle) * gain * Math.SQRT2];
}

export const TABLE_SIZE = 4096;

/**
 * One period of a waveform from harmonic amplitudes (index 0 = fundamental), peak-normalised to 1, with a
 * guard sample at the end so linear interpolation never wraps.
 */
export function wavetable(harmonics: readonly number[]): Float32Array {
  const table = new Float32Array(TABLE_SIZE + 1);
  let peak = 0;
  for (let i = 0; i < TABLE_SIZE; i++) {
    let value = 0;
    for (let h = 0; h < harmonics.length; h++) {
      const amplitude = harmonics[h] as number;
      if (amplitude !== 0) value += amplitude * Math.sin((2 * Math.PI * (h + 1) * i) / TABLE_SIZE);
    }
    table[i] = value;
    peak = Math.max(peak, Math.abs(value));
  }
  for (let i = 0; i < TABLE_SIZE; i++) table[i] = (table[i] as number) / peak;
  table[TABLE_SIZE] = table[0] as number;
  return table;
}

export interface Envelope {
  /** Linear attack, seconds. */
  attack: number;
  /** Time constant of the exponential decay towards the sustain level, seconds (0 = no decay). */
  decay: number;
  /** Sustain level, 0..1. */
  sustain: number;
  /** Linear release after the note's hold time, seconds. */
  release: number;
}

export interface Note {
  table: Float32Array;
  frequency: number;
  /** First sample. */
  start: number;
  /** Samples from the start to the beginning of the release. */
  hold: number;
  envelope: Envelope;
  gainLeft: number;
  gainRight: number;
  /** Starting phase, 0..1. */
  phase: number;
}

/** Adds one wavetable note into the stereo buffers. */
export function renderNote(left: Float32Array, right: Float32Array, note: Note, sampleRate: number): void {
  const { table, envelope } = note;
  const size = table.length - 1;
  const increment = (note.frequency * size) / sampleRate;
  const attack = Math.max(1, Math.round(envelope.attack * sampleRate));
  const release = Math.max(1, Math.round(envelope.release * sampleRate));
  const hold = Math.max(0, note.hold);
  const start = Math.max(0, note.start);
  const end = Math.min(left.length, start + hold + release);
  const decayFactor = envelope.decay > 0 ? Math.exp(-1 / (envelope.decay * sampleRate)) : 1;
  const sustain = envelope.sustain;
  let decaying = 1;
  let phase = (note.phase - Math.floor(note.phase)) * size;
  for (let i = start, n = 0; i < end; i++, n++) {
    let level = sustain + (1 - sustain) * decaying;
    decaying *= decayFactor;
    if (n < attack) level *= n / attack;
    if (n >= hold) level *= 1 - (n - hold) / release;
    const index = phase | 0;
    const a = table[index] as number;
    const value = (a + (phase - index) * ((table[index + 1] as number) - a)) * level;
    phase += increment;
    if (phase >= size) phase -= size;
    left[i] = (left[i] as number) + value * note.gainLeft;
    right[i] = (right[i] as number) + value * note.gainRight;
  }
}

/** Adds a mono sample into the stereo buffers at a sample offset. */
export function addSample(
  left: Float32Array,
  right: Float32Array,
  sample: Float32Array,
  start: number,
  gainLeft: number,
  gainRight: number,
): void {
  const offset = Math.max(0, start);
  const end = Math.min(left.length, offset + sample.length);
  for (let i = offset, n = 0; i < end; i++, n++) {
    const value = sample[n] as number;
    left[i] = (left[i] as number) + value * gainLeft;
    right[i] = (right[i] as number) + value * gainRight;
  }
}

/** An RBJ-cookbook biquad applied in place. */
export function biquad(
  signal: Float32Array,
  type: "lowpass" | "highpass" | "bandpass",
  frequency: number,
  q: number,
  sampleRate: number,
): Float32Array {
  const w = (2 * Math.PI * frequency) / sampleRate;
  const cos = Math.cos(w);
  const alpha = Math.sin(w) / (2 * q);
  let b0: number;
  let b1: number;
  let b2: number;
  if (type === "lowpass") {
    b0 = (1 - cos) / 2;
    b1 = 1 - cos;
    b2 = b0;
  } else if (type === "highpass") {
    b0 = (1 + cos) / 2;
    b1 = -(1 + cos);
    b2 = b0;
  } else {
    b0 = alpha;
    b1 = 0;
    b2 = -alpha;
  }
  const a0 = 1 + alpha;
  const a1 = -2 * cos;
  const a2 = 1 - alpha;
  let x1 = 0;
  let x2 = 0;
  let y1 = 0;
  let y2 = 0;
  for (let i = 0; i < signal.length; i++) {
    const x = signal[i] as number;
    const y = (b0 * x + b1 * x1 + b2 * x2 - a1 * y1 - a2 * y2) / a0;
    x2 = x1;
    x1 = x;
    y2 = y1;
    y1 = y;
    signal[i] = y;
  }
  return signal;
}

function normalisePeak(signal: Float32Array): Float32Array {
  let peak = 0;
  for (let i = 0; i < signal.length; i++) peak = Math.max(peak, Math.abs(signal[i] as number));
  if (peak > 0) for (let i = 0; i < signal.length; i++) signal[i] = (signal[i] as number) / peak;
  return signal;
}

function whiteNoise(length: number, rng: Rng): Float32Array {
  const noise = new Float32Array(length);
  for (let i = 0; i < length; i++) noise[i] = rng.next() * 2 - 1;
  return noise;
}

/** Kick: a sine sweeping ~150 → 50 Hz with a fast decay and a short click, peak 1. */
export function kickSample(sampleRate: number, rng: Rng): Float32Array {
  const length = Math.round(0.4 * sampleRate);
  const click = biquad(whiteNoise(length, rng), "lowpass", 4000, 0.7, sampleRate);
  const out = new Float32Array(length);
  let phase = 0;
  for (let n = 0; n < length; n++) {
    const t = n / sampleRate;
    const frequency = 50 + 100 * Math.exp(-t / 0.03);
    phase += (2 * Math.PI * frequency) / sampleRate;
    const body = Math.sin(phase) * Math.exp(-t / 0.16) * Math.min(1, t / 0.001);
    out[n] = Math.tanh(1.6 * body) + 0.25 * (click[n] as number) * Math.exp(-t / 0.003);
  }
  return normalisePeak(out);
}

/** Snare: band-limited noise burst plus a two-mode body tone, peak 1. */
export function snareSample(sampleRate: number, rng: Rng): Float32Array {
  const length = Math.round(0.28 * sampleRate);
  const noise = biquad(
    biquad(whiteNoise(length, rng), "highpass", 900, 0.7, sampleRate),
    "lowpass",
    9000,
    0.7,
    sampleRate,
  );
  const out = new Float32Array(length);
  for (let n = 0; n < length; n++) {
    const t = n / sampleRate;
    const attack = Math.min(1, t / 0.0008);
    // Body modes between semitones (a quarter-tone off F#3 and D4), so the snare adds no chroma of its own.
    const body =
      Math.sin(2 * Math.PI * 180 * t) * Math.exp(-t / 0.05) +
      0.5 * Math.sin(2 * Math.PI * 285 * t) * Math.exp(-t / 0.03);
    out[n] = attack * (0.8 * (noise[n] as number) * Math.exp(-t / 0.07) * 2.5 + 0.55 * body);
  }
  return normalisePeak(out);
}

/** Closed hi-hat: high-passed noise with a very short decay, peak 1. */
export function hatSample(sampleRate: number, rng: Rng): Float32Array {
  const length = Math.round(0.09 * sampleRate);
  const noise = biquad(
    biquad(whiteNoise(length, rng), "highpass", 7000, 0.7, sampleRate),
    "highpass",
    7000,
    0.7,
    sampleRate,
  );
  const out = new Float32Array(length);
  for (let n = 0; n < length; n++) {
    const t = n / sampleRate;
    out[n] = (noise[n] as number) * Math.exp(-t / 0.016) * Math.min(1, t / 0.0005);
  }
  return normalisePeak(out);
}

/** Adds white or pink noise (independent per channel) at a given RMS. */
export function addNoise(channels: Float32Array[], rms: number, pink: boolean, rng: Rng): void {
  const noise = new Float32Array(channels[0]?.length ?? 0);
  for (const channel of channels) {
    const white = () => rng.next() * 2 - 1;
    const values = pink ? pinkNoiseFrom(white, noise.length) : Float64Array.from({ length: noise.length }, white);
    let power = 0;
    for (let i = 0; i < noise.length; i++) {
      const value = values[i] as number;
      noise[i] = value;
      power += value * value;
    }
    const scale = power > 0 ? rms / Math.sqrt(power / noise.length) : 0;
    const length = Math.min(channel.length, noise.length);
    for (let i = 0; i < length; i++) channel[i] = (channel[i] as number) + (noise[i] as number) * scale;
  }
}

export function peakOf(channels: readonly Float32Array[]): number {
  let peak = 0;
  for (const channel of channels)
    for (let i = 0; i < channel.length; i++) {
      const value = Math.abs(channel[i] as number);
      if (value > peak) peak = value;
    }
  return peak;
}

export function rmsOf(channels: readonly Float32Array[]): number {
  let power = 0;
  let count = 0;
  for (const channel of channels) {
    for (let i = 0; i < channel.length; i++) power += (channel[i] as number) ** 2;
    count += channel.length;
  }
  return count > 0 ? Math.sqrt(power / count) : 0;
}

export function scaleChannels(channels: readonly Float32Array[], gain: number): void {
  for (const channel of channels) for (let i = 0; i < channel.length; i++) channel[i] = (channel[i] as number) * gain;
}
