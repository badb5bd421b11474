import type {
  Application,
  ApplicationActivity,
  CustomWorkflowDefinition,
  FailureCount,
  Job,
  JobFilter,
  JobSearch,
  JobState,
  JobStatus,
  Page,
  Upload,
  WorkflowRecord,
} from "../domain.ts";

/** Applications, job reads, workflows and uploads. Implemented by sqlite/ (embedded). */
export interface MetadataStore {
  createApplication(app: Application, keyHash: string): Promise<void>;
  listApplications(): Promise<Application[]>;
  /** The active (not revoked) application whose key hashes to keyHash. */
  findApplicationByKeyHash(keyHash: string): Promise<Application | undefined>;
  /** Replaces the key of an active application; false when there is none with that id. */
  setApplicationKey(id: string, keyHash: string): Promise<boolean>;
  revokeApplication(id: string, at: string): Promise<boolean>;
  /** False when there is no application with that id. */
  renameApplication(id: string, name: string): Promise<boolean>;
  /** Per application with jobs: how many in each status, and when the newest was created. */
  applicationActivity(): Promise<Map<string, ApplicationActivity>>;
  /** Changes whenever applications may have changed (here or in another process): cached keys re-check. */
  applicationsVersion(): string;

  getJob(appId: string, id: string): Promise<Job | undefined>;
  /**
   * The job's status and progress (what clients poll). Synchronous where the store can answer at once (embedded:
   * from memory or a prepared statement).
   */
  getJobState(appId: string, id: string): JobState | undefined | Promise<JobState | undefined>;
  listJobs(filter: JobFilter): Promise<Page<Job>>;
  /** Jobs of every application, newest first (the dashboard's jobs table). */
  searchJobs(search: JobSearch): Promise<Page<Job>>;
  /** Removes the job and its queue entry; false when the app has no such job. */
  deleteJob(appId: string, id: string): Promise<boolean>;
  countJobsByStatus(): Promise<Record<JobStatus, number>>;
  /** The application's jobs waiting to start (MIXDOWN_MAX_QUEUED_JOBS). */
  countQueuedJobs(appId: string): Promise<number>;
  /** STARTED jobs per id of the worker that started them ("unknown" for jobs started before workers were recorded). */
  runningJobsByWorker(): Promise<Record<string, number>>;
  /** Failed jobs created since an ISO time, by error code, most frequent first. */
  failuresByCode(since: string): Promise<FailureCount[]>;

  /**
   * Records the built-in workflows: inserts new ones, updates changed ones (by definition hash), deletes the rows
   * of workflows neither listed nor custom (built-ins a newer version dropped). Custom workflows' rows are written
   * by putCustomWorkflow and deleteCustomWorkflow only, so nodes never delete each other's.
   */
  syncBuiltInWorkflows(builtIns: Omit<WorkflowRecord, "createdAt" | "updatedAt">[], now: string): Promise<void>;
  listWorkflows(page: number, size: number): Promise<Page<WorkflowRecord>>;
  getWorkflow(slug: string): Promise<WorkflowRecord | undefined>;

  /**
   * Saves a custom workflow's definition and its record (created, or updated when its hash moved), for every node;
   * false when the same text was already saved.
   */
  putCustomWorkflow(
    definition: CustomWorkflowDefinition,
    record: Omit<WorkflowRecord, "createdAt" | "updatedAt">,
  ): Promise<boolean>;
  /** Removes a custom workflow (its record too) at `at`; false when there is none. */
  deleteCustomWorkflow(slug: string, at: string): Promise<boolean>;
  /** The custom definitions, by slug, and the revision they are at. */
  listCustomWorkflows(): Promise<{ revision: string; definitions: CustomWorkflowDefinition[] }>;
  /** When a slug's definition was last saved or removed (ISO), if ever. */
  customWorkflowChangedAt(slug: string): Promise<string | undefined>;
  /** Moves with every put and delete, on any node: one small read. */
  customWorkflowsRevision(): Promise<string>;
  /** Changes whenever custom workflows may have changed (here or on another node): worth reading the revision. */
  customWorkflowsVersion(): string;

  createUpload(upload: Upload): Promise<void>;
  getUpload(id: string): Promise<Upload | undefined>;
  /** PENDING → RECEIVING, atomically; false if the upload is not PENDING (already used or in use). */
  beginUpload(id: string): Promise<boolean>;
  /** RECEIVING → COMPLETE (ok) or back to PENDING (failed, so the client may retry). */
  finishUpload(id: string, outcome: { contentType: string; size: number } | null): Promise<void>;
  /** Expired uploads no unfinished job reads; removes their rows and returns their ids. */
  takeExpiredUploads(nowMs: number): Promise<string[]>;
}
