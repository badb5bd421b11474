import { vocalMask } from "../../dsp/repet-vocals.ts";
import type { Module } from "../../engine/types.ts";
import type { Pcm } from "../../media/pcm.ts";
import { maskedStem } from "../stems-shared/masked-stem.ts";
import { runStems, SCALE_OUTPUT, type StemPair, stemAvailability, stemParams } from "../stems-shared/run-stems.ts";

/** The lead vocals of a song by REPET-SIM and centre extraction, one signal per channel. */
export const vocalsByRepetSim = (pcm: Pcm): Float32Array[] =>
  maskedStem(pcm, (specs) => vocalMask(specs, pcm.sampleRate));

const pair: StemPair = {
  target: "vocals",
  rest: "accompaniments",
  defaultModel: "vocals.onnx",
  classicalMethod: "repet-sim",
  classical: vocalsByRepetSim,
};

export const stemsVocalsModule: Module = {
  name: "stems-vocals",
  description:
    "Splits a song into lead vocals and accompaniment. With an ONNX separation model in the models directory it runs the model; otherwise the vocals of Mixdown's own four-stem network; with method classical, REPET-SIM (the accompaniment is what repeats) combined with stereo centre extraction, with soft masks. The two stems add up to the input.",
  params: stemParams(pair),
  inputs: { audio: { type: "audio", description: "Song to separate" } },
  outputs: {
    vocals: { type: "audio", description: "Lead vocals" },
    accompaniments: { type: "audio", description: "Everything else: the input minus the vocals" },
    method: { type: "string", description: '"repet-sim", "network" or "onnx:<model file>"' },
    scale: SCALE_OUTPUT,
  },
  heavy: true,
  availability: stemAvailability(pair),
  run: (ctx) => runStems(ctx, pair),
};
