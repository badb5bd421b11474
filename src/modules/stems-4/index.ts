import fs from "node:fs";
import path from "node:path";
import { fourStemMasks } from "../../dsp/four-stems.ts";
import { istft, stft } from "../../dsp/spectrogram.ts";
import { progressSpan } from "../../engine/progress.ts";
import type { Module } from "../../engine/types.ts";
import { JobFailure } from "../../jobs/job-failure.ts";
import { AUDIO_FORMAT_NAMES, AUDIO_FORMATS, type AudioFormat } from "../../media/formats.ts";
import { fitToFullScale } from "../../media/headroom.ts";
import { decodeAudio, encodePcm, type Pcm } from "../../media/pcm.ts";
import { analysisSize } from "../stems-shared/masked-stem.ts";
import { NETWORK_STEMS, networkStems, networkStemsOf } from "../stems-shared/network.ts";
import { complement, MODEL_FILE, modelStem, SCALE_OUTPUT } from "../stems-shared/run-stems.ts";

export const FOUR_STEMS = ["vocals", "drums", "bass", "other"] as const;
export type FourStems = Record<(typeof FOUR_STEMS)[number], Float32Array[]>;

/** Vocals, drums and bass of a recording by the classical masks of dsp/four-stems.ts (one mask per stem for all channels). */
function classicalStems(pcm: Pcm): Omit<FourStems, "other"> {
  const { fftSize, hop } = analysisSize(pcm.sampleRate);
  const specs = pcm.channels.map((channel) => stft(channel, fftSize, hop));
  const masks = fourStemMasks(specs, pcm.sampleRate);
  return {
    vocals: specs.map((spec) => istft(spec, masks.vocals)),
    drums: specs.map((spec) => istft(spec, masks.drums)),
    bass: specs.map((spec) => istft(spec, masks.bass)),
  };
}

/** The four classical stems; other is the input minus the three, so the four add up to the input exactly. */
export function fourStemsClassical(pcm: Pcm): FourStems {
  const { vocals, drums, bass } = classicalStems(pcm);
  return { vocals, drums, bass, other: complement(pcm.channels, drums, bass, vocals) };
}

/** The four stems by Mixdown's network (`pcm` at NETWORK_SAMPLE_RATE, 44.1 kHz); other is the input minus the three, as always. */
export async function fourStemsNetwork(pcm: Pcm, signal?: AbortSignal): Promise<FourStems> {
  const { vocals, drums, bass } = await networkStems(pcm, NETWORK_STEMS, signal);
  return { vocals, drums, bass, other: complement(pcm.channels, drums, bass, vocals) };
}

/** The stems an operator's model can give, the file looked up by default, and what a model's `stem` may name instead. */
const MODEL_STEMS = [
  { target: "vocals", rest: "accompaniments", param: "vocalsModel", defaultModel: "vocals.onnx" },
  { target: "drums", rest: "other", param: "drumsModel", defaultModel: "drums.onnx" },
  { target: "bass", rest: "other", param: "bassModel", defaultModel: "bass.onnx" },
] as const;
type ModelStem = (typeof MODEL_STEMS)[number];

interface Stems4Params {
  format: AudioFormat;
  method: "auto" | "model" | "network" | "classical";
  vocalsModel: string;
  drumsModel: string;
  bassModel: string;
}

const modelFileOf = (params: Record<string, unknown>, stem: ModelStem) =>
  typeof params[stem.param] === "string" ? (params[stem.param] as string) : stem.defaultModel;

/** The stems whose operator model file is in the models directory, unless the job asks for the network or the classical method. */
function stemsWithModel(params: Record<string, unknown>, modelsDir: string): ModelStem[] {
  if (params.method === "classical" || params.method === "network") return [];
  return MODEL_STEMS.filter((stem) => fs.existsSync(path.join(modelsDir, modelFileOf(params, stem))));
}

/**
 * Vocals, drums and bass each from the operator's ONNX model for that stem when its file is present (MDX-Net
 * style, as stems-drums and stems-vocals-accompaniment run them), the others from Mixdown's own network
 * (network.ts), or from the classical masks when the job asks; other is the input minus the three, so the four
 * add up to the input whatever made them.
 */
export const stems4Module: Module = {
  name: "stems-4",
  description:
    "Splits a song into vocals, drums, bass and other. Each of vocals, drums and bass comes from the operator's ONNX separation model for it (vocals.onnx, drums.onnx, bass.onnx) when the file is in the models directory; otherwise from Mixdown's own mask network (a small network trained on rendered multi-instrument songs, shipped with Mixdown), or, with method classical, from classical masks: harmonic/percussive/residual separation for the drums (Driedger et al. 2014), a low-band f0 track and its partials for the bass, a predominant-melody f0 track for the vocals. The four stems add up to the input.",
  params: {
    type: "object",
    additionalProperties: false,
    properties: {
      format: { enum: AUDIO_FORMAT_NAMES, default: "wav" },
      method: {
        enum: ["auto", "model", "network", "classical"],
        default: "auto",
        description:
          "auto: each stem's operator model when its file is present, else Mixdown's network; model: all three operator models; network: Mixdown's network only; classical: the classical masks only",
      },
      ...Object.fromEntries(
        MODEL_STEMS.map((stem) => [
          stem.param,
          { ...MODEL_FILE, default: stem.defaultModel, description: `ONNX file of the ${stem.target} model` },
        ]),
      ),
    },
  },
  inputs: { audio: { type: "audio", description: "Song to separate" } },
  outputs: {
    vocals: { type: "audio", description: "Lead vocals (the predominant melody)" },
    drums: { type: "audio", description: "Drums, cymbals included" },
    bass: { type: "audio", description: "Bass line" },
    other: { type: "audio", description: "Everything else: the input minus the other three" },
    method: {
      type: "string",
      description:
        '"network" or "classical", or per stem what made it: "vocals=onnx:vocals.onnx drums=network bass=network"',
    },
    scale: SCALE_OUTPUT,
  },
  heavy: true,
  availability(params, env) {
    if (params.method !== "model") return undefined;
    const missing = MODEL_STEMS.map((stem) => modelFileOf(params, stem)).filter(
      (file) => !fs.existsSync(path.join(env.modelsDir, file)),
    );
    return missing.length ? `model files not in the models directory: ${missing.join(", ")}` : undefined;
  },
  async run(ctx) {
    const p = ctx.params as unknown as Stems4Params;
    const format = p.format ?? "wav";
    const withModel = stemsWithModel(ctx.params, ctx.modelsDir);
    if (p.method === "model" && withModel.length < MODEL_STEMS.length) {
      const missing = MODEL_STEMS.filter((stem) => !withModel.includes(stem)).map((s) => modelFileOf(ctx.params, s));
      throw new JobFailure(
        "BAD_INPUT",
        `method "model" needs the model files ${missing.join(", ")}, which this server does not have.`,
      );
    }
    // What makes the stems no operator model makes.
    const fallback =
      withModel.length === MODEL_STEMS.length ? undefined : p.method === "classical" ? "classical" : "network";
    const pcm = await decodeAudio(String(ctx.inputs.audio), {}, ctx.signal);
    ctx.reportProgress?.(0.1);
    const fallbackStems =
      fallback === "classical"
        ? classicalStems(pcm)
        : fallback === "network"
          ? await networkStemsOf(
              String(ctx.inputs.audio),
              pcm,
              NETWORK_STEMS,
              path.join(ctx.outputDir, ".network"),
              ctx.signal,
              progressSpan(ctx.reportProgress, 0.1, 0.1 + 0.8 / (4 - withModel.length)),
            )
          : undefined;
    const made: Partial<Record<ModelStem["target"], Float32Array[]>> = {};
    const methods: string[] = [];
    for (const [i, stem] of MODEL_STEMS.entries()) {
      if (withModel.includes(stem)) {
        const file = modelFileOf(ctx.params, stem);
        const span = progressSpan(ctx.reportProgress, 0.1 + (0.8 * i) / 3, 0.1 + (0.8 * (i + 1)) / 3);
        made[stem.target] = await modelStem(path.join(ctx.modelsDir, file), pcm, {}, stem, ctx.signal, span);
        methods.push(`${stem.target}=onnx:${file}`);
      } else {
        made[stem.target] = (fallbackStems as Omit<FourStems, "other">)[stem.target];
        methods.push(`${stem.target}=${fallback}`);
      }
    }
    const { vocals, drums, bass } = made as Record<ModelStem["target"], Float32Array[]>;
    const other = complement(pcm.channels, vocals, drums, bass);
    const stems: FourStems = { vocals, drums, bass, other };
    const scale = fitToFullScale(FOUR_STEMS.map((name) => stems[name]));
    ctx.reportProgress?.(0.9);
    const extension = AUDIO_FORMATS[format].extension;
    const files = Object.fromEntries(
      FOUR_STEMS.map((name) => [name, path.join(ctx.outputDir, `${name}.${extension}`)]),
    );
    await Promise.all(
      FOUR_STEMS.map((name) =>
        encodePcm({ sampleRate: pcm.sampleRate, channels: stems[name] }, files[name] as string, format, ctx.signal),
      ),
    );
    return { ...files, method: withModel.length ? methods.join(" ") : (fallback as string), scale };
  },
};
