import type { JobState, JobStatus } from "../../domain.ts";

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

/** How long an Idempotency-Key holds: an older one counts as unused. */
export const IDEMPOTENCY_KEY_TTL_MS = 24 * 3600 * 1000;
