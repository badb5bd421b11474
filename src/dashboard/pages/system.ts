import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import type { FastifyBaseLogger, FastifyInstance } from "fastify";
import { JOB_STATUSES } from "../../domain.ts";
import { type StorageReading, StorageUsage } from "../../services/storage-usage.ts";
import type { DashboardContext } from "../context.ts";
import { fragment, view } from "../render.ts";
import { configRows } from "./system-config.ts";

const VERSION = (
  JSON.parse(fs.readFileSync(path.join(import.meta.dirname, "../../../package.json"), "utf8")) as { version: string }
).version;
/** "Recent" failures: of jobs created within this window. */
const FAILURE_WINDOW_MS = 24 * 3600 * 1000;

/** "1.4 GB" (powers of 1,000, like `df -H`). */
function bytes(n: number): string {
  const units = ["bytes", "kB", "MB", "GB", "TB"];
  let unit = 0;
  while (n >= 1000 && unit < units.length - 1) {
    n /= 1000;
    unit++;
  }
  return unit === 0 ? `${n} bytes` : `${n.toFixed(n < 10 ? 2 : 1)} ${units[unit]}`;
}

/** How long a page waits for a count under way when there is no figure yet: long enough for a small store. */
const STORAGE_WAIT_MS = 1500;

/** "5 s", "10 min". */
const age = (ms: number) => (ms < 120_000 ? `${Math.round(ms / 1000)} s` : `${Math.round(ms / 60_000)} min`);

/** The storage reading as the page shows it. */
const storageView = (reading: StorageReading) => ({
  ...reading,
  size: reading.usage ? bytes(reading.usage.bytes) : undefined,
  recountAfter: age(reading.recountAfterMs),
});

/** GET /dashboard/system: jobs and queue, workers, recent failures, storage, version, mode and configuration. */
export function systemPage(dashboard: FastifyInstance, { runtime }: DashboardContext): void {
  const storage = new StorageUsage(runtime.blobs);
  const logFailure = (log: FastifyBaseLogger) => (error: unknown) =>
    log.error({ err: error }, "counting stored files failed");
  // The first count starts with the server, so the figure is ready when the page is first opened.
  dashboard.addHook("onReady", async () => storage.start(logFailure(dashboard.log)));
  dashboard.addHook("onClose", async () => {
    await Promise.race([storage.settled, delay(2000, undefined, { ref: false })]);
  });
  const { config } = runtime;
  const distributed = config.databaseUrl !== undefined;
  const mode = {
    name: distributed ? "distributed" : "embedded",
    metadata: distributed ? "Postgres, queue in pg-boss" : `SQLite in ${config.dataDir}`,
    files: config.s3 ? `S3 bucket ${config.s3.bucket}` : `local disk, ${path.join(config.dataDir, "blobs")}`,
  };

  dashboard.get("/system", async (request, reply) => {
    const since = new Date(Date.now() - FAILURE_WINDOW_MS).toISOString();
    const [counts, depth, workers, failures] = await Promise.all([
      runtime.store.countJobsByStatus(),
      runtime.queue.depth(),
      runtime.store.runningJobsByWorker(),
      runtime.store.failuresByCode(since),
    ]);
    const reading = await storage.firstFigure(logFailure(request.log), STORAGE_WAIT_MS);
    return view(request, reply, "pages/system", {
      title: "System",
      counts: JOB_STATUSES.map((status) => ({ status, count: counts[status] })),
      total: JOB_STATUSES.reduce((sum, status) => sum + counts[status], 0),
      depth,
      workers: Object.entries(workers).sort(([a], [b]) => a.localeCompare(b)),
      failures,
      storage: storageView(reading),
      version: VERSION,
      mode,
      node: { host: os.hostname(), pid: process.pid, workers: runtime.pool ? config.workers : 0 },
      config: configRows(config),
      scripts: reading.counting ? ["live.js"] : [],
    });
  });

  // While a count runs, the page's storage part asks for this every 2 s and shows the figure once it is in.
  dashboard.get("/system/storage", async (request, reply) =>
    fragment(reply, "pages/system-storage", { storage: storageView(storage.current(logFailure(request.log))) }),
  );
}
