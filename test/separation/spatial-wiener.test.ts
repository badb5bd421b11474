import assert from "node:assert/strict";
import { test } from "node:test";
import { spatialWiener } from "../../src/dsp/spatial-wiener.ts";
import { istft, type Spectrogram, stft } from "../../src/dsp/spectrogram.ts";
import { wienerStems } from "../../src/modules/stems-shared/masked-stem.ts";
import { Rng } from "../music/synth.ts";

const SIZE = 1024;
const HOP = 256;
const LENGTH = 60_000;

/** White noise sounding only between `from` and `to` (fractions of LENGTH). */
const burst = (seed: number, from: number, to: number) => {
  const rng = new Rng(seed);
  return Float32Array.from({ length: LENGTH }, (_, i) =>
    i >= from * LENGTH && i < to * LENGTH ? rng.uniform(-1, 1) : 0,
  );
};
const panned = (signal: Float32Array, left: number, right: number) => [
  signal.map((v) => v * left),
  signal.map((v) => v * right),
];
const add = (a: Float32Array, b: Float32Array) => a.map((v, i) => v + (b[i] as number));
/** SDR (dB) of a stereo estimate against its reference, both channels together. */
const sdr = (estimate: Float32Array[], reference: Float32Array[]) => {
  let signal = 0;
  let error = 0;
  reference.forEach((channel, c) => {
    channel.forEach((v, i) => {
      signal += v * v;
      error += (((estimate[c] as Float32Array)[i] as number) - v) ** 2;
    });
  });
  return 10 * Math.log10(signal / error);
};
/** Per cell, the share of the power of `a` in a + b (both stereo, powers of both channels summed). */
const ratioMask = (a: Spectrogram[], b: Spectrogram[]) => {
  const power = (s: Spectrogram[], i: number) =>
    s.reduce((sum, { re, im }) => sum + (re[i] as number) ** 2 + (im[i] as number) ** 2, 0);
  return Float32Array.from({ length: (a[0] as Spectrogram).re.length }, (_, i) => {
    const pa = power(a, i);
    const total = pa + power(b, i);
    return total > 0 ? pa / total : 0.5;
  });
};

test("spatialWiener: two sources panned apart are told apart where the masks cannot (the same noise spectrum, sounding together)", () => {
  // A: hard left, in the first two thirds; B: centred, in the last two thirds. They overlap in the middle third,
  // where a mask of their powers can only say "half each".
  const a = panned(burst(1, 0, 2 / 3), 0.95, 0.15);
  const b = panned(burst(2, 1 / 3, 1), 0.6, 0.6);
  const mixture = [add(a[0] as Float32Array, b[0] as Float32Array), add(a[1] as Float32Array, b[1] as Float32Array)];
  const spec = (channels: Float32Array[]) => channels.map((x) => stft(x, SIZE, HOP));
  // An unsure mask, as a network's would be: 80 % / 20 % where one source sounds alone, 50 % where both do.
  const mask = ratioMask(spec(a), spec(b)).map((m) => 0.5 + 0.6 * (m - 0.5));

  const masked = spec(mixture).map((s) => istft(s, mask));
  const [left, right] = spec(mixture) as [Spectrogram, Spectrogram];
  const [filtered] = spatialWiener(left, right, [mask], [0]);
  const byMask = sdr(masked, a);
  const byFilter = sdr(filtered as Float32Array[], a);
  // Measured: 7.3 dB by the mask, 13.0 dB by the filter.
  assert.ok(byMask < 8, `the mask alone: ${byMask.toFixed(1)} dB`);
  assert.ok(byFilter > byMask + 4, `the filter: ${byFilter.toFixed(1)} dB, the mask alone ${byMask.toFixed(1)} dB`);
});

test("spatialWiener: with every source in one place (the same signal on both channels) exact masks give the sources back (29 dB)", () => {
  const a = burst(3, 0, 0.5);
  const b = burst(4, 0.5, 1);
  const c = burst(5, 0.2, 0.3).map((v) => 0.01 * v);
  const mono = add(add(a, b), c);
  const spec = (x: Float32Array) => stft(x, SIZE, HOP);
  const mask = (x: Float32Array) => ratioMask([spec(x)], [spec(mono.map((v, i) => v - (x[i] as number)))]);
  const [estimateA, estimateB] = spatialWiener(spec(mono), spec(mono), [mask(a), mask(b)], [0, 1]);
  for (const [estimate, source, name] of [
    [estimateA, a, "A"],
    [estimateB, b, "B"],
  ] as const) {
    const figure = sdr(estimate as Float32Array[], [source, source]);
    assert.ok(figure > 25, `${name}: ${figure.toFixed(1)} dB`);
    assert.deepEqual(
      (estimate as Float32Array[]).map((channel) => channel.length),
      [LENGTH, LENGTH],
    );
  }
});

test("spatialWiener: only the masked sources can be asked for; the last is the rest", () => {
  const x = burst(6, 0, 1).subarray(0, 4096);
  const spec = stft(x, SIZE, HOP);
  const mask = new Float32Array(spec.re.length).fill(0.5);
  assert.throws(() => spatialWiener(spec, spec, [mask], [1]), /source 1 is not one of the masked ones/);
  assert.throws(() => spatialWiener(spec, spec, [mask], [-1]), /source -1/);
});

test("wienerStems: a stereo pair through the filter, a lone channel by its masks; each pair with its own masks", () => {
  const a = burst(7, 0, 0.5);
  const b = burst(8, 0.5, 1);
  const mix = add(a, b);
  const spec = (x: Float32Array) => stft(x, SIZE, HOP);
  const exact = ratioMask([spec(a)], [spec(b)]);
  const wrong = exact.map((m) => 1 - m);
  // Three channels: a pair (0, 1) and channel 2 alone; the pair's masks pick A, the lone channel's pick B.
  const [stem] = wienerStems([spec(mix), spec(mix), spec(mix)], (c) => (c === 0 ? [exact] : [wrong]), [0]);
  assert.equal(stem?.length, 3);
  for (const c of [0, 1]) {
    const figure = sdr([stem?.[c] as Float32Array], [a]);
    assert.ok(figure > 25, `channel ${c}: ${figure.toFixed(1)} dB against A`);
  }
  const lone = stem?.[2] as Float32Array;
  const figure = sdr([lone], [b]);
  assert.ok(figure > 25, `channel 2: ${figure.toFixed(1)} dB against B`);
  assert.deepEqual(lone, istft(spec(mix), wrong));
});
