/**
 * Tiny ONNX separation models written byte by byte (onnx-proto's protobuf classes), so the ONNX path runs a
 * real model through onnxruntime with outputs the tests can predict exactly.
 */
import onnxProto from "onnx-proto";

const { onnx } = onnxProto;

export interface Initializer {
  name: string;
  dims: number[];
  values: number[];
}

export interface ModelGraph {
  /** Shape of the input "spectrogram" and of the output "stem"; strings are symbolic axes. */
  shape: (number | string)[];
  /** The output's shape when it differs from the input's (a model of several stems). */
  outputShape?: (number | string)[];
  /** `axis`: the attribute of Concat and the like. */
  nodes: { op: string; inputs: string[]; output: string; axis?: number }[];
  initializers: Initializer[];
  metadata?: Record<string, string>;
}

const tensorType = (shape: (number | string)[]) => ({
  tensorType: {
    elemType: onnx.TensorProto.DataType.FLOAT,
    shape: { dim: shape.map((d) => (typeof d === "number" ? { dimValue: d } : { dimParam: d })) },
  },
});

export function onnxModel(graph: ModelGraph): Uint8Array {
  const model = onnx.ModelProto.create({
    irVersion: 7,
    producerName: "mixdown-tests",
    opsetImport: [{ domain: "", version: 13 }],
    metadataProps: Object.entries(graph.metadata ?? {}).map(([key, value]) => ({ key, value })),
    graph: {
      name: "separation",
      node: graph.nodes.map((n, i) => ({
        name: `n${i}`,
        opType: n.op,
        input: n.inputs,
        output: [n.output],
        attribute:
          n.axis === undefined ? [] : [{ name: "axis", type: onnx.AttributeProto.AttributeType.INT, i: n.axis }],
      })),
      initializer: graph.initializers.map((init) => ({
        name: init.name,
        dims: init.dims,
        dataType: onnx.TensorProto.DataType.FLOAT,
        floatData: init.values,
      })),
      input: [{ name: "spectrogram", type: tensorType(graph.shape) }],
      output: [{ name: "stem", type: tensorType(graph.outputShape ?? graph.shape) }],
    },
  });
  return onnx.ModelProto.encode(model).finish();
}

/** stem = gain · spectrogram. */
export const scaleModel = (shape: (number | string)[], gain: number, metadata?: Record<string, string>) =>
  onnxModel({
    shape,
    nodes: [{ op: "Mul", inputs: ["spectrogram", "gain"], output: "stem" }],
    initializers: [{ name: "gain", dims: [], values: [gain] }],
    ...(metadata ? { metadata } : {}),
  });

/** stem = sigmoid(weight[bin] · spectrogram + bias): a soft gate on level, per-bin weights. */
export const gateModel = (
  shape: (number | string)[],
  weights: number[],
  bias: number,
  metadata?: Record<string, string>,
) =>
  onnxModel({
    shape,
    nodes: [
      { op: "Mul", inputs: ["spectrogram", "weight"], output: "weighted" },
      { op: "Add", inputs: ["weighted", "bias"], output: "biased" },
      { op: "Sigmoid", inputs: ["biased"], output: "stem" },
    ],
    initializers: [
      { name: "weight", dims: [1, 1, weights.length, 1], values: weights },
      { name: "bias", dims: [], values: [bias] },
    ],
    ...(metadata ? { metadata } : {}),
  });

/** Two stems, gain · spectrogram then (1 − gain) · spectrogram, one after the other on the channel axis. */
export const twoStemModel = (shape: number[], gain: number) =>
  onnxModel({
    shape,
    outputShape: [shape[0] as number, 2 * (shape[1] as number), shape[2] as number, shape[3] as number],
    nodes: [
      { op: "Mul", inputs: ["spectrogram", "gain"], output: "first" },
      { op: "Sub", inputs: ["spectrogram", "first"], output: "second" },
      { op: "Concat", inputs: ["first", "second"], output: "stem", axis: 1 },
    ],
    initializers: [{ name: "gain", dims: [], values: [gain] }],
  });

/**
 * A stereo magnitude-mask model of two stems with one mask per stem for both channels (as Mixdown's network):
 * the first stem's mask is `share` everywhere, the second's 1 − share. Output [batch, 2 stems, bins, frames].
 */
export const sharedMaskModel = (shape: number[], share: number) =>
  onnxModel({
    shape,
    nodes: [
      { op: "Mul", inputs: ["spectrogram", "zero"], output: "zeros" },
      { op: "Add", inputs: ["zeros", "shares"], output: "stem" },
    ],
    initializers: [
      { name: "zero", dims: [], values: [0] },
      { name: "shares", dims: [1, 2, 1, 1], values: [share, 1 - share] },
    ],
  });
