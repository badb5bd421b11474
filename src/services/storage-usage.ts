import type { BlobStore, BlobUsage } from "../store/blob-store.ts";

export interface StorageReading {
  usage?: BlobUsage;
  /** Why the last count failed (the previous usage, if any, is kept). */
  error?: string;
  /** When the usage shown was counted (ISO), and how long the count took. */
  measuredAt?: string;
  tookMs?: number;
  /** A count is under way. */
  counting: boolean;
}

/**
 * The blob store's size for the system page. Counting lists every blob (seconds with 100,000 jobs' results, on disk
 * or in S3), so it never runs in a request: a request reads the last count and, when it is older than `maxAgeMs`,
 * starts the next one in the background.
 */
export class StorageUsage {
  private readonly blobs: BlobStore;
  private readonly maxAgeMs: number;
  private reading: StorageReading = { counting: false };
  private countedAt = Number.NEGATIVE_INFINITY;

  constructor(blobs: BlobStore, maxAgeMs = 10 * 60_000) {
    this.blobs = blobs;
    this.maxAgeMs = maxAgeMs;
  }

  /** The last count (starting a new one if it is stale); `onError` hears a count that failed. */
  current(onError: (error: unknown) => void): StorageReading {
    if (!this.reading.counting && performance.now() - this.countedAt > this.maxAgeMs) this.count(onError);
    return this.reading;
  }

  /** Resolves when the count under way (if any) has ended. */
  settled: Promise<void> = Promise.resolve();

  private count(onError: (error: unknown) => void): void {
    const started = performance.now();
    this.reading = { ...this.reading, counting: true };
    this.settled = this.blobs.usage().then(
      (usage) => {
        this.countedAt = performance.now();
        const tookMs = Math.round(this.countedAt - started);
        this.reading = { usage, measuredAt: new Date().toISOString(), tookMs, counting: false };
      },
      (error: unknown) => {
        this.countedAt = performance.now(); // retried after maxAgeMs, not at every request
        this.reading = { ...this.reading, error: (error as Error).message ?? String(error), counting: false };
        onError(error);
      },
    );
  }
}
