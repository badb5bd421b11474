import type { FastifyBaseLogger } from "fastify";
import type { UploadService } from "../services/uploads.ts";
import type { BlobStore } from "../store/blob-store.ts";
import type { RetentionStore } from "../store/retention-store.ts";

const BATCH = 100;
const DAY_MS = 24 * 3600_000;

export interface SweepCounts {
  jobs: number;
  uploads: number;
  deliveries: number;
}

/**
 * Deletes finished jobs older than the retention (MIXDOWN_JOB_RETENTION_DAYS; 0 keeps them forever) with their
 * result files, and expired uploads that no unfinished job reads. One node sweeps at a time.
 */
export class RetentionSweeper {
  private readonly store: RetentionStore;
  private readonly blobs: BlobStore;
  private readonly uploads: UploadService;
  private readonly options: { retentionDays: number; now: () => number };

  constructor(
    store: RetentionStore,
    blobs: BlobStore,
    uploads: UploadService,
    options: { retentionDays: number; now?: () => number },
  ) {
    this.store = store;
    this.blobs = blobs;
    this.uploads = uploads;
    this.options = { retentionDays: options.retentionDays, now: options.now ?? Date.now };
  }

  /** One pass; undefined when another node was sweeping. */
  sweep(): Promise<SweepCounts | undefined> {
    return this.store.exclusively(async () => {
      const now = this.options.now();
      const counts = { jobs: 0, uploads: await this.uploads.collectGarbage(now), deliveries: 0 };
      if (this.options.retentionDays === 0) return counts;
      const before = new Date(now - this.options.retentionDays * DAY_MS).toISOString();
      for (;;) {
        const ids = await this.store.finishedBefore(before, BATCH);
        // Files first: a sweep cut short leaves rows that the next one finds again, never files without a job.
        for (const id of ids) await this.blobs.deletePrefix(`results/${id}/`);
        await this.store.deleteJobs(ids);
        counts.jobs += ids.length;
        if (ids.length < BATCH) break;
      }
      counts.deliveries = await this.store.deleteDeliveriesBefore(before);
      return counts;
    });
  }

  /** Sweeps now and every `intervalMs`, logging what it deleted; returns a function that stops. */
  start(intervalMs: number, log: FastifyBaseLogger): () => void {
    const run = () =>
      this.sweep()
        .then((counts) => {
          if (counts && (counts.jobs > 0 || counts.uploads > 0)) log.info(counts, "retention: deleted");
        })
        .catch((error) => log.error({ err: error }, "retention sweep failed"));
    void run();
    const timer = setInterval(run, intervalMs);
    timer.unref();
    return () => clearInterval(timer);
  }
}
