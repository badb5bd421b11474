import type { Module } from "../../engine/types.ts";
import { probeMedia } from "../../media/probe.ts";

export const probeModule: Module = {
  name: "probe",
  description:
    "Reads a media file's metadata: format, duration, bitrate, tags and its audio stream's codec, rate and channels.",
  params: { type: "object", additionalProperties: false, properties: {} },
  inputs: { audio: { type: "audio", description: "Any media file" } },
  outputs: { metadata: { type: "object", description: "The metadata" } },
  async run(ctx) {
    const { audioStreams: _a, videoStreams, ...metadata } = await probeMedia(String(ctx.inputs.audio), ctx.signal);
    return { metadata: { ...metadata, hasVideo: videoStreams > 0 } };
  },
};
