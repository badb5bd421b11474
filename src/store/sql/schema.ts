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
  /** source, definition and definition_hash are null once the workflow is removed (changed_at: when). */
  custom_workflows: {
    slug: string;
    format: string;
    source: string | null;
    definition: string | null;
    definition_hash: string | null;
    changed_at: string;
  };
  custom_workflows_revision: {
    id: number;
    revision: number;
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
    /** The worker that last started the job (000004). */
    worker_id: string | null;
    /** POST /job's webhookUrl (000005). */
    webhook_url: string | null;
    /** POST /job's copyResultsTo as JSON (000007). */
    copy_results_to: string | null;
    progress: number;
    step: string | null;
    revision: number;
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
  webhook_endpoints: {
    id: string;
    app_id: string;
    url: string;
    secret: string;
    previous_secret: string | null;
    previous_secret_until: number | null;
    created_at: string;
    disabled_at: string | null;
    disabled_reason: string | null;
  };
  webhook_app_secrets: {
    app_id: string;
    secret: string;
    previous_secret: string | null;
    previous_secret_until: number | null;
  };
  webhook_deliveries: {
    id: string;
    event_id: string;
    event_type: string;
    app_id: string;
    job_id: string;
    endpoint_id: string | null;
    url: string;
    created_at: string;
    status: string;
    attempts: number;
    next_attempt_at: number;
    lease_owner: string | null;
    lease_expires_at: number | null;
    last_attempt_at: string | null;
    last_status_code: number | null;
    last_error: string | null;
  };
  idempotency_keys: {
    app_id: string;
    idempotency_key: string;
    request_hash: string;
    job_id: string;
    created_at: number;
  };
  rate_limit_buckets: {
    app_id: string;
    tokens: number;
    updated_at: number;
    last_grant: number;
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
  webhookUrl?: string | null;
  copyResultsTo?: Record<string, string> | null;
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
    worker_id: null,
    progress: 0,
    step: null,
    revision: 0,
    webhook_url: job.webhookUrl ?? null,
    copy_results_to: job.copyResultsTo ? JSON.stringify(job.copyResultsTo) : null,
  };
}
