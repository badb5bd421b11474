import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import type { Job, JobFilter, JobSearch, JobStatus, MetadataValue, Page } from "../domain.ts";
import { ApiError } from "../errors.ts";
import { uuidv7 } from "../ids.ts";
import { describeIssues } from "../schema-issues.ts";
import type { BlobStore } from "../store/blob-store.ts";
import type { JobQueue } from "../store/job-queue.ts";
import type { MetadataStore } from "../store/metadata-store.ts";
import type { UploadService } from "./uploads.ts";
import type { WorkflowService } from "./workflows.ts";

export interface CreateJobRequest {
  name: string;
  workflow: string;
  params: Record<string, unknown>;
  metadata?: Record<string, MetadataValue>;
  batchName?: string;
}

/** Hooks into the worker pool of this process (absent on API-only nodes). */
export interface JobEvents {
  deleted(jobId: string): void;
}

export class JobService {
  private readonly ajv = new Ajv2020({ allErrors: true, strict: false });
  private readonly validators = new Map<string, ValidateFunction>();

  private readonly store: MetadataStore;
  private readonly queue: JobQueue;
  private readonly blobs: BlobStore;
  private readonly workflows: WorkflowService;
  private readonly uploads: UploadService;
  private readonly events: JobEvents;

  constructor(
    store: MetadataStore,
    queue: JobQueue,
    blobs: BlobStore,
    workflows: WorkflowService,
    uploads: UploadService,
    events: JobEvents,
  ) {
    this.store = store;
    this.queue = queue;
    this.blobs = blobs;
    this.workflows = workflows;
    this.uploads = uploads;
    this.events = events;
    (addFormats as unknown as (ajv: Ajv2020) => void)(this.ajv);
  }

  /** Compiled input-schema validators, by definition hash (a changed definition compiles anew). */
  private validatorFor(hash: string, schema: Record<string, unknown>): ValidateFunction {
    let validate = this.validators.get(hash);
    if (!validate) {
      validate = this.ajv.compile(schema);
      this.validators.set(hash, validate);
    }
    return validate;
  }

  async create(appId: string, request: CreateJobRequest): Promise<string> {
    const workflow = await this.workflows.forJob(request.workflow);
    const validate = this.validatorFor(workflow.hash, workflow.definition.inputSchema);
    if (!validate(request.params)) {
      const details = describeIssues(validate.errors ?? [], "params");
      throw new ApiError("INVALID_WORKFLOW_PARAMS", undefined, details);
    }
    const id = uuidv7();
    await this.queue.enqueue({
      id,
      appId,
      name: request.name,
      batchName: request.batchName ?? null,
      metadata: request.metadata ?? {},
      workflow: workflow.slug,
      params: request.params,
      createdAt: new Date().toISOString(),
      inputUploadIds: await this.uploads.uploadIdsIn(request.params),
    });
    return id;
  }

  async get(appId: string, id: string): Promise<Job> {
    const job = await this.store.getJob(appId, id);
    if (!job) throw new ApiError("JOB_NOT_FOUND");
    return job;
  }

  /** Synchronous when the store answers at once (embedded), else a promise. */
  status(appId: string, id: string): JobStatus | Promise<JobStatus> {
    const found = (status: JobStatus | undefined) => {
      if (!status) throw new ApiError("JOB_NOT_FOUND");
      return status;
    };
    const status = this.store.getJobStatus(appId, id);
    return status instanceof Promise ? status.then(found) : found(status);
  }

  list(filter: JobFilter): Promise<Page<Job>> {
    return this.store.listJobs(filter);
  }

  /** Jobs of every application (for operators, not for API keys), newest first. */
  search(search: JobSearch): Promise<Page<Job>> {
    return this.store.searchJobs(search);
  }

  /** Any application's job by id (for operators), through the search, which matches ids exactly. */
  async findForOperator(id: string): Promise<Job | undefined> {
    const page = await this.store.searchJobs({
      appIds: [],
      statuses: [],
      workflows: [],
      batchName: undefined,
      text: id,
      page: 0,
      size: 50,
    });
    return page.items.find((job) => job.id === id);
  }

  /** Irreversible: stops the job if running, removes it and its stored results. */
  async delete(appId: string, id: string): Promise<void> {
    if (!(await this.store.getJobStatus(appId, id))) throw new ApiError("JOB_NOT_FOUND");
    this.events.deleted(id);
    if (!(await this.store.deleteJob(appId, id))) throw new ApiError("JOB_NOT_FOUND");
    await this.blobs.deletePrefix(`results/${id}/`);
  }
}
