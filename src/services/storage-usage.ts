import { setTimeout as delay } from "node:timers/promises";
import type { BlobStore, BlobUsage } from "../store/blob-store.ts";

export interface StorageReading {
  usage?: BlobUsage;
  /** Why the last count failed (the previous usage, if any, is kept). */
  error?: string;
  /** When the usage shown was counted (ISO), and how long the count took. */
  measuredAt?: string;
  tookMs?: number;
  /** A count is under way, since `countingSince` (ISO). */
  counting: boolean;
  countingSince?: string;
  /** A visit counts again once the last count is this old. */
  recountAfterMs: number;
}

/**
 * How long a figure stays fresh per file counted. Counting costs about 0.1-0.2 ms a file (a stat, or a 1,000th of
 * a listing request), so counting again after this long keeps it to about 1 % of the time.
 */
const FRESH_MS_PER_FILE = 20;

/**
 * The blob store's size for the system page. Counting lists every blob (seconds with 100,000 jobs' results, on disk
 * or in S3), so it never runs in a request: the first count starts with the server (`start`), and a request reads
 * the last count and, when it is stale, starts the next one in the background. A figure is stale after 20 ms per
 * file it counted, within [minAgeMs, maxAgeMs]: a small store's figure follows it closely, a large one's costs at
 * most a count every 10 minutes. (Not after what the count took: a count at start-up is slowed by the start.)
 */
export class StorageUsage {
  private readonly blobs: BlobStore;
  private readonly minAgeMs: number;
  private readonly maxAgeMs: number;
  private reading: StorageReading;
  private countedAt = Number.NEGATIVE_INFINITY;

  constructor(blobs: BlobStore, { minAgeMs = 5_000, maxAgeMs = 10 * 60_000 } = {}) {
    this.blobs = blobs;
    this.minAgeMs = minAgeMs;
    this.maxAgeMs = maxAgeMs;
    this.reading = { counting: false, recountAfterMs: minAgeMs };
  }

  /** Resolves when the count under way (if any) has ended. */
  settled: Promise<void> = Promise.resolve();

  /**
   * Counts now, unless a count is under way. Called when the server starts, so that the figure is there when the
   * page is first opened (counting only at the first visit left that visit, however late, with no figure).
   */
  start(onError: (error: unknown) => void): void {
    if (!this.reading.counting) this.count(onError);
  }

  /** The last count (starting a new one if it is stale); `onError` hears a count that failed. */
  current(onError: (error: unknown) => void): StorageReading {
    if (!this.reading.counting && performance.now() - this.countedAt > this.reading.recountAfterMs) this.count(onError);
    return this.reading;
  }

  /** The reading, after waiting up to `ms` for a count under way when there is no figure yet (a small store's count is quick). */
  async firstFigure(onError: (error: unknown) => void, ms: number): Promise<StorageReading> {
    const reading = this.current(onError);
    if (reading.usage || !reading.counting) return reading;
    await Promise.race([this.settled, delay(ms, undefined, { ref: false })]);
    return this.reading;
  }

  private count(onError: (error: unknown) => void): void {
    const started = performance.now();
    this.reading = { ...this.reading, counting: true, countingSince: new Date().toISOString() };
    this.settled = this.blobs.usage().then(
      (usage) => {
        this.countedAt = performance.now();
        const tookMs = Math.round(this.countedAt - started);
        const fresh = usage.blobs * FRESH_MS_PER_FILE;
        const recountAfterMs = Math.min(this.maxAgeMs, Math.max(this.minAgeMs, fresh));
        this.reading = { usage, measuredAt: new Date().toISOString(), tookMs, counting: false, recountAfterMs };
      },
      (error: unknown) => {
        this.countedAt = performance.now();
        const { countingSince: _, ...rest } = this.reading;
        const message = (error as Error).message ?? String(error);
        // Retried after maxAgeMs, not at every request.
        this.reading = { ...rest, error: message, counting: false, recountAfterMs: this.maxAgeMs };
        onError(error);
      },
    );
  }
}
