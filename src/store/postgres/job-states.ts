import { sql } from "kysely";
import type { JobState } from "../../domain.ts";
import { type JobStateRow, toJobState } from "../sql/job-state-row.ts";

/** NOTIFY'd with a job's new state (JSON) by every change of its status or progress, at commit. */
export const JOB_STATES_CHANNEL = "mixdown_job_states";

/** A NOTIFY of the state of each row of `alias` (a CTE of updated jobs rows with the state columns). */
export function notifyStateOf(alias: string) {
  const t = sql.table(alias);
  return sql<string>`pg_notify(${JOB_STATES_CHANNEL}, json_build_object('id', ${t}.id, 'app_id', ${t}.app_id,
    'status', ${t}.status, 'progress', ${t}.progress, 'step', ${t}.step, 'revision', ${t}.revision)::text)`;
}

/** The statement that NOTIFYs one state already read (run it in the transaction that changed it). */
export function notifyState(row: JobStateRow): { text: string; values: unknown[] } {
  return { text: "SELECT pg_notify($1, $2)", values: [JOB_STATES_CHANNEL, JSON.stringify(row)] };
}

/** A NOTIFY's payload as a state; undefined for anything else (a missed-notifications signal, a foreign payload). */
export function parseStatePayload(payload: string | undefined): JobState | undefined {
  if (!payload) return undefined;
  try {
    const row = JSON.parse(payload) as JobStateRow;
    return typeof row.id === "string" && typeof row.status === "string" ? toJobState(row) : undefined;
  } catch {
    return undefined;
  }
}
