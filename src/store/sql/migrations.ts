import fs from "node:fs";
import path from "node:path";

/** Numbered SQL files shared by SQLite and Postgres (portable SQL: TEXT, BIGINT, INTEGER). */
export const MIGRATIONS_DIR = path.join(import.meta.dirname, "migrations");

export function migrationFiles(): { name: string; sql: string }[] {
  return fs
    .readdirSync(MIGRATIONS_DIR)
    .filter((f) => f.endsWith(".sql"))
    .sort()
    .map((name) => ({ name, sql: fs.readFileSync(path.join(MIGRATIONS_DIR, name), "utf8") }));
}
