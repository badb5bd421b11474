import { JobFailure } from "../jobs/job-failure.ts";
import { mediaBinaries } from "./binaries.ts";
import { runTool, ToolError } from "./run-tool.ts";

export interface MediaInfo {
  durationSeconds: number | null;
  audioStreams: number;
  videoStreams: number;
}

/** Reads a file's streams with ffprobe; a file ffprobe cannot read is bad input. */
export async function probeMedia(file: string, signal?: AbortSignal): Promise<MediaInfo> {
  let output: string;
  try {
    output = await runTool(
      mediaBinaries().ffprobe,
      ["-v", "error", "-show_entries", "format=duration:stream=codec_type", "-of", "json", file],
      signal,
    );
  } catch (error) {
    if (error instanceof ToolError) {
      throw new JobFailure(
        "BAD_INPUT",
        "The input is not a media file Mixdown can read (corrupt or unsupported format).",
      );
    }
    throw error;
  }
  const parsed = JSON.parse(output) as {
    streams?: { codec_type?: string }[];
    format?: { duration?: string };
  };
  const streams = parsed.streams ?? [];
  const duration = Number(parsed.format?.duration);
  return {
    durationSeconds: Number.isFinite(duration) ? duration : null,
    audioStreams: streams.filter((s) => s.codec_type === "audio").length,
    videoStreams: streams.filter((s) => s.codec_type === "video").length,
  };
}

/** Probes and insists on at least one audio stream. */
export async function requireAudio(file: string, signal?: AbortSignal): Promise<MediaInfo> {
  const info = await probeMedia(file, signal);
  if (info.audioStreams === 0) {
    throw new JobFailure("BAD_INPUT", "The input has no audio stream.");
  }
  return info;
}
