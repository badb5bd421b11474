import fs from "node:fs";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { Kysely, type SqliteDatabase, SqliteDialect, type SqliteStatement } from "kysely";
import { migrationFiles } from "../sql/migrations.ts";
import type { Database } from "../sql/schema.ts";

/** Presents node:sqlite's DatabaseSync in the shape Kysely's SqliteDialect expects (better-sqlite3's). */
function asKyselyDatabase(db: DatabaseSync): SqliteDatabase {
  return {
    close: () => db.close(),
    prepare(sql: string): SqliteStatement {
      const statement = db.prepare(sql);
      type Params = Parameters<typeof statement.all>;
      return {
        reader: statement.columns().length > 0,
        all: (parameters) => statement.all(...(parameters as Params)),
        run: (parameters) => statement.run(...(parameters as Params)),
        iterate: (parameters) => statement.iterate(...(parameters as Params)),
      };
    },
  };
}

/** Applies the numbered .sql files not yet applied; BEGIN IMMEDIATE serialises concurrent starts. */
function migrate(db: DatabaseSync): void {
  db.exec("CREATE TABLE IF NOT EXISTS schema_migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)");
  for (const { name, sql } of migrationFiles()) {
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

export function openSqlite(dataDir: string): Kysely<Database> {
  fs.mkdirSync(dataDir, { recursive: true });
  const db = new DatabaseSync(path.join(dataDir, "mixdown.sqlite"), { timeout: 10_000 });
  db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON;");
  migrate(db);
  return new Kysely<Database>({ dialect: new SqliteDialect({ database: asKyselyDatabase(db) }) });
}
