import assert from "node:assert/strict";
import { test } from "node:test";
import { logBandEdges, repeatingMask, similarFrames } from "../../src/dsp/repet-sim.ts";
import { VOCAL_MASK_DEFAULTS, vocalMask } from "../../src/dsp/repet-vocals.ts";
import { stft } from "../../src/dsp/spectrogram.ts";
import { Rng } from "../music/synth.ts";
import { accompanimentLoop } from "./signals.ts";

test("repeatingMask is min(1, median of the chosen frames / the cell), per bin", () => {
  const rng = new Rng(2);
  const frames = 30;
  const bins = 17;
  const repeats = 6;
  const magnitude = Float32Array.from({ length: frames * bins }, () => (rng.next() < 0.1 ? 0 : rng.int(20) / 4));
  const chosen = new Int32Array(frames * repeats).fill(-1);
  for (let t = 0; t < frames; t++) {
    // 1 to 6 chosen frames, so odd and even counts (the upper median) are both exercised.
    const count = 1 + (t % repeats);
    for (let r = 0; r < count; r++) chosen[t * repeats + r] = rng.int(frames);
  }
  const mask = repeatingMask(magnitude, frames, bins, chosen, repeats);
  for (let t = 0; t < frames; t++) {
    const rows = Array.from(chosen.subarray(t * repeats, (t + 1) * repeats)).filter((f) => f >= 0);
    for (let k = 0; k < bins; k++) {
      const values = rows.map((f) => magnitude[f * bins + k] as number).sort((a, b) => a - b);
      const median = values[values.length >> 1] as number;
      const v = magnitude[t * bins + k] as number;
      const expected = v > 0 ? Math.min(1, median / v) : 1;
      assert.ok(Math.abs((mask[t * bins + k] as number) - expected) < 1e-6, `frame ${t} bin ${k}`);
    }
  }
});

test("similarFrames finds the repetitions of a loop, at least minDistance apart", () => {
  const sampleRate = 44100;
  const loop = accompanimentLoop(32, sampleRate, 4); // an 8-second, 4-bar loop
  const spec = stft(loop[0], 4096, 1024);
  const magnitude = Float32Array.from(spec.re, (re, i) => Math.hypot(re, spec.im[i] as number));
  const repeats = 4;
  const options = {
    repeats,
    minDistance: 20,
    minSimilarity: 0,
    searchFrames: 1000,
    bandEdges: logBandEdges(spec.bins, sampleRate, 60, 12000, 40),
  };
  const chosen = similarFrames(magnitude, spec.frames, spec.bins, options);
  const period = (8 * sampleRate) / 1024; // frames per loop
  let onLoop = 0;
  let total = 0;
  for (let t = 100; t < spec.frames - 100; t++) {
    const picks = Array.from(chosen.subarray(t * repeats, (t + 1) * repeats));
    assert.ok(picks.includes(t), `frame ${t} is among its own most similar`);
    const sorted = picks.filter((f) => f >= 0).sort((a, b) => a - b);
    for (let i = 1; i < sorted.length; i++) assert.ok((sorted[i] as number) - (sorted[i - 1] as number) >= 20);
    for (const f of picks) {
      if (f === t || f < 0) continue;
      total++;
      const offset = Math.abs(f - t) / period;
      // The same place in another repetition, within a frame and a half.
      if (Math.abs(offset - Math.round(offset)) * period <= 1.5) onLoop++;
    }
  }
  // By chance (3 frames in each of 3 other repetitions, out of ~1400) it would be about 1 %; the rest are mostly
  // frames of the same held chord.
  assert.ok(onLoop / total > 0.5, `${onLoop} of ${total} picks are whole loops away`);
});

/** A melody that never repeats (random notes), as a stereo pair with the given left/right gains. */
function melody(seconds: number, sampleRate: number, left: number, right: number): [Float32Array, Float32Array] {
  const rng = new Rng(77);
  const length = seconds * sampleRate;
  const out: [Float32Array, Float32Array] = [new Float32Array(length), new Float32Array(length)];
  let phase = 0;
  let frequency = 300;
  for (let i = 0; i < length; i++) {
    if (i % Math.round(0.3 * sampleRate) === 0) frequency = 200 * 2 ** (rng.int(24) / 12);
    phase += (2 * Math.PI * frequency) / sampleRate;
    const value = 0.2 * (Math.sin(phase) + 0.5 * Math.sin(2 * phase) + 0.3 * Math.sin(3 * phase));
    out[0][i] = value * left;
    out[1][i] = value * right;
  }
  return out;
}

test("vocalMask: a non-repeating melody counts as voice when panned centre, not when panned aside", () => {
  const sampleRate = 44100;
  const share = (left: number, right: number) => {
    const loop = accompanimentLoop(24, sampleRate, 6);
    const lead = melody(24, sampleRate, left, right);
    const mixed = [0, 1].map((c) =>
      (loop[c] as Float32Array).map((v, i) => v + ((lead[c] as Float32Array)[i] as number)),
    );
    const specs = mixed.map((channel) => stft(channel, 4096, 1024));
    const mask = vocalMask(specs, sampleRate, VOCAL_MASK_DEFAULTS);
    const leadSpec = stft(
      lead[0].map((v, i) => v + (lead[1][i] as number)),
      4096,
      1024,
    );
    // The mask's average over the melody's energy: how much of the melody goes to the vocals.
    let weighted = 0;
    let energy = 0;
    for (let i = 0; i < mask.length; i++) {
      const e = (leadSpec.re[i] as number) ** 2 + (leadSpec.im[i] as number) ** 2;
      weighted += e * (mask[i] as number);
      energy += e;
    }
    return weighted / energy;
  };
  const centred = share(1, 1);
  const aside = share(1.3, 0.15);
  assert.ok(centred > 0.5, `centred melody: ${centred.toFixed(2)} of it to the vocals`);
  assert.ok(aside < 0.2, `melody panned left: ${aside.toFixed(2)} of it to the vocals`);
});
