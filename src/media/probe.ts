import { JobFailure } from "../jobs/job-failure.ts";
import { mediaBinaries } from "./binaries.ts";
import { runTool, ToolError } from "./run-tool.ts";

export interface MediaMetadata {
  format: string;
  durationSeconds: number | null;
  bitrate: number | null;
  sizeBytes: number | null;
  tags: Record<string, string>;
  audio: {
    codec: string;
    sampleRate: number;
    channels: number;
    channelLayout: string | null;
    bitrate: number | null;
  } | null;
  audioStreams: number;
  videoStreams: number;
}

interface FfprobeOutput {
  format?: { format_name?: string; duration?: string; bit_rate?: string; size?: string; tags?: Record<string, string> };
  streams?: {
    codec_type?: string;
    codec_name?: string;
    sample_rate?: string;
    channels?: number;
    channel_layout?: string;
    bit_rate?: string;
    tags?: Record<string, string>;
  }[];
}

const num = (value: string | undefined): number | null => {
  const n = Number(value);
  return value !== undefined && Number.isFinite(n) ? n : null;
};

/** What a job is told when its input is not media, or has no sound. */
export const NOT_MEDIA_MESSAGE = "The input is not a media file Mixdown can read (corrupt or unsupported format).";
export const NO_AUDIO_MESSAGE = "The input has no audio stream.";

/** Reads a file's metadata with ffprobe; a file ffprobe cannot read is bad input. */
export async function probeMedia(file: string, signal?: AbortSignal): Promise<MediaMetadata> {
  let output: string;
  try {
    output = await runTool(
      mediaBinaries().ffprobe,
      ["-v", "error", "-show_format", "-show_streams", "-of", "json", file],
      signal,
    );
  } catch (error) {
    if (error instanceof ToolError) {
      throw new JobFailure("BAD_INPUT", NOT_MEDIA_MESSAGE);
    }
    throw error;
  }
  const parsed = JSON.parse(output) as FfprobeOutput;
  const streams = parsed.streams ?? [];
  const audio = streams.find((s) => s.codec_type === "audio");
  const tags = Object.fromEntries(
    Object.entries({ ...audio?.tags, ...parsed.format?.tags }).map(([k, v]) => [k.toLowerCase(), String(v)]),
  );
  return {
    format: parsed.format?.format_name ?? "unknown",
    durationSeconds: num(parsed.format?.duration),
    bitrate: num(parsed.format?.bit_rate),
    sizeBytes: num(parsed.format?.size),
    tags,
    audio: audio
      ? {
          codec: audio.codec_name ?? "unknown",
          sampleRate: num(audio.sample_rate) ?? 0,
          channels: audio.channels ?? 0,
          channelLayout: audio.channel_layout ?? null,
          bitrate: num(audio.bit_rate),
        }
      : null,
    audioStreams: streams.filter((s) => s.codec_type === "audio").length,
    videoStreams: streams.filter((s) => s.codec_type === "video").length,
  };
}

/** Probes and insists on at least one audio stream. */
export async function requireAudio(file: string, signal?: AbortSignal): Promise<MediaMetadata> {
  const info = await probeMedia(file, signal);
  if (!info.audio) throw new JobFailure("BAD_INPUT", NO_AUDIO_MESSAGE);
  return info;
}
