/** Row types of the SQLite tables (see migrations/). */
export interface Database {
  applications: {
    id: string;
    name: string;
    key_hash: string;
    created_at: string;
    revoked_at: string | null;
  };
  workflows: {
    slug: string;
    id: string;
    name: string;
    description: string;
    definition_hash: string;
    created_at: string;
    updated_at: string;
  };
  jobs: {
    id: string;
    app_id: string;
    name: string;
    batch_name: string | null;
    metadata: string;
    workflow: string;
    params: string;
    status: string;
    result: string | null;
    error: string | null;
    created_at: string;
    started_at: string | null;
    completed_at: string | null;
  };
  job_queue: {
    job_id: string;
    app_id: string;
    attempts: number;
    lease_owner: string | null;
    lease_expires_at: number | null;
  };
  uploads: {
    id: string;
    app_id: string;
    state: string;
    content_type: string | null;
    size: number | null;
    created_at: string;
    expires_at: number;
  };
  job_inputs: {
    job_id: string;
    upload_id: string;
  };
  operators: {
    id: string;
    name: string;
    password_hash: string;
    created_at: string;
    updated_at: string;
  };
  operator_sessions: {
    id_hash: string;
    operator_id: string;
    csrf_token: string;
    created_at: string;
    last_seen_at: number;
  };
  setup_tokens: {
    token_hash: string;
    expires_at: number;
  };
  sign_in_failures: {
    subject: string;
    failures: number;
    last_failure_at: number;
    blocked_until: number;
  };
}

/** The jobs row of a new job (queued). */
export function newJobRow(job: {
  id: string;
  appId: string;
  name: string;
  batchName: string | null;
  metadata: object;
  workflow: string;
  params: object;
  createdAt: string;
}): Database["jobs"] {
  return {
    id: job.id,
    app_id: job.appId,
    name: job.name,
    batch_name: job.batchName,
    metadata: JSON.stringify(job.metadata),
    workflow: job.workflow,
    params: JSON.stringify(job.params),
    status: "QUEUED",
    result: null,
    error: null,
    created_at: job.createdAt,
    started_at: null,
    completed_at: null,
  };
}
