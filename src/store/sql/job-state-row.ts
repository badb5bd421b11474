import { sql } from "kysely";
import type { JobError, JobState, JobStatus } from "../../domain.ts";

/** The jobs columns a job's state is made of (for RETURNING and SELECT). */
export const JOB_STATE_COLUMNS = ["id", "app_id", "status", "progress", "step", "revision"] as const;

export interface JobStateRow {
  id: string;
  app_id: string;
  status: string;
  progress: number;
  step: string | null;
  revision: number;
}

export const toJobState = (row: JobStateRow): JobState => ({
  id: row.id,
  appId: row.app_id,
  status: row.status as JobStatus,
  progress: Number(row.progress),
  step: row.step,
  revision: Number(row.revision),
});

/** What a cancel writes into the job's row, on either queue: FAILED with `error`, its state one revision on. */
export const cancelledJobColumns = (error: JobError) => ({
  status: "FAILED" as const,
  result: null,
  error: JSON.stringify(error),
  completed_at: new Date().toISOString(),
  step: null,
  revision: sql<number>`revision + 1`,
});

/** How long an Idempotency-Key holds: an older one counts as unused. */
export const IDEMPOTENCY_KEY_TTL_MS = 24 * 3600 * 1000;
