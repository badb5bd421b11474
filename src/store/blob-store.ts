import type { Readable } from "node:stream";

export interface BlobInfo {
  size: number;
  contentType: string;
}

export class BlobTooLargeError extends Error {
  readonly limit: number;

  constructor(limit: number) {
    super(`body exceeds the limit of ${limit} bytes`);
    this.limit = limit;
  }
}

export interface PutInfo {
  contentType: string;
  maxBytes?: number;
  size?: number;
}

/** Files by key ("uploads/<id>", "results/<jobId>/<name>"). Implemented by local/ (embedded). */
export interface BlobStore {
  /**
   * Streams body into key; rejects with BlobTooLargeError past maxBytes and leaves nothing behind.
   * The body's chunks become the store's: it may free them once stored (pass a stream read by nobody else).
   * `size`, when the body's exact length is known (a file), lets a store send it in one request.
   */
  put(key: string, body: Readable, info: PutInfo): Promise<BlobInfo>;
  stat(key: string): Promise<BlobInfo | undefined>;
  /** Bytes start..end inclusive (whole blob when omitted). */
  read(key: string, range?: { start: number; end: number }): Readable;
  /**
   * Puts the blob at a local file (jobs work on local files): a copy, or a hard link where the store can (a blob
   * is never rewritten in place). False, with nothing written, when there is no such blob: one request, no check first.
   */
  copyToFile(key: string, destination: string): Promise<boolean>;
  delete(key: string): Promise<void>;
  deletePrefix(prefix: string): Promise<void>;
  /** Bytes and blobs stored, counted by listing them all: seconds for 100,000s of blobs, so callers cache it. */
  usage(): Promise<BlobUsage>;
}

export interface BlobUsage {
  bytes: number;
  blobs: number;
}
