import { execFile } from "node:child_process";
import { promisify } from "node:util";

const execFileAsync = promisify(execFile);

export interface ProbedStream {
  codec_name: string;
  codec_type: string;
  sample_rate?: string;
  channels?: number;
}

/** ffprobe of a file: its streams and duration. */
export async function probe(file: string): Promise<{ streams: ProbedStream[]; duration: number }> {
  const { stdout } = await execFileAsync("ffprobe", [
    "-v",
    "error",
    "-show_streams",
    "-show_format",
    "-of",
    "json",
    file,
  ]);
  const parsed = JSON.parse(stdout) as { streams: ProbedStream[]; format: { duration: string } };
  return { streams: parsed.streams, duration: Number(parsed.format.duration) };
}

export async function ffmpeg(args: string[]): Promise<void> {
  await execFileAsync("ffmpeg", ["-hide_banner", "-v", "error", "-y", ...args]);
}
