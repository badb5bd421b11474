import type { JobError, JobResult, JobState, NewJob } from "../domain.ts";

export interface ClaimedJob {
  id: string;
  appId: string;
  workflow: string;
  params: Record<string, unknown>;
  createdAt: string;
  /** 1 on the first run; more when a previous worker's lease ran out. */
  attempt: number;
  /** POST /job's copyResultsTo (output name → URL), or null. */
  copyResultsTo: Record<string, string> | null;
}

/** enqueue()'s answer when the job's Idempotency-Key was already used: the job made then, and its request's hash. */
export interface EarlierRequest {
  jobId: string;
  requestHash: string;
}

/** What cancel() found: a job it ended, a job that had already ended, or none of that application's. */
export type CancelOutcome = "cancelled" | "finished" | "not-found";

/**
 * The durable queue of jobs. Every transition is conditional on the caller still holding the lease,
 * so a worker that lost its lease (or whose job was deleted) cannot overwrite anything.
 */
export interface JobQueue {
  /**
   * Writes the job row and its queue entry in one transaction. With an idempotency key already used (within 24 h)
   * it writes nothing and returns the earlier request; a unique key decides between concurrent requests.
   */
  enqueue(job: NewJob): Promise<EarlierRequest | undefined>;
  /** Takes the next runnable job (queued, or started with an expired lease), fairly across applications. */
  claim(workerId: string, leaseMs: number): Promise<ClaimedJob | undefined>;
  /** Extends the lease; false when the worker no longer holds it (job deleted or taken over). */
  heartbeat(jobId: string, workerId: string, leaseMs: number): Promise<boolean>;
  complete(jobId: string, workerId: string, result: JobResult): Promise<boolean>;
  fail(jobId: string, workerId: string, error: JobError): Promise<boolean>;
  /**
   * Gives the job back to the queue (shutdown) without counting an attempt: its next claim has the same `attempt`,
   * so a deploy never brings a job nearer to failing. False when the lease was already lost.
   */
  release(jobId: string, workerId: string): Promise<boolean>;
  /**
   * Ends a QUEUED or STARTED job as FAILED with `error`, whoever runs it: its lease ends, so the worker's own
   * outcome can no longer be written, and the change is published (watchStates) so that the worker stops.
   */
  cancel(appId: string, jobId: string, error: JobError): Promise<CancelOutcome>;
  /** Records a running job's progress if workerId still runs it (else false), and publishes it. */
  reportProgress(jobId: string, workerId: string, progress: number, step: string | null): Promise<boolean>;
  /**
   * Calls `onState` with each change of a job's state (status, progress) made by any node, soon after it
   * commits. `undefined` means changes may have been missed (the listener reconnected): re-read what matters.
   */
  watchStates(onState: (state: JobState | undefined) => void, onError: (error: Error) => void): () => Promise<void>;
  /** Jobs waiting to start. */
  depth(): Promise<number>;
  /**
   * Calls `onQueued` soon after a job is queued (by this process, or by any node where the backend can tell:
   * Postgres), so that idle workers look at once instead of at their next poll. Returns a function that stops.
   */
  watch(onQueued: () => void, onError: (error: Error) => void): () => Promise<void>;
}
