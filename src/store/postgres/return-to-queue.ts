import type pg from "pg";

/** pg-boss's schema; open.ts gives it to PgBoss, so the two cannot differ. */
export const PGBOSS_SCHEMA = "pgboss";

/**
 * Puts a running pg-boss job back to `created` without counting a retry, in the caller's transaction, if the
 * attempt `{ id, retryCount }` (as fetched) still holds it; false when it no longer does (its heartbeat lapsed
 * and pg-boss failed it, it was cancelled, or settled).
 *
 * pg-boss v12 has no public verb for this. fail() moves the job to `retry` with its started_on kept, and its next
 * fetch counts an attempt (retry_count + 1): three rolling restarts then cost a long job its three attempts.
 * resume() and retry() act only on cancelled and failed jobs. Its Manager.restore(), not exposed on PgBoss, does
 * what this does for jobs a worker fetched beyond a group's limit: state back to created, started_on and
 * heartbeat_on cleared, since a fetch increments retry_count only for a job that has a started_on. This is the one
 * statement Mixdown writes to pg-boss's own table; it is fenced like pg-boss's own settles (active, at the fetched
 * retry_count). test/store/job-queue-release.test.ts checks its effect through claim(), so that an upgrade that
 * changes the table or that rule fails there.
 */
export async function returnToQueue(
  client: pg.PoolClient,
  queue: string,
  attempt: { id: string; retryCount: number },
): Promise<boolean> {
  const { rowCount } = await client.query(
    `UPDATE ${PGBOSS_SCHEMA}.job SET state = 'created', started_on = NULL, heartbeat_on = NULL
     WHERE name = $1 AND id = $2 AND state = 'active' AND retry_count = $3`,
    [queue, attempt.id, attempt.retryCount],
  );
  return rowCount === 1;
}
