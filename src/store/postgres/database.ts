import { Kysely, PostgresDialect } from "kysely";
import pg from "pg";
import { migrationFiles } from "../sql/migrations.ts";
import type { Database } from "../sql/schema.ts";

// BIGINT columns hold byte counts and millisecond times, all below 2^53: read them as numbers.
pg.types.setTypeParser(20, (value) => Number(value));

/** Any number of nodes may start at once: one holds this advisory lock while it migrates, the rest wait. */
const MIGRATION_LOCK = 0x6d697864; // "mixd"

async function migrate(pool: pg.Pool): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query("SELECT pg_advisory_lock($1)", [MIGRATION_LOCK]);
    await client.query(
      "CREATE TABLE IF NOT EXISTS schema_migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)",
    );
    for (const { name, sql } of migrationFiles("postgres")) {
      const done = await client.query("SELECT 1 FROM schema_migrations WHERE name = $1", [name]);
      if (done.rowCount) continue;
      await client.query("BEGIN");
      try {
        await client.query(sql);
        await client.query("INSERT INTO schema_migrations (name, applied_at) VALUES ($1, $2)", [
          name,
          new Date().toISOString(),
        ]);
        await client.query("COMMIT");
      } catch (error) {
        await client.query("ROLLBACK");
        throw error;
      }
    }
  } finally {
    await client.query("SELECT pg_advisory_unlock($1)", [MIGRATION_LOCK]).catch(() => undefined);
    client.release();
  }
}

export async function openPostgres(
  connectionString: string,
): Promise<{ db: Kysely<Database>; pool: pg.Pool; close(): Promise<void> }> {
  const pool = new pg.Pool({ connectionString, max: 10 });
  // An idle connection that breaks (Postgres restarted) is dropped by the pool; unheard, its error would end
  // the process.
  pool.on("error", (error) =>
    console.error(JSON.stringify({ level: 40, msg: "an idle Postgres connection failed", err: String(error) })),
  );
  await migrate(pool);
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return {
    db,
    pool,
    async close() {
      await db.destroy();
      // Kysely ends the pool only if it ever used it; the migration's connection may be all there is.
      if (!pool.ended) await pool.end();
    },
  };
}
