import path from "node:path";
import type { Module } from "../../engine/types.ts";
import { mediaBinaries } from "../../media/binaries.ts";
import { AUDIO_FORMAT_NAMES, AUDIO_FORMATS, type AudioFormat } from "../../media/formats.ts";
import { requireAudio } from "../../media/probe.ts";
import { runTool } from "../../media/run-tool.ts";

export const mixModule: Module = {
  name: "mix",
  description: "Sums two audio files sample by sample (each with its gain), as long as the longer one.",
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
  outputs: { audio: { type: "audio", description: "The sum" } },
  async run(ctx) {
    const { format, gainA, gainB } = ctx.params as { format: AudioFormat; gainA: number; gainB: number };
    await Promise.all([requireAudio(String(ctx.inputs.a), ctx.signal), requireAudio(String(ctx.inputs.b), ctx.signal)]);
    const output = path.join(ctx.outputDir, `audio.${AUDIO_FORMATS[format].extension}`);
    const graph = `[0:a:0]volume=${gainA}[a];[1:a:0]volume=${gainB}[b];[a][b]amix=inputs=2:duration=longest:normalize=0[out]`;
    await runTool(
      mediaBinaries().ffmpeg,
      ["-hide_banner", "-nostdin", "-v", "error", "-y", "-i", String(ctx.inputs.a), "-i", String(ctx.inputs.b)].concat([
        "-filter_complex",
        graph,
        "-map",
        "[out]",
        ...AUDIO_FORMATS[format].args,
        output,
      ]),
      ctx.signal,
    );
    return { audio: output };
  },
};
