import assert from "node:assert/strict";
import { test } from "node:test";
import { FULL_SCALE, fitToFullScale } from "../../src/media/headroom.ts";

test("stems within full scale are left as they are: factor 1, not a sample changed", () => {
  const a = [Float32Array.from([0.5, -FULL_SCALE, 0.25]), Float32Array.from([-1e-3, 0, FULL_SCALE])];
  const b = [Float32Array.from([0.1, 0.2, -0.3]), Float32Array.from([0, 0, 0])];
  const before = [...a, ...b].map((channel) => Array.from(channel));
  assert.equal(fitToFullScale([a, b]), 1);
  assert.deepEqual(
    [...a, ...b].map((channel) => Array.from(channel)),
    before,
  );
});

test("one stem past full scale: every stem takes the one factor that brings the loudest sample to full scale", () => {
  // The loudest sample is negative and in the second stem's second channel.
  const a = [Float32Array.from([0.9, -0.4, 0.3]), Float32Array.from([0.2, 0.8, -0.1])];
  const b = [Float32Array.from([0.5, 0.7, -0.2]), Float32Array.from([0.1, -1.6, 0.6])];
  const sums = a.map((channel, c) => Array.from(channel, (v, i) => v + (b[c]?.[i] as number)));
  const factor = fitToFullScale([a, b]);
  assert.equal(factor, Math.floor((FULL_SCALE / 1.6) * 1e6) / 1e6, "six decimals, rounded down");
  const all = [...a, ...b].flatMap((channel) => Array.from(channel));
  const peak = Math.max(...all.map(Math.abs));
  assert.ok(peak <= FULL_SCALE && peak > FULL_SCALE - 2e-6, `peak ${peak}`);
  assert.equal(b[1]?.[1], Math.fround(-1.6 * factor), "the loudest sample keeps its sign");
  // The balance between stems and their sum are kept: they add up to the old sum times the factor.
  assert.ok(Math.abs((a[0]?.[0] as number) / (b[0]?.[0] as number) - 0.9 / 0.5) < 1e-6);
  for (const [c, channel] of a.entries()) {
    for (const [i, v] of channel.entries()) {
      const total = v + (b[c]?.[i] as number);
      assert.ok(Math.abs(total - (sums[c]?.[i] as number) * factor) < 1e-6, `sum at ${c}/${i}`);
    }
  }
});
