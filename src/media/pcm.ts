import { spawn } from "node:child_process";
import { JobFailure } from "../jobs/job-failure.ts";
import { mediaBinaries } from "./binaries.ts";
import { AUDIO_FORMATS, type AudioFormat } from "./formats.ts";
import { NO_AUDIO_MESSAGE, NOT_MEDIA_MESSAGE, probeMedia } from "./probe.ts";
import { lowerPriority, ToolError } from "./run-tool.ts";
import { toFloat32, WAV_MAX_DATA_BYTES, writeWav16 } from "./wav.ts";

/** Planar float32 audio. */
export interface Pcm {
  sampleRate: number;
  channels: Float32Array[];
}

export const pcmLength = (pcm: Pcm): number => pcm.channels[0]?.length ?? 0;

/**
 * Decodes the first audio stream of any file ffmpeg reads (audio or video) to float32 PCM at the requested
 * rate and channel count, the file's own where omitted. ffmpeg writes a WAV stream, whose header gives the
 * rate and channels it chose, so no probe runs first. Input that is not media, has no audio or cannot be
 * decoded is BAD_INPUT. With `onProgress`, ffmpeg reports how far it got (`-progress` on a pipe of its own) and a
 * probe, run alongside, gives the duration that makes it a fraction; the decode resolves once the probe has
 * answered, so a position reported before it did is not lost.
 */
export function decodeAudio(
  file: string,
  options: { sampleRate?: number; channels?: number; onProgress?: (fraction: number) => void } = {},
  signal?: AbortSignal,
): Promise<Pcm> {
  const { onProgress } = options;
  const args = ["-hide_banner", "-nostdin", "-v", "error"];
  if (onProgress) args.push("-progress", "pipe:3", "-nostats");
  args.push("-i", file, "-map", "0:a:0", "-vn");
  if (options.channels !== undefined) args.push("-ac", String(options.channels));
  if (options.sampleRate !== undefined) args.push("-ar", String(options.sampleRate));
  // No metadata and no encoder tag: the header is then only the format and data chunks.
  args.push("-map_metadata", "-1", "-fflags", "+bitexact", "-c:a", "pcm_f32le", "-f", "wav", "pipe:1");
  return new Promise((resolve, reject) => {
    const stdio = onProgress ? ["ignore", "pipe", "pipe", "pipe"] : ["ignore", "pipe", "pipe"];
    const child = spawn(mediaBinaries().ffmpeg, args, { stdio: stdio as ["ignore", "pipe", "pipe"], signal });
    lowerPriority(child.pid);
    const probed = onProgress
      ? followDecode(child.stdio[3] as NodeJS.ReadableStream | null, file, onProgress, signal)
      : Promise.resolve();
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
        return reject(
          new JobFailure("BAD_INPUT", decodeFailureMessage(stderr, file), {
            cause: new ToolError("ffmpeg", code, stderr),
          }),
        );
      }
      try {
        const pcm = planarFromWav(Buffer.concat(chunks));
        probed.then(() => resolve(pcm));
      } catch (error) {
        reject(error);
      }
    });
  });
}

/**
 * Turns ffmpeg's `-progress` lines (out_time_us=…) into fractions of the file's duration, once a probe has it: the
 * latest position heard before then is reported when the probe answers. Settles when the probe has answered.
 */
function followDecode(
  progress: NodeJS.ReadableStream | null,
  file: string,
  onProgress: (fraction: number) => void,
  signal: AbortSignal | undefined,
): Promise<void> {
  let durationUs: number | undefined;
  let latestUs: number | undefined;
  const report = () => {
    if (latestUs !== undefined && durationUs) onProgress(Math.min(1, latestUs / durationUs));
  };
  let pending = "";
  progress?.setEncoding("utf8");
  progress?.on("data", (chunk: string) => {
    pending += chunk;
    const lines = pending.split("\n");
    pending = lines.pop() ?? "";
    for (const line of lines) {
      const done = /^out_time_us=(\d+)/.exec(line)?.[1];
      if (done === undefined) continue;
      latestUs = Number(done);
      report();
    }
  });
  progress?.on("error", () => undefined);
  return probeMedia(file, signal).then(
    (metadata) => {
      if (metadata.durationSeconds) durationUs = metadata.durationSeconds * 1e6;
      report();
    },
    () => undefined, // the decode itself says what is wrong with the file
  );
}

/** The samples of a float32 WAV stream as ffmpeg writes it to a pipe (size fields unset), one array per channel. */
function planarFromWav(bytes: Buffer): Pcm {
  if (bytes.toString("latin1", 0, 4) !== "RIFF" || bytes.toString("latin1", 8, 12) !== "WAVE") {
    throw new Error("ffmpeg's output is not a WAV stream");
  }
  let format: { channels: number; sampleRate: number } | undefined;
  let offset = 12;
  while (offset + 8 <= bytes.length) {
    const id = bytes.toString("latin1", offset, offset + 4);
    const size = bytes.readUInt32LE(offset + 4);
    if (id === "fmt ")
      format = { channels: bytes.readUInt16LE(offset + 10), sampleRate: bytes.readUInt32LE(offset + 12) };
    if (id === "data") break;
    offset += 8 + size + (size % 2);
  }
  if (!format || format.channels < 1 || offset + 8 > bytes.length)
    throw new Error("ffmpeg's WAV stream has no format or data");
  const { channels: count, sampleRate } = format;
  const start = bytes.byteOffset + offset + 8;
  const frames = Math.floor((bytes.length - offset - 8) / 4 / count);
  // A large concatenation has an ArrayBuffer of its own, so aligned mono samples are used where they lie.
  if (count === 1 && start % 4 === 0) return { sampleRate, channels: [new Float32Array(bytes.buffer, start, frames)] };
  const interleaved = new Float32Array(bytes.buffer.slice(start, start + frames * count * 4));
  const channels = Array.from({ length: count }, () => new Float32Array(frames));
  for (let i = 0; i < frames; i++) {
    for (let c = 0; c < count; c++) (channels[c] as Float32Array)[i] = interleaved[i * count + c] as number;
  }
  return { sampleRate, channels };
}

/** Why ffmpeg could not decode a file, in the words ffprobe's checks use where it is the same reason. */
function decodeFailureMessage(stderr: string, file: string): string {
  if (/Stream map '0:a:0' matches no streams/.test(stderr)) return NO_AUDIO_MESSAGE;
  if (/Invalid data found when processing input/.test(stderr)) return NOT_MEDIA_MESSAGE;
  const reason = stderr.trim().split("\n").at(-1)?.replaceAll(file, "input") ?? "";
  return `The input audio could not be decoded: ${reason}`;
}

/**
 * Encodes PCM to a file in one of the output formats: WAV written here (the same samples as ffmpeg's, without an
 * ffmpeg process and a pipe), the others piped to ffmpeg, never through a temporary WAV.
 */
export async function encodePcm(pcm: Pcm, file: string, format: AudioFormat, signal?: AbortSignal): Promise<void> {
  if (format === "wav") {
    if (pcmLength(pcm) * pcm.channels.length * 2 > WAV_MAX_DATA_BYTES) {
      throw new JobFailure("BAD_INPUT", "The result is longer than a WAV file can hold (4 GiB); choose flac.");
    }
    return writeWav16(pcm.channels, pcm.sampleRate, file, signal);
  }
  return encodeWithFfmpeg(pcm, file, format, signal);
}

function encodeWithFfmpeg(pcm: Pcm, file: string, format: AudioFormat, signal?: AbortSignal): Promise<void> {
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
        const chunk = toFloat32(pcm.channels, offset, end);
        offset = end;
        if (!child.stdin.write(Buffer.from(chunk.buffer))) return void child.stdin.once("drain", writeMore);
      }
      child.stdin.end();
    };
    writeMore();
  });
}
