import { collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import { JOB_STATUSES } from "../domain.ts";
import type { JobQueue } from "../store/job-queue.ts";
import type { MetadataStore } from "../store/metadata-store.ts";
import { RequestLatency } from "./request-latency.ts";

export interface Metrics {
  registry: Registry;
  observeJob(workflow: string, status: string, seconds: number): void;
  observeRequest(method: string, route: string, statusCode: number, seconds: number): void;
  /** Every metric in Prometheus' text format. */
  exposition(): Promise<string>;
}

/** Prometheus metrics: jobs by status and queue depth (read at scrape), job durations, HTTP latency. */
export function createMetrics(store: MetadataStore, queue: JobQueue): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: "mixdown_" });
  new Gauge({
    name: "mixdown_jobs",
    help: "Jobs by status",
    labelNames: ["status"],
    registers: [registry],
    async collect() {
      const counts = await store.countJobsByStatus();
      for (const status of JOB_STATUSES) this.set({ status }, counts[status]);
    },
  });
  new Gauge({
    name: "mixdown_queue_depth",
    help: "Jobs waiting to start",
    registers: [registry],
    async collect() {
      this.set(await queue.depth());
    },
  });
  const jobDuration = new Histogram({
    name: "mixdown_job_duration_seconds",
    help: "Time from start to end of a job run",
    labelNames: ["workflow", "status"],
    buckets: [0.1, 0.5, 1, 2, 5, 10, 30, 60, 120, 300, 600, 1800],
    registers: [registry],
  });
  const requestLatency = new RequestLatency();
  return {
    registry,
    observeJob: (workflow, status, seconds) => jobDuration.observe({ workflow, status }, seconds),
    observeRequest: (method, route, statusCode, seconds) => requestLatency.observe(method, route, statusCode, seconds),
    exposition: async () => (await registry.metrics()) + requestLatency.exposition(),
  };
}
