import { HPSS_DEFAULTS, percussiveMask } from "../../dsp/hpss.ts";
import { meanMagnitude, type Spectrogram } from "../../dsp/spectrogram.ts";
import type { Module } from "../../engine/types.ts";
import type { Pcm } from "../../media/pcm.ts";
import { maskedStem } from "../stems-shared/masked-stem.ts";
import { runStems, type StemPair, stemAvailability, stemParams } from "../stems-shared/run-stems.ts";

/** Below this, a kick's body is too narrow-band for the median across frequency (see hpss.ts). */
const TRANSIENT_BELOW_HZ = 200;

/** The drums of a recording by HPSS, one signal per channel (one mask for all channels). */
export const drumsByHpss = (pcm: Pcm): Float32Array[] =>
  maskedStem(pcm, (specs) => {
    const { frames, bins, fftSize } = specs[0] as Spectrogram;
    return percussiveMask(meanMagnitude(specs), frames, bins, {
      ...HPSS_DEFAULTS,
      transientBins: Math.round((TRANSIENT_BELOW_HZ * fftSize) / pcm.sampleRate),
    });
  });

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
    "Splits audio into drums and everything else. With an ONNX separation model in the models directory it runs the model; otherwise median-filtering harmonic/percussive separation (Fitzgerald 2010) with soft masks. The two stems add up to the input.",
  params: stemParams(pair),
  inputs: { audio: { type: "audio", description: "Audio to separate" } },
  outputs: {
    drums: { type: "audio", description: "Drums (percussive part)" },
    other: { type: "audio", description: "Everything else: the input minus the drums" },
    method: { type: "string", description: '"hpss", or "onnx:<model file>"' },
  },
  heavy: true,
  availability: stemAvailability(pair),
  run: (ctx) => runStems(ctx, pair),
};
