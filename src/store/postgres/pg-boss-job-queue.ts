import { type Kysely, sql } from "kysely";
import type pg from "pg";
import type { Db, PgBoss } from "pg-boss";
import type { JobError, JobResult, NewJob } from "../../domain.ts";
import type { ClaimedJob, JobQueue } from "../job-queue.ts";
import { type Database, newJobRow } from "../sql/schema.ts";
import { listen } from "./listen.ts";

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

  async enqueue(job: NewJob): Promise<void> {
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

  async claim(workerId: string): Promise<ClaimedJob | undefined> {
    void workerId;
    for (;;) {
      const [fetched] = await this.fetchOne();
      if (!fetched) return undefined;
      const attempt = { id: fetched.id, retryCount: fetched.retryCount };
      const row = await this.db
        .updateTable("jobs")
        .set({ status: "STARTED", started_at: new Date().toISOString() })
        .where("id", "=", fetched.id)
        .where("status", "in", ["QUEUED", "STARTED"])
        .returning(["id", "app_id", "workflow", "params", "created_at"])
        .executeTakeFirst();
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
        .set({ ...outcome, completed_at: new Date().toISOString() })
        .where("id", "=", jobId)
        .compile();
      const updated = await client.query(update.sql, update.parameters as unknown[]);
      return (updated.rowCount ?? 0) > 0;
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
    return this.transaction(async (client, adapter) => {
      const failed = await this.boss.fail(QUEUE, attempt, { reason: "worker shut down" }, { db: adapter });
      if (affected(failed) === 0) return false;
      const update = this.db
        .updateTable("jobs")
        .set({ status: "QUEUED", started_at: null })
        .where("id", "=", jobId)
        .compile();
      await client.query(update.sql, update.parameters as unknown[]);
      return true;
    });
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
