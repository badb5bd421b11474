import path from "node:path";
import type { Module } from "../../engine/types.ts";
import { JobFailure } from "../../jobs/job-failure.ts";
import { AUDIO_FORMAT_NAMES, AUDIO_FORMATS, type AudioFormat } from "../../media/formats.ts";
import { requireAudio } from "../../media/probe.ts";
import { ToolError } from "../../media/run-tool.ts";
import { transcodeAudio } from "../../media/transcode.ts";

export const convertModule: Module = {
  name: "convert",
  description: "Decodes the audio of any media file and encodes it to a format, optionally resampled or remixed.",
  params: {
    type: "object",
    required: ["format"],
    additionalProperties: false,
    properties: {
      format: { enum: AUDIO_FORMAT_NAMES },
      sampleRate: { type: "integer", minimum: 8000, maximum: 192000 },
      channels: { type: "integer", minimum: 1, maximum: 8 },
    },
  },
  inputs: { audio: { type: "audio", description: "Any media file with an audio stream" } },
  outputs: { audio: { type: "audio", description: "The encoded audio" } },
  async run(ctx) {
    const params = ctx.params as { format: AudioFormat; sampleRate?: number; channels?: number };
    const input = String(ctx.inputs.audio);
    await requireAudio(input, ctx.signal);
    const output = path.join(ctx.outputDir, `audio.${AUDIO_FORMATS[params.format].extension}`);
    try {
      await transcodeAudio(input, output, params, ctx.signal);
    } catch (error) {
      if (!(error instanceof ToolError)) throw error;
      const reason = error.stderr.trim().split("\n").at(-1)?.replaceAll(input, "input") ?? "unknown reason";
      throw new JobFailure("BAD_INPUT", `The input could not be converted: ${reason}`, { cause: error });
    }
    return { audio: output };
  },
};
