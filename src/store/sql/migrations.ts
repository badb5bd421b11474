import fs from "node:fs";
import path from "node:path";

/** Numbered SQL files shared by SQLite and Postgres (portable SQL: TEXT, BIGINT, INTEGER). */
export const MIGRATIONS_DIR = path.join(import.meta.dirname, "migrations");

export type Dialect = "sqlite" | "postgres";

/**
 * What a migration runs on one dialect: its statements up to the first `-- dialect: NAME` line are portable; each
 * such line starts statements for that dialect only (what has no portable form: SQLite's FTS5, Postgres's pg_trgm).
 */
export function forDialect(text: string, dialect: Dialect): string {
  let current: string | undefined;
  const kept: string[] = [];
  for (const line of text.split("\n")) {
    const marker = /^--\s*dialect:\s*(\w+)\s*$/.exec(line);
    if (marker) current = marker[1];
    else if (current === undefined || current === dialect) kept.push(line);
  }
  return kept.join("\n");
}

export function migrationFiles(dialect: Dialect): { name: string; sql: string }[] {
  return fs
    .readdirSync(MIGRATIONS_DIR)
    .filter((f) => f.endsWith(".sql"))
    .sort()
    .map((name) => ({ name, sql: forDialect(fs.readFileSync(path.join(MIGRATIONS_DIR, name), "utf8"), dialect) }));
}
