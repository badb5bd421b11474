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
}
