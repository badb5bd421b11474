import fs from "node:fs";
import path from "node:path";
import { progressSpan } from "../../engine/progress.ts";
import type { Module, ModuleContext } from "../../engine/types.ts";
import { JobFailure } from "../../jobs/job-failure.ts";
import { AUDIO_FORMAT_NAMES, AUDIO_FORMATS, type AudioFormat } from "../../media/formats.ts";
import { fitToFullScale } from "../../media/headroom.ts";
import { decodeAudio, encodePcm, type Pcm } from "../../media/pcm.ts";
import { type ModelOverrides, modelSettingsOf } from "./model-settings.ts";
import { type NetworkStem, networkStemsOf } from "./network.ts";
import { type ModelSettings, modelFailure, separateWithModel } from "./onnx-separator.ts";

/**
 * What the two stem modules share: a stem and its complement (the input minus the stem, so the two always add
 * up to the input), made by an operator-supplied ONNX model when its file is in the models directory, else by
 * Mixdown's own four-stem network (network.ts, only the asked stem computed), or by a classical method when the
 * job asks for it. The network wins by several dB on the rendered corpus and on speech over a loop, and is within
 * about 1 dB of HPSS on synthesised drums (README has the figures).
 */
export interface StemPair {
  /** The stem the classical method, the network (and by default the model) estimate, e.g. "drums". */
  target: NetworkStem;
  /** The complement, e.g. "other". */
  rest: string;
  /** Model file looked up in the models directory when the job names none. */
  defaultModel: string;
  /** `method` output of the classical path. */
  classicalMethod: string;
  /** The target stem, one signal per channel, by the classical method. */
  classical(pcm: Pcm): Float32Array[];
}

/** The `scale` output of the separation modules: what fitToFullScale multiplied their stems by. */
export const SCALE_OUTPUT = {
  type: "number",
  description:
    "What every stem was multiplied by so that none passes full scale: 1 unless a stem (or a decoded lossy input) would have clipped; the stems add up to the input times it",
} as const;

/** A model file named in a job: a plain .onnx file name in the models directory, never a path. */
export const MODEL_FILE = { type: "string", pattern: "^[A-Za-z0-9][A-Za-z0-9_.-]*\\.onnx$" };

export function stemParams(pair: StemPair): Record<string, unknown> {
  return {
    type: "object",
    additionalProperties: false,
    properties: {
      format: { enum: AUDIO_FORMAT_NAMES, default: "wav" },
      method: {
        enum: ["auto", "model", "network", "classical"],
        default: "auto",
        description:
          "auto: the operator's model when its file is present, else Mixdown's four-stem network; model: the operator's model only; network: Mixdown's four-stem network (as stems-4 runs it); classical: the classical method",
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

interface StemParams extends ModelOverrides {
  format: AudioFormat;
  method: "auto" | "model" | "network" | "classical";
  model: string;
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
  const modelPresent = (p.method === "auto" || p.method === "model") && fs.existsSync(modelFile);
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
  } else if (p.method === "network" || p.method === "auto") {
    const separating = progressSpan(ctx.reportProgress, 0.1, 0.9);
    const scratch = path.join(ctx.outputDir, ".network");
    const stems = await networkStemsOf(String(ctx.inputs.audio), pcm, [pair.target], scratch, ctx.signal, separating);
    target = stems[pair.target];
    method = "network";
  } else {
    target = pair.classical(pcm);
    method = pair.classicalMethod;
  }
  const rest = complement(pcm.channels, target);
  const scale = fitToFullScale([target, rest]);
  ctx.reportProgress?.(0.9);

  const extension = AUDIO_FORMATS[p.format].extension;
  const targetFile = path.join(ctx.outputDir, `${pair.target}.${extension}`);
  const restFile = path.join(ctx.outputDir, `${pair.rest}.${extension}`);
  await Promise.all([
    encodePcm({ sampleRate: pcm.sampleRate, channels: target }, targetFile, p.format, ctx.signal),
    encodePcm({ sampleRate: pcm.sampleRate, channels: rest }, restFile, p.format, ctx.signal),
  ]);
  return { [pair.target]: targetFile, [pair.rest]: restFile, method, scale };
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
    const rest = Float32Array.from(channel);
    // One pass per stem: a loop over the stems inside the loop over samples ran three times slower.
    for (const stem of stems) {
      const part = stem[c] as Float32Array;
      for (let i = 0; i < rest.length; i++) rest[i] = (rest[i] as number) - (part[i] as number);
    }
    return rest;
  });
}
