import path from "node:path";
import { measureLoudness } from "../../dsp/loudness.ts";
import type { Module } from "../../engine/types.ts";
import { JobFailure } from "../../jobs/job-failure.ts";
import { AUDIO_FORMAT_NAMES, AUDIO_FORMATS, type AudioFormat } from "../../media/formats.ts";
import { decodeAudio, encodePcm } from "../../media/pcm.ts";
import { level } from "../loudness/index.ts";

export const loudnessNormalizeModule: Module = {
  name: "loudness-normalize",
  description:
    "Two-pass loudness normalisation: measures the input, then applies the one gain that reaches the target integrated loudness without the true peak passing its ceiling (the ceiling wins). Reports the output's measures.",
  params: {
    type: "object",
    additionalProperties: false,
    properties: {
      targetLoudness: { type: "number", minimum: -70, maximum: -5, default: -14, description: "LUFS" },
      truePeakLimit: { type: "number", minimum: -20, maximum: 0, default: -1, description: "dBTP" },
      format: { enum: AUDIO_FORMAT_NAMES, default: "wav" },
    },
  },
  inputs: { audio: { type: "audio", description: "Audio to normalise" } },
  outputs: {
    audio: { type: "audio", description: "The normalised audio" },
    integratedLoudness: { type: "number", description: "Output integrated loudness, LUFS" },
    loudnessRange: { type: "number", description: "Output loudness range, LU" },
    truePeak: { type: "number", description: "Output true peak, dBTP" },
    gain: { type: "number", description: "Gain applied, dB" },
  },
  heavy: true,
  async run(ctx) {
    const { targetLoudness, truePeakLimit, format } = ctx.params as {
      targetLoudness: number;
      truePeakLimit: number;
      format: AudioFormat;
    };
    const pcm = await decodeAudio(String(ctx.inputs.audio), {}, ctx.signal);
    const before = measureLoudness(pcm.channels, pcm.sampleRate);
    if (!Number.isFinite(before.integratedLoudness)) {
      throw new JobFailure("BAD_INPUT", "The input is silent (below -70 LUFS): there is no loudness to normalise.");
    }
    const gainDb = Math.min(targetLoudness - before.integratedLoudness, truePeakLimit - before.truePeak);
    const gain = 10 ** (gainDb / 20);
    for (const channel of pcm.channels)
      for (let i = 0; i < channel.length; i++) channel[i] = (channel[i] as number) * gain;
    const after = measureLoudness(pcm.channels, pcm.sampleRate);
    const output = path.join(ctx.outputDir, `audio.${AUDIO_FORMATS[format].extension}`);
    await encodePcm(pcm, output, format, ctx.signal);
    return {
      audio: output,
      integratedLoudness: level(after.integratedLoudness),
      loudnessRange: level(after.loudnessRange),
      truePeak: level(after.truePeak),
      gain: level(gainDb),
    };
  },
};
