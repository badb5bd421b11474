import { drumMask } from "../../dsp/four-stems.ts";
import type { Module } from "../../engine/types.ts";
import type { Pcm } from "../../media/pcm.ts";
import { maskedStem } from "../stems-shared/masked-stem.ts";
import { runStems, SCALE_OUTPUT, type StemPair, stemAvailability, stemParams } from "../stems-shared/run-stems.ts";

/**
 * The drums of a recording by harmonic/percussive/residual separation (dsp/four-stems.ts: Fitzgerald's median
 * filters, with Driedger's residual, cymbals and hi-hats included, given to the drums), one signal per channel.
 */
export const drumsByHpss = (pcm: Pcm): Float32Array[] => maskedStem(pcm, (specs) => drumMask(specs, pcm.sampleRate));

const pair: StemPair = {
  target: "drums",
  rest: "other",
  defaultModel: "drums.onnx",
  classicalMethod: "hpss",
  classical: drumsByHpss,
};

export const stemsDrumsModule: Module = {
  name: "stems-drums",
  description:
    "Splits audio into drums and everything else. With an ONNX separation model in the models directory it runs the model; otherwise the drums of Mixdown's own four-stem network; with method classical, median-filtering harmonic/percussive separation (Fitzgerald 2010) with the noise-like residual counted as drums (Driedger et al. 2014), soft masks. The two stems add up to the input.",
  params: stemParams(pair),
  inputs: { audio: { type: "audio", description: "Audio to separate" } },
  outputs: {
    drums: { type: "audio", description: "Drums (percussive part)" },
    other: { type: "audio", description: "Everything else: the input minus the drums" },
    method: { type: "string", description: '"hpss", "network", or "onnx:<model file>"' },
    scale: SCALE_OUTPUT,
  },
  heavy: true,
  availability: stemAvailability(pair),
  run: (ctx) => runStems(ctx, pair),
};
