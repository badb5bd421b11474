import assert from "node:assert/strict";
import { test } from "node:test";
import { istft, magnitudes, RealFft, stft } from "../../src/dsp/spectrogram.ts";
import { Rng } from "../music/synth.ts";
import { maxDifference } from "./signals.ts";

const noise = (length: number, seed: number) => {
  const rng = new Rng(seed);
  return Float32Array.from({ length }, () => rng.uniform(-1, 1));
};

test("RealFft equals the DFT, for powers of 2 and odd multiples of them", () => {
  for (const size of [16, 64, 48, 80, 240]) {
    const input = Float64Array.from(noise(size, size));
    const out = new Float64Array(2 * size + 2);
    new RealFft(size).transform(out, input);
    let error = 0;
    for (let k = 0; k <= size / 2; k++) {
      let re = 0;
      let im = 0;
      for (let n = 0; n < size; n++) {
        re += (input[n] as number) * Math.cos((2 * Math.PI * k * n) / size);
        im -= (input[n] as number) * Math.sin((2 * Math.PI * k * n) / size);
      }
      error = Math.max(error, Math.abs(re - (out[2 * k] as number)), Math.abs(im - (out[2 * k + 1] as number)));
    }
    assert.ok(error < 1e-9, `size ${size}: error ${error}`);
  }
  assert.throws(() => new RealFft(6144 * 17), RangeError);
});

test("stft frames are Hann-windowed DFTs centred on t·hop, zero outside the signal", () => {
  const signal = noise(1000, 1);
  const size = 64;
  const hop = 16;
  const spec = stft(signal, size, hop);
  assert.equal(spec.frames, Math.floor(1000 / hop) + 1);
  assert.equal(spec.bins, 33);
  for (const t of [0, 1, 30, spec.frames - 1]) {
    for (const k of [0, 5, 32]) {
      let re = 0;
      let im = 0;
      for (let n = 0; n < size; n++) {
        const index = t * hop - size / 2 + n;
        const x = index >= 0 && index < signal.length ? (signal[index] as number) : 0;
        const w = 0.5 - 0.5 * Math.cos((2 * Math.PI * n) / size);
        re += x * w * Math.cos((2 * Math.PI * k * n) / size);
        im -= x * w * Math.sin((2 * Math.PI * k * n) / size);
      }
      const cell = t * spec.bins + k;
      assert.ok(Math.abs(re - (spec.re[cell] as number)) < 1e-5, `frame ${t} bin ${k} re`);
      assert.ok(Math.abs(im - (spec.im[cell] as number)) < 1e-5, `frame ${t} bin ${k} im`);
    }
  }
});

test("istft(stft(x)) = x to float precision, edges included, for several sizes and overlaps", () => {
  for (const [size, hop, length] of [
    [4096, 1024, 44100],
    [2048, 512, 3000],
    [6144, 1024, 20000],
    [7680, 1920, 9000],
    [256, 128, 1001],
    [1024, 256, 100],
  ] as const) {
    const signal = noise(length, size + hop);
    const error = maxDifference(istft(stft(signal, size, hop)), signal);
    assert.ok(error < 1e-5, `${size}/${hop}: error ${error}`);
  }
});

test("two masks that sum to 1 give stems that sum to the input", () => {
  const signal = noise(30000, 9);
  const spec = stft(signal, 2048, 512);
  const mags = magnitudes(spec);
  const mask = Float32Array.from(mags, (m, i) => (i % 7 === 0 ? 0 : m / (m + 3)));
  const complement = Float32Array.from(mask, (m) => 1 - m);
  const a = istft(spec, mask);
  const b = istft(spec, complement);
  const sum = a.map((v, i) => v + (b[i] as number));
  assert.ok(maxDifference(sum, signal) < 1e-5);
  // And the masks did split it: neither stem is the input or silence.
  assert.ok(maxDifference(a, signal) > 0.1 && maxDifference(b, signal) > 0.1);
});

test("masking is linear: a constant mask g gives g·x", () => {
  const signal = noise(5000, 4);
  const spec = stft(signal, 512, 128);
  const out = istft(spec, new Float32Array(spec.re.length).fill(0.25));
  assert.ok(
    maxDifference(
      out,
      signal.map((v) => v * 0.25),
    ) < 1e-6,
  );
});
