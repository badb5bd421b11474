-- A running job's progress (0 to 1) and the step it last reported; revision counts every change a client can
-- watch (status, progress), so that GET /job/:id/events numbers its events and resumes after Last-Event-ID.
ALTER TABLE jobs ADD COLUMN progress DOUBLE PRECISION NOT NULL DEFAULT 0;
ALTER TABLE jobs ADD COLUMN step TEXT;
ALTER TABLE jobs ADD COLUMN revision INTEGER NOT NULL DEFAULT 0;

-- POST /job's Idempotency-Key, per application; the primary key makes concurrent identical requests create one job.
-- A key older than 24 h counts as unused. Deleting the job frees its key.
CREATE TABLE idempotency_keys (
  app_id TEXT NOT NULL,
  idempotency_key TEXT NOT NULL,
  request_hash TEXT NOT NULL,
  job_id TEXT NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
  created_at BIGINT NOT NULL,
  PRIMARY KEY (app_id, idempotency_key)
);
CREATE INDEX idempotency_keys_by_age ON idempotency_keys (created_at);
CREATE INDEX idempotency_keys_by_job ON idempotency_keys (job_id);

-- MIXDOWN_RATE_LIMIT in distributed mode: each application's token bucket, shared by every node (nodes take
-- tokens in small batches, so a request costs no round trip). last_grant: what the latest take got (a statement's
-- RETURNING sees only the new row).
CREATE TABLE rate_limit_buckets (
  app_id TEXT PRIMARY KEY,
  tokens DOUBLE PRECISION NOT NULL,
  updated_at BIGINT NOT NULL,
  last_grant INTEGER NOT NULL
);
