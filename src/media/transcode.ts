import { mediaBinaries } from "./binaries.ts";
import { AUDIO_FORMATS, type AudioFormat } from "./formats.ts";
import { runTool } from "./run-tool.ts";

export interface TranscodeOptions {
  format: AudioFormat;
  sampleRate?: number;
  channels?: number;
}

/** Decodes the first audio stream of input and encodes it to output in the given format. */
export async function transcodeAudio(
  input: string,
  output: string,
  options: TranscodeOptions,
  signal?: AbortSignal,
): Promise<void> {
  const args = ["-hide_banner", "-nostdin", "-v", "error", "-y", "-i", input, "-map", "0:a:0", "-vn"];
  if (options.sampleRate !== undefined) args.push("-ar", String(options.sampleRate));
  if (options.channels !== undefined) args.push("-ac", String(options.channels));
  args.push(...AUDIO_FORMATS[options.format].args, output);
  await runTool(mediaBinaries().ffmpeg, args, signal);
}
