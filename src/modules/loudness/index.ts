import { measureLoudness } from "../../dsp/loudness.ts";
import type { Module } from "../../engine/types.ts";
import { decodeAudio } from "../../media/pcm.ts";

/** Rounded to 0.01; silence (no level at all) is null. */
export const level = (value: number): number | null => (Number.isFinite(value) ? Math.round(value * 100) / 100 : null);

export const loudnessModule: Module = {
  name: "loudness",
  description: "Measures EBU R128 loudness: integrated loudness (LUFS), loudness range (LU) and true peak (dBTP).",
  params: { type: "object", additionalProperties: false, properties: {} },
  inputs: { audio: { type: "audio", description: "Audio to measure" } },
  outputs: {
    integratedLoudness: { type: "number", description: "Integrated loudness, LUFS (null for silence)" },
    loudnessRange: { type: "number", description: "Loudness range, LU" },
    truePeak: { type: "number", description: "True peak, dBTP (null for silence)" },
  },
  heavy: true,
  async run(ctx) {
    const pcm = await decodeAudio(String(ctx.inputs.audio), {}, ctx.signal);
    const m = measureLoudness(pcm.channels, pcm.sampleRate);
    return {
      integratedLoudness: level(m.integratedLoudness),
      loudnessRange: level(m.loudnessRange),
      truePeak: level(m.truePeak),
    };
  },
};
