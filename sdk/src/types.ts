export const JOB_STATUSES = ["QUEUED", "STARTED", "SUCCEEDED", "FAILED"] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

/** Why a job failed: BAD_INPUT, TIMEOUT or INTERNAL_ERROR (other services may add codes). */
export interface JobError {
  code: string;
  title: string;
  message: string;
}

export type MetadataValue = string | number | boolean;

/**
 * A job, in one shape whichever representation the server sent (the string-slug form, or the variant
 * with `workflow: {id, name}` and without `app`, `batchName` and `error`).
 */
export interface Job {
  id: string;
  /** Name of the application that created the job; null when the server did not say. */
  app: string | null;
  name: string;
  batchName: string | null;
  metadata: Record<string, MetadataValue>;
  /** The workflow's slug; for the `{id, name}` variant, the workflow's id. */
  workflow: string;
  /** The workflow's human-readable name, when the server sent it (variant form only). */
  workflowName: string | null;
  workflowParams: Record<string, unknown>;
  status: JobStatus;
  /** Output file URLs and inline values; null until the job has succeeded (a failed job may carry some). */
  result: Record<string, unknown> | null;
  error: JobError | null;
  createdAt: string;
  startedAt: string | null;
  completedAt: string | null;
}

export interface JobStatusInfo {
  id: string;
  status: JobStatus;
  /** Mixdown: how much of the job is done, from 0 to 1 (absent from other servers). */
  progress?: number;
  /** Mixdown: the workflow step the running job last reported progress from. */
  step?: string | null;
}

export interface Workflow {
  id: string;
  name: string;
  slug: string;
  description: string;
  createdAt: string;
  updatedAt: string;
}

/** One output of a workflow, as described by Mixdown's GET /workflow/<slug>. */
export interface WorkflowOutput {
  type: string;
  kind: "file URL" | "inline value";
  description?: string;
  /** The value may be null: nothing to report (the description says when). */
  nullable?: boolean;
}

/** A workflow with its input schema and outputs (GET /workflow/<slug>, a Mixdown extension). */
export interface WorkflowDetails extends Workflow {
  inputSchema?: Record<string, unknown>;
  outputs?: Record<string, WorkflowOutput | null>;
  runnable?: boolean;
  errors?: unknown[];
  [key: string]: unknown;
}

export interface Application {
  id: string;
  name: string;
}

export interface UploadPair {
  uploadUrl: string;
  downloadUrl: string;
}

export interface NewJob {
  name: string;
  /** Workflow slug, e.g. "mixdown/convert". */
  workflow: string;
  params: Record<string, unknown>;
  metadata?: Record<string, MetadataValue>;
  batchName?: string;
  /**
   * Mixdown: the Idempotency-Key sent with the create (default: a new UUID per addJob call). Reuse one to make
   * creates repeated by your own retries return the same job.
   */
  idempotencyKey?: string;
  /**
   * Mixdown: a URL that receives this job's events (job.started, job.succeeded, job.failed, job.cancelled) as
   * Standard Webhooks POSTs signed with the application's job-webhook secret (`mixdown app webhook secret APP_ID`).
   */
  webhookUrl?: string;
  /**
   * Music.AI's custom storage: output name → URL (e.g. a presigned PUT URL). On success each named output is PUT
   * there instead of being kept, and its result value becomes "[custom storage]"; a failed PUT fails the job.
   */
  copyResultsTo?: Record<string, string>;
}

export interface JobFilters {
  status?: JobStatus | readonly JobStatus[];
  workflow?: string | readonly string[];
  batchName?: string;
  /** Page number, from 0. */
  page?: number;
  /** Page size (the server's default is 100). */
  size?: number;
}

export interface JobPage {
  jobs: Job[];
  page: number;
  size: number;
  /** Number of matching jobs on all pages, when the server sends X-Total-Count. */
  total: number | null;
  /** The next page number, or null on the last page. */
  nextPage: number | null;
}

export interface WorkflowPage {
  workflows: Workflow[];
  page: number;
  size: number;
  total: number | null;
  nextPage: number | null;
}

/** Progress of an upload or a download. `total` is null when the size is not known. */
export interface TransferProgress {
  loaded: number;
  total: number | null;
}
