import { type Kysely, type Selectable, sql } from "kysely";
import type pg from "pg";
import type { Db, PgBoss } from "pg-boss";
import type { JobError, JobResult, JobState, NewJob } from "../../domain.ts";
import type { CancelOutcome, ClaimedJob, EarlierRequest, JobQueue } from "../job-queue.ts";
import { idempotencyStatements, KeyAlreadyUsed } from "../sql/idempotency.ts";
import { endEventType, insertJobEvent, JOB_EVENT_CHANNEL } from "../sql/job-events.ts";
import { cancelledJobColumns, JOB_STATE_COLUMNS, type JobStateRow } from "../sql/job-state-row.ts";
import { type Database, newJobRow } from "../sql/schema.ts";
import { JOB_STATES_CHANNEL, notifyState, notifyStateOf, parseStatePayload } from "./job-states.ts";
import { listen } from "./listen.ts";
import { returnToQueue } from "./return-to-queue.ts";

export const QUEUE = "mixdown-jobs";
/** NOTIFY'd by every enqueue, in its transaction (so only once it commits): idle workers LISTEN and look at once. */
const QUEUED_CHANNEL = "mixdown_job_queued";
/** Advisory lock key under which capped fetches take turns (any constant of our own). */
const CAPPED_FETCH_LOCK = 0x6d697864; // "mixd"

/** How many jobs a pg-boss command changed (its typings leave the response shape open). */
const affected = (response: object): number => (response as { affected?: number }).affected ?? 0;

interface Attempt {
  id: string;
  retryCount: number;
}

/**
 * The distributed queue: job rows in Postgres, delivery by pg-boss. pg-boss owns claiming, heartbeats
 * and re-delivery of a job whose worker went silent; every outcome is written in one transaction with the
 * pg-boss completion of *this* attempt, so a lapsed attempt can never write a result.
 */
export class PgBossJobQueue implements JobQueue {
  private readonly db: Kysely<Database>;
  private readonly pool: pg.Pool;
  private readonly boss: PgBoss;
  private readonly appConcurrency: number;
  private readonly connectionString: string;
  /** The pg-boss attempt each job claimed by this process is on. */
  private readonly attempts = new Map<string, Attempt>();
  /** watchStates()'s listeners, served by one LISTEN connection for the whole process. */
  private readonly stateWatchers = new Set<(state: JobState | undefined) => void>();
  private stopStates: (() => Promise<void>) | undefined;

  constructor(
    db: Kysely<Database>,
    pool: pg.Pool,
    boss: PgBoss,
    options: { appConcurrency: number; connectionString: string },
  ) {
    this.db = db;
    this.pool = pool;
    this.boss = boss;
    this.appConcurrency = options.appConcurrency;
    this.connectionString = options.connectionString;
  }

  /** Runs `work` in one transaction; pg-boss calls made with the given adapter join it. */
  private async transaction<T>(work: (client: pg.PoolClient, adapter: Db) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      await client.query("BEGIN");
      const result = await work(client, { executeSql: (text, values) => client.query(text, values as unknown[]) });
      await client.query("COMMIT");
      return result;
    } catch (error) {
      await client.query("ROLLBACK").catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  async enqueue(job: NewJob): Promise<EarlierRequest | undefined> {
    try {
      await this.insert(job);
      return undefined;
    } catch (error) {
      if (error instanceof KeyAlreadyUsed) return { jobId: error.jobId, requestHash: error.requestHash };
      throw error;
    }
  }

  private async insert(job: NewJob): Promise<void> {
    await this.transaction(async (client, adapter) => {
      // One statement (one round trip) writes the job and its inputs, counts the application's jobs already waiting
      // (the CTEs' rows are not visible to it) and NOTIFYs idle workers, which hear it once the transaction commits.
      let write = this.db.with("job", (db) => db.insertInto("jobs").values(newJobRow(job)));
      if (job.inputUploadIds.length > 0) {
        const inputs = job.inputUploadIds.map((uploadId) => ({ job_id: job.id, upload_id: uploadId }));
        write = write.with("inputs", (db) => db.insertInto("job_inputs").values(inputs));
      }
      const statement = write
        .selectFrom("jobs")
        .select([sql<number>`count(*)::int`.as("waiting"), sql`pg_notify(${QUEUED_CHANNEL}, '')`.as("notified")])
        .where("app_id", "=", job.appId)
        .where("status", "=", "QUEUED")
        .compile();
      const { rows } = await client.query<{ waiting: number }>(statement.sql, statement.parameters as unknown[]);
      if (job.idempotency) {
        // After the job's insert: a concurrent request with the same key waits here for this one to commit.
        const { record, earlier } = idempotencyStatements(
          this.db,
          { ...job, idempotency: job.idempotency },
          Date.now(),
        );
        if ((await client.query(record.sql, record.parameters as unknown[])).rowCount === 0) {
          const held = await client.query<{ job_id: string; request_hash: string }>(
            earlier.sql,
            earlier.parameters as unknown[],
          );
          const row = held.rows[0];
          if (row) throw new KeyAlreadyUsed(row.job_id, row.request_hash);
        }
      }
      // Fair share: an application's n-th waiting job goes behind every other application's first ones.
      const rank = rows[0]?.waiting ?? 0;
      await this.boss.send(
        QUEUE,
        { jobId: job.id },
        { id: job.id, priority: -rank, group: { id: job.appId }, db: adapter },
      );
    });
  }

  watch(onQueued: () => void, onError: (error: Error) => void): () => Promise<void> {
    return listen(this.connectionString, QUEUED_CHANNEL, onQueued, onError);
  }

  watchStates(onState: (state: JobState | undefined) => void, onError: (error: Error) => void): () => Promise<void> {
    const listener = (state: JobState | undefined) => onState(state);
    this.stateWatchers.add(listener);
    this.stopStates ??= listen(
      this.connectionString,
      JOB_STATES_CHANNEL,
      (payload) => {
        const state = parseStatePayload(payload);
        if (state || payload === undefined) for (const watcher of this.stateWatchers) watcher(state);
      },
      onError,
    );
    return async () => {
      this.stateWatchers.delete(listener);
      if (this.stateWatchers.size > 0 || !this.stopStates) return;
      const stop = this.stopStates;
      this.stopStates = undefined;
      await stop();
    };
  }

  async claim(workerId: string): Promise<ClaimedJob | undefined> {
    for (;;) {
      const [fetched] = await this.fetchOne();
      if (!fetched) return undefined;
      const attempt = { id: fetched.id, retryCount: fetched.retryCount };
      const start = this.db
        .updateTable("jobs")
        .set({
          status: "STARTED",
          started_at: new Date().toISOString(),
          worker_id: workerId,
          progress: 0,
          step: null,
          revision: sql`revision + 1`,
        })
        .where("id", "=", fetched.id)
        .where("status", "in", ["QUEUED", "STARTED"])
        .returning(["workflow", "params", "created_at", "copy_results_to", ...JOB_STATE_COLUMNS]);
      // One statement: its parts see the row as it was, so job.started goes to the outbox only for a job leaving
      // QUEUED (not for one taken over from a silent worker), atomically with the update.
      const { rows } = await sql<Selectable<Database["jobs"]>>`
        WITH event AS (${insertJobEvent(fetched.id, "job.started", "QUEUED")} RETURNING 1), started AS (${start})
        SELECT started.*, CASE WHEN EXISTS (SELECT 1 FROM event) THEN pg_notify(${JOB_EVENT_CHANNEL}, '') END,
          ${notifyStateOf("started")}
        FROM started`.execute(this.db);
      const row = rows[0];
      if (!row) {
        // Deleted (or already ended) while it waited: settle the delivery and look again.
        await this.boss.complete(QUEUE, attempt);
        continue;
      }
      this.attempts.set(row.id, attempt);
      return {
        id: row.id,
        appId: row.app_id,
        workflow: row.workflow,
        params: JSON.parse(row.params),
        createdAt: row.created_at,
        attempt: fetched.retryCount + 1,
        copyResultsTo: row.copy_results_to === null ? null : JSON.parse(row.copy_results_to),
      };
    }
  }

  /**
   * pg-boss checks a group's running jobs inside its fetch, so two fetches at once (every idle worker wakes on
   * the same NOTIFY) could each see none running and both start one of the same application. With a cap,
   * fetches take turns under a transaction-scoped advisory lock: each sees the ones before it committed.
   */
  private fetchOne() {
    if (this.appConcurrency === 0) return this.boss.fetch<{ jobId: string }>(QUEUE, { batchSize: 1 });
    return this.transaction(async (client, db) => {
      await client.query("SELECT pg_advisory_xact_lock($1)", [CAPPED_FETCH_LOCK]);
      return this.boss.fetch<{ jobId: string }>(QUEUE, { batchSize: 1, groupConcurrency: this.appConcurrency, db });
    });
  }

  async heartbeat(jobId: string): Promise<boolean> {
    const attempt = this.attempts.get(jobId);
    if (!attempt) return false;
    const touched = await this.boss.touch(QUEUE, attempt);
    if (affected(touched) === 0) return false;
    const row = await this.db.selectFrom("jobs").select("id").where("id", "=", jobId).executeTakeFirst();
    return row !== undefined;
  }

  private async finish(
    jobId: string,
    outcome: { status: "SUCCEEDED" | "FAILED"; result: string | null; error: string | null },
  ): Promise<boolean> {
    const attempt = this.attempts.get(jobId);
    if (!attempt) return false;
    this.attempts.delete(jobId);
    return this.transaction(async (client, adapter) => {
      const settled = await this.boss.complete(QUEUE, attempt, null, { db: adapter });
      if (affected(settled) === 0) return false;
      // The outcome and the end of the job's claim on its inputs in one statement (one round trip less per job).
      const update = this.db
        .with("inputs", (db) => db.deleteFrom("job_inputs").where("job_id", "=", jobId))
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
        .compile();
      const updated = await client.query<JobStateRow>(update.sql, update.parameters as unknown[]);
      const ended = updated.rows[0];
      if (!ended) return false;
      const { text, values } = notifyState(ended);
      await client.query(text, values);
      const event = sql`
        WITH event AS (${insertJobEvent(jobId, endEventType(outcome))} RETURNING 1)
        SELECT pg_notify(${JOB_EVENT_CHANNEL}, '') WHERE EXISTS (SELECT 1 FROM event)`.compile(this.db);
      await client.query(event.sql, event.parameters as unknown[]);
      return true;
    });
  }

  complete(jobId: string, _workerId: string, result: JobResult): Promise<boolean> {
    return this.finish(jobId, { status: "SUCCEEDED", result: JSON.stringify(result), error: null });
  }

  fail(jobId: string, _workerId: string, error: JobError): Promise<boolean> {
    return this.finish(jobId, { status: "FAILED", result: null, error: JSON.stringify(error) });
  }

  async release(jobId: string): Promise<boolean> {
    const attempt = this.attempts.get(jobId);
    if (!attempt) return false;
    this.attempts.delete(jobId);
    return this.transaction(async (client) => {
      // Not boss.fail(): that would count an attempt, and a deploy is not the job's fault (see returnToQueue).
      if (!(await returnToQueue(client, QUEUE, attempt))) return false;
      const update = this.db
        .updateTable("jobs")
        .set({ status: "QUEUED", started_at: null, progress: 0, step: null, revision: sql`revision + 1` })
        .where("id", "=", jobId)
        .returning(JOB_STATE_COLUMNS)
        .compile();
      const queued = (await client.query<JobStateRow>(update.sql, update.parameters as unknown[])).rows[0];
      if (queued) {
        const { text, values } = notifyState(queued);
        await client.query(text, values);
      }
      // Idle workers on any node take it at once, as they do a new job, rather than at their next poll.
      await client.query("SELECT pg_notify($1, '')", [QUEUED_CHANNEL]);
      return true;
    });
  }

  async cancel(appId: string, jobId: string, error: JobError): Promise<CancelOutcome> {
    return this.transaction(async (client, adapter) => {
      const update = this.db
        .with("inputs", (db) => db.deleteFrom("job_inputs").where("job_id", "=", jobId))
        .updateTable("jobs")
        .set(cancelledJobColumns(error))
        .where("app_id", "=", appId)
        .where("id", "=", jobId)
        .where("status", "in", ["QUEUED", "STARTED"])
        .returning(JOB_STATE_COLUMNS)
        .compile();
      const cancelled = (await client.query<JobStateRow>(update.sql, update.parameters as unknown[])).rows[0];
      if (!cancelled) {
        const found = await client.query("SELECT 1 FROM jobs WHERE app_id = $1 AND id = $2", [appId, jobId]);
        return found.rowCount ? "finished" : "not-found";
      }
      // Its pg-boss job ends too: a waiting one is never fetched, a running one's worker can no longer complete it.
      await this.boss.cancel(QUEUE, jobId, { db: adapter });
      const event = sql`
        WITH event AS (${insertJobEvent(jobId, "job.cancelled")} RETURNING 1)
        SELECT pg_notify(${JOB_EVENT_CHANNEL}, '') WHERE EXISTS (SELECT 1 FROM event)`.compile(this.db);
      await client.query(event.sql, event.parameters as unknown[]);
      const { text, values } = notifyState(cancelled);
      await client.query(text, values);
      return "cancelled";
    });
  }

  async reportProgress(jobId: string, _workerId: string, progress: number, step: string | null): Promise<boolean> {
    if (!this.attempts.has(jobId)) return false;
    const { rows } = await sql<{ id: string }>`
      WITH changed AS (${this.db
        .updateTable("jobs")
        .set({ progress, step, revision: sql`revision + 1` })
        .where("id", "=", jobId)
        .where("status", "=", "STARTED")
        .returning(JOB_STATE_COLUMNS)})
      SELECT changed.id, ${notifyStateOf("changed")} FROM changed`.execute(this.db);
    return rows.length > 0;
  }

  async depth(): Promise<number> {
    const row = await this.db
      .selectFrom("jobs")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("status", "=", "QUEUED")
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }
}
