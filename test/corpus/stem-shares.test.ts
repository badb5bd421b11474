import assert from "node:assert/strict";
import { test } from "node:test";
import { SAMPLE_RATE, type Stereo } from "./separation-scoring.ts";
import { BANDS, bandSums, shares } from "./stem-shares.ts";

const LENGTH = 2 * SAMPLE_RATE;
const band = (name: (typeof BANDS)[number]["name"]) => BANDS.findIndex((b) => b.name === name);

/** Uniform noise in [−amplitude, amplitude], reproducible by seed. */
function noise(seed: number, amplitude: number): Float32Array {
  let state = seed;
  return Float32Array.from({ length: LENGTH }, () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return amplitude * (2 * (state / 2 ** 32) - 1);
  });
}
const stereo = (seed: number, amplitude: number): Stereo => [noise(seed, amplitude), noise(seed + 100, amplitude)];
const combine = (stems: Stereo[], weights: number[]): Stereo =>
  [0, 1].map((c) => {
    const out = new Float32Array(LENGTH);
    stems.forEach((stem, k) => {
      const channel = stem[c] as Float32Array;
      for (let i = 0; i < LENGTH; i++) out[i] = (out[i] as number) + (weights[k] as number) * (channel[i] as number);
    });
    return out;
  });

test("stem shares recover a known mixing of the true stems into the estimates", () => {
  const truth = [1, 2, 3, 4].map((seed) => stereo(seed, 0.3));
  // a[j][k]: the share of true stem k in estimate j; each column adds up to 1, as when estimates sum to the mix.
  const a = [
    [0.7, 0.1, 0.0, 0.2],
    [0.2, 0.8, 0.1, 0.0],
    [0.0, 0.1, 0.6, 0.3],
    [0.1, 0.0, 0.3, 0.5],
  ];
  const estimates = a.map((row) => combine(truth, row));
  const found = shares(bandSums(truth, estimates)[band("all")] as ReturnType<typeof bandSums>[number]);
  for (let k = 0; k < 4; k++) {
    for (let j = 0; j < 4; j++) {
      assert.ok(Math.abs((found[k]?.[j] as number) - (a[j]?.[k] as number)) < 0.01, `stem ${k} → ${j}`);
    }
  }
});

test("stem shares tell bands apart: a stem's low end moved to another estimate shows only below 150 Hz", () => {
  const low = Float32Array.from({ length: LENGTH }, (_, i) => Math.sin((2 * Math.PI * 80 * i) / SAMPLE_RATE));
  const hiss = stereo(1, 0.3);
  const first: Stereo = hiss.map((channel) => channel.map((v, i) => v + (low[i] as number)));
  const others = [2, 3, 4].map((seed) => stereo(seed, 0.3));
  const truth = [first, ...others];
  // Estimate 0 keeps stem 0's hiss; its 80 Hz sine goes to estimate 1, with stem 1.
  const estimates = [
    hiss,
    (others[0] as Stereo).map((channel) => channel.map((v, i) => v + (low[i] as number))),
    others[1] as Stereo,
    others[2] as Stereo,
  ];
  const sums = bandSums(truth, estimates);
  const lowShares = shares(sums[band("<150 Hz")] as ReturnType<typeof bandSums>[number]);
  const highShares = shares(sums[band(">2 kHz")] as ReturnType<typeof bandSums>[number]);
  assert.ok((lowShares[0]?.[1] as number) > 0.98, `low end of stem 0 in estimate 1: ${lowShares[0]?.[1]}`);
  assert.ok((highShares[0]?.[0] as number) > 0.98, `high band of stem 0 kept: ${highShares[0]?.[0]}`);
  // The noise stems hold far under 1 % of the energy below 150 Hz, where the sine is: left out there.
  assert.ok(Number.isNaN(lowShares[2]?.[2]), "a stem nearly absent from a band has no shares there");
  assert.ok(Math.abs((highShares[2]?.[2] as number) - 1) < 0.01);
});
