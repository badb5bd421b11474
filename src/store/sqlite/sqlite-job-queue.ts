import { type Kysely, sql } from "kysely";
import type { JobError, JobResult, NewJob } from "../../domain.ts";
import type { ClaimedJob, JobQueue } from "../job-queue.ts";
import { type Database, newJobRow } from "../sql/schema.ts";

/** The embedded queue: a job_queue row per unfinished job, leased by the worker running it. */
export class SqliteJobQueue implements JobQueue {
  private readonly db: Kysely<Database>;
  /** Most jobs of one application running at once (0: no limit). */
  private readonly appConcurrency: number;
  /** watch()'s listeners: this process's own enqueues (other processes sharing the file are found by polling). */
  private readonly watchers = new Set<() => void>();

  constructor(db: Kysely<Database>, options: { appConcurrency: number }) {
    this.db = db;
    this.appConcurrency = options.appConcurrency;
  }

  async enqueue(job: NewJob): Promise<void> {
    await this.db.transaction().execute(async (tx) => {
      await tx.insertInto("jobs").values(newJobRow(job)).execute();
      await tx
        .insertInto("job_queue")
        .values({ job_id: job.id, app_id: job.appId, attempts: 0, lease_owner: null, lease_expires_at: null })
        .execute();
      for (const uploadId of job.inputUploadIds) {
        await tx.insertInto("job_inputs").values({ job_id: job.id, upload_id: uploadId }).execute();
      }
    });
    for (const onQueued of this.watchers) onQueued();
  }

  watch(onQueued: () => void): () => Promise<void> {
    const listener = () => onQueued();
    this.watchers.add(listener);
    return async () => void this.watchers.delete(listener);
  }

  async claim(workerId: string, leaseMs: number): Promise<ClaimedJob | undefined> {
    const now = Date.now();
    return this.db.transaction().execute(async (tx) => {
      // Fairness: the application with the fewest running jobs goes first, then the oldest job; an application
      // already running appConcurrency jobs waits. Per application, its running count and its oldest waiting job
      // (never leased, or leased by a worker gone silent) are index lookups: a claim does not read the backlog.
      const { rows } = await sql<{ job_id: string; attempts: number }>`
      UPDATE job_queue SET lease_owner = ${workerId}, lease_expires_at = ${now + leaseMs}, attempts = attempts + 1
      WHERE job_id = (
        SELECT next FROM (
          SELECT
            (SELECT count(*) FROM job_queue r WHERE r.app_id = a.id AND r.lease_expires_at >= ${now}) AS running,
            (SELECT min(job_id) FROM (
               SELECT min(w.job_id) AS job_id FROM job_queue w WHERE w.app_id = a.id AND w.lease_expires_at IS NULL
               UNION ALL
               SELECT min(x.job_id) FROM job_queue x WHERE x.app_id = a.id AND x.lease_expires_at < ${now})) AS next
          FROM applications a)
        WHERE next IS NOT NULL AND (${this.appConcurrency} = 0 OR running < ${this.appConcurrency})
        ORDER BY running, next
        LIMIT 1)
      RETURNING job_id, attempts`.execute(tx);
      const claimed = rows[0];
      if (!claimed) return undefined;
      const job = await tx
        .updateTable("jobs")
        .set({ status: "STARTED", started_at: new Date(now).toISOString() })
        .where("id", "=", claimed.job_id)
        .returning(["id", "app_id", "workflow", "params", "created_at"])
        .executeTakeFirstOrThrow();
      return {
        id: job.id,
        appId: job.app_id,
        workflow: job.workflow,
        params: JSON.parse(job.params),
        createdAt: job.created_at,
        attempt: claimed.attempts,
      };
    });
  }

  async heartbeat(jobId: string, workerId: string, leaseMs: number): Promise<boolean> {
    const result = await this.db
      .updateTable("job_queue")
      .set({ lease_expires_at: Date.now() + leaseMs })
      .where("job_id", "=", jobId)
      .where("lease_owner", "=", workerId)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  /** Ends the job if workerId still holds its lease: removes the queue row and writes the outcome. */
  private async finish(
    jobId: string,
    workerId: string,
    outcome: { status: "SUCCEEDED" | "FAILED"; result: string | null; error: string | null },
  ): Promise<boolean> {
    return this.db.transaction().execute(async (tx) => {
      const removed = await tx
        .deleteFrom("job_queue")
        .where("job_id", "=", jobId)
        .where("lease_owner", "=", workerId)
        .executeTakeFirst();
      if (removed.numDeletedRows === 0n) return false;
      await tx
        .updateTable("jobs")
        .set({ ...outcome, completed_at: new Date().toISOString() })
        .where("id", "=", jobId)
        .execute();
      await tx.deleteFrom("job_inputs").where("job_id", "=", jobId).execute();
      return true;
    });
  }

  complete(jobId: string, workerId: string, result: JobResult): Promise<boolean> {
    return this.finish(jobId, workerId, { status: "SUCCEEDED", result: JSON.stringify(result), error: null });
  }

  fail(jobId: string, workerId: string, error: JobError): Promise<boolean> {
    return this.finish(jobId, workerId, { status: "FAILED", result: null, error: JSON.stringify(error) });
  }

  async release(jobId: string, workerId: string): Promise<boolean> {
    return this.db.transaction().execute(async (tx) => {
      const released = await tx
        .updateTable("job_queue")
        .set({ lease_owner: null, lease_expires_at: null, attempts: sql`attempts - 1` })
        .where("job_id", "=", jobId)
        .where("lease_owner", "=", workerId)
        .executeTakeFirst();
      if (released.numUpdatedRows === 0n) return false;
      await tx.updateTable("jobs").set({ status: "QUEUED", started_at: null }).where("id", "=", jobId).execute();
      return true;
    });
  }

  async depth(): Promise<number> {
    const row = await this.db
      .selectFrom("job_queue")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("lease_owner", "is", null)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }
}
