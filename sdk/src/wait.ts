import { JobTimeoutError, MixdownError } from "./errors.ts";
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
}

interface StatusSource {
  getJobStatus(id: string, signal?: AbortSignal): Promise<JobStatusInfo>;
  getJob(id: string, signal?: AbortSignal): Promise<Job>;
}

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

export async function waitForJobCompletion(client: StatusSource, id: string, options: WaitOptions = {}): Promise<Job> {
  const { signal, timeoutMs } = options;
  const deadline = timeoutMs === undefined ? Number.POSITIVE_INFINITY : Date.now() + timeoutMs;
  const maxInterval = options.maxIntervalMs ?? 5000;
  let interval = options.intervalMs ?? 500;
  let last: JobStatus | undefined;
  for (;;) {
    signal?.throwIfAborted();
    try {
      const { status } = await client.getJobStatus(id, signal);
      if (status !== last) options.onStatus?.(status);
      last = status;
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
