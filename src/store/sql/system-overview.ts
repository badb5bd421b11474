import { type Kysely, sql } from "kysely";
import type { FailureCount } from "../../domain.ts";
import { dialectOf } from "./job-search.ts";
import type { Database } from "./schema.ts";

/** The smallest UUID v7 made at or after `iso`, as a prefix: ids sort by creation time. */
export function firstIdAt(iso: string): string {
  const hex = Math.max(0, Date.parse(iso)).toString(16).padStart(12, "0");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}`;
}

/** STARTED jobs per worker that started them (from the partial index jobs_running_by_worker). */
export async function runningJobsByWorker(db: Kysely<Database>): Promise<Record<string, number>> {
  const rows = await db
    .selectFrom("jobs")
    .select(["worker_id", (eb) => eb.fn.countAll<number>().as("count")])
    .where(sql<boolean>`status = 'STARTED'`) // a literal: a partial index is used only for the value it names
    .groupBy("worker_id")
    .execute();
  // Jobs started before 000004 recorded their worker have none.
  return Object.fromEntries(rows.map((row) => [row.worker_id ?? "unknown", Number(row.count)]));
}

/**
 * Failed jobs created since `since` by error code, most frequent first. The range is one of ids (jobs_by_status),
 * so its cost follows the failures in the window, not the store's size.
 */
export async function failuresByCode(db: Kysely<Database>, since: string): Promise<FailureCount[]> {
  const code =
    dialectOf(db) === "sqlite" ? sql<string>`json_extract(error, '$.code')` : sql<string>`error::json->>'code'`;
  const rows = await db
    .selectFrom("jobs")
    .select([
      code.as("code"),
      (eb) => eb.fn.countAll<number>().as("count"),
      (eb) => eb.fn.max("completed_at").as("last_at"),
    ])
    .where("status", "=", "FAILED")
    .where("id", ">=", firstIdAt(since))
    .groupBy(code)
    .execute();
  return rows
    .map((row) => ({ code: row.code ?? "unknown", count: Number(row.count), lastAt: row.last_at }))
    .sort((a, b) => b.count - a.count || a.code.localeCompare(b.code));
}
