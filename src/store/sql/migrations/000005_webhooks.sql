-- Webhook endpoints of an application (Standard Webhooks): every job event of the application is sent to each
-- endpoint that is not disabled. Secrets are "whsec_<base64>"; after a rotation the previous one also signs until
-- previous_secret_until (ms), so receivers can switch without missing a delivery.
CREATE TABLE webhook_endpoints (
  id TEXT PRIMARY KEY,
  app_id TEXT NOT NULL REFERENCES applications(id),
  url TEXT NOT NULL,
  secret TEXT NOT NULL,
  previous_secret TEXT,
  previous_secret_until BIGINT,
  created_at TEXT NOT NULL,
  disabled_at TEXT,
  disabled_reason TEXT
);
CREATE INDEX webhook_endpoints_by_app ON webhook_endpoints (app_id);

-- The secret that signs deliveries to a job's own webhookUrl (one per application, created when first needed).
CREATE TABLE webhook_app_secrets (
  app_id TEXT PRIMARY KEY REFERENCES applications(id),
  secret TEXT NOT NULL,
  previous_secret TEXT,
  previous_secret_until BIGINT
);

-- A job's own webhook URL (POST /job's webhookUrl), besides the application's endpoints.
ALTER TABLE jobs ADD COLUMN webhook_url TEXT;

-- The outbox: one row per event and receiver, written in the transaction of the job's transition, then delivered
-- (at least once) by any node. Also the delivery log. endpoint_id is NULL for a job's own webhookUrl.
CREATE TABLE webhook_deliveries (
  id TEXT PRIMARY KEY,
  event_id TEXT NOT NULL,
  event_type TEXT NOT NULL,
  app_id TEXT NOT NULL,
  job_id TEXT NOT NULL,
  endpoint_id TEXT,
  url TEXT NOT NULL,
  created_at TEXT NOT NULL,
  -- PENDING until DELIVERED or FAILED (gave up, or the endpoint was disabled).
  status TEXT NOT NULL,
  attempts INTEGER NOT NULL,
  next_attempt_at BIGINT NOT NULL,
  lease_owner TEXT,
  lease_expires_at BIGINT,
  last_attempt_at TEXT,
  last_status_code INTEGER,
  last_error TEXT
);
-- The deliverer's pick: pending rows by due time.
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (status, next_attempt_at);
CREATE INDEX webhook_deliveries_by_endpoint ON webhook_deliveries (endpoint_id, created_at);
CREATE INDEX webhook_deliveries_by_app ON webhook_deliveries (app_id, created_at);
CREATE INDEX webhook_deliveries_by_job ON webhook_deliveries (job_id);
