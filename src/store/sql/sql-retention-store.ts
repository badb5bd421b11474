import { type Kysely, sql } from "kysely";
import type { RetentionStore } from "../retention-store.ts";
import type { Database } from "./schema.ts";

/** Advisory lock key of the retention sweep (Postgres): one node sweeps at a time. */
const SWEEP_LOCK = 0x72657465; // "rete"

export class SqlRetentionStore implements RetentionStore {
  private readonly db: Kysely<Database>;
  private readonly postgres: boolean;

  constructor(db: Kysely<Database>, options: { dialect: "sqlite" | "postgres" }) {
    this.db = db;
    this.postgres = options.dialect === "postgres";
  }

  async exclusively<T>(sweep: () => Promise<T>): Promise<T | undefined> {
    // SQLite: one process serves a data dir (the CLI never sweeps).
    if (!this.postgres) return sweep();
    // A session lock, held on one connection of its own while the sweep's queries use others.
    return this.db.connection().execute(async (connection) => {
      const { rows } = await sql<{ locked: boolean }>`SELECT pg_try_advisory_lock(${SWEEP_LOCK}) AS locked`.execute(
        connection,
      );
      if (!rows[0]?.locked) return undefined;
      try {
        return await sweep();
      } finally {
        await sql`SELECT pg_advisory_unlock(${SWEEP_LOCK})`.execute(connection);
      }
    });
  }

  async finishedBefore(before: string, limit: number): Promise<string[]> {
    const rows = await this.db
      .selectFrom("jobs")
      .select("id")
      .where("status", "in", ["SUCCEEDED", "FAILED"])
      .where("completed_at", "<", before)
      .orderBy("completed_at")
      .limit(limit)
      .execute();
    return rows.map((row) => row.id);
  }

  async deleteJobs(ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.db.transaction().execute(async (tx) => {
      await tx.deleteFrom("webhook_deliveries").where("job_id", "in", ids).execute();
      await tx.deleteFrom("jobs").where("id", "in", ids).execute();
    });
  }

  async deleteDeliveriesBefore(before: string): Promise<number> {
    const deleted = await this.db
      .deleteFrom("webhook_deliveries")
      .where("created_at", "<", before)
      .where("status", "!=", "PENDING")
      .executeTakeFirst();
    return Number(deleted.numDeletedRows);
  }
}
