import * as tf from "@tensorflow/tfjs";
import type { BackendWasm } from "@tensorflow/tfjs-backend-wasm";

type TypedArray = Float32Array | Int32Array | Uint8Array;

let registered = false;

/**
 * Concat, Pack, Slice and StridedSlice for tfjs' WASM backend, replacing the backend's own. Those copy in
 * JavaScript, one `subarray` + `set` per innermost row: when that row is a single value (basic-pitch's harmonic
 * stacking slices and concatenates [1, 172, 309, 1] tensors along axis 2 and 3), that is a view object made and
 * thrown away per value, 40 % of a MIDI job's CPU and most of its garbage. These copy the same values, in
 * contiguous runs as long as the layout allows, with a plain loop for short runs. Must run before the backend is
 * initialised (the kernels' setup functions run then); strings and the cases not listed go to the original kernels.
 */
export function registerCopyKernels(): void {
  if (registered) return;
  registered = true;
  override(tf.Concat, (original) => (args) => {
    const inputs = (args.inputs as unknown as tf.TensorInfo[]).filter((t) => tf.util.sizeFromShape(t.shape) > 0);
    const first = inputs[0];
    if (!first || first.dtype === "string" || inputs.length === 1) return original(args);
    const attrs = args.attrs as unknown as tf.ConcatAttrs;
    const axis = tf.util.parseAxisParam(attrs.axis, first.shape)[0] as number;
    tf.backend_util.assertParamsConsistent(
      inputs.map((t) => t.shape),
      axis,
    );
    const outShape = tf.backend_util.computeOutShape(
      inputs.map((t) => t.shape),
      axis,
    );
    return interleave(args.backend as BackendWasm, inputs, outShape, axis);
  });

  override(tf.Pack, (original) => (args) => {
    const inputs = args.inputs as unknown as tf.TensorInfo[];
    const first = inputs[0];
    if (!first || first.dtype === "string" || inputs.length === 1) return original(args);
    for (const t of inputs) {
      tf.util.assertShapesMatch(first.shape, t.shape, "All tensors passed to stack must have matching shapes");
      tf.util.assert(t.dtype === first.dtype, () => "All tensors passed to stack must have matching dtypes");
    }
    const { axis: given } = args.attrs as unknown as tf.PackAttrs;
    const axis = given < 0 ? given + first.shape.length + 1 : given;
    const outShape = [...first.shape.slice(0, axis), inputs.length, ...first.shape.slice(axis)];
    // Stacking is concatenating the inputs, each with a new axis of length 1, along that axis.
    return interleave(args.backend as BackendWasm, inputs, outShape, axis);
  });

  override(tf.Slice, (original) => (args) => {
    const x = args.inputs.x as tf.TensorInfo;
    if (x.dtype === "string") return original(args);
    const attrs = args.attrs as unknown as tf.SliceAttrs;
    const [begin, size] = tf.slice_util.parseSliceParams(x as tf.Tensor, attrs.begin, attrs.size) as [
      number[],
      number[],
    ];
    return sliceInto(args.backend as BackendWasm, x, begin, size, size);
  });

  override(tf.StridedSlice, (original) => (args) => {
    const x = args.inputs.x as tf.TensorInfo;
    const a = args.attrs as unknown as tf.StridedSliceAttrs;
    const info = tf.slice_util.sliceInfo(
      x.shape,
      a.begin,
      a.end,
      a.strides,
      a.beginMask,
      a.endMask,
      a.ellipsisMask,
      a.newAxisMask,
      a.shrinkAxisMask,
    );
    // The original's other paths: a reshape (identity) and strides other than 1 (done in WASM).
    if (x.dtype === "string" || info.isIdentity || !(info.sliceDim0 || info.isSimpleSlice)) return original(args);
    const size = tf.slice_util.computeOutShape(info.begin, info.end, info.strides);
    if (size.some((n) => n <= 0)) return original(args); // an empty slice
    return sliceInto(args.backend as BackendWasm, x, info.begin, size, info.finalShape);
  });
}

/** Replaces a kernel of the WASM backend, keeping its setup function; `make` gets the original to fall back on. */
function override(name: string, make: (original: tf.KernelFunc) => tf.KernelFunc): void {
  const config = tf.getKernel(name, "wasm");
  if (!config) throw new Error(`tfjs' WASM backend has no ${name} kernel to replace`);
  tf.unregisterKernel(name, "wasm");
  tf.registerKernel({ ...config, kernelFunc: make(config.kernelFunc) as tf.KernelFunc });
}

/**
 * The inputs concatenated along `axis` into a new tensor of `outShape`: for each index of the axes before `axis`,
 * each input's block of the axes from `axis` on, one after the other.
 */
function interleave(backend: BackendWasm, inputs: tf.TensorInfo[], outShape: number[], axis: number): tf.TensorInfo {
  const out = backend.makeOutput(outShape, (inputs[0] as tf.TensorInfo).dtype);
  // Views of the heap only after makeOutput, which may grow (and so detach) the WASM memory.
  const outVals = backend.typedArrayFromHeap(out) as TypedArray;
  const outer = tf.util.sizeFromShape(outShape.slice(0, axis));
  const outBlock = outVals.length / Math.max(outer, 1);
  let offset = 0;
  for (const input of inputs) {
    const vals = backend.typedArrayFromHeap(input) as TypedArray;
    const block = vals.length / Math.max(outer, 1);
    for (let b = 0; b < outer; b++) copy(vals, b * block, outVals, b * outBlock + offset, block);
    offset += block;
  }
  return out;
}

/**
 * The part of `x` from `begin`, `size` long on each axis, into a new tensor of `outShape` (the same values in the
 * same order: `size`, or it with axes of length 1 dropped or added). The trailing axes taken whole and the innermost
 * axis taken in part make one contiguous run; an odometer walks the axes before it.
 */
function sliceInto(
  backend: BackendWasm,
  x: tf.TensorInfo,
  begin: number[],
  size: number[],
  outShape: number[],
): tf.TensorInfo {
  const out = backend.makeOutput(outShape, x.dtype);
  if (tf.util.sizeFromShape(size) === 0) return out;
  const xVals = backend.typedArrayFromHeap(x) as TypedArray;
  const outVals = backend.typedArrayFromHeap(out) as TypedArray;
  const strides = [...tf.util.computeStrides(x.shape), 1];
  let partial = size.length - 1;
  while (partial > 0 && size[partial] === x.shape[partial]) partial--;
  const run = (size[partial] as number) * (strides[partial] as number);
  let from = 0;
  for (let axis = 0; axis <= partial; axis++) from += (begin[axis] as number) * (strides[axis] as number);
  const index = new Int32Array(partial);
  for (let to = 0; to < outVals.length; to += run) {
    copy(xVals, from, outVals, to, run);
    // Next index over the axes before `partial`, last axis fastest.
    for (let axis = partial - 1; axis >= 0; axis--) {
      from += strides[axis] as number;
      const next = (index[axis] as number) + 1;
      index[axis] = next;
      if (next < (size[axis] as number)) break;
      from -= (size[axis] as number) * (strides[axis] as number);
      index[axis] = 0;
    }
  }
  return out;
}

/** `length` values from `src` at `from` to `dst` at `to`; short runs in a loop (a view per run costs more). */
function copy(src: TypedArray, from: number, dst: TypedArray, to: number, length: number): void {
  if (length > 16) {
    dst.set(src.subarray(from, from + length), to);
    return;
  }
  for (let i = 0; i < length; i++) dst[to + i] = src[from + i] as number;
}
