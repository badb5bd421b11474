import path from "node:path";
import { JobFailure } from "../jobs/job-failure.ts";
import { AUDIO_FORMAT_NAMES, AUDIO_FORMATS, type AudioFormat } from "../media/formats.ts";
import { requireAudio } from "../media/probe.ts";
import { ToolError } from "../media/run-tool.ts";
import { transcodeAudio } from "../media/transcode.ts";
import type { Workflow } from "./workflow.ts";

const OPUS_RATES = [8000, 12000, 16000, 24000, 48000];

export const convertWorkflow: Workflow = {
  slug: "mixdown/convert",
  name: "Convert audio",
  description:
    "Decodes any audio or video file ffmpeg can read and encodes its audio as mp3, wav, flac, ogg, opus or m4a, optionally resampled or remixed to a channel count.",
  inputSchema: {
    type: "object",
    required: ["inputUrl", "format"],
    additionalProperties: false,
    properties: {
      inputUrl: {
        type: "string",
        format: "uri",
        pattern: "^https?://",
        description: "URL of the input file",
      },
      format: { enum: AUDIO_FORMAT_NAMES, description: "Output format" },
      sampleRate: {
        type: "integer",
        minimum: 8000,
        maximum: 192000,
        description: "Output sample rate in Hz",
      },
      channels: { type: "integer", minimum: 1, maximum: 8, description: "Output channel count" },
    },
    allOf: [
      {
        if: { properties: { format: { const: "opus" } }, required: ["format"] },
        then: { properties: { sampleRate: { enum: OPUS_RATES } } },
      },
      {
        if: { properties: { format: { const: "mp3" } }, required: ["format"] },
        then: { properties: { sampleRate: { maximum: 48000 }, channels: { maximum: 2 } } },
      },
    ],
  },
  async run(ctx) {
    const params = ctx.params as {
      inputUrl: string;
      format: AudioFormat;
      sampleRate?: number;
      channels?: number;
    };
    const input = await ctx.fetchInput(params.inputUrl);
    await requireAudio(input, ctx.signal);
    const format = AUDIO_FORMATS[params.format];
    const output = path.join(ctx.scratchDir, `output.${format.extension}`);
    try {
      await transcodeAudio(input, output, params, ctx.signal);
    } catch (error) {
      if (!(error instanceof ToolError)) throw error;
      const reason = error.stderr.trim().split("\n").at(-1)?.replaceAll(input, "input") ?? "unknown reason";
      throw new JobFailure("BAD_INPUT", `The input could not be converted: ${reason}`, { cause: error });
    }
    return { output: await ctx.storeFile(`output.${format.extension}`, output, format.contentType) };
  },
};
