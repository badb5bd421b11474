-- The queue's index gains job_id: an application's oldest waiting job (lease_expires_at NULL) is then its first
-- entry, found without reading the others, and the claim costs the same with 10 or 10,000 jobs waiting.
CREATE INDEX job_queue_by_app_lease_job ON job_queue (app_id, lease_expires_at, job_id);
DROP INDEX job_queue_by_app;

