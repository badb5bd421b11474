import type { JobError, JobResult, NewJob } from "../domain.ts";

export interface ClaimedJob {
  id: string;
  appId: string;
  workflow: string;
  params: Record<string, unknown>;
  createdAt: string;
  /** 1 on the first run; more when a previous worker's lease ran out. */
  attempt: number;
}

/**
 * The durable queue of jobs. Every transition is conditional on the caller still holding the lease,
 * so a worker that lost its lease (or whose job was deleted) cannot overwrite anything.
 */
export interface JobQueue {
  /** Writes the job row and its queue entry in one transaction. */
  enqueue(job: NewJob): Promise<void>;
  /** Takes the next runnable job (queued, or started with an expired lease), fairly across applications. */
  claim(workerId: string, leaseMs: number): Promise<ClaimedJob | undefined>;
  /** Extends the lease; false when the worker no longer holds it (job deleted or taken over). */
  heartbeat(jobId: string, workerId: string, leaseMs: number): Promise<boolean>;
  complete(jobId: string, workerId: string, result: JobResult): Promise<boolean>;
  fail(jobId: string, workerId: string, error: JobError): Promise<boolean>;
  /** Gives the job back to the queue (shutdown); false when the lease was already lost. */
  release(jobId: string, workerId: string): Promise<boolean>;
  /** Jobs waiting to start. */
  depth(): Promise<number>;
  /**
   * Calls `onQueued` soon after a job is queued (by this process, or by any node where the backend can tell:
   * Postgres), so that idle workers look at once instead of at their next poll. Returns a function that stops.
   */
  watch(onQueued: () => void, onError: (error: Error) => void): () => Promise<void>;
}
