import path from "node:path";
import type { Module } from "../../engine/types.ts";
import { AUDIO_FORMAT_NAMES, AUDIO_FORMATS, type AudioFormat } from "../../media/formats.ts";
import { fitToFullScale } from "../../media/headroom.ts";
import { decodeAudio, encodePcm } from "../../media/pcm.ts";
import { requireAudio } from "../../media/probe.ts";

export const mixModule: Module = {
  name: "mix",
  description:
    "Sums two audio files sample by sample (each with its gain), as long as the longer one, at the higher sample rate and channel count of the two; a sum that would pass full scale is scaled down to it, never clipped.",
  params: {
    type: "object",
    additionalProperties: false,
    properties: {
      format: { enum: AUDIO_FORMAT_NAMES, default: "wav" },
      gainA: { type: "number", minimum: 0, maximum: 4, default: 1 },
      gainB: { type: "number", minimum: 0, maximum: 4, default: 1 },
    },
  },
  inputs: {
    a: { type: "audio", description: "First audio" },
    b: { type: "audio", description: "Second audio" },
  },
  heavy: true,
  outputs: {
    audio: { type: "audio", description: "The sum" },
    scale: {
      type: "number",
      description: "What the sum was multiplied by so that no sample passes full scale: 1 unless it would have clipped",
    },
  },
  async run(ctx) {
    const { format, gainA, gainB } = ctx.params as { format: AudioFormat; gainA: number; gainB: number };
    const [fileA, fileB] = [String(ctx.inputs.a), String(ctx.inputs.b)];
    const infos = await Promise.all([requireAudio(fileA, ctx.signal), requireAudio(fileB, ctx.signal)]);
    const sampleRate = Math.max(...infos.map((info) => info.audio?.sampleRate ?? 0));
    const channels = Math.max(...infos.map((info) => info.audio?.channels ?? 0));
    const [a, b] = await Promise.all([
      decodeAudio(fileA, { sampleRate, channels }, ctx.signal),
      decodeAudio(fileB, { sampleRate, channels }, ctx.signal),
    ]);
    const sum = weightedSum(a.channels, gainA, b.channels, gainB);
    const scale = fitToFullScale([sum]);
    const output = path.join(ctx.outputDir, `audio.${AUDIO_FORMATS[format].extension}`);
    await encodePcm({ sampleRate, channels: sum }, output, format, ctx.signal);
    return { audio: output, scale };
  },
};

/** gainA × a + gainB × b, channel by channel, as long as the longer; written over the longer one's arrays. */
function weightedSum(a: Float32Array[], gainA: number, b: Float32Array[], gainB: number): Float32Array[] {
  return a.map((channelA, c) => {
    const channelB = b[c] as Float32Array;
    const [long, longGain, short, shortGain] =
      channelA.length >= channelB.length ? [channelA, gainA, channelB, gainB] : [channelB, gainB, channelA, gainA];
    for (let i = 0; i < long.length; i++) {
      long[i] = (long[i] as number) * longGain + (i < short.length ? (short[i] as number) * shortGain : 0);
    }
    return long;
  });
}
