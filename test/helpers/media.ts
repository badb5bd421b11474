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

/** EBU R128 figures of a file as ffmpeg's own ebur128 filter measures them. */
export async function ffmpegLoudness(file: string): Promise<{ integrated: number; range: number; truePeak: number }> {
  const { stderr } = await execFileAsync("ffmpeg", [
    "-hide_banner",
    "-nostats",
    "-i",
    file,
    "-af",
    "ebur128=peak=true",
    "-f",
    "null",
    "-",
  ]);
  const summary = stderr.slice(stderr.lastIndexOf("Summary:"));
  const value = (label: RegExp) => Number(summary.match(label)?.[1]);
  return {
    integrated: value(/I:\s+(-?[\d.]+) LUFS/),
    range: value(/LRA:\s+(-?[\d.]+) LU/),
    truePeak: value(/Peak:\s+(-?[\d.]+) dBFS/),
  };
}

/** Decodes a file to planar float32 with ffmpeg (at its own rate and channel count). */
export async function decodeFloat(file: string, channels: number): Promise<Float32Array[]> {
  const { stdout } = await execFileAsync(
    "ffmpeg",
    ["-v", "error", "-i", file, "-f", "f32le", "-ac", String(channels), "pipe:1"],
    {
      encoding: "buffer",
      maxBuffer: 1 << 30,
    },
  );
  const interleaved = new Float32Array(stdout.buffer, stdout.byteOffset, stdout.length / 4);
  const frames = interleaved.length / channels;
  return Array.from({ length: channels }, (_, c) =>
    Float32Array.from({ length: frames }, (_, i) => interleaved[i * channels + c] as number),
  );
}

export async function sox(args: string[]): Promise<void> {
  await execFileAsync("sox", args);
}
