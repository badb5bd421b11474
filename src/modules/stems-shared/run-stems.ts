import fs from "node:fs";
import path from "node:path";
import { progressSpan } from "../../engine/progress.ts";
import type { Module, ModuleContext } from "../../engine/types.ts";
import { JobFailure } from "../../jobs/job-failure.ts";
import { AUDIO_FORMAT_NAMES, AUDIO_FORMATS, type AudioFormat } from "../../media/formats.ts";
import { decodeAudio, encodePcm, type Pcm } from "../../media/pcm.ts";
import { readOnnxMetadata } from "./onnx-metadata.ts";
import { type ModelSettings, modelFailure, separateWithModel } from "./onnx-separator.ts";

/**
 * What the two stem modules share: a stem and its complement (the input minus the stem, so the two always add
 * up to the input), made by an operator-supplied ONNX model when its file is in the models directory and by a
 * classical method otherwise.
 */
export interface StemPair {
  /** The stem the classical method (or by default the model) estimates, e.g. "drums". */
  target: string;
  /** The complement, e.g. "other". */
  rest: string;
  /** Model file looked up in the models directory when the job names none. */
  defaultModel: string;
  /** `method` output of the classical path. */
  classicalMethod: string;
  /** The target stem, one signal per channel, by the classical method. */
  classical(pcm: Pcm): Float32Array[];
}

/** A model file named in a job: a plain .onnx file name in the models directory, never a path. */
export const MODEL_FILE = { type: "string", pattern: "^[A-Za-z0-9][A-Za-z0-9_.-]*\\.onnx$" };

export function stemParams(pair: StemPair): Record<string, unknown> {
  return {
    type: "object",
    additionalProperties: false,
    properties: {
      format: { enum: AUDIO_FORMAT_NAMES, default: "wav" },
      method: {
        enum: ["auto", "model", "classical"],
        default: "auto",
        description: "auto: the model when its file is present, else the classical method",
      },
      model: { ...MODEL_FILE, default: pair.defaultModel, description: "ONNX file in the models directory" },
      modelFftSize: { type: "integer", minimum: 16, maximum: 65536, description: "default: n_fft metadata, or 6144" },
      modelHop: { type: "integer", minimum: 1, maximum: 32768, description: "default: hop_length metadata, or 1024" },
      modelFrames: {
        type: "integer",
        minimum: 1,
        maximum: 4096,
        description: "frames per chunk if the model's input shape leaves them open (default: frames metadata, or 256)",
      },
      modelOutput: { enum: ["spectrogram", "mask"], description: "default: output metadata, or spectrogram" },
      modelStem: { enum: [pair.target, pair.rest], description: `default: stem metadata, or ${pair.target}` },
    },
  };
}

interface StemParams {
  format: AudioFormat;
  method: "auto" | "model" | "classical";
  model: string;
  modelFftSize?: number;
  modelHop?: number;
  modelFrames?: number;
  modelOutput?: ModelSettings["output"];
  modelStem?: string;
}

/** A job that insists on the model cannot run where its file is missing. */
export function stemAvailability(pair: StemPair): NonNullable<Module["availability"]> {
  return (params, env) => {
    if (params.method !== "model") return undefined;
    const model = typeof params.model === "string" ? params.model : pair.defaultModel;
    return fs.existsSync(path.join(env.modelsDir, model))
      ? undefined
      : `model file ${model} is not in the models directory`;
  };
}

/** The job's overrides of a model's settings (stems-drums and stems-vocals-accompaniment take them as params). */
export type ModelOverrides = Pick<
  StemParams,
  "modelFftSize" | "modelHop" | "modelFrames" | "modelOutput" | "modelStem"
>;

/**
 * A model file's separator settings: the job's overrides, else its metadata_props (`n_fft`, `hop_length`,
 * `frames`, `overlap`, `output`), else MDX-Net's usual values; with the metadata, for what else it says.
 */
export async function modelSettingsOf(
  file: string,
  p: ModelOverrides = {},
): Promise<{ settings: ModelSettings; metadata: Record<string, string> }> {
  let metadata: Record<string, string>;
  try {
    metadata = await readOnnxMetadata(file);
  } catch (error) {
    throw modelFailure(file, `it is not an ONNX model (${(error as Error).message})`, error);
  }
  const integer = (param: number | undefined, key: string, fallback: number, least = 1) => {
    const value = param ?? (metadata[key] === undefined ? fallback : Number(metadata[key]));
    if (!Number.isInteger(value) || value < least)
      throw modelFailure(file, `its ${key} metadata "${metadata[key]}" is not a count`);
    return value;
  };
  const output = p.modelOutput ?? metadata.output ?? "spectrogram";
  if (output !== "spectrogram" && output !== "mask") {
    throw modelFailure(file, `its output metadata "${output}" is neither spectrogram nor mask`);
  }
  const settings: ModelSettings = {
    fftSize: integer(p.modelFftSize, "n_fft", 6144),
    hop: integer(p.modelHop, "hop_length", 1024),
    frames: integer(p.modelFrames, "frames", 256),
    ...(metadata.overlap === undefined ? {} : { overlap: integer(undefined, "overlap", 0, 0) }),
    output,
  };
  return { settings, metadata };
}

/** Settings of a one-stem model, and which of the pair its output is (the job's modelStem, else its stem metadata). */
async function modelSettings(
  file: string,
  p: ModelOverrides,
  pair: Pick<StemPair, "target" | "rest">,
): Promise<ModelSettings & { stem: string }> {
  const { settings, metadata } = await modelSettingsOf(file, p);
  const stem = p.modelStem ?? metadata.stem ?? pair.target;
  if (stem !== pair.target && stem !== pair.rest) {
    throw modelFailure(file, `its stem metadata "${stem}" is neither ${pair.target} nor ${pair.rest}`);
  }
  return { ...settings, stem };
}

export async function runStems(ctx: ModuleContext, pair: StemPair): Promise<Record<string, unknown>> {
  const p = ctx.params as unknown as StemParams;
  const decoding = progressSpan(ctx.reportProgress, 0, 0.1);
  const pcm = await decodeAudio(String(ctx.inputs.audio), { onProgress: decoding }, ctx.signal);
  ctx.reportProgress?.(0.1);
  const modelFile = path.join(ctx.modelsDir, p.model);
  const modelPresent = p.method !== "classical" && fs.existsSync(modelFile);
  if (p.method === "model" && !modelPresent) {
    throw new JobFailure(
      "BAD_INPUT",
      `method "model" needs the model file ${p.model}, which this server does not have.`,
    );
  }

  let target: Float32Array[];
  let method: string;
  if (modelPresent) {
    const separating = progressSpan(ctx.reportProgress, 0.1, 0.9);
    target = await modelStem(modelFile, pcm, p, pair, ctx.signal, separating);
    method = `onnx:${p.model}`;
  } else {
    target = pair.classical(pcm);
    method = pair.classicalMethod;
  }
  const rest = complement(pcm.channels, target);
  ctx.reportProgress?.(0.9);

  const extension = AUDIO_FORMATS[p.format].extension;
  const targetFile = path.join(ctx.outputDir, `${pair.target}.${extension}`);
  const restFile = path.join(ctx.outputDir, `${pair.rest}.${extension}`);
  await Promise.all([
    encodePcm({ sampleRate: pcm.sampleRate, channels: target }, targetFile, p.format, ctx.signal),
    encodePcm({ sampleRate: pcm.sampleRate, channels: rest }, restFile, p.format, ctx.signal),
  ]);
  return { [pair.target]: targetFile, [pair.rest]: restFile, method };
}

/**
 * `pair.target` of a recording by an operator's model, one signal per channel: the model's output, or the input
 * minus it when the model (by its `stem` metadata or the job's override) estimates `pair.rest`.
 */
export async function modelStem(
  modelFile: string,
  pcm: Pcm,
  overrides: ModelOverrides,
  pair: Pick<StemPair, "target" | "rest">,
  signal?: AbortSignal,
  onProgress?: (fraction: number) => void,
): Promise<Float32Array[]> {
  const settings = await modelSettings(modelFile, overrides, pair);
  let stem: Float32Array[];
  try {
    stem = await separateWithModel(modelFile, pcm.channels, settings, signal, onProgress);
  } catch (error) {
    if (error instanceof RangeError) throw modelFailure(modelFile, error.message, error);
    throw error;
  }
  return settings.stem === pair.target ? stem : complement(pcm.channels, stem);
}

/** The input minus the given stems, channel by channel. */
export function complement(
  input: readonly Float32Array[],
  ...stems: readonly (readonly Float32Array[])[]
): Float32Array[] {
  return input.map((channel, c) => {
    const parts = stems.map((stem) => stem[c] as Float32Array);
    const rest = new Float32Array(channel.length);
    for (let i = 0; i < channel.length; i++) {
      let value = channel[i] as number;
      for (const part of parts) value -= part[i] as number;
      rest[i] = value;
    }
    return rest;
  });
}
