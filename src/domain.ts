/** The records Mixdown keeps, as the services see them (no storage or HTTP types here). */

export const JOB_STATUSES = ["QUEUED", "STARTED", "SUCCEEDED", "FAILED"] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

export type MetadataValue = string | number | boolean;

/** A job result entry: a stored file (rendered as a signed URL at the edge) or an inline value. */
export type ResultEntry = { file: string; contentType: string } | { value: unknown };
export type JobResult = Record<string, ResultEntry>;

export const JOB_ERROR_CODES = ["BAD_INPUT", "TIMEOUT", "INTERNAL_ERROR", "CANCELLED"] as const;
export type JobErrorCode = (typeof JOB_ERROR_CODES)[number];
export interface JobError {
  code: JobErrorCode;
  title: string;
  message: string;
}

export interface Job {
  id: string;
  appId: string;
  appName: string;
  name: string;
  batchName: string | null;
  metadata: Record<string, MetadataValue>;
  workflow: string;
  params: Record<string, unknown>;
  status: JobStatus;
  result: JobResult | null;
  error: JobError | null;
  createdAt: string;
  startedAt: string | null;
  completedAt: string | null;
  /** From 0 to 1 while the job runs (1 once it has succeeded). */
  progress: number;
  /** The step the job last reported progress from, while it runs. */
  step: string | null;
}

/** What clients watch of a job (GET /job/:id/status, GET /job/:id/events); revision grows with every change. */
export interface JobState {
  id: string;
  appId: string;
  status: JobStatus;
  progress: number;
  step: string | null;
  revision: number;
}

export interface NewJob {
  id: string;
  appId: string;
  name: string;
  batchName: string | null;
  metadata: Record<string, MetadataValue>;
  workflow: string;
  params: Record<string, unknown>;
  createdAt: string;
  /** Uploads the job reads; kept from garbage collection until the job ends. */
  inputUploadIds: string[];
  /** POST /job's webhookUrl: gets the job's events besides the application's webhook endpoints. */
  webhookUrl?: string;
  /** POST /job's copyResultsTo: output name → URL the file is PUT to on success. */
  copyResultsTo?: Record<string, string>;
  /** POST /job's Idempotency-Key and the hash of the request it came with. */
  idempotency?: { key: string; requestHash: string };
}

export interface JobFilter {
  appId: string;
  statuses: JobStatus[];
  workflows: string[];
  batchName: string | undefined;
  page: number;
  size: number;
}

/** A search across applications (the dashboard's jobs table): empty lists and undefined match everything. */
export interface JobSearch {
  appIds: string[];
  statuses: JobStatus[];
  workflows: string[];
  batchName: string | undefined;
  /** A job id, or text the job's name contains (case-insensitive). */
  text: string | undefined;
  /** Ignored when a cursor is given. */
  page: number;
  size: number;
  /** Keyset pagination: the page of jobs just older than this job id (the "older" link of a page)… */
  before?: string;
  /** …or just newer than this one (the "newer" link). */
  after?: string;
  /** Counts matches only up to this many: a total of countLimit + 1 then means "more than countLimit". */
  countLimit?: number;
}

export interface Application {
  id: string;
  name: string;
  createdAt: string;
  revokedAt: string | null;
}

/** What an application's jobs look like at a glance (the dashboard's applications table). */
export interface ApplicationActivity {
  jobsByStatus: Record<JobStatus, number>;
  /** When the application's newest job was created (its last use of the API), or null with no jobs. */
  lastActivityAt: string | null;
}

export interface WorkflowRecord {
  id: string;
  slug: string;
  name: string;
  description: string;
  definitionHash: string;
  createdAt: string;
  updatedAt: string;
}

/** A custom workflow's definition as the metadata store keeps it for every node. */
export interface CustomWorkflowDefinition {
  slug: string;
  format: "json" | "yaml";
  /** The text as the operator wrote it. */
  source: string;
  /** Its parse. */
  definition: unknown;
  /** Of the parse: moves when the definition does, not when a comment does. */
  hash: string;
  /** When it was last saved (ISO). */
  changedAt: string;
}

export type UploadState = "PENDING" | "RECEIVING" | "COMPLETE";
export interface Upload {
  id: string;
  appId: string;
  state: UploadState;
  contentType: string | null;
  size: number | null;
  createdAt: string;
  expiresAt: number;
}

/** The dashboard's system page: how many recent jobs failed with one error code, and when the last did. */
export interface FailureCount {
  code: string;
  count: number;
  lastAt: string | null;
}

export interface Page<T> {
  items: T[];
  total: number;
}
