import path from "node:path";

const BY_EXTENSION: Record<string, string> = {
  ".mp3": "audio/mpeg",
  ".wav": "audio/wav",
  ".flac": "audio/flac",
  ".ogg": "audio/ogg",
  ".opus": "audio/opus",
  ".m4a": "audio/mp4",
  ".json": "application/json",
  ".mid": "audio/midi",
  ".png": "image/png",
};

/** The media type of a result file, by its extension. */
export const contentTypeOf = (file: string): string =>
  BY_EXTENSION[path.extname(file).toLowerCase()] ?? "application/octet-stream";
