import { spawn } from "node:child_process";
import { JobFailure } from "../jobs/job-failure.ts";
import { mediaBinaries } from "./binaries.ts";
import { AUDIO_FORMATS, type AudioFormat } from "./formats.ts";
import { requireAudio } from "./probe.ts";
import { lowerPriority, ToolError } from "./run-tool.ts";

/** Planar float32 audio. */
export interface Pcm {
  sampleRate: number;
  channels: Float32Array[];
}

export const pcmLength = (pcm: Pcm): number => pcm.channels[0]?.length ?? 0;

/**
 * Decodes the first audio stream of any file ffmpeg reads (audio or video) to float32 PCM at the requested
 * rate and channel count (the file's own when omitted). Undecodable input is BAD_INPUT.
 */
export function decodePcm(
  file: string,
  options: { sampleRate: number; channels: number },
  signal?: AbortSignal,
): Promise<Pcm> {
  const args = ["-hide_banner", "-nostdin", "-v", "error", "-i", file, "-map", "0:a:0", "-vn"];
  args.push(
    "-ac",
    String(options.channels),
    "-ar",
    String(options.sampleRate),
    "-f",
    "f32le",
    "-c:a",
    "pcm_f32le",
    "pipe:1",
  );
  return new Promise((resolve, reject) => {
    const child = spawn(mediaBinaries().ffmpeg, args, { stdio: ["ignore", "pipe", "pipe"], signal });
    lowerPriority(child.pid);
    const chunks: Buffer[] = [];
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => chunks.push(chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr = (stderr + chunk).slice(-8192);
    });
    child.on("error", reject);
    child.on("close", (code) => {
      if (signal?.aborted) return reject(signal.reason);
      if (code !== 0) {
        const reason = stderr.trim().split("\n").at(-1)?.replaceAll(file, "input") ?? "";
        return reject(
          new JobFailure("BAD_INPUT", `The input audio could not be decoded: ${reason}`, {
            cause: new ToolError("ffmpeg", code, stderr),
          }),
        );
      }
      const bytes = Buffer.concat(chunks);
      const frames = Math.floor(bytes.length / 4 / options.channels);
      const interleaved = new Float32Array(bytes.buffer, bytes.byteOffset, frames * options.channels);
      const channels = Array.from({ length: options.channels }, () => new Float32Array(frames));
      for (let i = 0; i < frames; i++) {
        for (let c = 0; c < options.channels; c++)
          (channels[c] as Float32Array)[i] = interleaved[i * options.channels + c] as number;
      }
      resolve({ sampleRate: options.sampleRate, channels });
    });
  });
}

/** Encodes PCM to a file in one of the output formats (piped to ffmpeg, never through a temporary WAV). */
export function encodePcm(pcm: Pcm, file: string, format: AudioFormat, signal?: AbortSignal): Promise<void> {
  const count = pcm.channels.length;
  const frames = pcmLength(pcm);
  const args = ["-hide_banner", "-nostdin", "-v", "error", "-y", "-f", "f32le", "-ar", String(pcm.sampleRate)];
  args.push("-ac", String(count), "-i", "pipe:0", ...AUDIO_FORMATS[format].args, file);
  return new Promise((resolve, reject) => {
    const child = spawn(mediaBinaries().ffmpeg, args, { stdio: ["pipe", "ignore", "pipe"], signal });
    lowerPriority(child.pid);
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr = (stderr + chunk).slice(-8192);
    });
    child.on("error", reject);
    child.on("close", (code) => {
      if (signal?.aborted) reject(signal.reason);
      else if (code !== 0) reject(new ToolError("ffmpeg", code, stderr));
      else resolve();
    });
    child.stdin.on("error", () => {}); // reported through the exit code
    const block = 65536;
    let offset = 0;
    const writeMore = () => {
      while (offset < frames) {
        const end = Math.min(frames, offset + block);
        const chunk = new Float32Array((end - offset) * count);
        for (let i = offset; i < end; i++) {
          for (let c = 0; c < count; c++)
            chunk[(i - offset) * count + c] = (pcm.channels[c] as Float32Array)[i] as number;
        }
        offset = end;
        if (!child.stdin.write(Buffer.from(chunk.buffer))) return void child.stdin.once("drain", writeMore);
      }
      child.stdin.end();
    };
    writeMore();
  });
}

/** Checks the file has audio, then decodes it at its own rate and channel count unless others are asked for. */
export async function decodeAudio(
  file: string,
  options: { sampleRate?: number; channels?: number } = {},
  signal?: AbortSignal,
): Promise<Pcm> {
  const { audio } = await requireAudio(file, signal);
  const sampleRate = options.sampleRate ?? (audio?.sampleRate || 44100);
  const channels = options.channels ?? (audio?.channels || 2);
  return decodePcm(file, { sampleRate, channels }, signal);
}
