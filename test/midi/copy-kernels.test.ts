import assert from "node:assert/strict";
import { before, describe, test } from "node:test";
import * as tf from "@tensorflow/tfjs";
import { useWasmBackend } from "../../src/modules/audio-to-midi/model.ts";

/** The same op on tfjs' reference CPU backend and on the WASM backend with Mixdown's copy kernels. */
async function onBoth(op: () => tf.Tensor): Promise<{ cpu: tf.TypedArray; wasm: tf.TypedArray; shapes: number[][] }> {
  await tf.setBackend("cpu");
  const cpu = tf.tidy(op);
  await useWasmBackend();
  const wasm = tf.tidy(op);
  const result = { cpu: cpu.dataSync(), wasm: wasm.dataSync(), shapes: [cpu.shape, wasm.shape] };
  cpu.dispose();
  wasm.dispose();
  return result;
}

async function assertSame(op: () => tf.Tensor): Promise<void> {
  const { cpu, wasm, shapes } = await onBoth(op);
  assert.deepEqual(shapes[1], shapes[0]);
  assert.deepEqual(wasm, cpu);
}

/** Values that tell every position apart (the same on each call: onBoth runs the op twice), float32 or int32. */
function values(shape: number[], dtype: "float32" | "int32" = "float32"): tf.Tensor {
  const size = shape.reduce((a, b) => a * b, 1);
  const data = Array.from({ length: size }, (_, i) => (dtype === "int32" ? i * 7 - 3 : i + ((i * 7919) % 97) / 97));
  return tf.tensor(data, shape, dtype);
}

describe("copy kernels for tfjs' WASM backend (the same values as the CPU backend)", () => {
  before(() => useWasmBackend());

  test("concat along every axis, inner blocks of 1 value to whole tensors, float32 and int32", async () => {
    for (const dtype of ["float32", "int32"] as const) {
      for (let axis = -1; axis < 4; axis++) {
        const shape = [2, 3, 5, 4];
        const other = shape.map((n, i) => (i === (axis + 4) % 4 ? n + 2 : n));
        await assertSame(() => tf.concat([values(shape, dtype), values(other, dtype), values(shape, dtype)], axis));
      }
      // basic-pitch's harmonic stacking: one value per input and row.
      await assertSame(() =>
        tf.concat(
          Array.from({ length: 8 }, () => values([1, 17, 31, 1], dtype)),
          -1,
        ),
      );
    }
    await assertSame(() => tf.concat([values([3, 0]), values([3, 4]), values([3, 0])], 1));
    await assertSame(() => tf.concat([values([5])], 0));
  });

  test("stack (pack) on every axis", async () => {
    for (let axis = -1; axis <= 3; axis++) {
      await assertSame(() => tf.stack([values([2, 3, 4]), values([2, 3, 4]), values([2, 3, 4])], axis));
    }
    await assertSame(() => tf.stack([tf.scalar(1), tf.scalar(2), tf.scalar(3)]));
    await assertSame(() => tf.stack([values([4], "int32"), values([4], "int32")], 1));
  });

  test("slice: whole axes, inner parts, single values, size -1, empty", async () => {
    const x = () => values([3, 4, 5, 2]);
    await assertSame(() => tf.slice(x(), [0, 0, 0, 0], [3, 4, 5, 2]));
    await assertSame(() => tf.slice(x(), [1, 0, 0, 0], [2, 4, 5, 2]));
    await assertSame(() => tf.slice(x(), [0, 1, 2, 0], [3, 2, 3, 2]));
    await assertSame(() => tf.slice(x(), [1, 2, 3, 1], [1, 1, 1, 1]));
    await assertSame(() => tf.slice(x(), [0, 0, 1, 1], [-1, -1, -1, -1]));
    await assertSame(() => tf.slice(x(), [2, 1, 0, 0], [1, 3, 5, 1]));
    await assertSame(() => tf.slice(values([10, 3], "int32"), [4, 1], [5, 2]));
    await assertSame(() => tf.slice(x(), [0, 0, 0, 0], [3, 0, 5, 2]));
  });

  test("strided slice: masks, negative bounds, new and shrunk axes, strides other than 1", async () => {
    const x = () => values([1, 17, 31, 1]);
    // basic-pitch's: begin [0, 0, 5, 0] with beginMask 11 and endMask 15, and the end cut off by -5.
    await assertSame(() => tf.stridedSlice(x(), [0, 0, 5, 0], [0, 0, 0, 0], [1, 1, 1, 1], 11, 15));
    await assertSame(() => tf.stridedSlice(x(), [0, 0, 0, 0], [0, 0, -5, 0], [1, 1, 1, 1], 15, 11));
    await assertSame(() => tf.stridedSlice(values([1, 9, 2]), [0, -4, 0], [0, 0, 0], [1, 1, 1], 5, 7));
    await assertSame(() => tf.stridedSlice(values([1, 40]), [0, 0, 0], [0, 0, 0], [1, 1, 1], 5, 5, 0, 2));
    await assertSame(() => tf.stridedSlice(values([4]), [0], [1], [1], 0, 0, 0, 0, 1));
    await assertSame(() => tf.stridedSlice(values([3, 4, 5]), [1, 1, 1], [3, 3, 4], [1, 1, 1]));
    await assertSame(() => tf.stridedSlice(values([6, 6]), [0, 1], [6, 6], [2, 2]));
    await assertSame(() => tf.stridedSlice(values([6, 6]), [5, 0], [0, 6], [-1, 1]));
    await assertSame(() => tf.stridedSlice(values([3, 4, 5]), [0, 1], [3, 3], [1, 1], 0, 0, 1));
  });

  test("copies a run of values at a time, not one view per value (the backend's own made 4,658 here)", async () => {
    await useWasmBackend();
    const parts = Array.from({ length: 8 }, () => values([1, 17, 31, 1]));
    const cut = values([1, 17, 31, 1]);
    const subarray = Float32Array.prototype.subarray;
    let views = 0;
    Float32Array.prototype.subarray = function (this: Float32Array, ...args) {
      views++;
      return subarray.apply(this, args);
    };
    try {
      tf.tidy(() => {
        tf.concat(parts, -1).dataSync();
        tf.stridedSlice(cut, [0, 0, 5, 0], [0, 0, 0, 0], [1, 1, 1, 1], 11, 15).dataSync();
      });
    } finally {
      Float32Array.prototype.subarray = subarray;
      tf.dispose([...parts, cut]);
    }
    // The backend's own kernels made one view per value: 8 × 17 × 31 for the concat, 17 × 26 for the slice.
    assert.ok(views < 100, `${views} views made`);
  });
});
