-- Dashboard operators (people, not applications) and their sign-in state, shared by every API node.
CREATE TABLE operators (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  -- "scrypt$N$r$p$salt$hash" (base64url); the parameters travel with the hash so they can be raised later.
  password_hash TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);

-- Sessions by the SHA-256 of their 256-bit id: a copy of this table gives no usable cookie.
CREATE TABLE operator_sessions (
  id_hash TEXT PRIMARY KEY,
  operator_id TEXT NOT NULL REFERENCES operators(id) ON DELETE CASCADE,
  csrf_token TEXT NOT NULL,
  created_at TEXT NOT NULL,
  last_seen_at BIGINT NOT NULL
);
CREATE INDEX operator_sessions_by_operator ON operator_sessions (operator_id);

-- One-time links that create the first operator; removed when used.
CREATE TABLE setup_tokens (
  token_hash TEXT PRIMARY KEY,
  expires_at BIGINT NOT NULL
);

-- Failed sign-ins per account ("name:…") and per address ("addr:…"); cleared by a success.
CREATE TABLE sign_in_failures (
  subject TEXT PRIMARY KEY,
  failures INTEGER NOT NULL,
  last_failure_at BIGINT NOT NULL,
  blocked_until BIGINT NOT NULL
);

-- The dashboard's applications table counts each application's jobs by status: from this index alone.
CREATE INDEX jobs_by_app_status ON jobs (app_id, status);
