import { errorFromResponse, MixdownError, networkError } from "./errors.ts";
import { type JobStateEvent, readEvents } from "./events.ts";
import { normalizeJob, normalizeJobList } from "./normalize.ts";
import { nextPage, totalCount } from "./pagination.ts";
import { type DownloadedResults, type DownloadOptions, downloadFile, downloadJobResults } from "./results.ts";
import { countingStream, mediaTypeFor, openSource, type UploadSource } from "./transfer.ts";
import type {
  Application,
  Job,
  JobFilters,
  JobPage,
  JobStatusInfo,
  NewJob,
  TransferProgress,
  UploadPair,
  Workflow,
  WorkflowDetails,
  WorkflowPage,
} from "./types.ts";
import { sleep, type WaitOptions, waitForJobCompletion } from "./wait.ts";

export interface MixdownClientOptions {
  /**
   * The service's address, e.g. "https://mixdown.example.com" or "http://localhost:8080/v1". Without a
   * /v1 or /api path, /v1 is added.
   */
  baseUrl: string;
  /** Sent as `Authorization: <apiKey>` on API calls (never on upload or result URLs). */
  apiKey: string;
  /** A fetch implementation (default: the global one). */
  fetch?: typeof fetch;
  userAgent?: string;
  /**
   * How many times a request is tried again (default 5): after 429 (waiting as Retry-After says), and, for
   * requests safe to repeat (reads, deletes, cancels, job creation with its Idempotency-Key), after a network
   * error or a 5xx answer. 0 turns retries off.
   */
  maxRetries?: number;
}

/** A retry waits Retry-After when the server gives it (at most this long), else a backoff from 250 ms. */
const MAX_RETRY_WAIT_MS = 60_000;

export interface UploadOptions {
  /** Media type of the file (default: from the file name's extension, else application/octet-stream). */
  contentType?: string;
  /** Size in bytes of a stream source, for progress and Content-Length. */
  size?: number;
  onProgress?: (progress: TransferProgress) => void;
  signal?: AbortSignal;
}

interface RequestOptions {
  query?: URLSearchParams;
  body?: unknown;
  signal?: AbortSignal;
  headers?: Record<string, string>;
  /** Safe to send again after a network error or 5xx (default: GET and DELETE). */
  repeatable?: boolean;
}

/** A client of the Music.AI job API as Mixdown serves it; also works against services that speak that API. */
export class MixdownClient {
  readonly baseUrl: string;
  private readonly apiKey: string;
  private readonly fetchImpl: typeof fetch;
  private readonly userAgent: string;
  private readonly maxRetries: number;

  constructor(options: MixdownClientOptions) {
    const url = new URL(options.baseUrl);
    const pathname = url.pathname.replace(/\/+$/, "");
    url.pathname = /\/(v1|api)$/.test(pathname) ? pathname : `${pathname}/v1`;
    this.baseUrl = url.toString().replace(/\/+$/, "");
    this.apiKey = options.apiKey;
    this.fetchImpl = options.fetch ?? globalThis.fetch;
    this.userAgent = options.userAgent ?? "mixdown-sdk/0.1";
    this.maxRetries = options.maxRetries ?? 5;
  }

  /**
   * One API call: returns the parsed JSON body and the headers, or throws MixdownError. Rate-limited calls (429)
   * are tried again after Retry-After; repeatable ones also after network errors and 5xx answers.
   */
  async request<T>(
    method: string,
    pathname: string,
    options: RequestOptions = {},
  ): Promise<{ body: T; headers: Headers }> {
    const repeatable = options.repeatable ?? (method === "GET" || method === "DELETE");
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.requestOnce<T>(method, pathname, options);
      } catch (error) {
        if (!(error instanceof MixdownError) || attempt >= this.maxRetries || options.signal?.aborted) throw error;
        const again =
          error.status === 429 ||
          (repeatable && (error.status === 0 || (error.status >= 500 && error.code !== "INVALID_RESPONSE")));
        if (!again) throw error;
        const backoff = 250 * 2 ** attempt * (0.5 + Math.random() / 2);
        await sleep(Math.min(error.retryAfterMs ?? backoff, MAX_RETRY_WAIT_MS), options.signal);
      }
    }
  }

  private async requestOnce<T>(
    method: string,
    pathname: string,
    options: RequestOptions,
  ): Promise<{ body: T; headers: Headers }> {
    const query = options.query?.toString();
    const url = `${this.baseUrl}${pathname}${query ? `?${query}` : ""}`;
    const headers: Record<string, string> = {
      ...options.headers,
      authorization: this.apiKey,
      "user-agent": this.userAgent,
    };
    if (options.body !== undefined) headers["content-type"] = "application/json";
    const what = `${method} ${pathname}`;
    let response: Response;
    try {
      response = await this.fetchImpl(url, {
        method,
        headers,
        body: options.body === undefined ? undefined : JSON.stringify(options.body),
        signal: options.signal,
      });
    } catch (error) {
      if (options.signal?.aborted) throw error;
      throw networkError(error, what);
    }
    if (!response.ok) throw await errorFromResponse(response, what);
    try {
      return { body: (await response.json()) as T, headers: response.headers };
    } catch (error) {
      throw new MixdownError(`${what}: the response is not JSON`, {
        status: response.status,
        code: "INVALID_RESPONSE",
        cause: error,
      });
    }
  }

  /** GET /upload: a temporary upload URL and its download URL. */
  async getUploadUrls(signal?: AbortSignal): Promise<UploadPair> {
    return (await this.request<UploadPair>("GET", "/upload", { signal })).body;
  }

  /**
   * Uploads a file (a path, bytes, or a Node or web stream) to the temporary upload server and returns its
   * download URL, to use as a job's `inputUrl`.
   */
  async uploadFile(source: UploadSource, options: UploadOptions = {}): Promise<string> {
    const { uploadUrl, downloadUrl } = await this.getUploadUrls(options.signal);
    const { chunks, total } = await openSource(source, options.size);
    const contentType =
      options.contentType ?? (typeof source === "string" ? mediaTypeFor(source) : "application/octet-stream");
    const headers: Record<string, string> = { "content-type": contentType, "user-agent": this.userAgent };
    if (total !== null) headers["content-length"] = String(total);
    let response: Response;
    try {
      response = await this.fetchImpl(uploadUrl, {
        method: "PUT",
        headers,
        body: countingStream(chunks, total, options.onProgress),
        duplex: "half",
        signal: options.signal,
      } as RequestInit);
    } catch (error) {
      if (options.signal?.aborted) throw error;
      throw networkError(error, "upload");
    }
    if (!response.ok) throw await errorFromResponse(response, "upload");
    await response.body?.cancel();
    return downloadUrl;
  }

  /**
   * POST /job: creates a job and returns its id. It is sent with an Idempotency-Key (`job.idempotencyKey`, else a
   * new UUID), so that trying it again after a network error or a 5xx answer cannot create a second job.
   */
  async addJob(job: NewJob, signal?: AbortSignal): Promise<string> {
    const body: Record<string, unknown> = { name: job.name, workflow: job.workflow, params: job.params };
    if (job.metadata !== undefined) body.metadata = job.metadata;
    if (job.batchName !== undefined) body.batchName = job.batchName;
    if (job.webhookUrl !== undefined) body.webhookUrl = job.webhookUrl;
    if (job.copyResultsTo !== undefined) body.copyResultsTo = job.copyResultsTo;
    const headers = { "idempotency-key": job.idempotencyKey ?? globalThis.crypto.randomUUID() };
    return (await this.request<{ id: string }>("POST", "/job", { body, signal, headers, repeatable: true })).body.id;
  }

  /**
   * POST /job/:id/cancel (Mixdown): stops a QUEUED or STARTED job, which ends FAILED with error code CANCELLED,
   * and returns it. Cancelling a cancelled job returns it again; a job that ended otherwise is a 409
   * MixdownError with code JOB_ALREADY_FINISHED.
   */
  async cancelJob(id: string, signal?: AbortSignal): Promise<Job> {
    const pathname = `/job/${encodeURIComponent(id)}/cancel`;
    return normalizeJob((await this.request("POST", pathname, { signal, repeatable: true })).body);
  }

  async getJob(id: string, signal?: AbortSignal): Promise<Job> {
    return normalizeJob((await this.request("GET", `/job/${encodeURIComponent(id)}`, { signal })).body);
  }

  async getJobStatus(id: string, signal?: AbortSignal): Promise<JobStatusInfo> {
    return (await this.request<JobStatusInfo>("GET", `/job/${encodeURIComponent(id)}/status`, { signal })).body;
  }

  /** One page of jobs (newest first on Mixdown), filtered by status, workflow and batch. */
  async listJobs(filters: JobFilters = {}, signal?: AbortSignal): Promise<JobPage> {
    const query = new URLSearchParams();
    for (const status of [filters.status ?? []].flat()) query.append("status", status);
    for (const workflow of [filters.workflow ?? []].flat()) query.append("workflow", workflow);
    if (filters.batchName !== undefined) query.set("batchName", filters.batchName);
    const page = filters.page ?? 0;
    query.set("page", String(page));
    if (filters.size !== undefined) query.set("size", String(filters.size));
    const { body, headers } = await this.request("GET", "/job", { query, signal });
    const jobs = normalizeJobList(body);
    const size = filters.size ?? 100;
    return { jobs, page, size, total: totalCount(headers), nextPage: nextPage(headers, page, size, jobs.length) };
  }

  /** Every job matching the filters, fetching page after page (from `filters.page`, default 0). */
  async *iterateJobs(filters: JobFilters = {}, signal?: AbortSignal): AsyncGenerator<Job> {
    let page: number | null = filters.page ?? 0;
    while (page !== null) {
      const result: JobPage = await this.listJobs({ ...filters, page }, signal);
      yield* result.jobs;
      page = result.nextPage;
    }
  }

  /** DELETE /job/:id (irreversible); returns the deleted job's id. */
  async deleteJob(id: string, signal?: AbortSignal): Promise<string> {
    return (await this.request<{ id: string }>("DELETE", `/job/${encodeURIComponent(id)}`, { signal })).body.id;
  }

  async listWorkflows(options: { page?: number; size?: number } = {}, signal?: AbortSignal): Promise<WorkflowPage> {
    const page = options.page ?? 0;
    const query = new URLSearchParams({ page: String(page) });
    if (options.size !== undefined) query.set("size", String(options.size));
    const { body, headers } = await this.request<{ workflows?: Workflow[] }>("GET", "/workflow", { query, signal });
    if (!Array.isArray(body.workflows)) {
      throw new MixdownError("GET /workflow: the response has no workflows array", {
        status: 200,
        code: "INVALID_RESPONSE",
      });
    }
    const size = options.size ?? 100;
    const workflows = body.workflows;
    return {
      workflows,
      page,
      size,
      total: totalCount(headers),
      nextPage: nextPage(headers, page, size, workflows.length),
    };
  }

  async *iterateWorkflows(signal?: AbortSignal): AsyncGenerator<Workflow> {
    let page: number | null = 0;
    while (page !== null) {
      const result: WorkflowPage = await this.listWorkflows({ page }, signal);
      yield* result.workflows;
      page = result.nextPage;
    }
  }

  /** One workflow with its input schema and outputs (a Mixdown extension of the API). */
  async getWorkflow(slug: string, signal?: AbortSignal): Promise<WorkflowDetails> {
    const pathname = `/workflow/${slug.split("/").map(encodeURIComponent).join("/")}`;
    return (await this.request<WorkflowDetails>("GET", pathname, { signal })).body;
  }

  /** The application of the API key in use. */
  async getApplication(signal?: AbortSignal): Promise<Application> {
    return (await this.request<Application>("GET", "/application", { signal })).body;
  }

  /**
   * GET /job/:id/events (Mixdown): the job's states as they change, from its current one, until it has ended.
   * `lastEventId` resumes after an event already seen. Throws MixdownError when the server has no such stream.
   */
  async *followJob(
    id: string,
    options: { signal?: AbortSignal; lastEventId?: string } = {},
  ): AsyncGenerator<JobStateEvent> {
    const pathname = `/job/${encodeURIComponent(id)}/events`;
    const what = `GET ${pathname}`;
    const headers: Record<string, string> = {
      authorization: this.apiKey,
      "user-agent": this.userAgent,
      accept: "text/event-stream",
    };
    if (options.lastEventId) headers["last-event-id"] = options.lastEventId;
    let response: Response;
    try {
      response = await this.fetchImpl(`${this.baseUrl}${pathname}`, { headers, signal: options.signal });
    } catch (error) {
      if (options.signal?.aborted) throw error;
      throw networkError(error, what);
    }
    if (!response.ok) throw await errorFromResponse(response, what);
    if (!response.headers.get("content-type")?.startsWith("text/event-stream") || !response.body) {
      await response.body?.cancel();
      throw new MixdownError(`${what}: the server sent no event stream`, { status: 406, code: "NO_EVENT_STREAM" });
    }
    try {
      yield* readEvents(response.body);
    } catch (error) {
      if (options.signal?.aborted) throw error;
      throw networkError(error, what);
    }
  }

  /**
   * Waits until the job has SUCCEEDED or FAILED, then returns the whole job: by its event stream on Mixdown
   * (reporting progress), else by polling its status with backoff.
   */
  waitForJobCompletion(id: string, options: WaitOptions = {}): Promise<Job> {
    return waitForJobCompletion(this, id, options);
  }

  /**
   * Downloads a finished job's result files into `dir` (named by result key plus the URL's extension) and
   * writes every result, with the local file names for files, to `dir/result.mixdown.json`.
   */
  async downloadJobResults(
    jobOrId: Job | string,
    dir: string,
    options: DownloadOptions = {},
  ): Promise<DownloadedResults> {
    const job = typeof jobOrId === "string" ? await this.getJob(jobOrId, options.signal) : jobOrId;
    return downloadJobResults(job, dir, { ...options, fetch: this.fetchImpl, userAgent: this.userAgent });
  }

  /** Downloads one URL to a file (status checked, written through a temporary file). */
  downloadFile(
    url: string,
    destination: string,
    options: Omit<DownloadOptions, "onProgress"> & { onProgress?: (p: TransferProgress) => void } = {},
  ): Promise<number> {
    return downloadFile(url, destination, { ...options, fetch: this.fetchImpl, userAgent: this.userAgent });
  }
}
