/**
 * Loudness per ITU-R BS.1770-4 / EBU R128: K-weighted, gated integrated loudness (LUFS), loudness range
 * (EBU Tech 3342, LU) and true peak (dBTP, 4× oversampled). K-weighting coefficients for any sample rate
 * follow the bilinear-transform derivation used by libebur128.
 */

import { applyBiquad, type Biquad } from "./biquad.ts";

function kWeighting(sampleRate: number): [Biquad, Biquad] {
  // Stage 1: high shelf (+4 dB above ~1.7 kHz), modelling the head.
  let f0 = 1681.974450955533;
  const gainDb = 3.999843853973347;
  let q = 0.7071752369554196;
  let k = Math.tan((Math.PI * f0) / sampleRate);
  const vh = 10 ** (gainDb / 20);
  const vb = vh ** 0.4996667741545416;
  let a0 = 1 + k / q + k * k;
  const shelf = {
    b0: (vh + (vb * k) / q + k * k) / a0,
    b1: (2 * (k * k - vh)) / a0,
    b2: (vh - (vb * k) / q + k * k) / a0,
    a1: (2 * (k * k - 1)) / a0,
    a2: (1 - k / q + k * k) / a0,
  };
  // Stage 2: RLB high-pass at ~38 Hz.
  f0 = 38.13547087602444;
  q = 0.5003270373238773;
  k = Math.tan((Math.PI * f0) / sampleRate);
  a0 = 1 + k / q + k * k;
  const highPass = { b0: 1, b1: -2, b2: 1, a1: (2 * (k * k - 1)) / a0, a2: (1 - k / q + k * k) / a0 };
  return [shelf, highPass];
}

/** Channel weights of BS.1770 for up to 5.1 (L, R, C, LFE excluded, Ls, Rs). */
const channelWeight = (index: number, count: number): number => {
  if (count === 6) return [1, 1, 1, 0, 1.41, 1.41][index] ?? 1;
  return 1;
};

const toLufs = (power: number): number => -0.691 + 10 * Math.log10(power);

/** Mean-square power, weighted and summed over channels, of windows of `window` samples every `step`. */
function blockPowers(weighted: Float64Array[], weights: number[], window: number, step: number): number[] {
  const length = weighted[0]?.length ?? 0;
  const powers: number[] = [];
  const prefix = weighted.map((signal) => {
    const sums = new Float64Array(signal.length + 1);
    for (let i = 0; i < signal.length; i++) sums[i + 1] = (sums[i] as number) + (signal[i] as number) ** 2;
    return sums;
  });
  for (let start = 0; start + window <= length; start += step) {
    let power = 0;
    prefix.forEach((sums, c) => {
      power += ((weights[c] as number) * ((sums[start + window] as number) - (sums[start] as number))) / window;
    });
    powers.push(power);
  }
  return powers;
}

function gatedMean(powers: number[], relativeGateLu: number): { mean: number; kept: number[] } {
  const absolute = powers.filter((p) => toLufs(p) > -70);
  if (absolute.length === 0) return { mean: 0, kept: [] };
  const threshold = toLufs(absolute.reduce((a, b) => a + b, 0) / absolute.length) + relativeGateLu;
  const kept = absolute.filter((p) => toLufs(p) > threshold);
  return { mean: kept.length ? kept.reduce((a, b) => a + b, 0) / kept.length : 0, kept };
}

function percentile(sorted: number[], p: number): number {
  const index = (sorted.length - 1) * p;
  const low = Math.floor(index);
  const high = Math.ceil(index);
  return (sorted[low] as number) + ((sorted[high] as number) - (sorted[low] as number)) * (index - low);
}

/** 4× oversampling by Hann-windowed sinc interpolation, 12 input samples per output (ITU-R BS.1770-4 Annex 2). */
const OVERSAMPLE = 4;
const TAPS = 12;
const HALF = TAPS / 2;
/** COEFFICIENTS[p][j] weighs x[i - HALF + 1 + j] for the value at time i + p / OVERSAMPLE. */
const COEFFICIENTS: Float64Array[] = Array.from({ length: OVERSAMPLE }, (_, p) =>
  Float64Array.from({ length: TAPS }, (_, j) => {
    const d = p / OVERSAMPLE + HALF - 1 - j;
    const sinc = d === 0 ? 1 : Math.sin(Math.PI * d) / (Math.PI * d);
    return sinc * (0.5 + 0.5 * Math.cos((Math.PI * d) / HALF));
  }),
);

function truePeakOf(channel: Float32Array): number {
  let peak = 0;
  const n = channel.length;
  for (let i = 0; i < n; i++) {
    const sample = Math.abs(channel[i] as number);
    if (sample > peak) peak = sample;
    for (let p = 1; p < OVERSAMPLE; p++) {
      const taps = COEFFICIENTS[p] as Float64Array;
      let acc = 0;
      for (let j = 0; j < TAPS; j++) {
        const k = i - HALF + 1 + j;
        if (k >= 0 && k < n) acc += (taps[j] as number) * (channel[k] as number);
      }
      const value = Math.abs(acc);
      if (value > peak) peak = value;
    }
  }
  return peak;
}

export interface LoudnessMeasurement {
  /** LUFS; -Infinity for silence. */
  integratedLoudness: number;
  /** LU. */
  loudnessRange: number;
  /** dBTP; -Infinity for silence. */
  truePeak: number;
}

export function measureLoudness(channels: Float32Array[], sampleRate: number): LoudnessMeasurement {
  const [shelf, highPass] = kWeighting(sampleRate);
  const weighted = channels.map((c) => applyBiquad(Float32Array.from(applyBiquad(c, shelf)), highPass));
  const weights = channels.map((_, i) => channelWeight(i, channels.length));

  const momentary = blockPowers(weighted, weights, Math.round(0.4 * sampleRate), Math.round(0.1 * sampleRate));
  const integrated = gatedMean(momentary, -10).mean;

  const shortTerm = blockPowers(weighted, weights, Math.round(3 * sampleRate), Math.round(0.1 * sampleRate));
  const { kept } = gatedMean(shortTerm, -20);
  const levels = kept.map(toLufs).sort((a, b) => a - b);
  const loudnessRange = levels.length > 1 ? percentile(levels, 0.95) - percentile(levels, 0.1) : 0;

  const peak = Math.max(0, ...channels.map(truePeakOf));
  return {
    integratedLoudness: integrated > 0 ? toLufs(integrated) : Number.NEGATIVE_INFINITY,
    loudnessRange,
    truePeak: peak > 0 ? 20 * Math.log10(peak) : Number.NEGATIVE_INFINITY,
  };
}
