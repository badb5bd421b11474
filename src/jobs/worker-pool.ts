import { randomUUID } from "node:crypto";
import os from "node:os";
import { setTimeout as delay } from "node:timers/promises";
import type { FastifyBaseLogger } from "fastify";
import type { JobStatus } from "../domain.ts";
import type { BlobStore } from "../store/blob-store.ts";
import type { ClaimedJob, JobQueue } from "../store/job-queue.ts";
import { JOB_ERROR_TITLES, JobFailure, toJobError } from "./job-failure.ts";
import type { JobRunner } from "./job-runner.ts";
import { ProgressWriter } from "./progress-writer.ts";

/** A job interrupted this many times (its worker died each time) fails instead of running again. */
const MAX_ATTEMPTS = 3;
const POLL_MS = 500;

type StopReason = "shutdown" | "deleted" | "cancelled" | "lease-lost";

export interface WorkerPoolOptions {
  concurrency: number;
  leaseMs: number;
  log: FastifyBaseLogger;
  onJobEnded?: (workflow: string, status: JobStatus, seconds: number) => void;
}

/** Claims jobs from the queue and runs them, `concurrency` at a time, each under a heartbeated lease. */
export class WorkerPool {
  readonly workerId = `${os.hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private readonly running = new Map<string, AbortController>();
  private readonly sleepers = new Set<() => void>();
  /** Counts wake() calls, so that a loop that found nothing does not sleep through one made while it looked. */
  private wakeups = 0;
  private loops: Promise<void>[] = [];
  private stopping = false;
  private unwatch: () => Promise<void> = async () => undefined;
  private unwatchStates: () => Promise<void> = async () => undefined;

  private readonly queue: JobQueue;
  private readonly runner: JobRunner;
  private readonly blobs: BlobStore;
  private readonly options: WorkerPoolOptions;

  constructor(queue: JobQueue, runner: JobRunner, blobs: BlobStore, options: WorkerPoolOptions) {
    this.queue = queue;
    this.runner = runner;
    this.blobs = blobs;
    this.options = options;
  }

  start(): void {
    // A job queued anywhere wakes idle workers at once; the poll is the fallback (and finds re-delivered jobs).
    this.unwatch = this.queue.watch(
      () => this.wake(),
      (error) =>
        this.options.log.warn({ err: error }, `not told of queued jobs; polling every ${POLL_MS} ms meanwhile`),
    );
    // A job of ours that ended elsewhere (cancelled, on any node) stops at once, not at its next heartbeat.
    this.unwatchStates = this.queue.watchStates(
      (state) => {
        if (state && (state.status === "FAILED" || state.status === "SUCCEEDED")) {
          this.running.get(state.id)?.abort("cancelled" satisfies StopReason);
        }
      },
      (error) => this.options.log.warn({ err: error }, "not told of cancelled jobs; heartbeats find them meanwhile"),
    );
    this.runner.prepare();
    this.loops = Array.from({ length: this.options.concurrency }, () => this.loop());
  }

  /** Idle workers look now rather than at their next poll. */
  private wake(): void {
    this.wakeups++;
    for (const wake of this.sleepers) wake();
  }

  /** Stops the job if this process runs it (it was deleted). */
  cancel(jobId: string): void {
    this.running.get(jobId)?.abort("deleted" satisfies StopReason);
  }

  /** Stops claiming; running jobs get graceMs to finish, then go back to the queue. */
  async stop(graceMs: number): Promise<void> {
    this.stopping = true;
    this.wake();
    const finished = Promise.all(this.loops);
    // Cancelled once the jobs have finished, so a quick stop does not keep the process alive for the grace.
    const graceOver = new AbortController();
    const timer = delay(graceMs, "timeout" as const, { signal: graceOver.signal }).catch(() => "finished" as const);
    if ((await Promise.race([finished, timer])) === "timeout") {
      for (const controller of this.running.values()) controller.abort("shutdown" satisfies StopReason);
    }
    graceOver.abort();
    await finished;
    await this.unwatch();
    await this.unwatchStates();
  }

  private async loop(): Promise<void> {
    while (!this.stopping) {
      const wakeups = this.wakeups;
      let job: ClaimedJob | undefined;
      try {
        job = await this.queue.claim(this.workerId, this.options.leaseMs);
      } catch (error) {
        this.options.log.error({ err: error }, "claiming a job failed");
      }
      if (job)
        await this.process(job).catch((error) =>
          this.options.log.error({ err: error }, "recording a job's outcome failed"),
        );
      else if (wakeups === this.wakeups) await this.sleep(POLL_MS);
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.sleepers.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.sleepers.add(done);
    });
  }

  private async process(job: ClaimedJob): Promise<void> {
    const log = this.options.log.child({ jobId: job.id, workflow: job.workflow, attempt: job.attempt });
    const started = performance.now();
    const controller = new AbortController();
    this.running.set(job.id, controller);
    const heartbeat = setInterval(() => {
      this.queue.heartbeat(job.id, this.workerId, this.options.leaseMs).then(
        (held) => held || controller.abort("lease-lost" satisfies StopReason),
        (error) => log.warn({ err: error }, "heartbeat failed"),
      );
    }, this.options.leaseMs / 3);
    const progress = new ProgressWriter(
      (value, step) => this.queue.reportProgress(job.id, this.workerId, value, step),
      (error) => log.warn({ err: error }, "recording progress failed"),
    );
    const ended = (status: JobStatus) =>
      this.options.onJobEnded?.(job.workflow, status, (performance.now() - started) / 1000);
    try {
      if (job.attempt > MAX_ATTEMPTS) {
        const message = `The job was interrupted ${MAX_ATTEMPTS} times (its worker stopped) and was not run again.`;
        await this.queue.fail(job.id, this.workerId, {
          code: "INTERNAL_ERROR",
          title: JOB_ERROR_TITLES.INTERNAL_ERROR,
          message,
        });
        ended("FAILED");
        return;
      }
      log.info("job started");
      const run = await this.runner.run(job, controller.signal, (value, step) => progress.report(value, step));
      progress.stop();
      if (controller.signal.aborted || !(await this.queue.complete(job.id, this.workerId, run.result))) {
        await this.blobs.deletePrefix(run.resultPrefix);
        await this.afterStop(job, controller.signal.reason as StopReason | undefined, log);
        return;
      }
      log.info("job succeeded");
      ended("SUCCEEDED");
    } catch (error) {
      if (controller.signal.aborted) {
        await this.afterStop(job, controller.signal.reason as StopReason, log);
        return;
      }
      if (!(error instanceof JobFailure)) log.error({ err: error }, "job failed unexpectedly");
      const jobError = toJobError(error);
      await this.queue.fail(job.id, this.workerId, jobError);
      log.info({ code: jobError.code, reason: jobError.message }, "job failed");
      ended("FAILED");
    } finally {
      progress.stop();
      clearInterval(heartbeat);
      this.running.delete(job.id);
    }
  }

  private async afterStop(job: ClaimedJob, reason: StopReason | undefined, log: FastifyBaseLogger): Promise<void> {
    if (reason === "shutdown") {
      await this.queue.release(job.id, this.workerId);
      log.info("job returned to the queue at shutdown");
    } else if (reason === "cancelled") {
      log.info("job cancelled");
    } else {
      log.info({ reason: reason ?? "lease-lost" }, "job stopped");
    }
  }
}
