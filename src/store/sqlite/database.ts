import fs from "node:fs";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { Kysely, type SqliteDatabase, SqliteDialect, type SqliteStatement } from "kysely";
import type { JobState } from "../../domain.ts";
import { type JobStateRow, toJobState } from "../sql/job-state-row.ts";
import { migrationFiles } from "../sql/migrations.ts";
import type { Database } from "../sql/schema.ts";

const STATEMENT_CACHE_SIZE = 500;
const STATUS_CACHE_SIZE = 10_000;

/**
 * Presents node:sqlite's DatabaseSync in the shape Kysely's SqliteDialect expects (better-sqlite3's).
 * Prepared statements are kept by SQL text: Kysely prepares on every query, and the same few queries
 * recur (re-preparing cost ~8 µs each).
 */
function asKyselyDatabase(db: DatabaseSync, onWrite: () => void): SqliteDatabase {
  const cache = new Map<string, SqliteStatement>();
  return {
    close: () => db.close(),
    prepare(sql: string): SqliteStatement {
      const cached = cache.get(sql);
      if (cached) return cached;
      if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value as string);
      const statement = db.prepare(sql);
      type Params = Parameters<typeof statement.all>;
      // Anything but a plain SELECT may change data (BEGIN, ROLLBACK and WITH … UPDATE included).
      const writes = !/^\s*select\b/i.test(sql);
      const wrapped: SqliteStatement = {
        reader: statement.columns().length > 0,
        all: (parameters) => {
          if (writes) onWrite();
          return statement.all(...(parameters as Params));
        },
        run: (parameters) => {
          if (writes) onWrite();
          return statement.run(...(parameters as Params));
        },
        iterate: (parameters) => {
          if (writes) onWrite();
          return statement.iterate(...(parameters as Params));
        },
      };
      cache.set(sql, wrapped);
      return wrapped;
    },
  };
}

/** Applies the numbered .sql files not yet applied; BEGIN IMMEDIATE serialises concurrent starts. */
function migrate(db: DatabaseSync): void {
  db.exec("CREATE TABLE IF NOT EXISTS schema_migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)");
  for (const { name, sql } of migrationFiles("sqlite")) {
    db.exec("BEGIN IMMEDIATE");
    try {
      if (!db.prepare("SELECT 1 FROM schema_migrations WHERE name = ?").get(name)) {
        db.exec(sql);
        db.prepare("INSERT INTO schema_migrations (name, applied_at) VALUES (?, ?)").run(
          name,
          new Date().toISOString(),
        );
      }
      db.exec("COMMIT");
    } catch (error) {
      db.exec("ROLLBACK");
      throw error;
    }
  }
}

/** Kysely over the data dir's database, a token that changes when another process writes to it, and the hot lookups. */
export function openSqlite(dataDir: string): {
  db: Kysely<Database>;
  externalChanges: () => string;
  jobState: (appId: string, id: string) => JobState | undefined;
} {
  fs.mkdirSync(dataDir, { recursive: true });
  const db = new DatabaseSync(path.join(dataDir, "mixdown.sqlite"), { timeout: 10_000 });
  db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON;");
  migrate(db);
  // Read at most every 100 ms: another process's change (a key revoked by the CLI) shows within that.
  const dataVersion = db.prepare("PRAGMA data_version");
  let version = "";
  let readAt = 0;
  const externalChanges = () => {
    const now = performance.now();
    if (now - readAt > 100) {
      version = String((dataVersion.get() as { data_version: number }).data_version);
      readAt = now;
    }
    return version;
  };
  // The status (and progress) clients poll: from memory while nothing has written since it was read, else from a
  // prepared statement (no query building, no promise hops). This connection's writes clear the cache at
  // once; another process's (rare: the CLI) within 100 ms, through data_version.
  const stateStatement = db.prepare(
    "SELECT id, app_id, status, progress, step, revision FROM jobs WHERE app_id = ? AND id = ?",
  );
  const states = new Map<string, JobState>();
  let writes = 0;
  let cachedAfter = { writes: 0, external: "" };
  const jobState = (appId: string, id: string) => {
    const external = externalChanges();
    if (writes !== cachedAfter.writes || external !== cachedAfter.external) {
      states.clear();
      cachedAfter = { writes, external };
    }
    const cached = states.get(id);
    if (cached) return cached.appId === appId ? cached : undefined;
    const row = stateStatement.get(appId, id) as JobStateRow | undefined;
    // Read mid-transaction, a row may yet roll back: the ROLLBACK is a write, so it clears the cache.
    if (row === undefined) return undefined;
    const state = toJobState(row);
    if (states.size >= STATUS_CACHE_SIZE) states.delete(states.keys().next().value as string);
    states.set(id, state);
    return state;
  };
  const onWrite = () => {
    writes++;
  };
  const kysely = new Kysely<Database>({ dialect: new SqliteDialect({ database: asKyselyDatabase(db, onWrite) }) });
  return { db: kysely, externalChanges, jobState };
}
