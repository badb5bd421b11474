import { collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import { JOB_STATUSES } from "../domain.ts";
import type { JobQueue } from "../store/job-queue.ts";
import type { MetadataStore } from "../store/metadata-store.ts";

export interface Metrics {
  registry: Registry;
  observeJob(workflow: string, status: string, seconds: number): void;
  observeRequest(method: string, route: string, statusCode: number, seconds: number): void;
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
  const httpDuration = new Histogram({
    name: "mixdown_http_request_duration_seconds",
    help: "HTTP request latency",
    labelNames: ["method", "route", "status_code"],
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
    registers: [registry],
  });
  // One labelled child per method, route and status, kept: resolving labels (or building a key string) on
  // every request costs more than the observation itself.
  type Child = ReturnType<typeof httpDuration.labels>;
  const httpChildren = new Map<string, Map<string, Map<number, Child>>>();
  return {
    registry,
    observeJob: (workflow, status, seconds) => jobDuration.observe({ workflow, status }, seconds),
    observeRequest: (method, route, statusCode, seconds) => {
      let byRoute = httpChildren.get(method);
      if (!byRoute) {
        byRoute = new Map();
        httpChildren.set(method, byRoute);
      }
      let byStatus = byRoute.get(route);
      if (!byStatus) {
        byStatus = new Map();
        byRoute.set(route, byStatus);
      }
      let child = byStatus.get(statusCode);
      if (!child) {
        child = httpDuration.labels(method, route, String(statusCode));
        byStatus.set(statusCode, child);
      }
      child.observe(seconds);
    },
  };
}
