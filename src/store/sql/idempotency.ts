import type { CompiledQuery, Kysely } from "kysely";
import type { NewJob } from "../../domain.ts";
import { IDEMPOTENCY_KEY_TTL_MS } from "./job-state-row.ts";
import type { Database } from "./schema.ts";

/**
 * The two statements of an idempotent create, run in the job's transaction after its insert. `record` writes the
 * key (or takes over one older than 24 h) and returns a row only if it did; otherwise `earlier` reads the request
 * that holds it. The primary key decides between concurrent requests: the second waits for the first to commit.
 */
export function idempotencyStatements(
  db: Kysely<Database>,
  job: NewJob & { idempotency: { key: string; requestHash: string } },
  now: number,
): { record: CompiledQuery<{ job_id: string }>; earlier: CompiledQuery<{ job_id: string; request_hash: string }> } {
  const { key, requestHash } = job.idempotency;
  const record = db
    .insertInto("idempotency_keys")
    .values({ app_id: job.appId, idempotency_key: key, request_hash: requestHash, job_id: job.id, created_at: now })
    .onConflict((oc) =>
      oc
        .columns(["app_id", "idempotency_key"])
        .doUpdateSet((eb) => ({
          request_hash: eb.ref("excluded.request_hash"),
          job_id: eb.ref("excluded.job_id"),
          created_at: eb.ref("excluded.created_at"),
        }))
        .where("idempotency_keys.created_at", "<", now - IDEMPOTENCY_KEY_TTL_MS),
    )
    .returning("job_id")
    .compile();
  const earlier = db
    .selectFrom("idempotency_keys")
    .select(["job_id", "request_hash"])
    .where("app_id", "=", job.appId)
    .where("idempotency_key", "=", key)
    .compile();
  return { record, earlier };
}

/** Thrown inside an enqueue's transaction to roll it back when the key belongs to an earlier request. */
export class KeyAlreadyUsed extends Error {
  readonly jobId: string;
  readonly requestHash: string;

  constructor(jobId: string, requestHash: string) {
    super("idempotency key already used");
    this.jobId = jobId;
    this.requestHash = requestHash;
  }
}
