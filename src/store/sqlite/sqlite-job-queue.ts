import { type Kysely, sql } from "kysely";
import type { JobError, JobResult, JobState, NewJob } from "../../domain.ts";
import type { CancelOutcome, ClaimedJob, EarlierRequest, JobQueue } from "../job-queue.ts";
import { idempotencyStatements, KeyAlreadyUsed } from "../sql/idempotency.ts";
import { endEventType, insertJobEvent } from "../sql/job-events.ts";
import { cancelledJobColumns, JOB_STATE_COLUMNS, toJobState } from "../sql/job-state-row.ts";
import { type Database, newJobRow } from "../sql/schema.ts";

/** The embedded queue: a job_queue row per unfinished job, leased by the worker running it. */
export class SqliteJobQueue implements JobQueue {
  private readonly db: Kysely<Database>;
  /** Most jobs of one application running at once (0: no limit). */
  private readonly appConcurrency: number;
  /** watch()'s listeners: this process's own enqueues (other processes sharing the file are found by polling). */
  private readonly watchers = new Set<() => void>();
  /** watchStates()'s listeners: this process's changes (the embedded mode's one process). */
  private readonly stateWatchers = new Set<(state: JobState | undefined) => void>();

  /** Told after a transaction that wrote job events to the webhook outbox has committed (wakes the deliverer). */
  private readonly onJobEvent: () => void;

  constructor(db: Kysely<Database>, options: { appConcurrency: number; onJobEvent?: () => void }) {
    this.db = db;
    this.appConcurrency = options.appConcurrency;
    this.onJobEvent = options.onJobEvent ?? (() => undefined);
  }

  async enqueue(job: NewJob): Promise<EarlierRequest | undefined> {
    try {
      await this.insert(job);
    } catch (error) {
      if (error instanceof KeyAlreadyUsed) return { jobId: error.jobId, requestHash: error.requestHash };
      throw error;
    }
    for (const onQueued of this.watchers) onQueued();
    return undefined;
  }

  private async insert(job: NewJob): Promise<void> {
    await this.db.transaction().execute(async (tx) => {
      await tx.insertInto("jobs").values(newJobRow(job)).execute();
      await tx
        .insertInto("job_queue")
        .values({ job_id: job.id, app_id: job.appId, attempts: 0, lease_owner: null, lease_expires_at: null })
        .execute();
      for (const uploadId of job.inputUploadIds) {
        await tx.insertInto("job_inputs").values({ job_id: job.id, upload_id: uploadId }).execute();
      }
      if (job.idempotency) {
        const { record, earlier } = idempotencyStatements(
          this.db,
          { ...job, idempotency: job.idempotency },
          Date.now(),
        );
        if ((await tx.executeQuery(record)).rows.length === 0) {
          const held = (await tx.executeQuery(earlier)).rows[0];
          if (held) throw new KeyAlreadyUsed(held.job_id, held.request_hash);
        }
      }
    });
  }

  watchStates(onState: (state: JobState | undefined) => void): () => Promise<void> {
    const listener = (state: JobState | undefined) => onState(state);
    this.stateWatchers.add(listener);
    return async () => void this.stateWatchers.delete(listener);
  }

  private publish(state: JobState | undefined): void {
    if (state) for (const onState of this.stateWatchers) onState(state);
  }

  watch(onQueued: () => void): () => Promise<void> {
    const listener = () => onQueued();
    this.watchers.add(listener);
    return async () => void this.watchers.delete(listener);
  }

  async claim(workerId: string, leaseMs: number): Promise<ClaimedJob | undefined> {
    const now = Date.now();
    let events = false;
    let started: JobState | undefined;
    const taken = await this.db.transaction().execute(async (tx) => {
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
      const written = await insertJobEvent(claimed.job_id, "job.started", "QUEUED").execute(tx);
      events = (written.numAffectedRows ?? 0n) > 0n;
      const job = await tx
        .updateTable("jobs")
        .set({
          status: "STARTED",
          started_at: new Date(now).toISOString(),
          worker_id: workerId,
          progress: 0,
          step: null,
          revision: sql`revision + 1`,
        })
        .where("id", "=", claimed.job_id)
        .returning(["workflow", "params", "created_at", "copy_results_to", ...JOB_STATE_COLUMNS])
        .executeTakeFirstOrThrow();
      started = toJobState(job);
      return {
        id: job.id,
        appId: job.app_id,
        workflow: job.workflow,
        params: JSON.parse(job.params),
        createdAt: job.created_at,
        attempt: claimed.attempts,
        copyResultsTo: job.copy_results_to === null ? null : JSON.parse(job.copy_results_to),
      };
    });
    if (events) this.onJobEvent();
    this.publish(started);
    return taken;
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
    let events = false;
    let ended: JobState | undefined;
    const finished = await this.db.transaction().execute(async (tx) => {
      const removed = await tx
        .deleteFrom("job_queue")
        .where("job_id", "=", jobId)
        .where("lease_owner", "=", workerId)
        .executeTakeFirst();
      if (removed.numDeletedRows === 0n) return false;
      const row = await tx
        .updateTable("jobs")
        .set({
          ...outcome,
          completed_at: new Date().toISOString(),
          ...(outcome.status === "SUCCEEDED" ? { progress: 1 } : {}),
          step: null,
          revision: sql`revision + 1`,
        })
        .where("id", "=", jobId)
        .returning(JOB_STATE_COLUMNS)
        .executeTakeFirst();
      ended = row && toJobState(row);
      await tx.deleteFrom("job_inputs").where("job_id", "=", jobId).execute();
      const written = await insertJobEvent(jobId, endEventType(outcome)).execute(tx);
      events = (written.numAffectedRows ?? 0n) > 0n;
      return true;
    });
    if (events) this.onJobEvent();
    this.publish(ended);
    return finished;
  }

  complete(jobId: string, workerId: string, result: JobResult): Promise<boolean> {
    return this.finish(jobId, workerId, { status: "SUCCEEDED", result: JSON.stringify(result), error: null });
  }

  fail(jobId: string, workerId: string, error: JobError): Promise<boolean> {
    return this.finish(jobId, workerId, { status: "FAILED", result: null, error: JSON.stringify(error) });
  }

  async release(jobId: string, workerId: string): Promise<boolean> {
    let queued: JobState | undefined;
    const done = await this.db.transaction().execute(async (tx) => {
      const released = await tx
        .updateTable("job_queue")
        .set({ lease_owner: null, lease_expires_at: null, attempts: sql`attempts - 1` })
        .where("job_id", "=", jobId)
        .where("lease_owner", "=", workerId)
        .executeTakeFirst();
      if (released.numUpdatedRows === 0n) return false;
      const row = await tx
        .updateTable("jobs")
        .set({ status: "QUEUED", started_at: null, progress: 0, step: null, revision: sql`revision + 1` })
        .where("id", "=", jobId)
        .returning(JOB_STATE_COLUMNS)
        .executeTakeFirst();
      queued = row && toJobState(row);
      return true;
    });
    this.publish(queued);
    return done;
  }

  async cancel(appId: string, jobId: string, error: JobError): Promise<CancelOutcome> {
    let cancelled: JobState | undefined;
    let events = false;
    const outcome = await this.db.transaction().execute(async (tx): Promise<CancelOutcome> => {
      const row = await tx
        .updateTable("jobs")
        .set(cancelledJobColumns(error))
        .where("app_id", "=", appId)
        .where("id", "=", jobId)
        .where("status", "in", ["QUEUED", "STARTED"])
        .returning(JOB_STATE_COLUMNS)
        .executeTakeFirst();
      if (!row) {
        const exists = tx.selectFrom("jobs").select("id").where("app_id", "=", appId).where("id", "=", jobId);
        return (await exists.executeTakeFirst()) ? "finished" : "not-found";
      }
      // Removing the queue row ends the lease: the worker's heartbeat and outcome find nothing to write.
      await tx.deleteFrom("job_queue").where("job_id", "=", jobId).execute();
      await tx.deleteFrom("job_inputs").where("job_id", "=", jobId).execute();
      const written = await insertJobEvent(jobId, "job.cancelled").execute(tx);
      events = (written.numAffectedRows ?? 0n) > 0n;
      cancelled = toJobState(row);
      return "cancelled";
    });
    if (events) this.onJobEvent();
    this.publish(cancelled);
    return outcome;
  }

  async reportProgress(jobId: string, workerId: string, progress: number, step: string | null): Promise<boolean> {
    const row = await this.db
      .updateTable("jobs")
      .set({ progress, step, revision: sql`revision + 1` })
      .where("id", "=", jobId)
      .where("status", "=", "STARTED")
      .where(({ exists, selectFrom }) =>
        exists(
          selectFrom("job_queue")
            .select("job_id")
            .where("job_queue.job_id", "=", jobId)
            .where("job_queue.lease_owner", "=", workerId),
        ),
      )
      .returning(JOB_STATE_COLUMNS)
      .executeTakeFirst();
    this.publish(row && toJobState(row));
    return row !== undefined;
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
