CREATE TABLE applications (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  key_hash TEXT NOT NULL UNIQUE,
  created_at TEXT NOT NULL,
  revoked_at TEXT
);

CREATE TABLE workflows (
  slug TEXT PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  description TEXT NOT NULL,
  definition_hash TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);

CREATE TABLE jobs (
  id TEXT PRIMARY KEY,
  app_id TEXT NOT NULL REFERENCES applications(id),
  name TEXT NOT NULL,
  batch_name TEXT,
  metadata TEXT NOT NULL,
  workflow TEXT NOT NULL,
  params TEXT NOT NULL,
  status TEXT NOT NULL,
  result TEXT,
  error TEXT,
  created_at TEXT NOT NULL,
  started_at TEXT,
  completed_at TEXT
);
CREATE INDEX jobs_by_app ON jobs (app_id, id DESC);

-- One row per job waiting or running; removed when the job ends.
CREATE TABLE job_queue (
  job_id TEXT PRIMARY KEY REFERENCES jobs(id) ON DELETE CASCADE,
  app_id TEXT NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  lease_owner TEXT,
  lease_expires_at BIGINT
);
CREATE INDEX job_queue_by_app ON job_queue (app_id, lease_expires_at);

CREATE TABLE uploads (
  id TEXT PRIMARY KEY,
  app_id TEXT NOT NULL,
  state TEXT NOT NULL,
  content_type TEXT,
  size BIGINT,
  created_at TEXT NOT NULL,
  expires_at BIGINT NOT NULL
);
CREATE INDEX uploads_by_expiry ON uploads (expires_at);

-- Uploads a job reads, so that garbage collection keeps them until the job has ended.
CREATE TABLE job_inputs (
  job_id TEXT NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
  upload_id TEXT NOT NULL,
  PRIMARY KEY (job_id, upload_id)
);
CREATE INDEX job_inputs_by_upload ON job_inputs (upload_id);
