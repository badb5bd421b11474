import { type RawBuilder, sql } from "kysely";
import type { JobError } from "../../domain.ts";
import { uuidv7 } from "../../ids.ts";

/** NOTIFY'd (Postgres) in the transaction that writes job events, so every node's deliverer looks at once. */
export const JOB_EVENT_CHANNEL = "mixdown_job_event";

export const JOB_EVENT_TYPES = ["job.started", "job.succeeded", "job.failed", "job.cancelled"] as const;
export type JobEventType = (typeof JOB_EVENT_TYPES)[number];

/** The event of a job's end: a cancelled job is FAILED with code CANCELLED, and says so. */
export function endEventType(outcome: {
  status: "SUCCEEDED" | "FAILED";
  error: JobError | string | null;
}): JobEventType {
  if (outcome.status === "SUCCEEDED") return "job.succeeded";
  const error = typeof outcome.error === "string" ? (JSON.parse(outcome.error) as JobError) : outcome.error;
  return error?.code === "CANCELLED" ? "job.cancelled" : "job.failed";
}

/**
 * The outbox rows of one job event (run it in the transaction of the job's transition): one per enabled webhook
 * endpoint of the job's application, and one for the job's own webhookUrl. `onlyIfStatus`: written only while the
 * job still has that status (job.started is written before the update, for a job leaving QUEUED).
 * Portable SQL: the same statement on SQLite and Postgres.
 */
export function insertJobEvent(jobId: string, type: JobEventType, onlyIfStatus?: string): RawBuilder<unknown> {
  const eventId = `msg_${uuidv7().replaceAll("-", "")}`;
  const now = Date.now();
  const at = new Date(now).toISOString();
  const statusCondition = onlyIfStatus === undefined ? sql`` : sql`AND j.status = ${onlyIfStatus}`;
  const common = sql`CAST(${eventId} AS TEXT), CAST(${type} AS TEXT), j.app_id, j.id`;
  const schedule = sql`CAST(${at} AS TEXT), 'PENDING', 0, CAST(${now} AS BIGINT)`;
  return sql`
    INSERT INTO webhook_deliveries
      (id, event_id, event_type, app_id, job_id, endpoint_id, url, created_at, status, attempts, next_attempt_at)
    SELECT CAST(${eventId} AS TEXT) || '_' || e.id, ${common}, e.id, e.url, ${schedule}
    FROM jobs j JOIN webhook_endpoints e ON e.app_id = j.app_id AND e.disabled_at IS NULL
    WHERE j.id = ${jobId} ${statusCondition}
    UNION ALL
    SELECT CAST(${eventId} AS TEXT) || '_job', ${common}, NULL, j.webhook_url, ${schedule}
    FROM jobs j
    WHERE j.id = ${jobId} AND j.webhook_url IS NOT NULL ${statusCondition}`;
}
