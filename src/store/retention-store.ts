/** What the retention sweeper reads and removes (finished jobs past MIXDOWN_JOB_RETENTION_DAYS). */
export interface RetentionStore {
  /**
   * Runs `sweep` unless another process is sweeping the same database (Postgres: an advisory lock held for the
   * sweep); undefined when it did not run.
   */
  exclusively<T>(sweep: () => Promise<T>): Promise<T | undefined>;
  /** Ids of jobs that ended (SUCCEEDED or FAILED) before `before` (ISO 8601), oldest first. */
  finishedBefore(before: string, limit: number): Promise<string[]>;
  /** Removes the jobs' rows and their webhook deliveries. */
  deleteJobs(ids: string[]): Promise<void>;
  /** Removes settled webhook deliveries created before `before` (those of jobs deleted through the API). */
  deleteDeliveriesBefore(before: string): Promise<number>;
}
