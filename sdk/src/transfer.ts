import fs from "node:fs";
import path from "node:path";
import { Readable } from "node:stream";
import type { TransferProgress } from "./types.ts";

export type UploadSource = string | Uint8Array | Readable | ReadableStream<Uint8Array>;

const CHUNK = 64 * 1024;

const MEDIA_TYPES: Record<string, string> = {
  ".wav": "audio/wav",
  ".mp3": "audio/mpeg",
  ".flac": "audio/flac",
  ".ogg": "audio/ogg",
  ".oga": "audio/ogg",
  ".opus": "audio/opus",
  ".m4a": "audio/mp4",
  ".aac": "audio/aac",
  ".aif": "audio/aiff",
  ".aiff": "audio/aiff",
  ".wma": "audio/x-ms-wma",
  ".webm": "video/webm",
  ".mp4": "video/mp4",
  ".mov": "video/quicktime",
  ".mkv": "video/x-matroska",
  ".mid": "audio/midi",
  ".midi": "audio/midi",
  ".json": "application/json",
};

/** A media type for a file name, from its extension; application/octet-stream when unknown. */
export function mediaTypeFor(fileName: string): string {
  return MEDIA_TYPES[path.extname(fileName).toLowerCase()] ?? "application/octet-stream";
}

async function* chunksOf(bytes: Uint8Array): AsyncGenerator<Uint8Array> {
  for (let offset = 0; offset < bytes.byteLength; offset += CHUNK) yield bytes.subarray(offset, offset + CHUNK);
}

/** The bytes to upload as an async iterable, with their size when it can be known. */
export async function openSource(
  source: UploadSource,
  size: number | undefined,
): Promise<{ chunks: AsyncIterable<Uint8Array>; total: number | null }> {
  if (typeof source === "string") {
    const stat = await fs.promises.stat(source);
    if (!stat.isFile()) throw new Error(`${source} is not a file`);
    return { chunks: fs.createReadStream(source, { highWaterMark: CHUNK }), total: stat.size };
  }
  if (source instanceof Uint8Array) return { chunks: chunksOf(source), total: source.byteLength };
  if (source instanceof Readable) return { chunks: source, total: size ?? null };
  return {
    chunks: Readable.fromWeb(source as import("node:stream/web").ReadableStream<Uint8Array>),
    total: size ?? null,
  };
}

/** A web stream over `chunks` that reports how many bytes have been read from it. */
export function countingStream(
  chunks: AsyncIterable<Uint8Array>,
  total: number | null,
  onProgress: ((progress: TransferProgress) => void) | undefined,
): ReadableStream<Uint8Array> {
  const iterator = chunks[Symbol.asyncIterator]();
  let loaded = 0;
  onProgress?.({ loaded, total });
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { value, done } = await iterator.next();
      if (done) {
        controller.close();
        return;
      }
      const chunk = typeof value === "string" ? new TextEncoder().encode(value) : value;
      loaded += chunk.byteLength;
      controller.enqueue(chunk);
      onProgress?.({ loaded, total });
    },
    async cancel(reason) {
      await iterator.return?.(reason);
    },
  });
}

/** The extension of the last path segment of a URL ("mp3" for …/output.mp3?sig=…), or "" when it has none. */
export function extensionFromUrl(url: string): string {
  let name: string;
  try {
    name = decodeURIComponent(new URL(url).pathname.split("/").pop() ?? "");
  } catch {
    return "";
  }
  const dot = name.lastIndexOf(".");
  if (dot <= 0) return "";
  const extension = name.slice(dot + 1);
  return /^[A-Za-z0-9]{1,12}$/.test(extension) ? extension.toLowerCase() : "";
}

/** A result key made safe as a file name (no path separators, no leading dots). */
export function safeFileStem(key: string): string {
  const stem = key.replace(/[^\w.-]+/g, "_").replace(/^\.+/, "_");
  return stem || "_";
}
