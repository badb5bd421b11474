import { JobTimeoutError, MixdownError } from "./errors.ts";
import type { JobStateEvent } from "./events.ts";
import type { Job, JobStatus, JobStatusInfo } from "./types.ts";

export interface WaitOptions {
  /** Give up after this long with JobTimeoutError (default: wait forever). */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** First pause between polls (default 500 ms); it grows by half each poll up to `maxIntervalMs`. */
  intervalMs?: number;
  /** Longest pause between polls (default 5000 ms). */
  maxIntervalMs?: number;
  /** Called with every status read (e.g. to show it live). */
  onStatus?: (status: JobStatus) => void;
  /** Called with the job's progress (0 to 1) and current step as the server reports them (Mixdown). */
  onProgress?: (progress: number, step: string | null) => void;
  /** Follow the server's event stream when it has one (default true); false: poll only. */
  stream?: boolean;
}

interface StatusSource {
  getJobStatus(id: string, signal?: AbortSignal): Promise<JobStatusInfo>;
  getJob(id: string, signal?: AbortSignal): Promise<Job>;
  followJob?(id: string, options: { signal?: AbortSignal; lastEventId?: string }): AsyncIterable<JobStateEvent>;
}

const isEnded = (status: JobStatus) => status === "SUCCEEDED" || status === "FAILED";
/** A stream that breaks is opened again (resuming after its last event) this many times before polling instead. */
const STREAM_ATTEMPTS = 3;

/** Errors worth another try while waiting: no answer, overload, server errors. */
const transient = (error: unknown) =>
  error instanceof MixdownError &&
  (error.status === 0 || error.status === 429 || error.status >= 500) &&
  error.code !== "INVALID_RESPONSE";

export function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * Follows the job's event stream until it reports the end (true), or gives up on it (false: the server has no
 * stream, or it kept breaking), and the caller polls. Throws on timeout, abort, and errors polling would get too.
 */
async function followUntilEnded(
  client: StatusSource & Required<Pick<StatusSource, "followJob">>,
  id: string,
  options: WaitOptions,
  deadline: number,
  seen: { status?: JobStatus },
): Promise<boolean> {
  let lastEventId: string | undefined;
  for (let attempt = 0; attempt < STREAM_ATTEMPTS; attempt++) {
    const controller = new AbortController();
    const onAbort = () => controller.abort(options.signal?.reason);
    options.signal?.addEventListener("abort", onAbort, { once: true });
    const left = deadline - Date.now();
    const timer = Number.isFinite(left) ? setTimeout(() => controller.abort("timeout"), Math.max(0, left)) : undefined;
    try {
      for await (const event of client.followJob(id, { signal: controller.signal, lastEventId })) {
        lastEventId = event.eventId;
        if (event.status !== seen.status) options.onStatus?.(event.status);
        seen.status = event.status;
        if (typeof event.progress === "number") options.onProgress?.(event.progress, event.step ?? null);
        if (isEnded(event.status)) return true;
      }
    } catch (error) {
      options.signal?.throwIfAborted();
      if (controller.signal.aborted) {
        // Timed out before the stream said anything: one status read, so the error tells where the job was.
        seen.status ??= (await client.getJobStatus(id, options.signal).catch(() => undefined))?.status;
        throw new JobTimeoutError(id, options.timeoutMs ?? 0, seen.status);
      }
      if (!(error instanceof MixdownError)) throw error;
      if (error.code === "JOB_NOT_FOUND" || error.status === 401 || error.status === 403) throw error;
      if (error.status !== 0 && error.status < 500) return false; // no event stream here: poll
    } finally {
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
    }
  }
  return false;
}

/**
 * Waits until the job has SUCCEEDED or FAILED and returns it: by its event stream where the server has one
 * (Mixdown), else by polling its status with backoff.
 */
export async function waitForJobCompletion(client: StatusSource, id: string, options: WaitOptions = {}): Promise<Job> {
  const { signal, timeoutMs } = options;
  const deadline = timeoutMs === undefined ? Number.POSITIVE_INFINITY : Date.now() + timeoutMs;
  const maxInterval = options.maxIntervalMs ?? 5000;
  let interval = options.intervalMs ?? 500;
  const seen: { status?: JobStatus } = {};
  if (client.followJob && options.stream !== false) {
    const follower = client as StatusSource & Required<Pick<StatusSource, "followJob">>;
    if (await followUntilEnded(follower, id, options, deadline, seen)) return await client.getJob(id, signal);
  }
  let last = seen.status;
  for (;;) {
    signal?.throwIfAborted();
    try {
      const { status, progress, step } = await client.getJobStatus(id, signal);
      if (status !== last) options.onStatus?.(status);
      last = status;
      if (typeof progress === "number") options.onProgress?.(progress, step ?? null);
      if (status === "SUCCEEDED" || status === "FAILED") return await client.getJob(id, signal);
    } catch (error) {
      if (!transient(error) || Date.now() >= deadline) throw error;
    }
    const left = deadline - Date.now();
    if (left <= 0) throw new JobTimeoutError(id, timeoutMs ?? 0, last);
    await sleep(Math.min(interval, left), signal);
    interval = Math.min(maxInterval, Math.ceil(interval * 1.5));
  }
}
