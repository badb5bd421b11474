import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import type { Job, JobFilter, JobSearch, JobState, MetadataValue, Page } from "../domain.ts";
import { ApiError } from "../errors.ts";
import { uuidv7 } from "../ids.ts";
import { JOB_ERROR_TITLES } from "../jobs/job-failure.ts";
import { urlParamProblems } from "../modules/fetch/url-params.ts";
import { describeIssues } from "../schema-issues.ts";
import type { BlobStore } from "../store/blob-store.ts";
import type { JobQueue } from "../store/job-queue.ts";
import type { MetadataStore } from "../store/metadata-store.ts";
import { type JobExtras, jobExtrasProblems } from "./job-extras.ts";
import { requestHash } from "./request-hash.ts";
import type { UploadService } from "./uploads.ts";
import type { WorkflowService } from "./workflows.ts";

export interface CreateJobRequest extends JobExtras {
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
  /** webhookUrl and copyResultsTo may point at internal addresses (MIXDOWN_ALLOW_PRIVATE_URLS). */
  private readonly allowPrivateUrls: boolean;
  /** MIXDOWN_MAX_QUEUED_JOBS: an application with this many jobs waiting cannot queue more (0: no cap). */
  private readonly maxQueuedJobs: number;

  constructor(
    store: MetadataStore,
    queue: JobQueue,
    blobs: BlobStore,
    workflows: WorkflowService,
    uploads: UploadService,
    events: JobEvents,
    options: { allowPrivateUrls: boolean; maxQueuedJobs?: number } = { allowPrivateUrls: false },
  ) {
    this.allowPrivateUrls = options.allowPrivateUrls;
    this.maxQueuedJobs = options.maxQueuedJobs ?? 0;
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

  /**
   * Queues a job and returns its id. With an idempotency key already used by this application within 24 h, the
   * earlier job's id when the request is the same, else IDEMPOTENCY_KEY_REUSED; no second job either way.
   */
  async create(appId: string, request: CreateJobRequest, idempotencyKey?: string): Promise<string> {
    const workflow = await this.workflows.forJob(request.workflow);
    const validate = this.validatorFor(workflow.hash, workflow.definition.inputSchema);
    if (!validate(request.params)) {
      const details = describeIssues(validate.errors ?? [], "params");
      throw new ApiError("INVALID_WORKFLOW_PARAMS", undefined, details);
    }
    // An input schema may say no more than "a string": a URL no download could start from is refused here.
    const urlProblems = urlParamProblems(workflow.definition, request.params);
    if (urlProblems.length > 0) throw new ApiError("INVALID_WORKFLOW_PARAMS", undefined, urlProblems);
    const outputs = async () => {
      const described = await this.workflows.describe(workflow.slug);
      return Object.fromEntries(Object.entries(described.outputs).map(([name, output]) => [name, output?.kind]));
    };
    const extrasProblems = await jobExtrasProblems(request, outputs, this.allowPrivateUrls);
    if (extrasProblems.length > 0) throw new ApiError("INVALID_REQUEST", "Invalid fields", extrasProblems);
    if (this.maxQueuedJobs > 0 && (await this.store.countQueuedJobs(appId)) >= this.maxQueuedJobs) {
      throw new ApiError(
        "TOO_MANY_QUEUED_JOBS",
        `This application already has ${this.maxQueuedJobs} jobs waiting to start (MIXDOWN_MAX_QUEUED_JOBS); retry once some have started`,
        undefined,
        { retryAfterSeconds: 5 },
      );
    }
    const id = uuidv7();
    const hash = idempotencyKey === undefined ? undefined : requestHash(request);
    const earlier = await this.queue.enqueue({
      id,
      appId,
      name: request.name,
      batchName: request.batchName ?? null,
      metadata: request.metadata ?? {},
      workflow: workflow.slug,
      params: request.params,
      createdAt: new Date().toISOString(),
      inputUploadIds: await this.uploads.uploadIdsIn(request.params),
      webhookUrl: request.webhookUrl,
      copyResultsTo: request.copyResultsTo,
      ...(idempotencyKey !== undefined && hash !== undefined
        ? { idempotency: { key: idempotencyKey, requestHash: hash } }
        : {}),
    });
    if (!earlier) return id;
    if (earlier.requestHash !== hash) {
      throw new ApiError(
        "IDEMPOTENCY_KEY_REUSED",
        `The Idempotency-Key "${idempotencyKey}" was used for job ${earlier.jobId} with a different request body; use a new key for a new job`,
      );
    }
    return earlier.jobId;
  }

  async get(appId: string, id: string): Promise<Job> {
    const job = await this.store.getJob(appId, id);
    if (!job) throw new ApiError("JOB_NOT_FOUND");
    return job;
  }

  /** The job's status and progress; synchronous when the store answers at once (embedded), else a promise. */
  state(appId: string, id: string): JobState | Promise<JobState> {
    const state = this.store.getJobState(appId, id);
    if (state instanceof Promise) return state.then(foundState);
    return foundState(state);
  }

  /**
   * Stops a QUEUED or STARTED job: it ends FAILED with code CANCELLED, whichever node runs it, and its result
   * files are removed (its worker removes its scratch files as it stops). Cancelling a cancelled job returns it
   * again; a job that ended otherwise is JOB_ALREADY_FINISHED.
   */
  async cancel(appId: string, id: string): Promise<Job> {
    const outcome = await this.queue.cancel(appId, id, {
      code: "CANCELLED",
      title: JOB_ERROR_TITLES.CANCELLED,
      message: "The job was cancelled at the request of its application.",
    });
    if (outcome === "not-found") throw new ApiError("JOB_NOT_FOUND");
    const job = await this.get(appId, id);
    if (outcome === "finished" && job.error?.code !== "CANCELLED") {
      throw new ApiError(
        "JOB_ALREADY_FINISHED",
        `The job already ended (${job.status}${job.error ? ` ${job.error.code}` : ""}); only QUEUED or STARTED jobs can be cancelled`,
      );
    }
    if (outcome === "cancelled") await this.blobs.deletePrefix(`results/${id}/`);
    return job;
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
    if (!(await this.store.getJobState(appId, id))) throw new ApiError("JOB_NOT_FOUND");
    if (!(await this.store.deleteJob(appId, id))) throw new ApiError("JOB_NOT_FOUND");
    this.events.deleted(id);
    await this.blobs.deletePrefix(`results/${id}/`);
  }
}

/** The polled status route's check, a function of its own: no closure made per request. */
function foundState(state: JobState | undefined): JobState {
  if (!state) throw new ApiError("JOB_NOT_FOUND");
  return state;
}
